// The script `cwsc compile --format script` prints, run as printed with real
// bubblewrap (a Landlock plan has no script), as root and as the unprivileged user cwsc-escape
// (docs/decisions.md, "The launch script"): the command sees the environment
// `cwsc run` gives it and no planted secret, writes outside fail, secrets
// stay unreadable, and the seccomp program is in force.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "tests/escape/escape_fixture.h"

namespace cwsc::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class LaunchScriptRun : public EscapeTest {
 protected:
  // /tmp private: bwrap makes the mount points of missing protected names
  // in each writable root on the host, and a script, unlike `cwsc run`,
  // does not remove them afterwards; the host's /tmp is not for this test
  // to fill (docs/decisions.md, "The launch script").
  void SetUp() override {
    EscapeTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    WriteFile(config, "sandbox_exclude_slash_tmp = true\nsandbox_exclude_tmpdir = true\n");
    ChownAll();
  }

  // Script compiles `program` with --format script into a file the
  // attacking identity owns and returns the file's path.
  std::string Script(const std::vector<std::string>& program) {
    std::string file = *base_ / "launch.sh";
    std::vector<std::string> compile = {"\"$CWSC\"", "compile",   ShQuote(config), "--mode", "ask",
                                        "--cwd",     ShQuote(ws), "--format",      "script", "--"};
    for (const std::string& a : program) compile.push_back(ShQuote(a));
    RunResult r = Outer(absl::StrJoin(compile, " ") + " > " + ShQuote(file));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return file;
  }
};

std::vector<std::string> SortedLines(const std::string& s) {
  std::vector<std::string> out = absl::StrSplit(s, '\n', absl::SkipEmpty());
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<std::string> kPlanted = {"MY_SECRET_TOKEN=planted-token",
                                           "OPENAI_API_KEY=sk-planted", "LC_TIME=C", "TERM=dumb"};

TEST_P(LaunchScriptRun, TheCommandGetsCwscRunsEnvironmentAndNoSecret) {
  std::string script = Script({"/usr/bin/env"});
  RunResult by_script = Outer("exec /bin/sh " + ShQuote(script), kPlanted);
  ASSERT_EQ(by_script.exit_code, 0) << by_script.err;
  RunResult by_run = Outer(ShJoin(CwscArgv({"/usr/bin/env"})), kPlanted);
  ASSERT_EQ(by_run.exit_code, 0) << by_run.err;
  EXPECT_THAT(by_script.out, Not(HasSubstr("planted")));
  EXPECT_THAT(by_script.out, HasSubstr("LC_TIME=C\n"));
  EXPECT_THAT(by_script.out, HasSubstr("HOME=" + home + "\n"));
  EXPECT_EQ(SortedLines(by_script.out), SortedLines(by_run.out));
}

TEST_P(LaunchScriptRun, ThePolicyHolds) {
  std::string script = Script({"/bin/sh", "-c",
                               "echo pwned > " + ShQuote(outside + "/target") + "; cat " +
                                   ShQuote(home + "/.ssh/id_ed25519") + "; echo ok > " +
                                   ShQuote(ws + "/made") + "; exit 7"});
  std::string tmpdir = *base_ / "scripttmp";
  mkdir(tmpdir.c_str(), 0755);
  ChownAll();
  std::vector<std::string> env = kPlanted;
  env.push_back("TMPDIR=" + tmpdir);
  RunResult r = Outer("exec /bin/sh " + ShQuote(script), env);
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_EQ(ReadFileOr(outside + "/target"), "ORIGINAL\n");
  EXPECT_THAT(r.out, Not(HasSubstr("SECRET-KEY")));
  EXPECT_EQ(ReadFileOr(ws + "/made"), "ok\n");
  // The seccomp program's file is gone once bwrap has it.
  EXPECT_TRUE(std::filesystem::is_empty(tmpdir));
}

TEST_P(LaunchScriptRun, TheSyscallFilterIsInForce) {
  if (access("/usr/bin/script", X_OK) != 0) GTEST_SKIP() << "script(1) is missing";
  std::string attack = ShJoin({"/usr/bin/python3", bin + "/attack.py", "tiocsti"});
  // The control: outside the sandbox the same probe injects (the test can fail).
  RunResult control = Outer("/usr/bin/script -qec " + ShQuote(attack) + " /dev/null");
  ASSERT_THAT(control.out, HasSubstr("stdin-tiocsti ok")) << control.out << control.err;
  std::string script = Script({"/usr/bin/python3", bin + "/attack.py", "tiocsti"});
  RunResult r =
      Outer("/usr/bin/script -qec " + ShQuote("/bin/sh " + ShQuote(script)) + " /dev/null");
  EXPECT_THAT(r.out, HasSubstr("stdin-tiocsti")) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr(" ok"))) << r.out;
}

INSTANTIATE_TEST_SUITE_P(AsRootAndAsUser, LaunchScriptRun, ::testing::ValuesIn(BwrapVariants()),
                         VariantName);

}  // namespace
}  // namespace cwsc::testing
