// The `cwsc` command line: exit codes and the exact text of every
// user-facing error of compile/explain/facts, run through the real binary.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/match.h"
#include "backends/verify/seccomp_eval.h"
#include "ir/plan_json.h"
#include "nlohmann/json.hpp"
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
    ASSERT_TRUE(plan.ok() && plan->syscall_filter() != nullptr);
    EXPECT_TRUE(backends::CheckSeccompProgram(*plan->syscall_filter(), bpf.out).ok());
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
  EXPECT_EQ(h.out.rfind("usage: cwsc <command> [options] [arguments]\n", 0), 0u);
  EXPECT_NE(h.out.find("  compile   compile a policy into a launch plan or artifact\n"),
            std::string::npos);
  EXPECT_EQ(Cwsc({"help"}).out, h.out);
  RunResult c = Cwsc({"compile", "--help"});
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_EQ(c.out.rfind("usage: cwsc compile [CONFIG] [options] [-- PROGRAM ARGS...]\n", 0), 0u);
  EXPECT_NE(c.out.find("\n  --mode MODE             the permission mode to compile for"),
            std::string::npos);
  EXPECT_NE(c.out.find("\n                            seccomp-bpf   the same filter"),
            std::string::npos);
  EXPECT_EQ(c.err, "");
  RunResult none = Cwsc({});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(none.err, "cwsc: error: no command given\nTry 'cwsc --help'.\n");
  RunResult unknown = Cwsc({"frobnicate"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "cwsc: error: unknown command 'frobnicate'\nTry 'cwsc --help'.\n");
}

// Every command of `cwsc --help` has its help three ways, all the same text,
// which lists each of its options once.
TEST(Cli, EveryCommandHasHelp) {
  RunResult h = Cwsc({"--help"});
  std::string list = h.out.substr(h.out.find("commands:\n") + 10);
  int commands = 0;
  for (size_t at = 0; list.compare(at, 2, "  ") == 0; at = list.find('\n', at) + 1) {
    std::string name = list.substr(at + 2, list.find(' ', at + 2) - at - 2);
    ++commands;
    RunResult a = Cwsc({name, "--help"});
    EXPECT_EQ(a.exit_code, 0) << name;
    EXPECT_EQ(a.err, "") << name;
    EXPECT_EQ(a.out.rfind("usage: cwsc " + name, 0), 0u) << name << a.out;
    EXPECT_NE(a.out.find("\n  -h, --help              show this help and exit\n"),
              std::string::npos)
        << name;
    EXPECT_EQ(Cwsc({name, "-h"}).out, a.out) << name;
    EXPECT_EQ(Cwsc({"help", name}).out, a.out) << name;
  }
  EXPECT_EQ(commands, 12);
  RunResult bad = Cwsc({"help", "complie"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "cwsc: error: unknown command 'complie' (did you mean 'compile'?)\n"
            "Try 'cwsc --help'.\n");
}

// A usage error is one line and a hint, nothing on stdout, exit 2; a near
// miss of a command or an option is named.
TEST(Cli, DidYouMean) {
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const Case cases[] = {
      {{"compil"},
       "cwsc: error: unknown command 'compil' (did you mean 'compile'?)\n"
       "Try 'cwsc --help'.\n"},
      {{"ecplain"},
       "cwsc: error: unknown command 'ecplain' (did you mean 'explain'?)\n"
       "Try 'cwsc --help'.\n"},
      {{"--bogus"}, "cwsc: error: unknown command '--bogus'\nTry 'cwsc --help'.\n"},
      {{"compile", "x.toml", "--mdoe", "ask"},
       "cwsc: error: unknown option '--mdoe' for 'compile' (did you mean '--mode'?)\n"
       "Try 'cwsc compile --help'.\n"},
      {{"check", "x.cwsp", "--expetc=y.cwsp"},
       "cwsc: error: unknown option '--expetc' for 'check' (did you mean '--expect'?)\n"
       "Try 'cwsc check --help'.\n"},
      {{"run", "x.toml", "--tiemout", "3", "--", "true"},
       "cwsc: error: unknown option '--tiemout' for 'run' (did you mean '--timeout'?)\n"
       "Try 'cwsc run --help'.\n"},
      {{"fmt", "--hepl"},
       "cwsc: error: unknown option '--hepl' for 'fmt' (did you mean '--help'?)\n"
       "Try 'cwsc fmt --help'.\n"},
      {{"compile", "x.toml", "--zzzzzz"},
       "cwsc: error: unknown option '--zzzzzz' for 'compile'\nTry 'cwsc compile --help'.\n"},
      {{"explain", "x.toml", "--format", "json"},
       "cwsc: error: explain has no --format: use --json for the JSON form\n"
       "Try 'cwsc explain --help'.\n"},
      {{"doctor", "--", "true"},
       "cwsc: error: 'doctor' takes no program (nothing after --)\n"
       "Try 'cwsc doctor --help'.\n"},
      {{"compile", "--no-project-config=yes", "x.toml"},
       "cwsc: error: option '--no-project-config' takes no value\n"
       "Try 'cwsc compile --help'.\n"},
      {{"compile", "a.toml", "b.toml"},
       "cwsc: error: unexpected argument 'b.toml' (put the program after --)\n"
       "Try 'cwsc compile --help'.\n"},
      {{"facts", "a.toml"},
       "cwsc: error: unexpected argument 'a.toml'\nTry 'cwsc facts --help'.\n"},
  };
  for (const Case& c : cases) {
    RunResult r = Cwsc(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[0];
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, c.err);
  }
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
  RunResult opt = Cwsc({"compile", "x.toml", "--bogus"});
  EXPECT_EQ(opt.exit_code, 2);
  EXPECT_EQ(opt.err,
            "cwsc: error: unknown option '--bogus' for 'compile'\nTry 'cwsc compile --help'.\n");
  RunResult noval = Cwsc({"compile", "x.toml", "--mode"});
  EXPECT_EQ(noval.exit_code, 2);
  EXPECT_EQ(noval.err, "cwsc: error: option '--mode' needs a value\nTry 'cwsc compile --help'.\n");
  RunResult fmt =
      Cwsc({"compile", Src() + "/examples/workspace.toml", "--facts", Facts(), "--format", "xml"});
  EXPECT_EQ(fmt.exit_code, 2);
  EXPECT_EQ(fmt.err,
            "cwsc: error: unknown --format 'xml' (lines, shell, json, nul, sbpl or script)\n"
            "Try 'cwsc compile --help'.\n");
  RunResult target = Cwsc(
      {"compile", Src() + "/examples/workspace.toml", "--facts", Facts(), "--target", "docker"});
  EXPECT_EQ(target.exit_code, 2);
  EXPECT_EQ(target.err,
            "cwsc: error: unknown --target 'docker' (auto, bwrap, seatbelt, opensandbox, seccomp, "
            "seccomp-bpf, landlock or plan)\nTry 'cwsc compile --help'.\n");
  RunResult explain =
      Cwsc({"explain", Src() + "/examples/workspace.toml", "--facts", Facts(), "--target", "plan"});
  EXPECT_EQ(explain.exit_code, 2);
  EXPECT_EQ(explain.err,
            "cwsc: error: explain shows argv targets (auto, bwrap, seatbelt), not 'plan'\n"
            "Try 'cwsc explain --help'.\n");
  EXPECT_EQ(explain.out, "");
  EXPECT_EQ(target.out, "");
  // A remote or Landlock plan shows its own artifact (the requests, the
  // ruleset); any other non-argv target is the same usage error, never a
  // crash on the artifact it does not have.
  TempDir t;
  WriteFile(t / "l.toml", "sandbox_linux_backend = \"landlock\"\n");
  const std::string landlock_facts = Src() + "/tests/golden/landlock/facts.yaml";
  struct C {
    std::string config, facts, target;
    int exit_code;
    std::string err;  // "": the usage error of explain for the target
  };
  for (const C& c :
       {C{Src() + "/examples/remote.toml", Facts(), "plan", 2, ""},
        C{t / "l.toml", landlock_facts, "plan", 2, ""},
        C{Src() + "/examples/remote.toml", Facts(), "seccomp", 4,
          "cwsc: error: --target seccomp: plan kind opensandbox has no syscall filter\n"},
        C{t / "l.toml", landlock_facts, "opensandbox", 4,
          "cwsc: error: --target opensandbox: plan kind linux-landlock does not use "
          "OpenSandbox\n"}}) {
    SCOPED_TRACE(c.config + " --target " + c.target);
    RunResult r = Cwsc({"explain", c.config, "--facts", c.facts, "--target", c.target});
    EXPECT_EQ(r.exit_code, c.exit_code);
    EXPECT_EQ(r.err, !c.err.empty() ? c.err
                                    : "cwsc: error: explain shows argv targets (auto, bwrap, "
                                      "seatbelt), not '" +
                                          c.target + "'\nTry 'cwsc explain --help'.\n");
    EXPECT_EQ(r.out, "");
  }
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

// A working directory that was removed is an error (exit 2), never a
// silent "/" (issue 25): `compile` and `run` both stop before anything runs.
TEST(Cli, RemovedWorkingDirectoryIsAnError) {
  TempDir t;
  WriteFile(t / "ok.toml", "");
  const std::string gone = t / "gone";
  const std::string ran = t / "ran";
  const std::string msg =
      "cwsc: error: the working directory no longer exists (it was removed, or cannot be "
      "reached); change to an existing directory or pass --cwd DIR\n";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"compile", t / "ok.toml", "--target", "plan"},
        std::vector<std::string>{"run", t / "ok.toml", "--", "/bin/sh", "-c", ": > " + ran}}) {
    mkdir(gone.c_str(), 0755);
    std::vector<std::string> argv = {
        "/bin/sh", "-c", "cd \"$1\" && rmdir \"$1\" && shift && exec \"$@\"", "sh", gone, Bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult r = testing::Run(argv);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args[0] << ": stdout has " << r.out.size() << " bytes";
    EXPECT_EQ(r.err, msg) << args[0];
  }
  EXPECT_FALSE(testing::Exists(ran));
  // With --cwd the process's own directory is not needed.
  mkdir(gone.c_str(), 0755);
  RunResult ok =
      testing::Run({"/bin/sh", "-c", "cd \"$1\" && rmdir \"$1\" && shift && exec \"$@\"", "sh",
                    gone, Bin(), "compile", t / "ok.toml", "--cwd", t.path(), "--target", "plan"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
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

// An enum-valued setting is parsed once, by the frontend: the spec stage
// shows the value it parsed to, not the spelling; an unsupported backend,
// which parses to nothing, shows the text its refusal quotes.
TEST(Cli, ExplainStageShowsParsedEnumValues) {
  TempDir t;
  const std::string cfg = t / "e.toml";
  auto spec = [&](const std::string& text) {
    WriteFile(cfg, text);
    return testing::Run({Bin(), "explain", cfg, "--facts", Facts(), "--stage", "spec"});
  };
  RunResult r = spec(
      "sandbox_mode = \" Read-Only \"\n"
      "sandbox_backend = \"Open_Sandbox\"\n"
      "sandbox_linux_backend = \"LANDLOCK\"\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "sandbox_mode = \"read-only\"  # config sandbox_mode at " + cfg +
                       ":1:16\n"
                       "sandbox_backend = \"opensandbox\"  # config sandbox_backend at " +
                       cfg +
                       ":2:19\n"
                       "sandbox_linux_backend = \"landlock\"  # config sandbox_linux_backend at " +
                       cfg + ":3:25\n");
  r = spec("sandbox_backend = \" Docker\"\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "sandbox_backend = \" Docker\"  # config sandbox_backend at " + cfg + ":1:19\n");
  r = spec("sandbox_backend = \"\"\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "sandbox_backend = \"none\"  # config sandbox_backend at " + cfg + ":1:19\n");
}

// explain --stage shows each stage's value: the file's settings as read,
// the settings after layering (here the command line adds a key), the
// resolved policy and the plan; a secret's value is never shown.
// What cwsc writes to a file it is named (facts -o, fmt -w) goes into a new
// file renamed over the name: a symlink planted there (by a command an
// earlier run confined, in a workspace it could write) is replaced, never
// written through, as run's -o is.
TEST(Cli, OutputFilesReplaceASymlinkNeverWriteThroughIt) {
  TempDir t;
  const std::string victim = t / "victim";
  WriteFile(victim, "untouched\n");
  ASSERT_EQ(symlink(victim.c_str(), (t / "facts.yaml").c_str()), 0);
  RunResult facts = testing::Run({Bin(), "facts", "-o", t / "facts.yaml"});
  EXPECT_EQ(facts.exit_code, 0) << facts.err;
  EXPECT_EQ(testing::ReadFileOr(victim), "untouched\n");
  struct stat st {};
  ASSERT_EQ(lstat((t / "facts.yaml").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_NE(testing::ReadFileOr(t / "facts.yaml").find("cwsc_facts: 1"), std::string::npos);

  // fmt -w reads the policy through the link and replaces the link.
  const std::string policy = t / "real.cwsp";
  WriteFile(policy, "policy p {\nmode read-only;\n}\n");
  ASSERT_EQ(symlink(policy.c_str(), (t / "p.cwsp").c_str()), 0);
  RunResult fmt = testing::Run({Bin(), "fmt", "-w", t / "p.cwsp"});
  EXPECT_EQ(fmt.exit_code, 0) << fmt.err;
  EXPECT_EQ(testing::ReadFileOr(policy), "policy p {\nmode read-only;\n}\n");
  ASSERT_EQ(lstat((t / "p.cwsp").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(testing::ReadFileOr(t / "p.cwsp"), "policy p {\n  mode read-only;\n}\n");
  // A file that cannot be written is an error naming it.
  RunResult bad = testing::Run({Bin(), "facts", "-o", t / "no/such/dir/f.yaml"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("no/such/dir"), std::string::npos) << bad.err;
}

// --linux-backend takes auto, bwrap or landlock (any case, as the config
// key does); any other name is a usage error before anything is read or
// run, never a silent bubblewrap plan.
TEST(Cli, UnknownLinuxBackendIsAUsageError) {
  TempDir t;
  const std::string marker = t / "ran";
  const std::string config = Src() + "/examples/workspace.toml";
  for (const std::string command : {"compile", "explain", "run"}) {
    SCOPED_TRACE(command);
    std::vector<std::string> argv = {Bin(), command, config, "--linux-backend", "docker"};
    if (command != "run") {
      argv.insert(argv.end(), {"--facts", Facts()});
    } else {
      argv.insert(argv.end(), {"--", "/bin/sh", "-c", "touch " + marker});
    }
    RunResult r = testing::Run(argv);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err,
              "cwsc: error: --linux-backend: invalid value 'docker': expected auto, bwrap or "
              "landlock\n");
    EXPECT_FALSE(testing::Exists(marker));
  }
  RunResult upper = testing::Run({Bin(), "explain", config, "--facts", Facts(), "--linux-backend",
                                  "LandLock", "--stage", "layered"});
  EXPECT_EQ(upper.exit_code, 0) << upper.err;
  EXPECT_TRUE(absl::StrContains(
      upper.out, "sandbox_linux_backend = \"landlock\"  # cli --linux-backend LandLock\n"))
      << upper.out;
}

TEST(Cli, ExplainStageShowsEachStagesValue) {
  TempDir t;
  const std::string cfg = t / "s.toml";
  WriteFile(cfg,
            "sandbox_mode = \"read-only\"\n"
            "sandbox_api_key = \"sk-STAGE-SECRET\"\n"
            "bwrap_ro_roots = [\"/opt/a \\\"b\"]\n");
  auto stage = [&](const std::string& name, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {Bin(),   "explain", cfg,   "--facts",
                                     Facts(), "--mode",  "ask", "--linux-backend",
                                     "bwrap", "--stage", name};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return testing::Run(argv);
  };
  RunResult spec = stage("spec");
  EXPECT_EQ(spec.exit_code, 0) << spec.err;
  EXPECT_EQ(spec.out, "sandbox_mode = \"read-only\"  # config sandbox_mode at " + cfg +
                          ":1:16\n"
                          "bwrap_ro_roots = [\"/opt/a \\\"b\"]  # config bwrap_ro_roots at " +
                          cfg +
                          ":3:18\n"
                          "sandbox_api_key = (withheld)  # config sandbox_api_key at " +
                          cfg + ":2:19\n");
  RunResult layered = stage("layered");
  EXPECT_EQ(layered.exit_code, 0) << layered.err;
  EXPECT_EQ(layered.out, "sandbox_mode = \"read-only\"  # config sandbox_mode at " + cfg +
                             ":1:16\n"
                             "bwrap_ro_roots = [\"/opt/a \\\"b\"]  # config bwrap_ro_roots at " +
                             cfg +
                             ":3:18\n"
                             "sandbox_api_key = (withheld)  # config sandbox_api_key at " +
                             cfg +
                             ":2:19\n"
                             "sandbox_linux_backend = \"bwrap\"  # cli --linux-backend bwrap\n");
  // The policy is the layered mode's: read-only, no writable root.
  RunResult policy = stage("policy");
  ASSERT_EQ(policy.exit_code, 0) << policy.err;
  nlohmann::json p = nlohmann::json::parse(policy.out);
  EXPECT_EQ(p["type"], "read-only");
  EXPECT_EQ(p["writable_roots"], nlohmann::json::array());
  RunResult plan = stage("plan");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  nlohmann::json j = nlohmann::json::parse(plan.out);
  EXPECT_EQ(j["schema_version"], ir::kPlanSchemaVersion);
  EXPECT_EQ(j["policy"], p);
  RunResult report = stage("layered", {"--json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  nlohmann::json r = nlohmann::json::parse(report.out)["result"];
  EXPECT_EQ(r["stage"], "layered");
  ASSERT_EQ(r["settings"].size(), 4u);
  EXPECT_EQ(r["settings"][0]["value"], "\"read-only\"");
  EXPECT_EQ(r["settings"][3]["value"], "\"bwrap\"");
  EXPECT_EQ(r["settings"][3]["origin"]["kind"], "cli");
  EXPECT_EQ(r["settings"][2]["key"], "sandbox_api_key");
  EXPECT_EQ(r["settings"][2]["value"], nullptr);
  EXPECT_EQ(r["settings"][2]["withheld"], true);
  for (const RunResult* x : {&spec, &layered, &policy, &plan, &report}) {
    EXPECT_EQ(x->out.find("STAGE-SECRET"), std::string::npos);
    EXPECT_EQ(x->err.find("STAGE-SECRET"), std::string::npos);
  }
  RunResult bad = stage("parsed");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err,
            "cwsc: error: unknown --stage 'parsed' (spec, layered, policy or plan)\n"
            "Try 'cwsc explain --help'.\n");
}

TEST(Cli, ExamplesCompileOnRecordedFacts) {
  for (const char* ex : {"workspace.toml", "readonly.toml", "locked-down.toml"}) {
    for (const char* mode : {"plan", "ask", "auto-review", "full-access"}) {
      RunResult r = Cwsc({"compile", Src() + "/examples/" + ex, "--facts", Facts(), "--mode", mode,
                          "--target", "plan"});
      EXPECT_EQ(r.exit_code, 0) << ex << " " << mode << ": " << r.err;
      EXPECT_NE(r.out.find("\"schema_version\": " + std::to_string(ir::kPlanSchemaVersion)),
                std::string::npos);
    }
  }
}

// `-` reads the config (compile, explain, check, why, fmt) or the plan
// (exec) from stdin; diagnostics then name <stdin>.
TEST(Cli, StdinAsConfig) {
  auto stdin_run = [](std::vector<std::string> args, const std::string& input) {
    args.insert(args.begin(), Bin());
    return testing::Run(args, input);
  };
  const std::string toml_path = Src() + "/examples/workspace.toml";
  const std::string cwsp_path = Src() + "/examples/workspace.cwsp";
  const std::string toml = testing::ReadFileOr(toml_path);
  const std::string cwsp = testing::ReadFileOr(cwsp_path);
  ASSERT_FALSE(toml.empty());
  ASSERT_FALSE(cwsp.empty());
  for (const char* target : {"bwrap", "plan"}) {
    RunResult file = Cwsc({"compile", toml_path, "--facts", Facts(), "--target", target});
    RunResult in = stdin_run({"compile", "-", "--facts", Facts(), "--target", target}, toml);
    ASSERT_EQ(in.exit_code, 0) << in.err;
    if (std::string(target) == "bwrap") {
      EXPECT_EQ(in.out, file.out);
    } else {
      EXPECT_NE(in.out.find("\"file\": \"<stdin>\""), std::string::npos) << in.out;
    }
  }
  RunResult dsl = stdin_run({"compile", "-", "--input", "dsl", "--facts", Facts()}, cwsp);
  EXPECT_EQ(dsl.exit_code, 0) << dsl.err;
  EXPECT_EQ(dsl.out, Cwsc({"compile", cwsp_path, "--facts", Facts()}).out);

  RunResult bad = stdin_run({"compile", "-", "--facts", Facts()}, "sandbox_mode = \"sometimes\"\n");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err.substr(0, bad.err.find('\n')),
            "<stdin>:1:16: error: Invalid sandbox_mode 'sometimes': expected read-only, "
            "workspace-write, danger-full-access, or external-sandbox.");

  RunResult ex = stdin_run({"explain", "-", "--facts", Facts()}, toml);
  EXPECT_EQ(ex.exit_code, 0) << ex.err;
  EXPECT_NE(ex.out.find("<stdin>:"), std::string::npos) << ex.out;

  RunResult check = stdin_run({"check", "-", "--input", "dsl", "--facts", Facts()}, cwsp);
  RunResult check_file = Cwsc({"check", cwsp_path, "--facts", Facts()});
  EXPECT_EQ(check.exit_code, check_file.exit_code) << check.err;
  EXPECT_NE(check.out.find("<stdin>"), std::string::npos) << check.out;

  RunResult why = stdin_run({"why", "/etc/passwd", "-", "--facts", Facts()}, toml);
  EXPECT_EQ(why.exit_code, 0) << why.err;
  EXPECT_EQ(why.out, Cwsc({"why", "/etc/passwd", toml_path, "--facts", Facts()}).out);

  RunResult fmt = stdin_run({"fmt", "-"}, "policy p {\nmode read-only;\n}\n");
  EXPECT_EQ(fmt.exit_code, 0) << fmt.err;
  EXPECT_EQ(fmt.out, "policy p {\n  mode read-only;\n}\n");
  RunResult fmt_check = stdin_run({"fmt", "--check", "-"}, "policy p {\nmode read-only;\n}\n");
  EXPECT_EQ(fmt_check.exit_code, 1);
  EXPECT_EQ(fmt_check.out, "<stdin>:2: not formatted\n");
  RunResult fmt_bad = stdin_run({"fmt", "-"}, "policy p {\n  mode \"x;\n}\n");
  EXPECT_EQ(fmt_bad.exit_code, 2);
  EXPECT_EQ(fmt_bad.err.rfind("<stdin>:2:", 0), 0u) << fmt_bad.err;
  RunResult fmt_w = stdin_run({"fmt", "-w", "-"}, "policy p {\n}\n");
  EXPECT_EQ(fmt_w.exit_code, 2);
  EXPECT_EQ(fmt_w.err, "cwsc: error: -w cannot rewrite stdin (-)\nTry 'cwsc fmt --help'.\n");
}

// Without CONFIG, compile, explain, check, why and run use the config
// Codewhale would: $CODEWHALE_HOME/config.toml, ~/.codewhale/config.toml,
// then the legacy ~/.deepseek/config.toml; explain and the plan's origins
// name the file found; with none, the error lists the places looked at.
TEST(Cli, ConfigDiscovery) {
  TempDir t;
  const std::string home = t / "home";
  const std::string cw = t / "cw";
  const std::string toml = testing::ReadFileOr(Src() + "/examples/workspace.toml");
  auto run = [&](std::vector<std::string> args, std::vector<std::string> env) {
    args.insert(args.begin(), Bin());
    env.push_back("PATH=/usr/bin:/bin");
    return testing::RunWithEnv(args, env);
  };
  const std::vector<std::string> home_only = {"HOME=" + home};
  const std::vector<std::string> both = {"HOME=" + home, "CODEWHALE_HOME=" + cw};

  RunResult none = run({"compile", "--facts", Facts()}, both);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(none.err, "cwsc: error: no CONFIG given and no config file found; looked for " + cw +
                          "/config.toml, " + home + "/.codewhale/config.toml, " + home +
                          "/.deepseek/config.toml\nTry 'cwsc compile --help'.\n");
  RunResult unset = run({"why", "/etc", "--facts", Facts()}, home_only);
  EXPECT_EQ(unset.exit_code, 2);
  EXPECT_EQ(unset.err,
            "cwsc: error: no CONFIG given and no config file found; looked for " + home +
                "/.codewhale/config.toml, " + home +
                "/.deepseek/config.toml ($CODEWHALE_HOME is unset)\nTry 'cwsc why --help'.\n");

  // The legacy home alone.
  for (const std::string& d : {home + "/.deepseek", home + "/.codewhale", cw}) {
    std::filesystem::create_directories(d);
  }
  WriteFile(home + "/.deepseek/config.toml", toml);
  RunResult legacy = run({"compile", "--facts", Facts(), "--target", "plan"}, both);
  ASSERT_EQ(legacy.exit_code, 0) << legacy.err;
  EXPECT_NE(legacy.out.find("\"file\": \"" + home + "/.deepseek/config.toml\""), std::string::npos);
  // ~/.codewhale wins over the legacy home; $CODEWHALE_HOME over both.
  WriteFile(home + "/.codewhale/config.toml", toml);
  RunResult user = run({"explain", "--facts", Facts()}, both);
  ASSERT_EQ(user.exit_code, 0) << user.err;
  EXPECT_EQ(user.out.substr(0, user.out.find('\n') + 1),
            "# config: " + home + "/.codewhale/config.toml (no CONFIG given: discovered)\n");
  WriteFile(cw + "/config.toml", toml);
  RunResult env = run({"explain", "--facts", Facts()}, both);
  ASSERT_EQ(env.exit_code, 0) << env.err;
  EXPECT_EQ(env.out.substr(0, env.out.find('\n') + 1),
            "# config: " + cw + "/config.toml (no CONFIG given: discovered)\n");
  // The same plan as with the file named.
  EXPECT_EQ(run({"compile", "--facts", Facts()}, both).out,
            run({"compile", cw + "/config.toml", "--facts", Facts()}, both).out);
  RunResult why = run({"why", "/etc/passwd", "--facts", Facts()}, both);
  EXPECT_EQ(why.exit_code, 0) << why.err;
  RunResult check = run({"check", "--facts", Facts()}, both);
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find(cw + "/config.toml"), std::string::npos) << check.out;
  // A named CONFIG prints no config line.
  RunResult named = run({"explain", cw + "/config.toml", "--facts", Facts()}, both);
  EXPECT_EQ(named.out.rfind("# plan kind: ", 0), 0u);
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
