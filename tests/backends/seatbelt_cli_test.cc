// The Seatbelt side of `cwsc compile` and `cwsc explain`, run as a program:
// the examples compile to golden profiles that the evaluator checks, and the
// user-facing errors have exact texts.
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/verify/sbpl_eval.h"
#include "gtest/gtest.h"
#include "tests/testing/golden.h"

namespace cwsc::backends {
namespace {

std::string Env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

// Cwsc runs the cwsc binary in the source root with `args` (no shell metacharacters).
CliRun Cwsc(const std::string& args) {
  static int counter = 0;
  const std::string base =
      absl::StrCat(::testing::TempDir(), "/seatbelt_cli_", ::getpid(), "_", counter++);
  const std::string cmd =
      absl::StrCat("cd ", Env("CWSC_SOURCE_ROOT", "."), " && ", Env("CWSC_BIN", "build/cli/cwsc"),
                   " ", args, " >", base, ".out 2>", base, ".err");
  CliRun r;
  int status = std::system(cmd.c_str());
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = Slurp(base + ".out");
  r.err = Slurp(base + ".err");
  return r;
}

std::string Compile(const std::string& name, const std::string& platform,
                    const std::string& extra) {
  return absl::StrCat("compile examples/", name, ".toml --facts examples/facts/", platform, "-",
                      name, ".yaml ", extra);
}

TEST(SeatbeltCli, ExamplesCompileToGoldenProfilesTheEvaluatorChecks) {
  for (const char* name : {"workspace", "readonly", "locked-down"}) {
    SCOPED_TRACE(name);
    CliRun sbpl = Cwsc(Compile(name, "macos", "--target seatbelt --format sbpl"));
    ASSERT_EQ(sbpl.code, 0) << sbpl.err;
    const std::string golden =
        absl::StrCat(Env("CWSC_SOURCE_ROOT", "."), "/tests/golden/seatbelt/example-", name, ".sb");
    cwsc::testing::CheckGolden(golden, sbpl.out);
    EXPECT_EQ(Cwsc(Compile(name, "macos", "--target seatbelt --format sbpl")).out,
              sbpl.out);  // deterministic

    // The argv, NUL-separated, read back and evaluated.
    CliRun nul = Cwsc(Compile(name, "macos", "--format nul -- /usr/bin/make test"));
    ASSERT_EQ(nul.code, 0) << nul.err;
    std::vector<std::string> argv = absl::StrSplit(nul.out, '\0');
    ASSERT_FALSE(argv.empty());
    argv.pop_back();  // after the last NUL
    absl::StatusOr<SandboxExecCall> call = ParseSandboxExecArgv(argv);
    ASSERT_TRUE(call.ok()) << call.status();
    EXPECT_EQ(call->profile + "\n", sbpl.out);  // --format sbpl ends the text with a newline
    EXPECT_EQ(call->program, (std::vector<std::string>{"/usr/bin/make", "test"}));
    absl::StatusOr<SbplProfile> p = SbplProfile::Parse(call->profile, call->params, name);
    ASSERT_TRUE(p.ok()) << p.status();
    const bool writes = std::string(name) != "readonly";
    EXPECT_EQ(p->CanWrite("/Users/dev/proj/src/main.rs"), writes);
    EXPECT_TRUE(p->CanRead("/Users/dev/proj/src/main.rs"));
    EXPECT_FALSE(p->CanWrite("/Users/dev/proj/.codewhale/config.toml"));
    EXPECT_FALSE(p->CanRead("/Users/dev/.ssh/id_ed25519"));
    EXPECT_FALSE(p->CanRead("/private/etc/ssh/ssh_host_ed25519_key"));
    EXPECT_FALSE(p->CanWrite("/usr/local/bin/x"));
    EXPECT_FALSE(p->CanWrite("/Users/dev/notes.txt"));
    if (std::string(name) != "readonly") {
      EXPECT_FALSE(
          p->CanRead("/Users/dev/.config/private-notes/todo"));  // sandbox_denied_read_paths
    }
    if (std::string(name) == "locked-down") {
      EXPECT_FALSE(p->CanWrite("/Users/dev/proj/.git/config"));  // sandbox_protected_names
      EXPECT_TRUE(p->CanWrite("/Users/dev/.cache/build/o.o"));   // sandbox_writable_roots
      EXPECT_FALSE(p->CanWrite("/private/tmp/x"));               // sandbox_exclude_slash_tmp
      EXPECT_FALSE(p->CanConnect(SbplNet::kIPv4, "93.184.216.34", 443));
    }
    if (std::string(name) == "workspace") {
      EXPECT_TRUE(p->CanWrite("/private/tmp/x"));
      EXPECT_TRUE(p->CanConnect(SbplNet::kIPv4, "93.184.216.34", 443));  // ask mode has network
    }
  }
}

TEST(SeatbeltCli, DefaultFormatIsOneShellLine) {
  CliRun r = Cwsc(Compile("readonly", "macos", "-- echo hi"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StartsWith(r.out, "/usr/bin/sandbox-exec -p '\n(version 1)\n(deny default)\n"));
  EXPECT_TRUE(absl::EndsWith(r.out, "' -- echo hi\n"));
}

TEST(SeatbeltCli, ErrorsHaveExactTexts) {
  CliRun linux_sbpl = Cwsc(Compile("workspace", "linux", "--format sbpl"));
  EXPECT_EQ(linux_sbpl.code, 4);
  EXPECT_EQ(linux_sbpl.out, "");
  EXPECT_EQ(linux_sbpl.err,
            "cwsc: error: --format sbpl: plan kind linux-bwrap has no Seatbelt profile\n");

  CliRun linux_target = Cwsc(Compile("workspace", "linux", "--target seatbelt"));
  EXPECT_EQ(linux_target.code, 4);
  EXPECT_EQ(linux_target.err,
            "cwsc: error: --target seatbelt: plan kind linux-bwrap has no Seatbelt profile\n");

  const std::string empty = absl::StrCat(::testing::TempDir(), "/seatbelt_cli_empty.toml");
  std::ofstream(empty) << "# no sandbox keys: full-access stays danger-full-access\n";
  CliRun dfa = Cwsc(absl::StrCat("compile ", empty,
                                 " --facts examples/facts/macos-workspace.yaml "
                                 "--mode full-access --target seatbelt"));
  EXPECT_EQ(dfa.code, 4);
  EXPECT_EQ(dfa.err,
            "cwsc: error: --target seatbelt: plan kind none has no Seatbelt profile: "
            "policy danger-full-access does not request a sandbox\n");

  CliRun lines = Cwsc(Compile("workspace", "macos", "--format lines"));
  EXPECT_EQ(lines.code, 2);
  EXPECT_TRUE(absl::StrContains(lines.err, "--format lines cannot show it unambiguously"))
      << lines.err;

  CliRun bad = Cwsc(Compile("workspace", "macos", "--format sbpx"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err,
            "cwsc: error: unknown --format 'sbpx' (lines, shell, json, nul, sbpl or script)\n"
            "Try 'cwsc compile --help'.\n");
}

TEST(SeatbeltCli, ExplainShowsEveryProfileLineWithItsOrigin) {
  CliRun r = Cwsc(absl::StrCat(
      "explain examples/locked-down.toml --facts examples/facts/macos-locked-down.yaml -- make"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "# plan kind: macos-seatbelt\n"));
  EXPECT_TRUE(absl::StrContains(r.out, "# profile (-p), "));
  EXPECT_TRUE(absl::StrContains(
      r.out,
      "  (subpath (param \"WRITABLE_ROOT_1\"))                                   # config "
      "sandbox_writable_roots at examples/locked-down.toml:8:27\n"))
      << r.out;
  EXPECT_TRUE(absl::StrContains(
      r.out,
      "'-DDENY_READ_48=/Users/dev/.config/private-notes'  # config sandbox_denied_read_paths "
      "at examples/locked-down.toml:11:30\n"))
      << r.out;
}

}  // namespace
}  // namespace cwsc::backends
