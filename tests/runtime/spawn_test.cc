// Spawn: exit status, signals, environment, cwd, stdio pass-through, large
// outputs, timeout and tree kill, signal forwarding and parent death. Every
// SpawnAndWait runs in a forked helper so the test process stays clean.
#include "runtime/host/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/attribution.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::runtime {
namespace {

using ::cwsc::testing::Alive;
using ::cwsc::testing::Fork;
using ::cwsc::testing::ReadFileOr;
using ::cwsc::testing::TempDir;
using ::cwsc::testing::WaitForFile;
using ::cwsc::testing::WaitGone;
using ::cwsc::testing::WriteFile;

const std::vector<std::string> kEnv = {"PATH=/usr/bin:/bin"};

// SpawnInHelper runs SpawnAndWait in a forked helper and writes the result
// as "exit signal timed_out forwarded" into `result_file`.
int SpawnAndRecord(const SpawnRequest& req, const std::string& result_file) {
  SpawnError err;
  absl::StatusOr<SpawnResult> r = SpawnAndWait(req, &err);
  if (!r.ok()) {
    WriteFile(result_file,
              "error " + std::to_string(err.exec_errno) + " " + std::string(r.status().message()));
    return 99;
  }
  WriteFile(result_file,
            std::to_string(r->exit_code) + " " + std::to_string(r->signal.value_or(0)) + " " +
                (r->timed_out ? "1" : "0") + " " + std::to_string(r->forwarded_signal.value_or(0)));
  return r->exit_code;
}

struct Outcome {
  int helper_exit;
  std::string result, out, err;
};

Outcome RunSpawn(const SpawnRequest& req, const std::string& input = "") {
  TempDir d;
  std::string in = d / "in";
  WriteFile(in, input);
  auto f = Fork([&] { return SpawnAndRecord(req, d / "result"); }, in, d / "out", d / "err");
  Outcome o;
  o.helper_exit = f.Wait();
  o.result = ReadFileOr(d / "result");
  o.out = ReadFileOr(d / "out");
  o.err = ReadFileOr(d / "err");
  return o;
}

SpawnRequest Sh(const std::string& script) {
  SpawnRequest r;
  r.argv = {"/bin/sh", "-c", script};
  r.env = kEnv;
  return r;
}

TEST(SpawnTest, ExitCodePropagated) {
  Outcome o = RunSpawn(Sh("exit 7"));
  EXPECT_EQ(o.helper_exit, 7);
  EXPECT_EQ(o.result, "7 0 0 0");
}

TEST(SpawnTest, SignalBecomes128PlusN) {
  Outcome o = RunSpawn(Sh("kill -KILL $$"));
  EXPECT_EQ(o.helper_exit, 137);
  EXPECT_EQ(o.result, "137 9 0 0");
  o = RunSpawn(Sh("kill -TERM $$"));
  EXPECT_EQ(o.result, "143 15 0 0");
}

TEST(SpawnTest, MissingProgramIsExecErrorNotRun) {
  SpawnRequest r;
  r.argv = {"/nonexistent/prog", "x"};
  r.env = kEnv;
  Outcome o = RunSpawn(r);
  EXPECT_EQ(o.result, "error 2 cannot run '/nonexistent/prog': No such file or directory");
  EXPECT_EQ(ExitCodeForExecErrno(ENOENT), 127);
}

TEST(SpawnTest, NonExecutableFileIsEacces) {
  TempDir d;
  WriteFile(d / "script", "#!/bin/sh\necho hi\n");
  chmod((d / "script").c_str(), 0644);
  SpawnRequest r;
  r.argv = {d / "script"};
  r.env = kEnv;
  Outcome o = RunSpawn(r);
  EXPECT_EQ(o.result, "error 13 cannot run '" + (d / "script") + "': Permission denied");
  EXPECT_EQ(ExitCodeForExecErrno(EACCES), 126);
}

TEST(SpawnTest, ProgramSearchedInChildPath) {
  TempDir d;
  WriteFile(d / "mytool", "#!/bin/sh\necho from-mytool \"$@\"\n");
  chmod((d / "mytool").c_str(), 0755);
  SpawnRequest r;
  r.argv = {"mytool", "a b"};
  r.env = {"PATH=/nonexistent:" + d.path() + ":/bin"};
  Outcome o = RunSpawn(r);
  EXPECT_EQ(o.out, "from-mytool a b\n");
  EXPECT_EQ(o.helper_exit, 0);
}

TEST(SpawnTest, EnvironmentIsExactlyTheGivenOne) {
  setenv("CWSC_TEST_SECRET", "leak", 1);
  SpawnRequest r;
  r.argv = {"/usr/bin/env"};
  r.env = {"A=1", "PATH=/bin", "B=two words"};
  Outcome o = RunSpawn(r);
  unsetenv("CWSC_TEST_SECRET");
  EXPECT_EQ(o.out, "A=1\nPATH=/bin\nB=two words\n");
}

// Only 0, 1, 2 and the handed descriptors reach the program, whatever the
// caller left open (docs/runtime.md, "Threat model").
TEST(SpawnTest, OnlyStdioAndHandedDescriptorsReachTheProgram) {
  TempDir d;
  WriteFile(d / "handed", "HANDED\n");
  int leaked = open((d / "secret").c_str(), O_WRONLY | O_CREAT, 0600);  // not close-on-exec
  int handed = open((d / "handed").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(leaked, 3);
  ASSERT_GE(handed, 3);
  SpawnRequest r = Sh("ls /proc/self/fd | tr '\\n' ' '; echo; cat <&5; echo x >&" +
                      std::to_string(leaked) + " 2>/dev/null || echo refused");
  r.inherit_fds = {{handed, 5}};
  Outcome o = RunSpawn(r);
  close(leaked);
  close(handed);
  // sh's own ls holds one more descriptor (3) while it lists them.
  EXPECT_EQ(o.out, "0 1 2 3 5 \nHANDED\nrefused\n") << o.err;
  EXPECT_EQ(ReadFileOr(d / "secret"), "");
}

TEST(SpawnTest, CwdApplied) {
  TempDir d;
  SpawnRequest r = Sh("pwd");
  r.cwd = d.path();
  EXPECT_EQ(RunSpawn(r).out, d.path() + "\n");
  r.cwd = d / "missing";
  EXPECT_EQ(RunSpawn(r).result, "error 0 cannot change to directory '" + (d / "missing") +
                                    "': No such file or directory");
}

TEST(SpawnTest, InheritedIgnoredSignalsAndBlockedSetAreResetForTheCommand) {
  // The spawner runs with SIGINT, SIGHUP, SIGPIPE and SIGUSR1 ignored, as
  // under nohup or a shell's background job; the command starts with every
  // disposition at default and nothing blocked.
  TempDir d;
  SpawnRequest r;
  r.argv = {"/bin/grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"};
  r.env = kEnv;
  auto f = Fork(
      [&] {
        for (int s : {SIGINT, SIGHUP, SIGPIPE, SIGUSR1}) signal(s, SIG_IGN);
        return SpawnAndRecord(r, d / "result");
      },
      "/dev/null", d / "out", d / "err");
  EXPECT_EQ(f.Wait(), 0);
  EXPECT_EQ(ReadFileOr(d / "out"), "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
  EXPECT_EQ(ReadFileOr(d / "err"), "");
}

// StartChild from the main thread clones there, from any other thread on
// the spawner thread; in both, the command starts with default dispositions
// and nothing blocked although the caller ignores SIGPIPE, blocks SIGUSR1
// and handles SIGHUP. Run in a forked helper, whose only thread is its main.
TEST(SpawnTest, StartChildClonesOnTheMainThreadOrTheSpawnerAndResetsSignals) {
  TempDir d;
  auto f = Fork(
      [&] {
        signal(SIGPIPE, SIG_IGN);
        signal(SIGHUP, [](int) {});
        sigset_t usr1;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
        SpawnRequest r;
        r.argv = {"/bin/grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"};
        r.env = kEnv;
        auto start = [&](const std::string& out) {
          int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
          ChildStdio io;
          io.out = fd;
          absl::StatusOr<std::unique_ptr<StartedChild>> c = StartChild(r, io);
          close(fd);
          if (!c.ok()) return 1;
          (*c)->Wait(-1);
          return (*c)->result().exit_code;
        };
        StartPaths before = StartPathCounts();
        int rc = start(d / "main");
        StartPaths after_main = StartPathCounts();
        std::thread([&] { rc |= start(d / "thread"); }).join();
        StartPaths after_thread = StartPathCounts();
        WriteFile(
            d / "paths",
            std::to_string(after_main.on_main_thread - before.on_main_thread) + " " +
                std::to_string(after_main.on_spawner_thread - before.on_spawner_thread) + " " +
                std::to_string(after_thread.on_main_thread - after_main.on_main_thread) + " " +
                std::to_string(after_thread.on_spawner_thread - after_main.on_spawner_thread));
        return rc;
      },
      "/dev/null", d / "out", d / "err");
  EXPECT_EQ(f.Wait(), 0) << ReadFileOr(d / "err");
  EXPECT_EQ(ReadFileOr(d / "paths"), "1 0 0 1") << "main thread: here; other: the spawner";
  const std::string clean = "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n";
  EXPECT_EQ(ReadFileOr(d / "main"), clean);
  EXPECT_EQ(ReadFileOr(d / "thread"), clean);
}

// What the spawner thread is for, observed rather than counted: a child
// started from a thread that then ends keeps running. Had the clone been
// made on that thread, its parent-death signal (SIGKILL) would have fired
// when the thread exited.
TEST(SpawnTest, AChildStartedFromAThreadThatEndsLivesOn) {
  SpawnRequest r;
  r.argv = {"/bin/sleep", "30"};
  r.env = kEnv;
  std::unique_ptr<StartedChild> child;
  std::thread([&] {
    ChildStdio io;
    absl::StatusOr<std::unique_ptr<StartedChild>> c = StartChild(r, io);
    ASSERT_TRUE(c.ok()) << c.status();
    child = *std::move(c);
  }).join();
  ASSERT_NE(child, nullptr);
  EXPECT_FALSE(child->Wait(300)) << "the child died with the thread that asked for it";
  child->Kill();
  ASSERT_TRUE(child->Wait(5000));
  EXPECT_EQ(child->result().signal, SIGKILL);  // the test's kill, not a death before it
}

TEST(SpawnTest, StdinPipedThrough) {
  std::string input;
  for (int i = 0; i < 20000; ++i) input += "line " + std::to_string(i) + "\n";
  SpawnRequest r;
  r.argv = {"/bin/cat"};
  r.env = kEnv;
  Outcome o = RunSpawn(r, input);
  EXPECT_EQ(o.out, input);
}

TEST(SpawnTest, LargeStdoutAndTeedStderrAreByteExact) {
  // 8 MiB on stdout (direct) and 4 MiB on stderr (through the tee).
  size_t sunk = 0;
  SpawnRequest r =
      Sh("yes abcdefghijklmnopqrstuvwxyz | head -c 8388608; "
         "yes 0123456789 | head -c 4194304 >&2");
  r.stderr_sink = [&](std::string_view s) { sunk += s.size(); };
  Outcome o = RunSpawn(r);
  EXPECT_EQ(o.helper_exit, 0);
  ASSERT_EQ(o.out.size(), 8388608u);
  ASSERT_EQ(o.err.size(), 4194304u);
  std::string expect_out, expect_err;
  while (expect_out.size() < 8388608) expect_out += "abcdefghijklmnopqrstuvwxyz\n";
  while (expect_err.size() < 4194304) expect_err += "0123456789\n";
  EXPECT_TRUE(o.out == expect_out.substr(0, 8388608));
  EXPECT_TRUE(o.err == expect_err.substr(0, 4194304));
}

TEST(SpawnTest, StderrSinkSeesEveryByte) {
  TempDir d;
  auto f = Fork(
      [&] {
        StderrScanner scan;
        size_t total = 0;
        SpawnRequest r =
            Sh("{ printf 'first\\n'; yes x | head -c 100000; "
               "printf '\\n  bwrap: Can'\\''t mount\\nRead-only file system'; } >&2");
        r.stderr_sink = [&](std::string_view s) {
          total += s.size();
          scan.Feed(s);
        };
        auto res = SpawnAndWait(r);
        StderrSummary s = scan.Summary();
        WriteFile(d / "summary", std::to_string(total) + "|" + s.first_line + "|" +
                                     s.first_bwrap_line + "|" + (s.read_only_fs ? "1" : "0"));
        return res.ok() ? 0 : 1;
      },
      "", "", d / "err");
  EXPECT_EQ(f.Wait(), 0);
  EXPECT_EQ(ReadFileOr(d / "summary"), "100049|first|bwrap: Can't mount|1");
  EXPECT_EQ(ReadFileOr(d / "err").size(), 100049u);
}

TEST(SpawnTest, TimeoutKillsTreeIncludingBackgroundChild) {
  TempDir d;
  SpawnRequest r = Sh("sleep 1000 & echo $! > " + (d / "bg") + "; wait");
  r.timeout_seconds = 0.5;
  r.kill_grace_seconds = 0.5;
  Outcome o = RunSpawn(r);
  EXPECT_EQ(o.result, "143 15 1 0");
  std::string bg = ReadFileOr(d / "bg");
  ASSERT_FALSE(bg.empty());
  EXPECT_FALSE(Alive(std::stoi(bg))) << "background child survived";
}

TEST(SpawnTest, TimeoutEscalatesToKillWhenTermIgnored) {
  SpawnRequest r = Sh("trap '' TERM; while :; do sleep 0.05; done");
  r.timeout_seconds = 0.3;
  r.kill_grace_seconds = 0.3;
  Outcome o = RunSpawn(r);
  EXPECT_EQ(o.result, "137 9 1 0");
}

TEST(SpawnTest, NoDescendantSurvivesEvenAfterSetsid) {
  TempDir d;
  // The escaped daemon leaves the process group and the command exits at once.
  SpawnRequest r = Sh("setsid sh -c 'echo $$ > " + (d / "daemon") +
                      "; exec sleep 1000' & "
                      "while [ ! -s " +
                      (d / "daemon") + " ]; do sleep 0.01; done; exit 0");
  Outcome o = RunSpawn(r);
  EXPECT_EQ(o.result, "0 0 0 0");
  std::string pid = ReadFileOr(d / "daemon");
  ASSERT_FALSE(pid.empty());
  EXPECT_FALSE(Alive(std::stoi(pid))) << "setsid daemon survived";
}

TEST(SpawnTest, BackgroundChildKilledWhenCommandExits) {
  TempDir d;
  SpawnRequest r = Sh("sleep 1000 & echo $! > " + (d / "bg") + "; exit 4");
  Outcome o = RunSpawn(r);
  EXPECT_EQ(o.result, "4 0 0 0");
  EXPECT_FALSE(Alive(std::stoi(ReadFileOr(d / "bg", "0"))));
}

TEST(SpawnTest, SigtermForwardedToGroup) {
  TempDir d;
  SpawnRequest r = Sh("trap 'echo got-term > " + (d / "trap") + "; exit 3' TERM; echo ready > " +
                      (d / "ready") + "; while :; do sleep 0.05; done");
  auto f = Fork([&] { return SpawnAndRecord(r, d / "result"); }, "", d / "out", d / "err");
  ASSERT_TRUE(WaitForFile(d / "ready", 10));
  kill(f.pid, SIGTERM);
  EXPECT_EQ(f.Wait(), 3);
  EXPECT_EQ(ReadFileOr(d / "trap"), "got-term\n");
  EXPECT_EQ(ReadFileOr(d / "result"), "3 0 0 15");
}

TEST(SpawnTest, SigintForwardedAndChildDiesOfIt) {
  TempDir d;
  SpawnRequest r = Sh("echo ready > " + (d / "ready") + "; exec sleep 1000");
  auto f = Fork([&] { return SpawnAndRecord(r, d / "result"); }, "", d / "out", d / "err");
  ASSERT_TRUE(WaitForFile(d / "ready", 10));
  kill(f.pid, SIGINT);
  EXPECT_EQ(f.Wait(), 130);
  EXPECT_EQ(ReadFileOr(d / "result"), "130 2 0 2");
}

TEST(SpawnTest, ChildDiesWithSpawner) {
  // The test process adopts orphans so it can see the child die.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  TempDir d;
  SpawnRequest r = Sh("echo $$ > " + (d / "child") + "; exec sleep 1000");
  auto f = Fork([&] { return SpawnAndRecord(r, d / "result"); }, "", d / "out", d / "err");
  ASSERT_TRUE(WaitForFile(d / "child", 10));
  pid_t child = std::stoi(ReadFileOr(d / "child"));
  kill(f.pid, SIGKILL);
  EXPECT_EQ(f.Wait(), 137);
  EXPECT_TRUE(WaitGone(child, 5)) << "child survived its spawner";
  waitpid(child, nullptr, WNOHANG);
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

// RunCaptured (the probes) starts through the same code as SpawnAndWait,
// with nothing of ours shared: stdin on /dev/null, cwd "/", no environment,
// no descriptor but 0-2, and both output streams captured.
TEST(RunCaptured, CapturesBothStreamsAndSharesNothing) {
  int leaked = open("/dev/null", O_RDONLY);  // not close-on-exec
  ASSERT_GE(leaked, 3);
  Captured c = RunCaptured({"/bin/sh", "-c",
                            "echo out; echo err >&2; pwd; echo \"${HOME-unset}\"; "
                            "if read x; then echo input; else echo no-input; fi; "
                            "if [ -e /proc/self/fd/" +
                                std::to_string(leaked) + " ]; then echo leaked; fi; exit 3"});
  close(leaked);
  EXPECT_TRUE(c.started);
  EXPECT_FALSE(c.timed_out);
  EXPECT_EQ(c.exit_code, 3);
  EXPECT_EQ(c.out, "out\n/\nunset\nno-input\n");
  EXPECT_EQ(c.err, "err\n");
  EXPECT_EQ(c.spawn_error, "");
}

TEST(RunCaptured, AProgramThatCannotRunIs127WithTheReason) {
  Captured c = RunCaptured({"/nonexistent/cwsc-probe"});
  EXPECT_TRUE(c.started);
  EXPECT_EQ(c.exit_code, 127);
  EXPECT_EQ(c.err, "cannot execute /nonexistent/cwsc-probe: No such file or directory\n");
  EXPECT_EQ(c.out, "");
}

TEST(RunCaptured, ADeathBySignalIsReportedNotAnExitCode) {
  Captured c = RunCaptured({"/bin/sh", "-c", "kill -TERM $$"});
  EXPECT_TRUE(c.started);
  EXPECT_EQ(c.exit_code, -1);
  EXPECT_EQ(c.spawn_error, "killed by signal 15");
}

}  // namespace
}  // namespace cwsc::runtime
