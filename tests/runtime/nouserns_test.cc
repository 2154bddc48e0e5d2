// A real host without user namespaces: cwsc itself runs inside
// `bwrap --unshare-user --disable-userns --dev-bind / / -- ...`, where
// bubblewrap's probe fails for a namespace reason. sandbox_require and
// --require-sandbox refuse there when no wrapper works (docs/config.md):
// the config asks for bubblewrap alone (sandbox_linux_backend = "bwrap"), so
// the Landlock fallback does not apply; doctor says what a command gets and
// why.
#include <sys/stat.h>
#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runtime/sandbox_fixture.h"

namespace cwsc::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kNoUsernsProbe[] =
    "/usr/bin/bwrap: probe failed: bwrap: Creating new namespace failed: nesting depth or "
    "/proc/sys/user/max_*_namespaces exceeded (ENOSPC)";

constexpr char kBwrapOnly[] = "sandbox_linux_backend = \"bwrap\"\n";

class NoUsernsTest : public SandboxTree {
 protected:
  void SetUp() override {
    SandboxTree::SetUp();
    SetConfig(kBwrapOnly);
    RunResult r = RunWithEnv({"/usr/bin/bwrap", "--unshare-user", "--disable-userns", "--dev-bind",
                              "/", "/", "--", "/bin/true"},
                             Env());
    if (r.exit_code != 0) GTEST_SKIP() << "bwrap cannot make the outer namespace: " << r.err;
  }

  // InNoUserns runs `cwsc ARGS...` inside a user namespace that forbids
  // creating user namespaces.
  RunResult InNoUserns(const std::vector<std::string>& args,
                       const std::vector<std::string>& extra_env = {}) {
    std::vector<std::string> argv = {
        "/usr/bin/bwrap", "--unshare-user", "--disable-userns", "--dev-bind", "/", "/", "--",
        CwscBin()};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env = Env(extra_env);
    env.push_back("CWSC_PROBE_CACHE=0");
    return RunWithEnv(argv, env);
  }
};

TEST_F(NoUsernsTest, WithoutTheKeyTheCommandRunsUnconfinedWithAWarning) {
  RunResult r = InNoUserns({"run", config, "--cwd", ws, "--", "/bin/sh", "-c",
                            "echo hi > " + outside + "/written; exit 3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("cwsc: warning: the command runs without a sandbox although the "
                               "policy is workspace-write"));
  EXPECT_TRUE(Exists(outside + "/written"));
}

TEST_F(NoUsernsTest, SandboxRequireRefusesAndNothingRuns) {
  SetConfig(std::string(kBwrapOnly) + "sandbox_require = true\n");
  RunResult r = InNoUserns(
      {"run", config, "--cwd", ws, "--", "/bin/sh", "-c", "echo hi > " + outside + "/written"});
  // 3, not 125: nothing ran for want of a sandbox (runtime::kExitNoSandbox).
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, std::string("cwsc: refused: the policy is workspace-write but no sandbox "
                               "wrapper works here (") +
                       kNoUsernsProbe +
                       "), and sandbox_require = true forbids running the command unconfined; "
                       "make the wrapper work (`cwsc doctor` names the cause and its fix), or set "
                       "sandbox_require = false to run it unconfined with a warning\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(Exists(outside + "/written"));
  // compile says the same, exit 3.
  RunResult c = InNoUserns({"compile", config, "--cwd", ws});
  EXPECT_EQ(c.exit_code, 3) << c.err;
  EXPECT_THAT(c.err, StartsWith("cwsc: refused: the policy is workspace-write but no sandbox "
                                "wrapper works here ("));
}

TEST_F(NoUsernsTest, RequireSandboxFlagRefusesRunAndExec) {
  RunResult r = InNoUserns({"run", config, "--cwd", ws, "--require-sandbox", "--", "/bin/sh", "-c",
                            "echo hi > " + outside + "/written"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, std::string("cwsc: refused: the policy is workspace-write but no sandbox "
                               "wrapper works here (") +
                       kNoUsernsProbe +
                       "), and --require-sandbox forbids running the command unconfined; make "
                       "the wrapper work (`cwsc doctor` names the cause and its fix), or leave out "
                       "--require-sandbox to run it unconfined with a warning\n");
  EXPECT_FALSE(Exists(outside + "/written"));

  // A `none` plan compiled there, run with exec --require-sandbox.
  RunResult c = InNoUserns({"compile", config, "--cwd", ws, "--target", "plan"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  std::string plan = Base() + "/plan.json";
  WriteFile(plan, c.out);
  RunResult e = InNoUserns({"exec", plan, "--require-sandbox", "--", "/bin/sh", "-c",
                            "echo hi > " + outside + "/written"});
  EXPECT_EQ(e.exit_code, 3) << e.err;
  EXPECT_EQ(e.err, std::string("cwsc: refused: the plan runs the command unconfined although the "
                               "policy is workspace-write (") +
                       kNoUsernsProbe +
                       "), and --require-sandbox forbids that; compile the plan where a sandbox "
                       "wrapper works (`cwsc doctor` names the cause and its fix), or leave out "
                       "--require-sandbox to run it unconfined with a warning\n");
  EXPECT_FALSE(Exists(outside + "/written"));
}

TEST_F(NoUsernsTest, DoctorSaysWhatACommandGetsAndWhy) {
  RunResult d = InNoUserns({"doctor", config});
  EXPECT_THAT(d.out, HasSubstr(std::string("\ncommand (ask mode): none (unconfined, with a "
                                           "warning): ") +
                               kNoUsernsProbe + "\n"));
  EXPECT_THAT(d.out, HasSubstr("\nwhen no wrapper works: run unconfined with a warning "
                               "(sandbox_require = true or --require-sandbox refuses instead)\n"));
  SetConfig(std::string(kBwrapOnly) + "sandbox_require = true\n");
  d = InNoUserns({"doctor", config});
  EXPECT_THAT(d.out, HasSubstr("\ncommand (ask mode): refused: the policy is workspace-write but "
                               "no sandbox wrapper works here ("));
  EXPECT_THAT(d.out, HasSubstr("\nwhen no wrapper works: refuse (config sandbox_require at " +
                               config + ":2:19)\n"));
  d = InNoUserns({"doctor", config, "--json"});
  nlohmann::json j = nlohmann::json::parse(d.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << d.out;
  EXPECT_EQ(j["result"]["command"]["sandbox_kind"], "refused");
  EXPECT_EQ(j["result"]["command"]["require_sandbox"], true);
}

}  // namespace
}  // namespace cwsc::testing
