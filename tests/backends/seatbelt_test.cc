// Seatbelt backend: the docs/behavior.md B-90 cases, lowering from recorded
// macOS facts (parameters, caches, proxy ports), the read-only + network
// variant, and injection-proofing. Every profile built here is also parsed by
// the SBPL evaluator and checked for what it grants.
#include "backends/seatbelt.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/verify/sbpl_eval.h"
#include "compiler/facts/host_facts.h"
#include "compiler/lower_seatbelt.h"
#include "compiler/modes.h"
#include "compiler/resolve.h"
#include "gtest/gtest.h"
#include "tests/backends/seatbelt_fixtures.h"

namespace cwsc::backends {
namespace {

using compiler::HostFacts;
using ir::PolicyType;
using namespace ::cwsc::backends::sbtest;  // NOLINT: test fixtures

// --- docs/behavior.md B-90 ------------------------------------------------

TEST(SeatbeltCase29, NetworkRulesOnlyWithNetwork) {
  std::string with_net = Profile(Lowered(DefaultPlan(/*network=*/true)));
  EXPECT_TRUE(absl::StrContains(with_net, "network-outbound"));
  EXPECT_TRUE(absl::StrContains(with_net, "network-inbound"));
  EXPECT_FALSE(absl::StrContains(Profile(Lowered(DefaultPlan())), "network-outbound"));
  EXPECT_TRUE(Evaluate(Lowered(DefaultPlan(true))).CanConnect(SbplNet::kIPv6, "::1", 5432));
  EXPECT_FALSE(Evaluate(Lowered(DefaultPlan())).CanConnect(SbplNet::kIPv4, "93.184.216.34", 443));
}

// Codewhale's layout, byte for byte where the two profiles share rules: a
// leading newline, two blank lines after the network block, em dashes in
// the cargo/npm comments, no newline after the last rule.
TEST(SeatbeltText, LayoutMatchesCodewhale) {
  std::string p = Profile(Lowered(DefaultPlan(/*network=*/true)));
  EXPECT_TRUE(absl::StartsWith(p, "\n(version 1)\n(deny default)\n\n; Core process operations\n"));
  EXPECT_TRUE(absl::StrContains(
      p,
      "(allow mach-lookup)\n\n; Full filesystem read access\n(allow file-read*)\n\n; Write "
      "access policy\n(allow file-write*\n  ("));
  EXPECT_TRUE(absl::StrContains(
      p, "(allow system-socket)\n(allow network-bind)\n\n\n; Darwin user cache directory\n"));
  EXPECT_TRUE(absl::StrContains(p, "\n\n; Cargo home (~/.cargo) — registry/index/git caches\n"));
  EXPECT_TRUE(absl::StrContains(p, "\n\n; npm cache (~/.npm) — npx package downloads\n"));
  EXPECT_FALSE(absl::EndsWith(p, "\n"));
}

TEST(SeatbeltCase30, DefaultParamsIncludeDarwinCache) {
  ir::LaunchPlan plan = Lowered(DefaultPlan());
  EXPECT_EQ(ParamValue(plan, "DARWIN_USER_CACHE_DIR"), "/private/var/folders/xy/abc/C");
  // Fallback: no confstr answer → $HOME/Library/Caches; neither → omitted with its rules.
  ir::LaunchPlan fallback = Lowered(DefaultPlan(), MacFacts("", true, /*has_cache=*/false));
  EXPECT_EQ(ParamValue(fallback, "DARWIN_USER_CACHE_DIR"), "/Users/dev/Library/Caches");
  ir::LaunchPlan none = Lowered(DefaultPlan(), MacFacts("", true, false, /*has_home=*/false));
  EXPECT_FALSE(HasParam(none, "DARWIN_USER_CACHE_DIR"));
  EXPECT_FALSE(absl::StrContains(Profile(none), "DARWIN_USER_CACHE_DIR"));
  Evaluate(none);  // still a complete profile: no rule names a missing parameter
}

TEST(SeatbeltCase31, DarwinCacheReadAndWriteRules) {
  const std::string read = "(allow file-read* (subpath (param \"DARWIN_USER_CACHE_DIR\")))";
  const std::string write = "(allow file-write* (subpath (param \"DARWIN_USER_CACHE_DIR\")))";
  std::string ww = Profile(Lowered(DefaultPlan()));
  std::string ro = Profile(Lowered(MakePlan(PolicyType::kReadOnly, false)));
  EXPECT_TRUE(absl::StrContains(ww, read));
  EXPECT_TRUE(absl::StrContains(ww, write));
  EXPECT_TRUE(absl::StrContains(ro, read));
  EXPECT_FALSE(absl::StrContains(ro, write));
  for (const std::string& p : {ww, ro}) {
    EXPECT_FALSE(
        absl::StrContains(p, "file-read* file-write* (subpath (param \"DARWIN_USER_CACHE_DIR\"))"));
  }
  EXPECT_TRUE(Evaluate(Lowered(DefaultPlan())).CanWrite("/private/var/folders/xy/abc/C/clang/x"));
  SbplProfile rop = Evaluate(Lowered(MakePlan(PolicyType::kReadOnly, false)));
  EXPECT_TRUE(rop.CanRead("/private/var/folders/xy/abc/C/clang/x"));
  EXPECT_FALSE(rop.CanWrite("/private/var/folders/xy/abc/C/clang/x"));
}

TEST(SeatbeltCase32, CargoHomeFromHome) {
  const std::string env = "  CARGO_HOME: null\n";
  std::string facts =
      absl::StrReplaceAll(MacFacts(env), {{"HOME: /Users/dev", "HOME: /tmp/seatbelt-cargo-test"}});
  ir::LaunchPlan ww = Lowered(DefaultPlan(), facts);
  std::string text = Profile(ww);
  EXPECT_TRUE(absl::StrContains(text, "(allow file-read* (subpath (param \"CARGO_HOME\")))"));
  EXPECT_TRUE(absl::StrContains(text, "CARGO_HOME_REGISTRY"));
  EXPECT_TRUE(absl::StrContains(text, "CARGO_HOME_GIT"));
  EXPECT_EQ(ParamValue(ww, "CARGO_HOME"), "/tmp/seatbelt-cargo-test/.cargo");
  EXPECT_EQ(ParamValue(ww, "CARGO_HOME_REGISTRY"), "/tmp/seatbelt-cargo-test/.cargo/registry");
  EXPECT_EQ(ParamValue(ww, "CARGO_HOME_GIT"), "/tmp/seatbelt-cargo-test/.cargo/git");
  std::string ro = Profile(Lowered(MakePlan(PolicyType::kReadOnly, false), facts));
  EXPECT_TRUE(absl::StrContains(ro, "(allow file-read* (subpath (param \"CARGO_HOME\")))"));
  EXPECT_FALSE(
      absl::StrContains(ro, "(allow file-write* (subpath (param \"CARGO_HOME_REGISTRY\")))"));

  ir::LaunchPlan none = Lowered(DefaultPlan(), MacFacts(env, true, true, /*has_home=*/false));
  EXPECT_FALSE(absl::StrContains(Profile(none), "CARGO_HOME"));
  EXPECT_FALSE(none.seatbelt()->cargo_home);
  for (const SeatbeltParam& p : SeatbeltParams(*none.seatbelt())) {
    EXPECT_FALSE(absl::StartsWith(p.key, "CARGO_HOME"));
  }

  // An explicit CARGO_HOME wins and is canonicalized; blanks are ignored.
  ir::LaunchPlan explicit_home =
      Lowered(DefaultPlan(), MacFacts("  CARGO_HOME: /tmp/ch\n", true, true, true,
                                      "  /tmp/ch: {type: directory, symlink: true, canonical: "
                                      "/private/tmp/ch, mode: \"0755\", uid: 501, gid: 20}\n"));
  EXPECT_EQ(ParamValue(explicit_home, "CARGO_HOME"), "/private/tmp/ch");
  ir::LaunchPlan blank = Lowered(DefaultPlan(), MacFacts("  CARGO_HOME: \"  \"\n"));
  EXPECT_EQ(ParamValue(blank, "CARGO_HOME"), "/Users/dev/.cargo");
  SbplProfile p = Evaluate(ww);
  EXPECT_TRUE(p.CanWrite("/tmp/seatbelt-cargo-test/.cargo/registry/index/x"));
  EXPECT_FALSE(p.CanWrite("/tmp/seatbelt-cargo-test/.cargo/bin/cargo"));
  EXPECT_TRUE(p.CanRead("/tmp/seatbelt-cargo-test/.cargo/bin/cargo"));
}

TEST(SeatbeltCase32, NpmCacheFromHome) {
  std::string facts = absl::StrReplaceAll(MacFacts("  NPM_CONFIG_CACHE: null\n"),
                                          {{"HOME: /Users/dev", "HOME: /tmp/seatbelt-npm-test"}});
  ir::LaunchPlan ww = Lowered(DefaultPlan(), facts);
  std::string text = Profile(ww);
  EXPECT_TRUE(absl::StrContains(text, "(allow file-read* (subpath (param \"NPM_CACHE_DIR\")))"));
  EXPECT_TRUE(absl::StrContains(text, "(allow file-write* (subpath (param \"NPM_CACHE_DIR\")))"));
  EXPECT_EQ(ParamValue(ww, "NPM_CACHE_DIR"), "/tmp/seatbelt-npm-test/.npm");
  std::string ro = Profile(Lowered(MakePlan(PolicyType::kReadOnly, false), facts));
  EXPECT_TRUE(absl::StrContains(ro, "(allow file-read* (subpath (param \"NPM_CACHE_DIR\")))"));
  EXPECT_FALSE(absl::StrContains(ro, "(allow file-write* (subpath (param \"NPM_CACHE_DIR\")))"));
  ir::LaunchPlan none = Lowered(DefaultPlan(), MacFacts("", true, true, /*has_home=*/false));
  EXPECT_FALSE(absl::StrContains(Profile(none), "NPM_CACHE_DIR"));
  EXPECT_FALSE(HasParam(none, "NPM_CACHE_DIR"));
  ir::LaunchPlan explicit_cache =
      Lowered(DefaultPlan(), MacFacts("  NPM_CONFIG_CACHE: /opt/npm\n"));
  EXPECT_EQ(ParamValue(explicit_cache, "NPM_CACHE_DIR"), "/opt/npm");
}

TEST(SeatbeltCase33, DevTty) {
  EXPECT_TRUE(
      absl::StrContains(Profile(Lowered(DefaultPlan())),
                        "(allow file-read* file-write* file-ioctl (literal \"/dev/tty\"))"));
  SbplProfile p = Evaluate(Lowered(DefaultPlan()));
  EXPECT_TRUE(p.CanWrite("/dev/tty"));
  EXPECT_TRUE(p.CanWrite("/dev/ttys004"));
  SbplRequest devnull;
  devnull.operation = "file-write-data";
  devnull.path = "/dev/null";
  devnull.vnode_type = "CHARACTER-DEVICE";
  EXPECT_TRUE(p.Decide(devnull).allowed);
  EXPECT_FALSE(p.CanWrite("/dev/disk0"));
}

TEST(SeatbeltCase34, ArgvShape) {
  std::vector<std::string> argv = Argv(Lowered(DefaultPlan()), {"echo", "hello"});
  ASSERT_GE(argv.size(), 6u);
  EXPECT_EQ(argv[0], "/usr/bin/sandbox-exec");
  EXPECT_EQ(argv[1], "-p");
  EXPECT_TRUE(absl::StrContains(argv[2], "(version 1)"));
  EXPECT_EQ(argv[argv.size() - 3], "--");
  EXPECT_EQ(argv[argv.size() - 2], "echo");
  EXPECT_EQ(argv[argv.size() - 1], "hello");
  // Params: one element each, docs/behavior.md B-61 order.
  std::vector<std::string> params(argv.begin() + 3, argv.end() - 3);
  EXPECT_EQ(params, (std::vector<std::string>{
                        "-DWRITABLE_ROOT_0=/Users/dev/proj",
                        "-DWRITABLE_ROOT_0_RO_0=/Users/dev/proj/.codewhale",
                        "-DWRITABLE_ROOT_1=/private/tmp",
                        "-DWRITABLE_ROOT_2=/private/var/folders/xy/abc/T",
                        "-DDARWIN_USER_CACHE_DIR=/private/var/folders/xy/abc/C",
                        "-DCARGO_HOME_REGISTRY=/Users/dev/.cargo/registry",
                        "-DCARGO_HOME_GIT=/Users/dev/.cargo/git",
                        "-DCARGO_HOME=/Users/dev/.cargo",
                        "-DNPM_CACHE_DIR=/Users/dev/.npm",
                    }));
  // No program: the argv ends at "--".
  EXPECT_EQ(Argv(Lowered(DefaultPlan())).back(), "--");
}

TEST(SeatbeltCase35, TrustedAutomationOnlyForFullDiskWrite) {
  for (PolicyType t : {PolicyType::kDangerFullAccess, PolicyType::kExternalSandbox}) {
    std::string trusted = Profile(Lowered(MakePlan(t, true)));
    EXPECT_TRUE(absl::StrContains(trusted, "(allow appleevent-send)"));
    EXPECT_TRUE(absl::StrContains(trusted, "(allow lsopen)"));
    EXPECT_TRUE(
        absl::StrContains(trusted, "(global-name \"com.apple.coreservices.launchservicesd\")"));
    EXPECT_TRUE(absl::StrContains(trusted, "(global-name \"com.apple.coreservices.appleevents\")"));
    EXPECT_TRUE(absl::StrContains(trusted, "(allow file-write* (regex #\"^/\"))"));
    EXPECT_TRUE(Evaluate(Lowered(MakePlan(t, true))).CanWrite("/etc/anything"));
  }
  for (const ir::LaunchPlan& plan : {Lowered(DefaultPlan()), Lowered(DefaultPlan(true)),
                                     Lowered(MakePlan(PolicyType::kReadOnly, false))}) {
    std::string text = Profile(plan);
    EXPECT_FALSE(absl::StrContains(text, "appleevent-send"));
    EXPECT_FALSE(absl::StrContains(text, "lsopen"));
  }
}

TEST(SeatbeltCase36, WritableRootsWithProtectedSubpaths) {
  // WW{roots=[A with A/.deepseek]}, cwd = W with W/.codewhale; tmp excluded.
  ir::LaunchPlan ww =
      Lowered(MakePlan(PolicyType::kWorkspaceWrite, false,
                       {MakeRoot("/Users/dev/extra", {"/Users/dev/extra/.deepseek"}),
                        MakeRoot("/Users/dev/proj", {"/Users/dev/proj/.codewhale"})}));
  ir::LaunchPlan ro = Lowered(MakePlan(PolicyType::kReadOnly, false));
  std::string w = Profile(ww);
  std::string r = Profile(ro);
  for (const std::string& p : {w, r}) {
    EXPECT_TRUE(absl::StrContains(p, "(version 1)"));
    EXPECT_TRUE(absl::StrContains(p, "(deny default)"));
    EXPECT_TRUE(absl::StrContains(p, "(allow file-read*)"));
    EXPECT_TRUE(
        absl::StrContains(p, "(allow file-read* (extension \"com.apple.app-sandbox.read\"))"));
    EXPECT_TRUE(absl::StrContains(
        p, "(allow file-read* (extension \"com.apple.app-sandbox.read-write\"))"));
  }
  for (int i : {0, 1}) {
    EXPECT_TRUE(absl::StrContains(
        w, absl::StrCat(
               "(require-all (extension \"com.apple.app-sandbox.read-write\") (subpath (param "
               "\"WRITABLE_ROOT_",
               i, "\")) (require-not (subpath (param \"WRITABLE_ROOT_", i, "_RO_0\"))))")));
  }
  EXPECT_EQ(Count(w, "(extension \"com.apple.app-sandbox.read-write\")"), 3);
  EXPECT_EQ(Count(r, "(extension \"com.apple.app-sandbox.read-write\")"), 1);
  EXPECT_FALSE(absl::StrContains(r, "WRITABLE_ROOT"));
  EXPECT_FALSE(absl::StrContains(w, "(allow file-write* (extension"));
  EXPECT_EQ(ParamValue(ww, "WRITABLE_ROOT_0"), "/Users/dev/extra");
  EXPECT_EQ(ParamValue(ww, "WRITABLE_ROOT_0_RO_0"), "/Users/dev/extra/.deepseek");
  EXPECT_EQ(ParamValue(ww, "WRITABLE_ROOT_1"), "/Users/dev/proj");
  EXPECT_EQ(ParamValue(ww, "WRITABLE_ROOT_1_RO_0"), "/Users/dev/proj/.codewhale");

  SbplProfile p = Evaluate(ww);
  EXPECT_TRUE(p.CanWrite("/Users/dev/proj/src/main.rs"));
  EXPECT_TRUE(p.CanWrite("/Users/dev/extra/notes.md"));
  EXPECT_FALSE(p.CanWrite("/Users/dev/proj/.codewhale/config.toml"));
  EXPECT_FALSE(p.CanWrite("/Users/dev/extra/.deepseek/config.toml"));
  EXPECT_FALSE(p.CanWrite("/Users/dev/other/file.txt"));
  EXPECT_FALSE(p.CanWrite("/private/tmp/x"));  // excluded in this policy
  // The File Provider extension never widens the grant.
  SbplRequest fp;
  fp.operation = "file-write-create";
  fp.path = "/Users/dev/Library/CloudStorage/x";
  fp.extensions = {"com.apple.app-sandbox.read-write"};
  EXPECT_FALSE(p.Decide(fp).allowed);
  fp.path = "/Users/dev/proj/.codewhale/x";
  EXPECT_FALSE(p.Decide(fp).allowed);
  SbplProfile rp = Evaluate(ro);
  EXPECT_FALSE(rp.CanWrite("/Users/dev/proj/src/main.rs"));
  EXPECT_TRUE(rp.CanRead("/Users/dev/proj/src/main.rs"));
}

TEST(SeatbeltCase37, DetectDenial) {
  EXPECT_TRUE(SeatbeltDetectDenial(1, "Operation not permitted"));
  EXPECT_TRUE(SeatbeltDetectDenial(1, "Sandbox: ls denied file-write*"));
  EXPECT_FALSE(SeatbeltDetectDenial(0, "Operation not permitted"));
  EXPECT_FALSE(SeatbeltDetectDenial(1, "File not found"));
  EXPECT_TRUE(SeatbeltDetectDenial(1, "deny(1) file-write-create /x"));
  EXPECT_TRUE(SeatbeltDetectDenial(65, "sandbox-exec: invalid profile"));
}

compiler::ResolveInput Input(const std::string& mode) {
  compiler::ResolveInput in;
  in.mode = *compiler::ParsePermissionMode(mode);
  in.mode_origin = ir::Origin::Cli(absl::StrCat("--mode ", mode));
  in.cwd = "/Users/dev/proj";
  return in;
}

TEST(SeatbeltCase38, MarkersAndSelection) {
  std::unique_ptr<HostFacts> facts = Facts(MacFacts());
  absl::StatusOr<ir::LaunchPlan> plan = compiler::ResolvePlan(Input("ask"), *facts);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->kind(), ir::PlanKind::kMacosSeatbelt);
  ASSERT_TRUE(plan->seatbelt() != nullptr);
  std::vector<std::string> env;
  for (const ir::EnvVar& e : plan->env_set) env.push_back(absl::StrCat(e.name, "=", e.value));
  EXPECT_EQ(env,
            (std::vector<std::string>{"CODEWHALE_SANDBOX=seatbelt", "DEEPSEEK_SANDBOX=seatbelt"}));
  EXPECT_EQ(plan->wrapper.path, "/usr/bin/sandbox-exec");
  EXPECT_TRUE(plan->wrapper.probe_ok);
  Evaluate(*plan);

  // Probe failed: no wrapper, no marker (docs/behavior.md B-60).
  std::unique_ptr<HostFacts> failed = Facts(MacFacts("", /*probe_ok=*/false));
  absl::StatusOr<ir::LaunchPlan> none = compiler::ResolvePlan(Input("ask"), *failed);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->kind(), ir::PlanKind::kNone);
  EXPECT_EQ(none->seatbelt(), nullptr);
  EXPECT_TRUE(none->env_set.empty());
  EXPECT_EQ(none->wrapper.probe_message, "sandbox-exec: sandbox_apply: Operation not permitted");

  // sandbox-exec missing: none as well.
  std::string no_binary = absl::StrReplaceAll(
      MacFacts(),
      {{"  /usr/bin/sandbox-exec: {type: file,", "  /usr/bin/sandbox-exec-gone: {type: file,"}});
  std::unique_ptr<HostFacts> missing = Facts(no_binary);
  absl::StatusOr<ir::LaunchPlan> m = compiler::ResolvePlan(Input("ask"), *missing);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->kind(), ir::PlanKind::kNone);
  EXPECT_EQ(m->wrapper.probe_message, "/usr/bin/sandbox-exec does not exist");

  // A policy that does not sandbox never selects Seatbelt.
  absl::StatusOr<ir::LaunchPlan> dfa = compiler::ResolvePlan(Input("full-access"), *facts);
  ASSERT_TRUE(dfa.ok()) << dfa.status();
  EXPECT_EQ(dfa->kind(), ir::PlanKind::kNone);
  EXPECT_TRUE(dfa->env_set.empty());
}

}  // namespace
}  // namespace cwsc::backends
