// The `cwsc` command line: exit codes and the exact text of every
// user-facing error of compile/explain/facts, run through the real binary.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>

#include "backends/verify/seccomp_eval.h"
#include "ir/plan_json.h"
#include "tests/runtime/proc_helpers.h"
#include "tests/testing/golden.h"

namespace cwsc {
namespace {

using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

std::string Bin() { return std::getenv("CWSC_BIN") ? std::getenv("CWSC_BIN") : "cwsc"; }
std::string Src() {
  return std::getenv("CWSC_SOURCE_ROOT") ? std::getenv("CWSC_SOURCE_ROOT") : ".";
}

RunResult Cwsc(std::vector<std::string> args, const std::string& cwd = "") {
  args.insert(args.begin(), Bin());
  return testing::Run(args, "", {}, cwd);
}

std::string Facts() { return Src() + "/tests/golden/bwrap/ws_default/facts.yaml"; }

// `--target seccomp` prints a golden listing of the plan's filter, the same
// bytes every time; `seccomp-bpf` the program bwrap reads, which the
// independent checker accepts for the plan's filter; plans without a filter
// exit 4.
TEST(Cli, SeccompTargets) {
  std::string cfg = Src() + "/examples/workspace.toml";
  for (const char* mode : {"ask", "plan"}) {
    std::vector<std::string> base = {"compile", cfg, "--facts", Facts(), "--mode", mode};
    auto with = [&](const std::string& target) {
      std::vector<std::string> a = base;
      a.insert(a.end(), {"--target", target});
      return Cwsc(a);
    };
    RunResult listing = with("seccomp");
    ASSERT_EQ(listing.exit_code, 0) << listing.err;
    std::string golden = Src() + "/tests/golden/seccomp/example-workspace-" + mode + ".txt";
    testing::CheckGolden(golden, listing.out);
    EXPECT_EQ(with("seccomp").out, listing.out) << "deterministic";
    RunResult bpf = with("seccomp-bpf");
    ASSERT_EQ(bpf.exit_code, 0) << bpf.err;
    EXPECT_EQ(bpf.out.size() % 8, 0u);
    absl::StatusOr<ir::LaunchPlan> plan = ir::PlanFromJson(with("plan").out, "plan.json");
    ASSERT_TRUE(plan.ok() && plan->syscall_filter.has_value());
    EXPECT_TRUE(backends::CheckSeccompProgram(*plan->syscall_filter, bpf.out).ok());
    EXPECT_EQ(listing.out.find("socket (arg0") != std::string::npos, std::string(mode) == "plan")
        << "AF_UNIX rule only with the network off";
  }
  TempDir d;
  WriteFile(d / "empty.toml", "");
  RunResult none = Cwsc({"compile", d / "empty.toml", "--facts", Facts(), "--mode", "full-access",
                         "--target", "seccomp"});
  EXPECT_EQ(none.exit_code, 4);
  EXPECT_EQ(none.err, "cwsc: error: --target seccomp: plan kind none has no syscall filter\n");
  EXPECT_EQ(none.out, "");
}

TEST(Cli, HelpAndUsage) {
  RunResult h = Cwsc({"--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("usage: cwsc <command> [options]"), std::string::npos);
  EXPECT_NE(h.out.find("  compile   compile a policy into a launch plan or artifact\n"),
            std::string::npos);
  RunResult c = Cwsc({"compile", "--help"});
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_EQ(c.out.rfind("usage: cwsc compile CONFIG "
                        "[--target auto|bwrap|seatbelt|opensandbox|seccomp|seccomp-bpf|plan]\n",
                        0),
            0u);
  EXPECT_EQ(c.err, "");
  RunResult none = Cwsc({});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.out, "");
  RunResult unknown = Cwsc({"frobnicate"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err.rfind("cwsc: unknown command 'frobnicate'\n", 0), 0u);
}

// The version comes from meson.build's project() (cli/version.h.in); the
// test gets meson's value through the environment.
TEST(Cli, VersionIsTheProjectVersion) {
  const char* project = std::getenv("CWSC_PROJECT_VERSION");
  ASSERT_NE(project, nullptr) << "run through meson test (tests/meson.build sets it)";
  ASSERT_STRNE(project, "");
  RunResult v = Cwsc({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out, std::string("cwsc ") + project + "\n");
  EXPECT_EQ(v.err, "");
}

TEST(Cli, UsageErrors) {
  RunResult missing = Cwsc({"compile"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err.rfind("cwsc: error: missing CONFIG\n", 0), 0u);
  RunResult opt = Cwsc({"compile", "x.toml", "--bogus"});
  EXPECT_EQ(opt.exit_code, 2);
  EXPECT_EQ(opt.err.rfind("cwsc: error: unknown option '--bogus'\n", 0), 0u);
  RunResult noval = Cwsc({"compile", "x.toml", "--mode"});
  EXPECT_EQ(noval.err.rfind("cwsc: error: option '--mode' needs a value\n", 0), 0u);
  RunResult fmt =
      Cwsc({"compile", Src() + "/examples/workspace.toml", "--facts", Facts(), "--format", "xml"});
  EXPECT_EQ(fmt.exit_code, 2);
  EXPECT_EQ(fmt.err, "cwsc: error: unknown --format 'xml' (lines, shell, json, nul or sbpl)\n");
  RunResult target = Cwsc(
      {"compile", Src() + "/examples/workspace.toml", "--facts", Facts(), "--target", "docker"});
  EXPECT_EQ(target.exit_code, 2);
  EXPECT_EQ(target.err,
            "cwsc: error: unknown --target 'docker' (auto, bwrap, seatbelt, opensandbox, seccomp, "
            "seccomp-bpf or plan)\n");
  EXPECT_EQ(target.out, "");
}

TEST(Cli, BadInputsAreLocatedAndExit2WithNoStdout) {
  TempDir t;
  WriteFile(t / "bad.toml", "sandbox_mode = \"sometimes\"\n");
  RunResult r = Cwsc({"compile", "bad.toml", "--facts", Facts()}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "bad.toml:1:16: error: Invalid sandbox_mode 'sometimes': expected read-only, "
            "workspace-write, danger-full-access, or external-sandbox.\n"
            "  sandbox_mode = \"sometimes\"\n"
            "                 ^\n");
  WriteFile(t / "syntax.toml", "sandbox_mode = [\n");
  RunResult s = Cwsc({"compile", "syntax.toml", "--facts", Facts()}, t.path());
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_EQ(s.err,
            "syntax.toml:1:18: error: malformed TOML: Error while parsing array: encountered "
            "end-of-file\n"
            "  sandbox_mode = [\n"
            "                  ^\n");
  RunResult missing = Cwsc({"compile", "nope.toml", "--facts", Facts()}, t.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "nope.toml: error: cannot read the config: No such file or directory\n");
  RunResult mode = Cwsc({"compile", "bad.toml", "--mode", "turbo"}, t.path());
  EXPECT_EQ(mode.exit_code, 2);
  EXPECT_EQ(mode.err,
            "cwsc: error: unknown permission mode 'turbo': expected plan, ask, auto-review or "
            "full-access (aliases: suggest, auto, bypass, yolo)\n");
  WriteFile(t / "ok.toml", "");
  WriteFile(t / "facts.yaml", "cwsc_facts: 1\nuser: [1, 2]\n");
  RunResult facts = Cwsc({"compile", "ok.toml", "--facts", "facts.yaml"}, t.path());
  EXPECT_EQ(facts.exit_code, 2);
  EXPECT_EQ(facts.err,
            "facts.yaml:2:7: error: user must be a mapping\n"
            "  user: [1, 2]\n"
            "        ^\n");
  RunResult nofacts = Cwsc({"compile", "ok.toml", "--facts", "absent.yaml"}, t.path());
  EXPECT_EQ(nofacts.err,
            "absent.yaml: error: cannot read the facts file: No such file or directory\n");
  RunResult cwd = Cwsc(
      {"compile", "ok.toml", "--facts", Facts(), "--cwd", "", "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(cwd.exit_code, 2);
  EXPECT_EQ(cwd.err, "cwsc: error: --cwd must not be empty\n");
}

// A relative --cwd is taken from the working directory (the recorded one
// with --facts), like a shell's `cd`.
TEST(Cli, RelativeCwdIsResolved) {
  TempDir t;
  WriteFile(t / "ok.toml", "");
  RunResult rec = Cwsc({"compile", "ok.toml", "--facts", Facts(), "--cwd", "sub/../rel",
                        "--unlisted-as-missing", "--target", "plan"},
                       t.path());
  EXPECT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_NE(rec.out.find("\"cwd\": \"/home/dev/ws/rel\""), std::string::npos) << rec.out;
  mkdir((t / "w").c_str(), 0755);
  RunResult live = Cwsc({"compile", "ok.toml", "--cwd", "w", "--target", "plan"}, t.path());
  EXPECT_EQ(live.exit_code, 0) << live.err;
  EXPECT_NE(live.out.find("\"cwd\": \"" + t.path() + "/w\""), std::string::npos) << live.out;
}

TEST(Cli, HostilePathsRoundTripInEveryFormat) {
  TempDir t;
  WriteFile(t / "c.toml", "sandbox_read_denylist_defaults = false\n");
  std::string cwd = "/home/dev/it's a \"dir\"\n-x";
  RunResult shell = Cwsc({"compile", "c.toml", "--facts", Facts(), "--cwd", cwd, "--format",
                          "shell", "--", "printf", "%s", "-n"},
                         t.path());
  ASSERT_EQ(shell.exit_code, 0) << shell.err;
  // Re-parse the shell line with sh and print the --chdir operand.
  RunResult sh = testing::Run(
      {"/bin/sh", "-c",
       "eval \"set -- $1\"; while [ \"$1\" != --chdir ]; do shift; done; printf %s \"$2\"", "sh",
       shell.out});
  EXPECT_EQ(sh.out, cwd);
  RunResult nul =
      Cwsc({"compile", "c.toml", "--facts", Facts(), "--cwd", cwd, "--format", "nul"}, t.path());
  EXPECT_NE(nul.out.find(std::string("\0--chdir\0", 9) + cwd + std::string(1, '\0')),
            std::string::npos);
  RunResult lines = Cwsc({"compile", "c.toml", "--facts", Facts(), "--cwd", cwd}, t.path());
  EXPECT_EQ(lines.exit_code, 2);
  EXPECT_EQ(lines.out, "");
  RunResult json = Cwsc(
      {"compile", "c.toml", "--facts", Facts(), "--cwd", "/w/\xff", "--format", "json"}, t.path());
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_EQ(json.err,
            "cwsc: error: an argv token is not valid UTF-8; JSON cannot carry it (use --format nul "
            "or shell)\n");
}

TEST(Cli, TargetBwrapOnAnUnwrappedPlanExits4) {
  TempDir t;
  WriteFile(t / "c.toml", "prefer_bwrap = false\n");
  RunResult r = Cwsc({"compile", "c.toml", "--facts", Facts(), "--target", "bwrap"}, t.path());
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "cwsc: error: --target bwrap: the plan does not use bubblewrap (kind none): "
            "prefer_bwrap = false\n");
}

TEST(Cli, RefusedPlanExits3AndNeverPrintsTheKey) {
  TempDir t;
  WriteFile(t / "c.toml", "sandbox_backend = \"docker\"\nsandbox_api_key = \"sk-live-4242\"\n");
  RunResult r = Cwsc({"compile", "c.toml", "--facts", Facts()}, t.path());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "cwsc: refused: unsupported sandbox_backend 'docker': shell execution is refused; "
            "choose a supported backend (opensandbox) or explicitly select none\n"
            "  (config sandbox_backend at c.toml:1:19)\n");
  for (const char* target : {"plan", "auto"}) {
    RunResult p = Cwsc({"compile", "c.toml", "--facts", Facts(), "--target", target}, t.path());
    EXPECT_EQ(p.out.find("sk-live-4242"), std::string::npos);
    EXPECT_EQ(p.err.find("sk-live-4242"), std::string::npos);
  }
  RunResult e = Cwsc({"explain", "c.toml", "--facts", Facts()}, t.path());
  EXPECT_EQ(e.out.find("sk-live-4242"), std::string::npos);
}

TEST(Cli, RemoteRequestRefusesBytesJsonCannotCarry) {
  TempDir t;
  WriteFile(t / "c.toml",
            "sandbox_backend = \"opensandbox\"\nsandbox_url = \"http://127.0.0.1:9\"\n");
  RunResult r = Cwsc(
      {"compile", "c.toml", "--facts", Facts(), "--target", "opensandbox", "--", "printf", "\xff"},
      t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "cwsc: error: a program argument is not valid UTF-8; OpenSandbox requests carry the "
            "command in JSON, which cannot hold it\n");
}

TEST(Cli, ExamplesCompileOnRecordedFacts) {
  for (const char* ex : {"workspace.toml", "readonly.toml", "locked-down.toml"}) {
    for (const char* mode : {"plan", "ask", "auto-review", "full-access"}) {
      RunResult r = Cwsc({"compile", Src() + "/examples/" + ex, "--facts", Facts(), "--mode", mode,
                          "--target", "plan"});
      EXPECT_EQ(r.exit_code, 0) << ex << " " << mode << ": " << r.err;
      EXPECT_NE(r.out.find("\"schema_version\": 2"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace cwsc

namespace cwsc {
namespace {

// The ANTLR runtime's XPath lexer, whose static constructor would run at
// every start, is not linked into cwsc (grammar/xpath_unlinked.cc); the
// .cwsp parser still works.
TEST(Startup, NoXPathLexerInitializerInTheProgram) {
  testing::RunResult nm = testing::Run({"/usr/bin/nm", "-C", Bin()});
  ASSERT_EQ(nm.exit_code, 0) << nm.err;
  EXPECT_NE(nm.out.find("XPathLexer::XPathLexer(antlr4::CharStream*)"), std::string::npos);
  EXPECT_EQ(nm.out.find("XPathLexer::Initializer::Initializer()"), std::string::npos);
  EXPECT_EQ(nm.out.find("XPathLexer::_serializedATN"), std::string::npos);
  const char* src = std::getenv("CWSC_SOURCE_ROOT");
  testing::RunResult fmt =
      testing::Run({Bin(), "fmt", std::string(src ? src : ".") + "/examples/workspace.cwsp"});
  EXPECT_EQ(fmt.exit_code, 0) << fmt.err;
  EXPECT_NE(fmt.out.find("policy workspace {"), std::string::npos) << fmt.out;
}

}  // namespace
}  // namespace cwsc
