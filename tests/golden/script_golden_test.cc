// The golden of `cwsc compile --format script` (tests/golden/script/) and
// beside it the semantic check: the script, run with `/usr/bin/env` swapped
// for a recorder, hands on exactly the tokens `--format nul` prints, exactly
// the seccomp program `--target seccomp-bpf` prints on descriptor 3, and an
// environment of the allow-list's variables (their values where the script
// runs, hostile bytes intact) and the plan's markers, never another
// (docs/decisions.md, "The launch script").
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "tests/cli/argv_note.h"
#include "tests/runtime/proc_helpers.h"
#include "tests/testing/golden.h"

namespace cwsc::testing {
namespace {

std::string Cwsc() {
  const char* b = std::getenv("CWSC_BIN");
  return b != nullptr ? b : "cwsc";
}

std::vector<std::string> CompileArgs(const std::string& mode) {
  std::string src = SourceRoot();
  return {Cwsc(),
          "compile",
          src + "/examples/workspace.toml",
          "--facts",
          src + "/examples/facts/linux-workspace.yaml",
          "--mode",
          mode};
}

std::vector<std::string> With(std::vector<std::string> argv, const std::vector<std::string>& more) {
  argv.insert(argv.end(), more.begin(), more.end());
  return argv;
}

const std::vector<std::string> kProgram = {"--", "sh", "-c", "make test"};

// Recorded is what the recording `env` saw: its arguments, and descriptor 3.
struct Recorded {
  std::vector<std::string> args;
  std::string fd3;
};

// RunRecorded runs `script` with /usr/bin/env replaced by a recorder, in
// exactly `env`.
Recorded RunRecorded(const std::string& script, const std::vector<std::string>& env) {
  TempDir t;
  WriteFile(t / "recorder",
            "#!/bin/sh\n"
            "for a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$0.args\"\n"
            "if [ -e /proc/self/fd/3 ]; then cat <&3 > \"$0.fd3\"; fi\n");
  chmod((t / "recorder").c_str(), 0755);
  std::string swapped =
      absl::StrReplaceAll(script, {{"exec /usr/bin/env -i", "exec " + (t / "recorder") + " -i"}});
  EXPECT_NE(swapped, script);
  WriteFile(t / "script.sh", swapped);
  RunResult r = RunWithEnv({"/bin/sh", t / "script.sh"}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Recorded out;
  std::string args = ReadFileOr(t / "recorder.args");
  out.args = absl::StrSplit(args, '\0');
  if (!out.args.empty() && out.args.back().empty()) out.args.pop_back();
  out.fd3 = ReadFileOr(t / "recorder.fd3");
  return out;
}

TEST(LaunchScript, GoldenAndWhatItHandsOn) {
  std::string src = SourceRoot();
  RunResult script =
      ::cwsc::testing::Run(With(CompileArgs("ask"), With({"--format", "script"}, kProgram)));
  ASSERT_EQ(script.exit_code, 0) << script.err;
  // The script needs no note beside it (the plan's own notes stay).
  EXPECT_FALSE(absl::StrContains(script.err, "descriptor 3 ")) << script.err;
  CheckGolden(src + "/tests/golden/script/workspace-ask.sh", script.out);

  RunResult nul =
      ::cwsc::testing::Run(With(CompileArgs("ask"), With({"--format", "nul"}, kProgram)));
  ASSERT_EQ(nul.exit_code, 0) << nul.err;
  std::vector<std::string> argv = absl::StrSplit(nul.out, '\0');
  argv.pop_back();
  RunResult bpf =
      ::cwsc::testing::Run(With(CompileArgs("ask"), With({"--target", "seccomp-bpf"}, kProgram)));
  ASSERT_EQ(bpf.exit_code, 0) << bpf.err;
  ASSERT_FALSE(bpf.out.empty());

  // Hostile values pass byte for byte; hostile names and secrets do not.
  const std::string hostile = "a'b\"c $(touch /nonexistent/pwn) `id`\nLC_EVIL=1\n\xff";
  std::vector<std::string> env = {"PATH=/usr/bin:/bin",
                                  "HOME=/home/dev",
                                  "LANG=C.UTF-8",
                                  "LC_TIME=" + hostile,
                                  "OPENAI_API_KEY=sk-planted",
                                  "MY_SECRET_TOKEN=planted",
                                  "LC=not-the-prefix",
                                  "XLC_ALL=not-the-prefix",
                                  "TERM=xterm"};
  Recorded rec = RunRecorded(script.out, env);
  ASSERT_FALSE(rec.args.empty());
  EXPECT_EQ(rec.args[0], "-i");
  size_t first = 1;
  std::map<std::string, std::string> passed;
  while (first < rec.args.size() && absl::StrContains(rec.args[first], "=") &&
         rec.args[first] != argv[0]) {
    const std::string& kv = rec.args[first];
    passed[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    ++first;
  }
  std::vector<std::string> rest(rec.args.begin() + static_cast<long>(first), rec.args.end());
  EXPECT_EQ(rest, argv);
  EXPECT_EQ(rec.fd3, bpf.out);
  EXPECT_EQ(passed["PATH"], "/usr/bin:/bin");
  EXPECT_EQ(passed["HOME"], "/home/dev");
  EXPECT_EQ(passed["LANG"], "C.UTF-8");
  EXPECT_EQ(passed["TERM"], "xterm");
  EXPECT_EQ(passed["LC_TIME"], hostile);
  for (const char* gone : {"OPENAI_API_KEY", "MY_SECRET_TOKEN", "LC", "XLC_ALL", "LC_EVIL"}) {
    EXPECT_EQ(passed.count(gone), 0u) << gone;
  }
  // Every variable passed is on the allow-list or is a marker of the plan.
  RunResult plan =
      ::cwsc::testing::Run(With(CompileArgs("ask"), With({"--target", "plan"}, kProgram)));
  ASSERT_EQ(plan.exit_code, 0);
  for (const auto& [name, value] : passed) {
    bool allowed = absl::StrContains(plan.out, "\"" + name + "\"") ||
                   (absl::StartsWith(name, "LC_") && absl::StrContains(plan.out, "\"LC_*\""));
    EXPECT_TRUE(allowed) << name;
  }
}

TEST(LaunchScript, ArgvFormsForPeopleSayWhatTheArgvNeeds) {
  for (const char* format : {"lines", "shell"}) {
    RunResult r =
        ::cwsc::testing::Run(With(CompileArgs("ask"), With({"--format", format}, kProgram)));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(absl::EndsWith(r.err, kArgvNote)) << format << ": " << r.err;
  }
  for (const char* format : {"nul", "json"}) {
    RunResult r =
        ::cwsc::testing::Run(With(CompileArgs("ask"), With({"--format", format}, kProgram)));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(absl::StrContains(r.err, "descriptor 3 ")) << format << ": " << r.err;
  }
}

TEST(LaunchScript, ALandlockPlanHasNoScript) {
  // Live facts: this host has Landlock (the landlock_test suite says so).
  TempDir t;
  WriteFile(t / "config.toml", "sandbox_linux_backend = \"landlock\"\n");
  RunResult kind = ::cwsc::testing::Run({Cwsc(), "compile", t / "config.toml", "--cwd", t.path(),
                                         "--mode", "ask", "--target", "plan", "--", "true"});
  if (!absl::StrContains(kind.out, "\"linux-landlock\"")) GTEST_SKIP() << "no Landlock here";
  RunResult r = ::cwsc::testing::Run({Cwsc(), "compile", t / "config.toml", "--cwd", t.path(),
                                      "--mode", "ask", "--format", "script", "--", "true"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(absl::EndsWith(
      r.err,
      "cwsc: error: --format script: a linux-landlock plan is applied by cwsc itself, not by a "
      "program a script can run; use `cwsc run`\n"))
      << r.err;
}

}  // namespace
}  // namespace cwsc::testing
