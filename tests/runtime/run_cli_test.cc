// The `cwsc run` / `cwsc exec` / `cwsc doctor` command lines: refusals and
// usage errors with their exact text and exit codes, exec of a precompiled
// plan and its exec-time re-checks, signal forwarding, a real host where
// bubblewrap cannot work (a user namespace with max_user_namespaces = 0),
// and runs as a second, non-root user.
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pty.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runtime/sandbox_fixture.h"

namespace cwsc::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class RunCliTest : public SandboxTree {
 protected:
  RunResult Cli(const std::vector<std::string>& args, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {CwscBin()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunWithEnv(argv, Env(extra));
  }

  std::string CompilePlan(const std::string& mode = "ask") {
    std::string plan = Base() + "/plan.json";
    RunResult r = Cli({"compile", config, "--mode", mode, "--cwd", ws, "--target", "plan"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    WriteFile(plan, r.out);
    return plan;
  }
};

TEST_F(RunCliTest, RefusedPlanRunsNothingAndExits125) {
  SetConfig("sandbox_backend = \"bogus\"\n");
  RunResult r = Cli({"run", config, "--cwd", ws, "--", "/bin/sh", "-c", "echo ran > " + ws + "/m"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_EQ(r.err,
            "cwsc: refused: unsupported sandbox_backend 'bogus': shell execution is refused; "
            "choose a supported backend (opensandbox) or explicitly select none\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(Exists(ws + "/m"));
  r = Cli({"run", config, "--cwd", ws, "--json", "-o", Base() + "/r.json", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 125);
  nlohmann::json report = nlohmann::json::parse(ReadFileOr(Base() + "/r.json"));
  EXPECT_EQ(report["ok"], false);
  EXPECT_EQ(report["exit_code"], 125);
  ASSERT_EQ(report["diagnostics"].size(), 1u);
  EXPECT_EQ(report["diagnostics"][0]["code"], "refused");
  nlohmann::json j = report["result"];
  EXPECT_EQ(j["sandbox_kind"], "refused");
  EXPECT_EQ(j["ran"], false);
  EXPECT_TRUE(j["exit_code"].is_null());
  EXPECT_THAT(j["refused"].get<std::string>(), StartsWith("unsupported sandbox_backend 'bogus'"));
}

// A plan of schema version 1, and a version 2 plan no kind can have: exit 2,
// naming the file and the place (docs/plan.md).
TEST_F(RunCliTest, ExecRefusesOldAndImpossiblePlans) {
  std::string v1 = SourceRoot() + "/tests/regress/plan_json/schema-v1-plan.json";
  RunResult r = Cli({"exec", v1, "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, v1 +
                       ": error: bad plan at '/schema_version': schema_version 1 is no longer "
                       "read (this cwsc reads version 5); compile the plan again with this cwsc\n");
  nlohmann::json plan = nlohmann::json::parse(ReadFileOr(CompilePlan()));
  ASSERT_EQ(plan["kind"], "linux-bwrap");
  plan["kind"] = "refused";
  plan["launch"] = nlohmann::json{{"refusal", nullptr}};
  std::string bad = Base() + "/impossible.json";
  WriteFile(bad, plan.dump(2));
  r = Cli({"exec", bad, "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            bad + ": error: bad plan at '/launch/refusal': a refused plan needs a refusal\n");
}

// `cwsc exec -` reads the plan from stdin (`cwsc compile --target plan |
// cwsc exec - -- PROGRAM`); a bad one is named <stdin>.
TEST_F(RunCliTest, ExecReadsThePlanFromStdin) {
  std::string plan = ReadFileOr(CompilePlan());
  std::vector<std::string> argv = {
      CwscBin(), "exec", "-", "--", "/bin/sh", "-c", "echo ran > " + ws + "/m"};
  RunResult r = RunWithEnv(argv, Env({}), plan);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFileOr(ws + "/m"), "ran\n");
  r = RunWithEnv({CwscBin(), "exec", "-", "--", "true"}, Env({}), "{\"schema_version\": ");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, StartsWith("<stdin>:"));
}

TEST_F(RunCliTest, UsageErrors) {
  RunResult r = Cli({"run", config});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cwsc: error: no program given: put it after --\nTry 'cwsc run --help'.\n");
  r = Cli({"run", config, "-o", "r.json", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cwsc: error: -o FILE needs --json\nTry 'cwsc run --help'.\n");
  r = Cli({"exec", "p.json", "--json-fd", "3", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cwsc: error: --json-fd N needs --json\nTry 'cwsc exec --help'.\n");
  r = Cli({"run", config, "--json", "-o", "r.json", "--json-fd", "3", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cwsc: error: give -o FILE or --json-fd N, not both\nTry 'cwsc run --help'.\n");
  r = Cli({"exec", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cwsc: error: missing PLAN.json\nTry 'cwsc exec --help'.\n");
  r = Cli({"run", config, "--timeout", "abc", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "cwsc: error: --timeout: expected a positive number of seconds, got 'abc'\n"
            "Try 'cwsc run --help'.\n");
  r = Cli({"run", config, "--timeout", "-1", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  r = Cli({"run", config, "--facts", "x.yaml", "--", "true"});
  EXPECT_EQ(r.exit_code, 2) << "run always uses the live host";
  r = Cli({"exec", Base() + "/nope.json", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  // As every command says it of a file it cannot read (check, diff, audit).
  EXPECT_EQ(r.err, Base() + "/nope.json: error: cannot read the file\n");
  WriteFile(Base() + "/bad.json", "{\"schema_version\": ");
  r = Cli({"exec", Base() + "/bad.json", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, StartsWith(Base() + "/bad.json:"));
  r = Cli({"run", config, "-o", Base() + "/r.json", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cwsc: error: -o FILE needs --json\nTry 'cwsc run --help'.\n");
  // The result channel (docs/runtime.md, "--json result").
  for (const char* cmd : {"run", "exec"}) {
    std::string first = std::string(cmd) == "run" ? config : CompilePlan();
    r = Cli({cmd, first, "--json", "--", "true"});
    EXPECT_EQ(r.exit_code, 2);
    const std::string hint = std::string("Try 'cwsc ") + cmd + " --help'.\n";
    EXPECT_EQ(r.err,
              "cwsc: error: --json needs -o FILE or --json-fd N: the command's own stderr cannot "
              "carry a result it could forge\n" +
                  hint);
    r = Cli({cmd, first, "--json-fd", "3", "--", "true"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "cwsc: error: --json-fd N needs --json\n" + hint);
    r = Cli({cmd, first, "--json", "--json-fd", "3", "-o", Base() + "/r.json", "--", "true"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "cwsc: error: give -o FILE or --json-fd N, not both\n" + hint);
    for (const char* fd : {"1", "two", "-3"}) {
      r = Cli({cmd, first, "--json", "--json-fd", fd, "--", "true"});
      EXPECT_EQ(r.exit_code, 2);
      EXPECT_EQ(r.err, std::string("cwsc: error: --json-fd: expected a descriptor number of 3 or "
                                   "more (0, 1 and 2 are the command's own), got '") +
                           fd + "'\n");
    }
    r = Cli({cmd, first, "--json", "--json-fd", "987", "--", "true"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "cwsc: error: --json-fd 987: not an open descriptor\n");
    r = Cli({cmd, first, "--json", "-o", Base() + "/no/such/r.json", "--", "true"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "cwsc: error: -o " + Base() + "/no/such/r.json: cannot open the directory " +
                         Base() + "/no/such: No such file or directory\n");
    r = Cli({cmd, first, "--json", "-o", Base() + "/", "--", "true"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "cwsc: error: -o " + Base() + "/: not a file name\n");
  }
}

// -o FILE replaces what is at FILE (a symlink included) with a new file.
TEST_F(RunCliTest, JsonResultFileIsReplacedNotWrittenThrough) {
  WriteFile(outside + "/target", "ORIGINAL\n");
  ASSERT_EQ(symlink((outside + "/target").c_str(), (Base() + "/r.json").c_str()), 0);
  RunResult r = Cli({"run", config, "--mode", "full-access", "--cwd", ws, "--json", "-o",
                     Base() + "/r.json", "--", "/bin/sh", "-c", "exit 7"});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_EQ(ReadFileOr(outside + "/target"), "ORIGINAL\n");
  struct stat st {};
  ASSERT_EQ(lstat((Base() + "/r.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  nlohmann::json j = nlohmann::json::parse(ReadFileOr(Base() + "/r.json"))["result"];
  EXPECT_EQ(j["exit_code"], 7);
  EXPECT_EQ(j["sandbox_kind"], "none");
}

TEST_F(RunCliTest, HelpTexts) {
  for (const char* cmd : {"run", "exec", "doctor"}) {
    RunResult r = Cli({cmd, "--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_THAT(r.out, StartsWith(std::string("usage: cwsc ") + cmd));
  }
}

TEST_F(RunCliTest, UnwrappedProgramNotFoundIs127) {
  RunResult r =
      Cli({"run", config, "--mode", "full-access", "--cwd", ws, "--", "no-such-program-xyz"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_EQ(r.err, "cwsc: cannot run 'no-such-program-xyz': No such file or directory\n");
  WriteFile(ws + "/script", "#!/bin/sh\n");
  chmod((ws + "/script").c_str(), 0644);
  r = Cli({"run", config, "--mode", "full-access", "--cwd", ws, "--", ws + "/script"});
  EXPECT_EQ(r.exit_code, 126);
}

// Inside bubblewrap too: a missing program is "not found" (127), a file
// that is not executable 126, never a sandbox denial.
TEST_F(RunCliTest, WrappedProgramNotFoundIs127) {
  RunResult r = Cli({"run", config, "--cwd", ws, "--", "no-such-program-xyz"});
  EXPECT_EQ(r.exit_code, 127);
  // bwrap's own line passes through, then cwsc says what it means.
  EXPECT_EQ(r.err,
            "bwrap: execvp no-such-program-xyz: No such file or directory\n"
            "cwsc: cannot run 'no-such-program-xyz': No such file or directory\n");
  WriteFile(ws + "/script", "#!/bin/sh\n");
  chmod((ws + "/script").c_str(), 0644);
  r = Cli({"run", config, "--cwd", ws, "--json", "-o", Base() + "/r.json", "--", ws + "/script"});
  EXPECT_EQ(r.exit_code, 126);
  EXPECT_EQ(r.err, "bwrap: execvp " + ws + "/script: Permission denied\ncwsc: cannot run '" + ws +
                       "/script': Permission denied\n");
  EXPECT_THAT(ReadFileOr(Base() + "/r.json"), HasSubstr("\"sandbox_denied\":false"));
}

TEST_F(RunCliTest, ExecRunsAPrecompiledPlan) {
  std::string plan = CompilePlan();
  RunResult r = Cli({"exec", plan, "--json", "-o", Base() + "/res.json", "--", "/bin/sh", "-c",
                     "pwd; echo ok > out.txt; echo no > " + outside + "/x"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.out, ws + "\n");
  EXPECT_EQ(ReadFileOr(ws + "/out.txt"), "ok\n");
  EXPECT_FALSE(Exists(outside + "/x"));
  nlohmann::json j = nlohmann::json::parse(ReadFileOr(Base() + "/res.json"))["result"];
  EXPECT_EQ(j["sandbox_kind"], "linux-bwrap");
  EXPECT_EQ(j["sandbox_denied"], true);
}

// `run` names a configured writable root that does not exist (issue 25),
// and the command still runs, without it.
TEST_F(RunCliTest, RunNotesAMissingWritableRoot) {
  const std::string missing = Base() + "/not-there";
  SetConfig("sandbox_writable_roots = [\"" + missing + "\"]\n");
  RunResult r = Cli({"run", config, "--mode", "ask", "--cwd", ws, "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, config + ":1:27: note: the writable root '" + missing +
                       "' does not exist, so the sandbox leaves it out; create it, or remove "
                       "the entry\n");
}

TEST_F(RunCliTest, ExecRefusesWhenAWritableRootIsGone) {
  std::string plan = CompilePlan();
  std::filesystem::rename(ws, Base() + "/ws-moved");
  RunResult r = Cli({"exec", plan, "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_THAT(r.err, StartsWith("cwsc: refused: " + ws + " (mount "));
  EXPECT_THAT(r.err, HasSubstr(": writable root (configured)) was a directory when the plan was "
                               "compiled and is missing now; compile the plan again\n"));
  // A symlink in its place would move the bind elsewhere: refused too.
  ASSERT_EQ(symlink((Base() + "/ws-moved").c_str(), ws.c_str()), 0);
  r = Cli({"exec", plan, "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_THAT(r.err, HasSubstr(": writable root (configured)) was a directory when the plan was "
                               "compiled and is a symlink to a directory now; compile the plan "
                               "again\n"));
}

TEST_F(RunCliTest, ExecRefusesWhenADeniedPathAppeared) {
  std::string plan = CompilePlan();
  mkdir((home + "/.aws").c_str(), 0700);
  WriteFile(home + "/.aws/credentials", "AKIA-SECRET\n");
  RunResult r = Cli({"exec", plan, "--", "/bin/cat", home + "/.aws/credentials"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "cwsc: refused: " + home +
                       "/.aws (denied path ~/.aws) was missing when the plan was compiled and is a "
                       "directory now; compile the plan again\n");
}

TEST_F(RunCliTest, ExecOfAPlanForAnotherPlatformIsRefused) {
  std::string src = std::getenv("CWSC_SOURCE_ROOT") ? std::getenv("CWSC_SOURCE_ROOT") : ".";
  RunResult r = Cli({"compile", src + "/examples/workspace.toml", "--facts",
                     src + "/examples/facts/macos-workspace.yaml", "--target", "plan"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  WriteFile(Base() + "/mac.json", r.out);
  r = Cli({"exec", Base() + "/mac.json", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_EQ(r.err,
            "cwsc: refused: macos-seatbelt plans run only on macOS (sandbox-exec); this runtime "
            "executes linux-bwrap, launcher+bwrap and none plans\n");
}

TEST_F(RunCliTest, SigtermToCwscReachesTheSandboxedCommand) {
  std::vector<std::string> argv = {CwscBin(),
                                   "run",
                                   config,
                                   "--cwd",
                                   ws,
                                   "--",
                                   "/bin/sh",
                                   "-c",
                                   "trap 'echo term > t; exit 7' TERM; echo ready > r; "
                                   "while :; do sleep 0.1; done"};
  std::vector<std::string> env = Env();
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> a, e;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    for (auto& s : env) e.push_back(s.data());
    e.push_back(nullptr);
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    execve(a[0], a.data(), e.data());
    _exit(127);
  }
  ASSERT_TRUE(WaitForFile(ws + "/r", 20));
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
  EXPECT_EQ(ReadFileOr(ws + "/t"), "term\n");
}

// RunAtPty runs argv on a new pseudo-terminal and types `keys` once `ready`
// has appeared in its output; at most 15 s.
RunResult RunAtPty(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                   const std::string& ready, const std::string& keys) {
  RunResult r;
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) return r;
  if (pid == 0) {
    std::vector<char*> a, e;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
    e.push_back(nullptr);
    execve(a[0], a.data(), e.data());
    _exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  bool typed = false;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      char buf[4096];
      ssize_t n = read(master, buf, sizeof buf);
      if (n <= 0) break;  // EIO: every writer of the terminal is gone
      r.out.append(buf, static_cast<size_t>(n));
    }
    if (!typed && r.out.find(ready) != std::string::npos) {
      usleep(300000);  // let the command reach its wait
      if (write(master, keys.data(), keys.size()) < 0) break;
      typed = true;
    }
  }
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  close(master);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// Ctrl-C at a terminal reaches the command (its trap runs and decides the
// status) instead of ending bwrap and the sandbox with it.
TEST_F(RunCliTest, AtATerminalCtrlCReachesTheCommand) {
  for (const char* mode : {"ask", "plan", "full-access"}) {
    RunResult r =
        RunAtPty({CwscBin(), "run", config, "--mode", mode, "--cwd", ws, "--", "/bin/sh", "-c",
                  "trap 'echo TRAPPED; exit 7' INT; echo READY; sleep 20 & wait; echo NO-TRAP"},
                 Env({}), "READY", "\x03");
    EXPECT_EQ(r.exit_code, 7) << mode << ": " << r.out;
    EXPECT_THAT(r.out, HasSubstr("TRAPPED")) << mode;
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("NO-TRAP"))) << mode;
  }
  // A program that is not there, through the shim: found missing, 127.
  RunResult missing = RunAtPty({CwscBin(), "run", config, "--cwd", ws, "--", "no-such-program-x"},
                               Env({}), "never", "");
  EXPECT_EQ(missing.exit_code, 127) << missing.out;
  EXPECT_THAT(missing.out, HasSubstr("cwsc: cannot run 'no-such-program-x': No such file or "
                                     "directory"));
}

// The shim is this binary, found through /proc/self/exe. A cwsc that cannot
// be found by path (here it runs from a memfd, as a binary deleted or
// replaced by an upgrade since it started would) runs the command without
// the shim, and says that Ctrl-C then ends the sandbox.
TEST_F(RunCliTest, AtATerminalWithoutTheShimTheRunSaysSo) {
  std::string bytes = ReadFileOr(CwscBin());
  ASSERT_FALSE(bytes.empty());
  int fd = memfd_create("cwsc", 0);  // inherited: exec'd below as /proc/self/fd/N
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  std::string self = "/proc/self/fd/" + std::to_string(fd);
  RunResult r = RunAtPty({self, "run", config, "--cwd", ws, "--", "/bin/sh", "-c", "echo ran"},
                         Env({}), "never", "");
  close(fd);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("cwsc: warning: Ctrl-C will end the sandbox before the command can "
                               "handle it (no foreground shim: this cwsc binary (/memfd:cwsc "
                               "(deleted)) cannot be found by path: No such file or directory)"));
  EXPECT_THAT(r.out, HasSubstr("ran"));
  // Not at a terminal there is no shim to miss, and no warning.
  r = RunWithEnv({CwscBin(), "run", config, "--cwd", ws, "--", "/bin/true"}, Env({}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("Ctrl-C")));
}

TEST_F(RunCliTest, AtATerminalTheCommandIsTheForegroundGroupAndReadsIt) {
  // script(1) gives cwsc a pseudo-terminal as stdin, stdout and stderr, with
  // cwsc in the foreground: the command's group takes the terminal for the
  // run, reads it, and the terminal is given back (script's shell reports
  // the exit status after cwsc returns).
  std::string cwsc = CwscBin();
  for (const std::string mode : {"full-access", "ask"}) {
    std::string inner =
        "read x; echo got:$x; "
        "set -- $(cut -d\" \" -f5,8 /proc/self/stat); "  // pgrp and the terminal's foreground group
        "[ \"$1\" = \"$2\" ] && echo foreground";
    // --timeout: a command left in a background group would stop on its
    // read (SIGTTIN) and hang the test instead of failing it.
    std::string command = "'" + cwsc + "' run '" + config + "' --mode " + mode + " --cwd '" + ws +
                          "' --timeout 20 -- /bin/sh -c '" + inner + "; exit 3'; echo status:$?";
    RunResult r = RunWithEnv({"/usr/bin/script", "-qec", command, "/dev/null"}, Env({}), "hello\n");
    EXPECT_EQ(r.exit_code, 0) << mode << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr("got:hello")) << mode << ": " << r.out;
    EXPECT_THAT(r.out, HasSubstr("status:3")) << mode << ": " << r.out;
    if (mode == "full-access") {  // bwrap's PID namespace hides the groups' ids
      EXPECT_THAT(r.out, HasSubstr("foreground")) << r.out;
    }
  }
}

TEST_F(RunCliTest, NoNewPrivsFollowsStartupPostureAndOverride) {
  // cwsc's own flag is inherited by an unwrapped command, so the child shows it.
  auto nnp = [&](const std::vector<std::string>& extra) {
    return Cli({"run", "/dev/null", "--mode", "full-access", "--cwd", ws, "--", "/bin/grep",
                "NoNewPrivs", "/proc/self/status"},
               extra)
        .out;
  };
  EXPECT_EQ(nnp({}), "NoNewPrivs:\t1\n") << "a Full Access mode alone keeps the flag";
  EXPECT_EQ(nnp({"CODEWHALE_SANDBOX_MODE=danger-full-access"}), "NoNewPrivs:\t0\n");
  EXPECT_EQ(nnp({"CODEWHALE_SANDBOX_MODE= Danger-Full-Access "}), "NoNewPrivs:\t0\n");
  EXPECT_EQ(nnp({"CODEWHALE_SANDBOX_MODE=danger-full-access", "CODEWHALE_NO_NEW_PRIVS=yes"}),
            "NoNewPrivs:\t1\n");
  EXPECT_EQ(nnp({"CODEWHALE_NO_NEW_PRIVS=off"}), "NoNewPrivs:\t0\n");
  SetConfig("sandbox_mode = \"danger-full-access\"\n");
  EXPECT_EQ(Cli({"run", config, "--mode", "full-access", "--cwd", ws, "--", "/bin/grep",
                 "NoNewPrivs", "/proc/self/status"})
                .out,
            "NoNewPrivs:\t0\n")
      << "sandbox_mode = danger-full-access in the config is the startup posture";
  // RLIMIT_CORE=0 is inherited too.
  EXPECT_EQ(Cli({"run", "/dev/null", "--mode", "full-access", "--cwd", ws, "--", "/bin/sh", "-c",
                 "ulimit -c"})
                .out,
            "0\n");
}

TEST_F(RunCliTest, DoctorOnThisHost) {
  RunResult r = Cli({"doctor", "--json"});
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["cwsc"]["command"], "doctor");
  EXPECT_EQ(j["exit_code"], r.exit_code);
  j = j["result"];
  RunResult probe = RunWithEnv(
      {"/usr/bin/bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--dev",
       "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--chdir", "/", "--", "/bin/true"},
      {});
  EXPECT_EQ(j["sandbox"]["available"], probe.exit_code == 0);
  EXPECT_EQ(r.exit_code, probe.exit_code == 0 ? 0 : 1);
  EXPECT_EQ(j["sandbox"]["kind"],
            probe.exit_code == 0 ? nlohmann::json("linux-bwrap") : nlohmann::json());
  r = Cli({"doctor"});
  EXPECT_THAT(r.out, StartsWith(probe.exit_code == 0 ? "sandbox: linux-bwrap (available)\n"
                                                     : "sandbox: none (unavailable)\n"));
  // prefer_bwrap = false: bwrap works but is not selected.
  r = Cli({"doctor", "--json"}, {"CODEWHALE_PREFER_BWRAP=0"});
  j = nlohmann::json::parse(r.out, nullptr, false)["result"];
  EXPECT_EQ(j["sandbox"]["available"], false);
  EXPECT_EQ(j["wrapper"]["preferred"], false);
  EXPECT_EQ(j["wrapper"]["preference_origin"], "env CODEWHALE_PREFER_BWRAP");
}

// RunInCrippledUserns runs argv as uid/gid 1000 inside a new user namespace
// (ids 0-65535 mapped to themselves) whose user.max_user_namespaces is 0, so
// bubblewrap genuinely cannot create its sandbox there.
RunResult RunInCrippledUserns(const std::vector<std::string>& argv,
                              const std::vector<std::string>& env) {
  TempDir d;
  int go[2], ready[2];
  if (pipe(go) != 0 || pipe(ready) != 0) abort();
  std::string out = d / "out", err = d / "err";
  pid_t pid = fork();
  if (pid == 0) {
    close(go[1]);
    close(ready[0]);
    if (unshare(CLONE_NEWUSER) != 0) _exit(90);
    char c = 1;
    if (write(ready[1], &c, 1) != 1) _exit(91);
    if (read(go[0], &c, 1) != 1) _exit(92);
    int fd = open("/proc/sys/user/max_user_namespaces", O_WRONLY);
    if (fd < 0 || write(fd, "0", 1) != 1) _exit(93);
    close(fd);
    if (setgroups(0, nullptr) != 0 || setresgid(1000, 1000, 1000) != 0 ||
        setresuid(1000, 1000, 1000) != 0) {
      _exit(94);
    }
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> a, en;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    for (const auto& s : env) en.push_back(const_cast<char*>(s.c_str()));
    en.push_back(nullptr);
    execve(a[0], a.data(), en.data());
    _exit(95);
  }
  close(go[0]);
  close(ready[1]);
  char c;
  if (read(ready[0], &c, 1) != 1) abort();
  std::string p = "/proc/" + std::to_string(pid);
  WriteFile(p + "/uid_map", "0 0 65536\n");
  WriteFile(p + "/gid_map", "0 0 65536\n");
  chmod(d.path().c_str(), 0777);
  if (write(go[1], &c, 1) != 1) abort();
  int status = 0;
  waitpid(pid, &status, 0);
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFileOr(out);
  r.err = ReadFileOr(err);
  return r;
}

TEST_F(RunCliTest, HostWithoutUserNamespacesDoctorAndExec) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to map a private user namespace";
  std::string plan = CompilePlan();
  chmod(Base().c_str(), 0755);
  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=" + home, "CWSC_PROBE_CACHE=0"};
  mkdir((Base() + "/result").c_str(), 0777);
  chmod((Base() + "/result").c_str(), 0777);  // the run is uid 1000: -o writes here
  RunResult doc = RunInCrippledUserns({CwscBin(), "doctor", "--json"}, env);
  ASSERT_LT(doc.exit_code, 90) << "namespace setup step " << doc.exit_code;
  // Where the kernel offers Landlock, commands get a linux-landlock plan
  // instead (docs/runtime.md, "The Landlock backend").
  const bool landlock = syscall(SYS_landlock_create_ruleset, nullptr, 0, 1u) >= 1;
  EXPECT_EQ(doc.exit_code, landlock ? 0 : 1) << doc.out << doc.err;
  nlohmann::json j = nlohmann::json::parse(doc.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << doc.out << doc.err;
  j = j["result"];
  EXPECT_EQ(j["sandbox"]["available"], landlock);
  if (landlock) {
    EXPECT_EQ(j["sandbox"]["kind"], "linux-landlock");
  } else {
    EXPECT_TRUE(j["sandbox"]["kind"].is_null());
  }
  EXPECT_THAT(j["wrapper"]["probe"]["message"].get<std::string>(), StartsWith("bwrap: "));
  std::vector<std::string> codes;
  for (const auto& c : j["causes"]) codes.push_back(c["code"]);
  EXPECT_THAT(codes, ::testing::Contains("userns-disabled"));
  EXPECT_EQ(j["host"]["max_user_namespaces"], "0");

  RunResult ex = RunInCrippledUserns({CwscBin(), "exec", plan, "--", "/bin/true"}, env);
  EXPECT_EQ(ex.exit_code, 125) << ex.err;
  EXPECT_THAT(ex.err, StartsWith("cwsc: refused: the plan needs bubblewrap, but it does not work "
                                 "on this host: bwrap: "));
  EXPECT_THAT(ex.err, HasSubstr("(run `cwsc doctor` for the cause)\n"));
  EXPECT_THAT(ex.err, ::testing::Not(HasSubstr("Can't")));

  // `cwsc run` compiles against that host: Landlock where the kernel has
  // it, else no wrapper, so it runs unwrapped with a warning
  // (docs/behavior.md B-40); it never claims a denial.
  RunResult run = RunInCrippledUserns({CwscBin(), "run", config, "--cwd", ws, "--json", "-o",
                                       Base() + "/result/r.json", "--", "/bin/sh", "-c", "exit 3"},
                                      env);
  EXPECT_EQ(run.exit_code, 3) << run.err;
  if (landlock) {
    EXPECT_THAT(run.err, HasSubstr("cwsc: warning: bubblewrap cannot make its namespaces here ("));
    EXPECT_THAT(ReadFileOr(Base() + "/result/r.json"),
                HasSubstr("\"sandbox_kind\":\"linux-landlock\""));
  } else {
    EXPECT_THAT(run.err, HasSubstr("cwsc: warning: the command runs without a sandbox although "
                                   "the policy is workspace-write"));
    EXPECT_THAT(ReadFileOr(Base() + "/result/r.json"), HasSubstr("\"sandbox_kind\":\"none\""));
  }
}

// The suites that run as a second user start at once on a fresh machine
// (meson runs two at a time) and each creates the user it needs when it is
// missing: one of two creating the same user together got useradd's
// "already exists" and failed its first case. Eight threads create one new
// user at once; every one must succeed.
TEST(SecondUser, SuitesCreatingTheSameUserAtOnceAllSucceed) {
  const char* ci = std::getenv("CI");
  const char* allow = std::getenv("CWSC_ALLOW_SYSTEM_CHANGES");
  if (!((ci && std::string(ci) == "true") || (allow && std::string(allow) == "1"))) {
    GTEST_SKIP() << "creates a system user: set CI=true or CWSC_ALLOW_SYSTEM_CHANGES=1";
  }
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create the user";
  constexpr const char* kRaced = "cwsc-race-user";
  testing::Run({"/usr/sbin/userdel", kRaced});
  ASSERT_EQ(getpwnam(kRaced), nullptr);
  std::vector<std::string> errors(8);
  std::vector<std::thread> threads;
  for (std::string& e : errors) {
    threads.emplace_back([&e] {
      e = testing::EnsureUser(
          kRaced, {"--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin"});
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_NE(getpwnam(kRaced), nullptr);
  testing::Run({"/usr/sbin/userdel", kRaced});
  for (const std::string& e : errors) EXPECT_EQ(e, "");
}

// A second, non-root user (created only where system changes are allowed).
class NonRootTest : public SandboxTree {
 protected:
  static constexpr const char* kUser = "cwsc-rt-user";

  void SetUp() override {
    const char* ci = std::getenv("CI");
    const char* allow = std::getenv("CWSC_ALLOW_SYSTEM_CHANGES");
    if (!((ci && std::string(ci) == "true") || (allow && std::string(allow) == "1"))) {
      GTEST_SKIP() << "creates a system user: set CI=true or CWSC_ALLOW_SYSTEM_CHANGES=1";
    }
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create the user and sudo to it";
    SandboxTree::SetUp();
    ASSERT_EQ(testing::EnsureUser(kUser, {"--no-create-home", "--shell", "/bin/sh"}), "");
    passwd* pw = getpwnam(kUser);
    ASSERT_NE(pw, nullptr);
    uid_ = pw->pw_uid;
    gid_ = pw->pw_gid;
    for (const auto& e : std::filesystem::recursive_directory_iterator(Base())) {
      lchown(e.path().c_str(), uid_, gid_);
    }
    lchown(Base().c_str(), uid_, gid_);
  }

  RunResult AsUser(const std::string& mode, const std::string& script,
                   const std::string& config_text = "") {
    WriteFile(config, config_text);
    return testing::Run({"/usr/bin/sudo",
                         "-n",
                         "-u",
                         kUser,
                         "--",
                         "/usr/bin/env",
                         "-i",
                         "PATH=/usr/bin:/bin",
                         "HOME=" + home,
                         CwscBin(),
                         "run",
                         config,
                         "--mode",
                         mode,
                         "--cwd",
                         ws,
                         "--",
                         "/bin/sh",
                         "-c",
                         script});
  }

  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

TEST_F(NonRootTest, ConfinementHoldsForAnUnprivilegedUser) {
  RunResult r = AsUser("ask", "id -u; echo in > " + ws + "/in.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::to_string(uid_) + "\n");
  EXPECT_EQ(ReadFileOr(ws + "/in.txt"), "in\n");
  r = AsUser("ask", "echo out > " + outside + "/f");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(Exists(outside + "/f"));
  EXPECT_THAT(r.err, HasSubstr("cwsc: sandbox denied (linux-bwrap)"));
  r = AsUser("ask", "echo x > .codewhale/config.toml; mv .codewhale gone");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(ReadFileOr(ws + "/.codewhale/config.toml"), "# project\n");
  r = AsUser("ask", "cat \"$HOME/.ssh/id_rsa\"");
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("SECRET-KEY")));
  r = AsUser("plan", "echo x > " + ws + "/ro.txt");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(Exists(ws + "/ro.txt"));
  r = AsUser("ask", "cat /proc/self/status | grep NoNewPrivs", "sandbox_network_access = false\n");
  EXPECT_EQ(r.out, "NoNewPrivs:\t1\n");
}

}  // namespace
}  // namespace cwsc::testing
