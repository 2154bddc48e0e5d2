// ExecutePlan's pieces: the child environment, the dispatch on plan kind,
// and the exec-time re-checks, with plans compiled by the real compiler from
// recorded host facts and re-checked against changed facts.
#include "runtime/execute.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "compiler/compile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/constants.h"
#include "nlohmann/json.hpp"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Src(const std::string& rel) {
  const char* root = std::getenv("CWSC_SOURCE_ROOT");
  return std::string(root != nullptr ? root : ".") + "/" + rel;
}

// The example host, plus /dev/null (the deny masks bind it; the example file
// lists only what a compile consults).
std::string WorkspaceFacts() {
  return absl::StrReplaceAll(
      testing::ReadFileOr(Src("examples/facts/linux-workspace.yaml")),
      {{"paths:\n",
        "paths:\n  /dev/null: {type: char-device, canonical: /dev/null, mode: \"0666\", "
        "uid: 0, gid: 0}\n"}});
}

std::unique_ptr<compiler::HostFacts> Facts(const std::string& yaml) {
  auto f = compiler::ParseRecordedFacts(yaml, "facts.yaml");
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? std::move(*f) : nullptr;
}

ir::LaunchPlan Compile(const std::string& yaml, const std::string& mode = "ask",
                       const std::string& config = "examples/workspace.toml") {
  auto facts = Facts(yaml);
  compiler::CompileOptions o;
  o.config_path = config[0] == '/' ? config : Src(config);
  o.mode = mode;
  auto r = compiler::CompileConfig(o, facts.get());
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->plan : ir::LaunchPlan{};
}

std::string Recheck(const ir::LaunchPlan& plan, const std::string& yaml) {
  auto facts = Facts(yaml);
  absl::Status s = RecheckPlan(plan, facts.get());
  if (s.ok()) return "ok";
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  return std::string(s.message());
}

TEST(ChildEnvTest, AllowListThenMarkers) {
  ir::LaunchPlan plan;
  plan.env_allow = {"PATH", "HOME", "LC_*", "DOTNET_*", "TERM"};
  plan.env_set = {{"CODEWHALE_SANDBOX", "bwrap", {}}, {"TERM", "dumb", {}}};
  std::vector<std::string> parent = {"PATH=/bin",      "SECRET=x", "lc_all=C",   "LC_TIME=C.UTF-8",
                                     "DOTNET_ROOT=/d", "HOMEX=1",  "TERM=xterm", "HOME=/h",
                                     "=bad",           "NOEQUALS"};
  EXPECT_THAT(ChildEnv(plan, parent),
              ElementsAre("PATH=/bin", "lc_all=C", "LC_TIME=C.UTF-8", "DOTNET_ROOT=/d", "TERM=dumb",
                          "HOME=/h", "CODEWHALE_SANDBOX=bwrap"));
}

TEST(ChildEnvTest, CompiledPlanAllowList) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  ASSERT_EQ(plan.kind(), ir::PlanKind::kLinuxBwrap);
  std::vector<std::string> env = ChildEnv(plan, {"PATH=/usr/bin", "AWS_SECRET_ACCESS_KEY=k",
                                                 "HTTPS_PROXY=http://p:3128", "SSH_AUTH_SOCK=/s"});
  EXPECT_THAT(env, ElementsAre("PATH=/usr/bin", "HTTPS_PROXY=http://p:3128",
                               "CODEWHALE_SANDBOX=bwrap", "DEEPSEEK_SANDBOX=bwrap"));
}

TEST(PrepareCommandTest, DispatchOnKind) {
  ir::LaunchPlan plan;
  plan.launch = ir::Refusal{"unsupported sandbox_backend 'x'", {}};
  auto r = PrepareCommand(plan, {"true"}, {});
  EXPECT_EQ(r.status().message(), "unsupported sandbox_backend 'x'");
  plan.launch = ir::Remote{};
  EXPECT_EQ(PrepareCommand(plan, {"true"}, {}).status().message(),
            "opensandbox plans run on a remote OpenSandbox server (ExecutePlan sends them "
            "there); there is no local command to prepare");
  plan.launch = ir::Seatbelt{};
  EXPECT_EQ(PrepareCommand(plan, {"true"}, {}).status().message(),
            "macos-seatbelt plans run only on macOS (sandbox-exec); this runtime executes "
            "linux-bwrap, launcher+bwrap and none plans");
  plan.launch = ir::Unconfined{};
  plan.policy.type = ir::PolicyType::kDangerFullAccess;
  plan.cwd = "/w";
  auto none = PrepareCommand(plan, {"sh", "-c", "x"}, {});
  ASSERT_TRUE(none.ok());
  EXPECT_THAT(none->argv, ElementsAre("sh", "-c", "x"));
  EXPECT_EQ(none->cwd, "/w");
  EXPECT_TRUE(none->warnings.empty());
  EXPECT_EQ(PrepareCommand(plan, {}, {}).status().message(), "no program given after `--`");
}

TEST(PrepareCommandTest, BwrapArgvEndsWithProgramUnchanged) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  auto cmd = PrepareCommand(plan, {"sh", "-c", "echo 'a b'"}, {});
  ASSERT_TRUE(cmd.ok()) << cmd.status();
  EXPECT_EQ(cmd->sandbox_kind, "linux-bwrap");
  EXPECT_EQ(cmd->argv.front(), "/usr/bin/bwrap");
  ASSERT_GE(cmd->argv.size(), 4u);
  EXPECT_THAT(std::vector<std::string>(cmd->argv.end() - 4, cmd->argv.end()),
              ElementsAre("--", "sh", "-c", "echo 'a b'"));
  EXPECT_FALSE(cmd->cwd.has_value()) << "bwrap does the --chdir";
}

TEST(PrepareCommandTest, UnsandboxedFallbackWarns) {
  std::string yaml = absl::StrReplaceAll(
      WorkspaceFacts(), {{"bwrap_probe: {ran: true, ok: true, exit_code: 0, message: \"\"}",
                          "bwrap_probe: {ran: true, ok: false, exit_code: 1, message: \"bwrap: "
                          "No permissions to creating new namespace\"}"}});
  ir::LaunchPlan plan = Compile(yaml);
  ASSERT_EQ(plan.kind(), ir::PlanKind::kNone);
  auto cmd = PrepareCommand(plan, {"true"}, {});
  ASSERT_TRUE(cmd.ok());
  ASSERT_EQ(cmd->warnings.size(), 1u);
  EXPECT_EQ(cmd->warnings[0],
            "the command runs without a sandbox although the policy is workspace-write (local "
            "wrapper: probe failed: bwrap: No permissions to creating new namespace)");
}

TEST(RecheckTest, UnchangedHostPasses) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  EXPECT_EQ(Recheck(plan, WorkspaceFacts()), "ok");
}

TEST(RecheckTest, PlatformMustMatch) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  std::string yaml =
      absl::StrReplaceAll(WorkspaceFacts(), {{"platform: linux", "platform: macos"}});
  EXPECT_EQ(Recheck(plan, yaml), "the plan was compiled for linux, but this host is macos");
}

TEST(RecheckTest, BwrapMissingOrNotExecutable) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  std::string gone =
      absl::StrReplaceAll(WorkspaceFacts(), {{"  /usr/bin/bwrap: {type: file, canonical: "
                                              "/usr/bin/bwrap, mode: \"0755\", uid: 0, gid: 0}\n",
                                              ""}});
  EXPECT_EQ(Recheck(plan, gone),
            "/usr/bin/bwrap was a file when the plan was compiled and is missing now; compile the "
            "plan again");
  std::string noexec = absl::StrReplaceAll(
      WorkspaceFacts(),
      {{"/usr/bin/bwrap: {type: file, canonical: /usr/bin/bwrap, mode: \"0755\"",
        "/usr/bin/bwrap: {type: file, canonical: /usr/bin/bwrap, mode: \"0644\""}});
  EXPECT_EQ(Recheck(plan, noexec),
            "/usr/bin/bwrap was of mode 0755 when the plan was compiled and is of mode 0644 now; "
            "compile the plan again");
}

TEST(RecheckTest, ProbeFailureRefusesWithBwrapsMessage) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  std::string yaml = absl::StrReplaceAll(
      WorkspaceFacts(), {{"bwrap_probe: {ran: true, ok: true, exit_code: 0, message: \"\"}",
                          "bwrap_probe: {ran: true, ok: false, exit_code: 1, message: \"bwrap: "
                          "setting up uid map: Permission denied\"}"}});
  EXPECT_EQ(Recheck(plan, yaml),
            "the plan needs bubblewrap, but it does not work on this host: bwrap: setting up uid "
            "map: Permission denied (run `cwsc doctor` for the cause)");
}

TEST(RecheckTest, WritableRootGoneOrMoved) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  size_t index = 0;
  for (size_t i = 0; i < plan.mounts().size(); ++i) {
    if (plan.mounts()[i].op == ir::MountOp::kWritableBind &&
        plan.mounts()[i].source == "/home/dev/proj")
      index = i + 1;
  }
  ASSERT_GT(index, 0u) << "the plan binds the workspace";
  std::string moved = absl::StrReplaceAll(
      WorkspaceFacts(),
      {{"/home/dev/proj: {type: directory, canonical: /home/dev/proj,",
        "/home/dev/proj: {type: directory, symlink: true, canonical: /srv/other,"}});
  EXPECT_EQ(Recheck(plan, moved),
            "/home/dev/proj (mount " + std::to_string(index) +
                ": writable root (configured)) was a directory when the plan was compiled and is "
                "a symlink to a directory now; compile the plan again");
  std::string gone = absl::StrReplaceAll(
      WorkspaceFacts(),
      {{"  /home/dev/proj: {type: directory, canonical: /home/dev/proj, mode: \"0755\", uid: 1000, "
        "gid: 1000}\n",
        ""}});
  EXPECT_EQ(Recheck(plan, gone),
            "/home/dev/proj (mount " + std::to_string(index) +
                ": writable root (configured)) was a directory when the plan was compiled and is "
                "missing now; compile the plan again");
}

TEST(RecheckTest, DeniedPathThatAppearedRefuses) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  std::string yaml = WorkspaceFacts() + "";  // .aws was missing at compile time; now it exists
  yaml = absl::StrReplaceAll(
      yaml, {{"paths:\n",
              "paths:\n  /home/dev/.aws: {type: directory, canonical: /home/dev/.aws, "
              "mode: \"0700\", uid: 1000, gid: 1000}\n"}});
  EXPECT_EQ(Recheck(plan, yaml),
            "/home/dev/.aws (denied path ~/.aws) was missing when the plan was compiled and is a "
            "directory now; compile the plan again");
}

TEST(RecheckTest, ProtectedDirectoryThatAppearedRefuses) {
  std::string without = absl::StrReplaceAll(
      WorkspaceFacts(),
      {{"  /home/dev/proj/.codewhale: {type: directory, canonical: /home/dev/proj/.codewhale, "
        "mode: \"0755\", uid: 1000, gid: 1000}\n",
        ""}});
  ASSERT_NE(without, WorkspaceFacts());
  ir::LaunchPlan plan = Compile(without);
  EXPECT_EQ(Recheck(plan, without), "ok");
  // The compile put a read-only placeholder at the missing name, so the
  // directory that appears later is covered.
  EXPECT_EQ(Recheck(plan, WorkspaceFacts()), "ok");
  // A plan without the placeholder (edited, or from an older cwsc) is refused.
  std::vector<ir::Mount> kept;
  for (const ir::Mount& m : plan.mounts()) {
    if (m.dest != "/home/dev/proj/.codewhale") kept.push_back(m);
  }
  ASSERT_LT(kept.size(), plan.mounts().size());
  plan.bwrap()->mounts = kept;
  EXPECT_EQ(Recheck(plan, WorkspaceFacts()),
            "/home/dev/proj/.codewhale was missing when the plan was compiled and is a directory "
            "now; compile the plan again");
}

TEST(RecheckTest, MaskTargetChangedType) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  size_t ssh = 0, netrc = 0;
  for (size_t i = 0; i < plan.mounts().size(); ++i) {
    if (plan.mounts()[i].dest == "/home/dev/.ssh") ssh = i + 1;
    if (plan.mounts()[i].dest == "/home/dev/.netrc") netrc = i + 1;
  }
  ASSERT_GT(ssh, 0u);
  ASSERT_GT(netrc, 0u);
  std::string ssh_is_file = absl::StrReplaceAll(
      WorkspaceFacts(), {{"/home/dev/.ssh: {type: directory, canonical: /home/dev/.ssh,",
                          "/home/dev/.ssh: {type: file, canonical: /home/dev/.ssh,"}});
  EXPECT_EQ(Recheck(plan, ssh_is_file),
            "mount " + std::to_string(ssh) +
                " (--tmpfs /home/dev/.ssh: deny read ~/.ssh) expects a directory, but "
                "/home/dev/.ssh is now file; compile the plan again");
  std::string netrc_is_dir = absl::StrReplaceAll(
      WorkspaceFacts(), {{"/home/dev/.netrc: {type: file, canonical: /home/dev/.netrc,",
                          "/home/dev/.netrc: {type: directory, canonical: /home/dev/.netrc,"}});
  EXPECT_EQ(Recheck(plan, netrc_is_dir),
            "mount " + std::to_string(netrc) +
                " (deny read ~/.netrc) masks the file /home/dev/.netrc, which is now a "
                "directory; compile the plan again");
}

TEST(RecheckTest, WorkingDirectoryHiddenInsideTheSandbox) {
  std::string yaml =
      absl::StrReplaceAll(WorkspaceFacts(), {{"cwd: /home/dev/proj", "cwd: /home/dev/.ssh"}});
  ir::LaunchPlan plan = Compile(yaml, "plan");
  ASSERT_EQ(plan.kind(), ir::PlanKind::kLinuxBwrap);
  EXPECT_EQ(Recheck(plan, yaml),
            "the working directory /home/dev/.ssh would not be visible inside the sandbox "
            "(hidden by `--tmpfs /home/dev/.ssh`); run from a directory outside it or choose a "
            "mode that binds it");
}

TEST(RecheckTest, AnotherHomeRefuses) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  std::string yaml =
      absl::StrReplaceAll(WorkspaceFacts(), {{"  HOME: /home/dev\n", "  HOME: /home/eve\n"}});
  ASSERT_NE(yaml, WorkspaceFacts());
  EXPECT_EQ(Recheck(plan, yaml),
            "the environment variable HOME was '/home/dev' when the plan was compiled and is "
            "'/home/eve' now; compile the plan again");
  // The answer is replayed as given: another spelling is another answer.
  yaml = absl::StrReplaceAll(WorkspaceFacts(), {{"  HOME: /home/dev\n", "  HOME: /home/dev/\n"}});
  EXPECT_EQ(Recheck(plan, yaml),
            "the environment variable HOME was '/home/dev' when the plan was compiled and is "
            "'/home/dev/' now; compile the plan again");
}

// The recheck replays every question the compile asked (runtime/replay.h):
// each kind of answer, changed alone, refuses with the old and new answer.
TEST(RecheckTest, EveryConsultedAnswerIsAskedAgain) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  ASSERT_TRUE(plan.consulted.has_value());
  const ir::Consulted& c = *plan.consulted;
  ASSERT_TRUE(c.uid.has_value());  // HOME is set: the passwd entry is not read
  EXPECT_GT(c.paths.size(), 20u);
  // Each path once, in the order first asked.
  std::vector<std::string> paths;
  for (const ir::ConsultedPath& p : c.paths) paths.emplace_back(p.path);
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(std::adjacent_find(paths.begin(), paths.end()), paths.end());
  size_t ws = 0;
  for (size_t i = 0; i < plan.mounts().size(); ++i) {
    if (plan.mounts()[i].source == "/home/dev/proj") ws = i + 1;
  }
  ASSERT_GT(ws, 0u);
  struct Case {
    std::string from, to, refusal;
  };
  const std::vector<Case> cases = {
      {"user: {uid: 1000, gid: 1000, groups: [1000, 27]",
       "user: {uid: 1001, gid: 1000, groups: [1000, 27]",
       "the user's uid was 1000 when the plan was compiled and is 1001 now"},
      {"  TMPDIR: /var/tmp/dev\n", "  TMPDIR: /var/tmp/eve\n",
       "the environment variable TMPDIR was '/var/tmp/dev' when the plan was compiled and is "
       "'/var/tmp/eve' now"},
      {"/home/dev/proj: {type: directory, canonical: /home/dev/proj, mode: \"0755\"",
       "/home/dev/proj: {type: directory, canonical: /home/dev/proj, mode: \"0777\"",
       "/home/dev/proj (mount " + std::to_string(ws) +
           ": writable root (configured)) was of mode 0755 when the plan was compiled and is of "
           "mode 0777 now"},
      {"/home/dev/proj: {type: directory, canonical: /home/dev/proj, mode: \"0755\", uid: 1000",
       "/home/dev/proj: {type: directory, canonical: /home/dev/proj, mode: \"0755\", uid: 0",
       "/home/dev/proj (mount " + std::to_string(ws) +
           ": writable root (configured)) was owned by 1000:1000 when the plan was compiled and "
           "is owned by 0:1000 now"},
  };
  for (const Case& k : cases) {
    std::string yaml = absl::StrReplaceAll(WorkspaceFacts(), {{k.from, k.to}});
    ASSERT_NE(yaml, WorkspaceFacts()) << k.from;
    std::string got = Recheck(plan, yaml);
    EXPECT_THAT(got, ::testing::StartsWith(k.refusal)) << k.from;
    EXPECT_THAT(got, ::testing::EndsWith("; compile the plan again")) << k.from;
  }
  // An API key variable: set or unset, never its value.
  std::string keyed =
      absl::StrReplaceAll(WorkspaceFacts(), {{"secrets_set: {CODEWHALE_SANDBOX_API_KEY: false}",
                                              "secrets_set: {CODEWHALE_SANDBOX_API_KEY: true}"}});
  ASSERT_NE(keyed, WorkspaceFacts());
  EXPECT_EQ(Recheck(plan, keyed),
            "the environment variable CODEWHALE_SANDBOX_API_KEY was unset when the plan was "
            "compiled and is set now; compile the plan again");
  // A plan without the record (made by hand) is not run.
  ir::LaunchPlan bare = plan;
  bare.consulted.reset();
  EXPECT_EQ(Recheck(bare, WorkspaceFacts()),
            "the plan records none of the facts its compile consulted (made by hand or edited); "
            "compile the plan again");
}

// The recheck asks again what the compile asked, and no more. A compile
// that needed only the user id (HOME named the home directory) records the
// uid alone: the user's groups, name, primary group or passwd home changing
// does not refuse its plan, and the recheck looks nothing up in the passwd
// database. A compile that read the passwd entry (no HOME) records all of it.
TEST(RecheckTest, TheUserIsRecordedAsFarAsTheCompileAskedForIt) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  ASSERT_TRUE(plan.consulted.has_value());
  const std::vector<std::pair<std::string, std::string>> unasked = {
      {"groups: [1000, 27]", "groups: [1000]"},
      {"name: dev", "name: eve"},
      {"home: /home/dev}", "home: /home/eve}"},
      {"gid: 1000, groups", "gid: 100, groups"},
  };
  for (const auto& [from, to] : unasked) {
    std::string yaml = absl::StrReplaceAll(WorkspaceFacts(), {{from, to}});
    ASSERT_NE(yaml, WorkspaceFacts()) << from;
    EXPECT_EQ(Recheck(plan, yaml), "ok") << from;
  }
  std::string other_uid =
      absl::StrReplaceAll(WorkspaceFacts(), {{"user: {uid: 1000,", "user: {uid: 1001,"}});
  ASSERT_NE(other_uid, WorkspaceFacts());
  EXPECT_EQ(Recheck(plan, other_uid),
            "the user's uid was 1000 when the plan was compiled and is 1001 now; compile the "
            "plan again");

  std::string no_home =
      absl::StrReplaceAll(WorkspaceFacts(), {{"  HOME: /home/dev\n", "  HOME: null\n"}});
  ASSERT_NE(no_home, WorkspaceFacts());
  ir::LaunchPlan whole = Compile(no_home);
  ASSERT_TRUE(whole.consulted.has_value());
  std::string fewer_groups =
      absl::StrReplaceAll(no_home, {{"groups: [1000, 27]", "groups: [1000]"}});
  EXPECT_EQ(Recheck(whole, fewer_groups),
            "the user's group list was [1000,27] when the plan was compiled and is [1000] now; "
            "compile the plan again");
  std::string other_home = absl::StrReplaceAll(no_home, {{"home: /home/dev}", "home: /home/eve}"}});
  EXPECT_THAT(Recheck(whole, other_home),
              ::testing::StartsWith("the user's home directory was /home/dev when the plan was "
                                    "compiled and is /home/eve now"));
}

// A path the sandbox cannot see may change: below a tmpfs mask (a credential
// file appearing in a masked ~/.ssh) or at the mask itself (its mode), what
// the host holds there is not what the sandbox sees; the same change where
// the sandbox sees it refuses.
TEST(RecheckTest, AChangeTheSandboxCannotSeeIsLetThrough) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts());
  auto with_asked = [&](const std::string& path) {
    ir::LaunchPlan p = plan;
    ir::ConsultedPath missing;
    missing.path = path;
    missing.type = "missing";
    p.consulted->paths.push_back(missing);
    return p;
  };
  auto appeared = [](const std::string& path) {
    return absl::StrReplaceAll(
        WorkspaceFacts(), {{"paths:\n", "paths:\n  " + path + ": {type: file, canonical: " + path +
                                            ", mode: \"0600\", uid: 1000, gid: 1000}\n"}});
  };
  EXPECT_EQ(Recheck(with_asked("/home/dev/.ssh/id_rsa"), appeared("/home/dev/.ssh/id_rsa")), "ok")
      << "hidden by the tmpfs on ~/.ssh";
  std::string ssh_mode = absl::StrReplaceAll(
      WorkspaceFacts(), {{"/home/dev/.ssh: {type: directory, canonical: /home/dev/.ssh, mode: "
                          "\"0700\"",
                          "/home/dev/.ssh: {type: directory, canonical: /home/dev/.ssh, mode: "
                          "\"0755\""}});
  ASSERT_NE(ssh_mode, WorkspaceFacts());
  EXPECT_EQ(Recheck(plan, ssh_mode), "ok") << "the tmpfs on ~/.ssh is what the sandbox sees";
  // The mask's own mount point turned into a symlink: bwrap would follow it
  // and mask what it names, leaving the keys moved elsewhere in sight.
  size_t ssh = 0;
  for (size_t i = 0; i < plan.mounts().size(); ++i) {
    if (plan.mounts()[i].dest == "/home/dev/.ssh") ssh = i + 1;
  }
  ASSERT_GT(ssh, 0u);
  std::string ssh_link = absl::StrReplaceAll(
      WorkspaceFacts(), {{"/home/dev/.ssh: {type: directory, canonical: /home/dev/.ssh,",
                          "/home/dev/.ssh: {type: directory, symlink: true, target: /home/dev/x, "
                          "canonical: /home/dev/x,"}});
  ASSERT_NE(ssh_link, WorkspaceFacts());
  EXPECT_EQ(Recheck(plan, ssh_link),
            "/home/dev/.ssh (mount " + std::to_string(ssh) +
                ": deny read ~/.ssh) was a directory when the plan was compiled and is a symlink "
                "to a directory now; compile the plan again");
  // The workspace is seen (bound writable): a file appearing there that the
  // compile asked about refuses.
  EXPECT_EQ(Recheck(with_asked("/home/dev/proj/notes"), appeared("/home/dev/proj/notes")),
            "/home/dev/proj/notes was missing when the plan was compiled and is a file now; "
            "compile the plan again");
}

// A root command's plan masks every kernel interface of ir/constants.h the
// host has; one whose mask is gone (edited, or compiled where it was
// missing) is refused for each of them, not only for some.
TEST(RecheckTest, EveryKernelInterfaceLeftInReachRefuses) {
  const std::string dir = Src("tests/golden/bwrap/root_kernel_masks");
  std::string yaml = absl::StrReplaceAll(
      testing::ReadFileOr(dir + "/facts.yaml"),
      {{"paths:\n",
        "paths:\n  /dev/null: {type: char-device, canonical: /dev/null, mode: \"0666\", "
        "uid: 0, gid: 0}\n"}});
  ASSERT_THAT(yaml, HasSubstr("/proc/acpi"));
  ir::LaunchPlan plan = Compile(yaml, "ask", dir + "/config.toml");
  ASSERT_EQ(plan.kind(), ir::PlanKind::kLinuxBwrap);
  EXPECT_EQ(Recheck(plan, yaml), "ok");
  std::vector<std::string> masked;
  for (const ir::Mount& m : plan.mounts()) {
    if (ir::IsKernelInterface(m.dest.str()) && m.op != ir::MountOp::kRemountReadOnly) {
      masked.push_back(m.dest.str());
    }
  }
  EXPECT_THAT(masked,
              ::testing::UnorderedElementsAre("/proc/sys", "/proc/sysrq-trigger", "/proc/kcore",
                                              "/proc/keys", "/proc/acpi", "/sys/firmware"));
  for (const std::string& k : masked) {
    ir::LaunchPlan edited = plan;
    std::vector<ir::Mount> kept;
    for (const ir::Mount& m : plan.mounts()) {
      if (m.dest != k) kept.push_back(m);
    }
    edited.bwrap()->mounts = kept;
    EXPECT_EQ(Recheck(edited, yaml), "the kernel interface " + k +
                                         " exists on this host but the plan does not mask it; "
                                         "compile the plan again")
        << k;
  }
}

TEST(RecheckTest, MissingWorkingDirectoryRefusesForNone) {
  ir::LaunchPlan plan = Compile(WorkspaceFacts(), "full-access", "/dev/null");
  ASSERT_EQ(plan.kind(), ir::PlanKind::kNone);
  std::string gone = absl::StrReplaceAll(
      WorkspaceFacts(),
      {{"  /home/dev/proj: {type: directory, canonical: /home/dev/proj, mode: \"0755\", uid: 1000, "
        "gid: 1000}\n",
        ""}});
  EXPECT_EQ(Recheck(plan, gone), "the working directory /home/dev/proj is missing");
}

TEST(ResultJsonTest, Shape) {
  ExecOutcome o;
  o.sandbox_kind = "linux-bwrap";
  o.ran = true;
  o.exit_code = 1;
  o.sandbox_denied = true;
  o.denial_message = "Bubblewrap blocked access outside the writable workspace view.";
  o.cwsc_exit_code = 1;
  EXPECT_EQ(ResultToJson(o),
            "{\"sandbox_kind\":\"linux-bwrap\",\"ran\":true,\"exit_code\":1,\"signal\":null,"
            "\"timed_out\":false,\"sandbox_denied\":true,\"denial_message\":\"Bubblewrap blocked "
            "access outside the writable workspace view.\",\"refused\":null,\"error\":null,"
            "\"cwsc_exit_code\":1}");
  ExecOutcome refused;
  refused.sandbox_kind = "refused";
  refused.refusal = "no \"quotes\" break it";
  refused.cwsc_exit_code = 125;
  nlohmann::json j = nlohmann::json::parse(ResultToJson(refused));
  EXPECT_TRUE(j["exit_code"].is_null());
  EXPECT_EQ(j["refused"], "no \"quotes\" break it");
  EXPECT_EQ(j["cwsc_exit_code"], 125);
}

}  // namespace
}  // namespace cwsc::runtime
