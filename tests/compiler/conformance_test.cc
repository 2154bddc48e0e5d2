// Conformance with docs/behavior.md and Codewhale's own code: the requirements
// allow-list, Plan never gains network, the Codex auth file and Codewhale
// home masks, protected names that are files and linked worktrees.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>

#include "absl/strings/match.h"
#include "compiler/deny_list.h"
#include "compiler/resolve.h"
#include "runtime/host/live_facts.h"
#include "tests/compiler/shares_network.h"
#include "tests/compiler/test_facts.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::compiler {
namespace {

using cwsc::testing::CompileText;
using cwsc::testing::FactsBuilder;
using ir::PlanKind;
using ir::PolicyType;

ir::LaunchPlan Plan(const std::string& config, const FactsBuilder& f, const std::string& mode) {
  auto r = CompileText(config, f, mode);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->plan : ir::LaunchPlan{};
}

std::string ErrorOf(const std::string& config, const FactsBuilder& f, const std::string& mode) {
  auto r = CompileText(config, f, mode);
  return r.ok() ? "" : std::string(r.status().message());
}

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Item 3: the requirements file (docs/behavior.md B-1, B-3 step 4).
FactsBuilder WithRequirements(const std::string& text,
                              const std::string& path = "/etc/codewhale/requirements.toml") {
  FactsBuilder f;
  f.File(path).Content(path, text);
  return f;
}

TEST(Requirements, DisallowedConfiguredModeIsALoadError) {
  FactsBuilder f =
      WithRequirements("allowed_sandbox_modes = [\"Read-Only\", \"workspace-write\"]\n");
  cwsc::testing::ConfigFile cfg("sandbox_mode = \"danger-full-access\"\n");
  auto facts = f.Build();
  CompileOptions o;
  o.config_path = cfg.path();
  o.mode = "full-access";
  auto r = CompileConfig(o, facts.get());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      cfg.path() +
          ":1:16: error: sandbox_mode 'danger-full-access' is not allowed by "
          "requirements (/etc/codewhale/requirements.toml allows read-only, workspace-write)\n"
          "  sandbox_mode = \"danger-full-access\"\n"
          "                 ^\n");
  // An allowed value, in any case, compiles.
  EXPECT_EQ(Plan("sandbox_mode = \" READ-only\"", f, "ask").policy.type, PolicyType::kReadOnly);
}

TEST(Requirements, EffectivePolicyOutsideTheListIsRefused) {
  FactsBuilder f =
      WithRequirements("allowed_sandbox_modes = [\"read-only\", \"workspace-write\"]\n");
  ir::LaunchPlan p = Plan("", f, "full-access");
  EXPECT_EQ(p.kind(), PlanKind::kRefused);
  ASSERT_TRUE(p.refusal() != nullptr);
  EXPECT_EQ(p.refusal()->reason,
            "the policy danger-full-access is not allowed by requirements "
            "(/etc/codewhale/requirements.toml allows read-only, workspace-write)");
  EXPECT_EQ(p.refusal()->origin.file, "/etc/codewhale/requirements.toml");
  EXPECT_EQ(Plan("", f, "ask").kind(), PlanKind::kLinuxBwrap);
}

TEST(Requirements, PathFromKeyEnvAndLegacyDefault) {
  FactsBuilder legacy = WithRequirements("allowed_sandbox_modes = [\"read-only\"]\n",
                                         "/etc/deepseek/requirements.toml");
  EXPECT_EQ(Plan("", legacy, "ask").kind(), PlanKind::kRefused);
  FactsBuilder f = WithRequirements("allowed_sandbox_modes = [\"read-only\"]\n", "/srv/req.toml");
  EXPECT_EQ(Plan("", f, "ask").kind(), PlanKind::kLinuxBwrap);  // not at a default path
  EXPECT_EQ(Plan("requirements_path = \"/srv/req.toml\"", f, "ask").kind(), PlanKind::kRefused);
  f.Env("CODEWHALE_REQUIREMENTS_PATH", "/srv/req.toml");
  EXPECT_EQ(Plan("", f, "ask").kind(), PlanKind::kRefused);
}

TEST(Requirements, BadFileIsLocated) {
  EXPECT_EQ(ErrorOf("", WithRequirements("allowed_sandbox_modes = [\"sometimes\"]\n"), "ask"),
            "/etc/codewhale/requirements.toml:1:26: error: Invalid sandbox_mode 'sometimes': "
            "expected read-only, workspace-write, danger-full-access, or external-sandbox.\n"
            "  allowed_sandbox_modes = [\"sometimes\"]\n"
            "                           ^\n");
  EXPECT_EQ(ErrorOf("", WithRequirements("allowed_sandbox_modes = \"read-only\"\n"), "ask"),
            "/etc/codewhale/requirements.toml:1:25: error: 'allowed_sandbox_modes' must be a list "
            "of strings, not a string\n"
            "  allowed_sandbox_modes = \"read-only\"\n"
            "                          ^\n");
}

TEST(Requirements, MoreBadFiles) {
  EXPECT_EQ(ErrorOf("", WithRequirements("allowed_sandbox_modes = []\n"), "ask"),
            "/etc/codewhale/requirements.toml:1:25: error: 'allowed_sandbox_modes' must not be "
            "empty\n"
            "  allowed_sandbox_modes = []\n"
            "                          ^\n");
  EXPECT_EQ(ErrorOf("", WithRequirements("allowed_sandbox_modes = [1]\n"), "ask"),
            "/etc/codewhale/requirements.toml:1:26: error: 'allowed_sandbox_modes' entries must be "
            "strings, not an integer\n"
            "  allowed_sandbox_modes = [1]\n"
            "                           ^\n");
  FactsBuilder dir;
  dir.Dir("/etc/codewhale/requirements.toml");
  EXPECT_EQ(ErrorOf("", dir, "ask"),
            "/etc/codewhale/requirements.toml: error: the requirements file exists but cannot be "
            "read (it must be a regular file of at most 64 KiB)\n");
}

TEST(Profiles, ProfileMustBeAString) {
  FactsBuilder f;
  auto r = CompileText("profile = 1\n", f, "ask");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message())
                .find(":1:11: error: 'profile' must be a string, not an "
                      "integer\n  profile = 1\n            ^\n"),
            std::string::npos)
      << r.status();
}

TEST(RecordedFactsUnlisted, ValueIsChecked) {
  auto bad = ParseRecordedFacts("cwsc_facts: 1\nunlisted: maybe\n", "f.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "f.yaml:2:11: error: unlisted must be missing or error\n"
            "  unlisted: maybe\n"
            "            ^\n");
  auto strict = ParseRecordedFacts("cwsc_facts: 1\nunlisted: error\n", "f.yaml");
  ASSERT_TRUE(strict.ok());
  (*strict)->Path("/nowhere");
  EXPECT_EQ((*strict)->UnlistedPaths(), std::vector<std::string>{"/nowhere"});
  auto lax = ParseRecordedFacts("cwsc_facts: 1\n", "f.yaml");
  ASSERT_TRUE(lax.ok());
  (*lax)->Path("/nowhere");
  EXPECT_TRUE((*lax)->UnlistedPaths().empty());
}

// Item 4: Plan is read-only without network, whatever a config says.
TEST(PlanMode, NetworkKeyNeverWidensPlan) {
  FactsBuilder f;
  ir::LaunchPlan p = Plan("sandbox_network_access = true", f, "plan");
  EXPECT_FALSE(p.policy.network_access);
  EXPECT_FALSE(testing::SharesNetwork(p));
  bool said = false;
  for (const auto& s : p.skipped) {
    if (s.what != "network access") continue;
    said = true;
    EXPECT_EQ(
        s.reason,
        "read-only with network exists only in full-access mode; the plan mode has no network");
    EXPECT_EQ(s.origin.detail, "sandbox_network_access");
  }
  EXPECT_TRUE(said);
  // Ask narrowed to read-only: also no network; full access narrowed to
  // read-only is the read-only + network variant.
  EXPECT_FALSE(testing::SharesNetwork(
      Plan("sandbox_mode = \"read-only\"\nsandbox_network_access = true", f, "ask")));
  ir::LaunchPlan fa =
      Plan("sandbox_mode = \"read-only\"\nsandbox_network_access = true", f, "full-access");
  EXPECT_TRUE(fa.policy.network_access);
  EXPECT_TRUE(testing::SharesNetwork(fa));
}

// Item 5, 6, 8: the Codex auth file, the Codewhale home, and their order.
TEST(DenyOrder, HomesAndAuthFileFollowTheMachineWideEntries) {
  FactsBuilder f;
  auto facts = f.Build();
  std::vector<BuiltinDenyRule> rules = BuiltinDenyRules(*facts, "linux", "/home/dev");
  size_t first_home = 0;
  while (first_home < rules.size() && absl::StartsWith(rules[first_home].path, "/etc/"))
    ++first_home;
  ASSERT_GE(rules.size(), first_home + 5);
  std::vector<std::string> next;
  for (size_t i = first_home; i < first_home + 5; ++i) next.push_back(rules[i].path);
  EXPECT_EQ(next, (std::vector<std::string>{
                      "/home/dev/.codewhale/secrets", "/home/dev/.codewhale/credentials",
                      "/home/dev/.deepseek/secrets", "/home/dev/.deepseek/credentials",
                      "/home/dev/.codex/auth.json"}));
  EXPECT_EQ(rules[first_home].label, "~/.codewhale/secrets");
  EXPECT_EQ(rules[first_home + 4].label, "~/.codex/auth.json");
}

TEST(DenyOrder, CodexAuthFileVariable) {
  FactsBuilder f;
  f.Env("OPENAI_CODEX_AUTH_FILE", "/srv/codex-auth.json").Env("CODEX_HOME", "/srv/codex");
  auto facts = f.Build();
  std::vector<std::string> paths;
  std::vector<std::string> labels;
  for (const auto& r : BuiltinDenyRules(*facts, "linux", "/home/dev")) {
    paths.push_back(r.path);
    labels.push_back(r.label);
  }
  EXPECT_TRUE(Has(paths, "/srv/codex-auth.json"));
  EXPECT_TRUE(Has(labels, "$OPENAI_CODEX_AUTH_FILE"));
  EXPECT_FALSE(Has(paths, "/srv/codex/auth.json"));
  EXPECT_FALSE(Has(paths, "/home/dev/.codex/auth.json"));
  FactsBuilder g;
  g.Env("OPENAI_CODEX_AUTH_FILE", "  ~/auth/codex.json ").Env("CODEX_HOME", " ~/cx ");
  auto gf = g.Build();
  paths.clear();
  for (const auto& r : BuiltinDenyRules(*gf, "linux", "/home/dev")) paths.push_back(r.path);
  EXPECT_TRUE(Has(paths, "/home/dev/auth/codex.json"));
  FactsBuilder h;
  h.Env("CODEX_HOME", " ~/cx ").Env("OPENAI_CODEX_AUTH_FILE", "");
  auto hf = h.Build();
  paths.clear();
  for (const auto& r : BuiltinDenyRules(*hf, "linux", "/home/dev")) paths.push_back(r.path);
  EXPECT_TRUE(Has(paths, "/home/dev/cx/auth.json"));
}

TEST(DenyOrder, CodewhaleHomeIsTrimmedAndExpanded) {
  for (const std::string v : {"~/cwh", " ~/cwh\t", "$HOME/cwh", "/home/dev/cwh/"}) {
    FactsBuilder f;
    f.Env("CODEWHALE_HOME", v);
    auto facts = f.Build();
    std::vector<std::string> paths;
    for (const auto& r : BuiltinDenyRules(*facts, "linux", "/home/dev")) paths.push_back(r.path);
    EXPECT_TRUE(Has(paths, "/home/dev/cwh/secrets")) << v;
    EXPECT_TRUE(Has(paths, "/home/dev/cwh/credentials")) << v;
  }
}

// Item 7: protected names that are files, and .git in a linked worktree.
TEST(ProtectedNames, FilesAreProtected) {
  FactsBuilder f;
  f.File("/home/dev/ws/.env").Dir("/home/dev/ws/.git");
  ir::LaunchPlan p = Plan("sandbox_protected_names = [\".env\", \".git\"]", f, "ask");
  std::vector<std::string> ro;
  for (const auto& m : p.mounts()) {
    if (m.op == ir::MountOp::kReadOnlyBind) ro.push_back(m.dest);
  }
  EXPECT_TRUE(Has(ro, "/home/dev/ws/.env"));
  EXPECT_TRUE(Has(ro, "/home/dev/ws/.git"));
}

std::string Git(const std::vector<std::string>& args, const std::string& cwd) {
  std::vector<std::string> argv = {"git",         "-c", "user.email=t@t",         "-c",
                                   "user.name=t", "-c", "init.defaultBranch=main"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = cwsc::testing::Run(argv, "", {}, cwd);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(ProtectedNames, GitInALinkedWorktreeStaysReadOnly) {
  cwsc::testing::TempDir t;
  std::string main = t / "main", wt = t / "feature";
  mkdir(main.c_str(), 0755);
  Git({"init", "-q"}, main);
  Git({"commit", "-q", "--allow-empty", "-m", "x"}, main);
  Git({"worktree", "add", "-q", wt}, main);
  char real_main[PATH_MAX], real_wt[PATH_MAX];
  ASSERT_NE(realpath(main.c_str(), real_main), nullptr);
  ASSERT_NE(realpath(wt.c_str(), real_wt), nullptr);
  std::string common = std::string(real_main) + "/.git";
  auto facts = runtime::MakeLiveFacts();
  cwsc::testing::ConfigFile cfg("sandbox_protected_names = [\".git\"]\n");
  CompileOptions o;
  o.config_path = cfg.path();
  o.cwd = real_wt;
  auto r = CompileConfig(o, facts.get());
  ASSERT_TRUE(r.ok()) << r.status();
  const ir::LaunchPlan& p = r->plan;
  for (const auto& m : p.mounts()) {
    if (m.op == ir::MountOp::kWritableBind) {
      EXPECT_FALSE(PathStartsWith(m.dest, common)) << m.dest;
    }
  }
  bool skipped = false;
  for (const auto& s : p.skipped) {
    if (s.path == common && s.what == "worktree metadata") {
      skipped = true;
      EXPECT_EQ(s.reason, "kept read-only: '.git' is in sandbox_protected_names");
    }
  }
  EXPECT_TRUE(skipped);
  bool warned = false;
  for (const auto& w : p.warnings) {
    if (w.code == "protected-git-worktree") {
      warned = true;
      EXPECT_EQ(w.message, "'.git' is protected: the git metadata of the worktree " +
                               std::string(real_wt) + " (" + common +
                               " and its worktrees entry) stays read-only, so git cannot commit "
                               "there");
    }
  }
  EXPECT_TRUE(warned);
  // The worktree's own .git file is protected too.
  bool file_protected = false;
  for (const auto& m : p.mounts()) {
    file_protected = file_protected || (m.op == ir::MountOp::kReadOnlyBind &&
                                        m.dest == std::string(real_wt) + "/.git");
  }
  EXPECT_TRUE(file_protected);
  // The main .git lies under the shared host /tmp here: re-bound read-only.
  if (PathStartsWith(common, "/tmp")) {
    bool common_ro = false;
    for (const auto& m : p.mounts())
      common_ro = common_ro || (m.op == ir::MountOp::kReadOnlyBind && m.dest == common);
    EXPECT_TRUE(common_ro);
  }
  size_t warnings = 0;
  for (const auto& w : p.warnings) warnings += w.code == "protected-git-worktree";
  EXPECT_EQ(warnings, 1u);
  // Without the name the metadata is writable (docs/behavior.md B-21): as
  // roots of its own, or, when it lies inside a writable root of the run
  // (the shared /tmp here), through that root, with no root of its own (a
  // command could have forged it there; issue 26).
  cwsc::testing::ConfigFile plain("");
  o.config_path = plain.path();
  auto r2 = CompileConfig(o, facts.get());
  ASSERT_TRUE(r2.ok());
  bool common_bound = false;
  for (const auto& m : r2->plan.mounts()) {
    common_bound =
        common_bound || (m.op == ir::MountOp::kWritableBind && PathStartsWith(common, m.dest));
  }
  EXPECT_TRUE(common_bound);
}

// Item 9: `..` in bwrap_ro_roots follows the symlink before it, as realpath does.
// Outside every writable root (a symlink inside one is suspect, see
// tests/compiler/hardening_test.cc): under /var/tmp, workspace beside it.
TEST(RoRoots, DotDotAfterASymlinkIsCanonicalized) {
  cwsc::testing::TempDir t("/var/tmp");
  char real[PATH_MAX];
  ASSERT_NE(realpath(t.path().c_str(), real), nullptr);
  std::string base = real;
  mkdir((base + "/a").c_str(), 0755);
  mkdir((base + "/a/b").c_str(), 0755);
  mkdir((base + "/a/c").c_str(), 0755);
  mkdir((base + "/c").c_str(), 0755);  // where a lexical `..` would land
  mkdir((base + "/ws").c_str(), 0755);
  ASSERT_EQ(symlink((base + "/a/b").c_str(), (base + "/link").c_str()), 0);
  // A symlink in a directory the command's user owns or may write is
  // suspect (tests/compiler/hardening_test.cc): this one's is another
  // user's, read-only (which needs root to make).
  if (chown(base.c_str(), 65534, 65534) != 0) {
    GTEST_SKIP() << "needs root, to give the link's directory to another user";
  }
  ASSERT_EQ(chmod(base.c_str(), 0555), 0);
  auto facts = runtime::MakeLiveFacts();
  cwsc::testing::ConfigFile cfg("bwrap_ro_roots = [\"" + base + "/link/../c\"]\n");
  CompileOptions o;
  o.config_path = cfg.path();
  o.cwd = base + "/ws";
  auto r = CompileConfig(o, facts.get());
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> ro;
  for (const auto& m : r->plan.mounts()) {
    if (m.op == ir::MountOp::kReadOnlyBind && m.why == "extra read-only root") ro.push_back(m.dest);
  }
  EXPECT_EQ(ro, std::vector<std::string>{base + "/a/c"});
  chmod(base.c_str(), 0755);  // for TempDir's removal
}

}  // namespace
}  // namespace cwsc::compiler
