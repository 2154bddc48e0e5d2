// End-to-end confinement through `cwsc run` with the real /usr/bin/bwrap:
// filesystem, protected directories, network, /tmp and TMPDIR, worktrees,
// deny list, read-only and full-access modes, exit status and process tree.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runtime/sandbox_fixture.h"

namespace cwsc::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// LoopbackServer accepts TCP connections on 127.0.0.1 and counts them.
class LoopbackServer {
 public:
  LoopbackServer() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd_, 16) != 0) abort();
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;
        if (stop_) {
          close(c);
          return;
        }
        ++accepted_;
        const char reply[] = "pong\n";
        if (write(c, reply, sizeof reply - 1) < 0) {
        }
        close(c);
      }
    });
  }
  ~LoopbackServer() {
    stop_ = true;
    // Wake the accept() with a connection of our own.
    int c = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port_));
    connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a);
    close(c);
    thread_.join();
    close(fd_);
  }
  int port() const { return port_; }
  int accepted() const { return accepted_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

std::string ConnectScript(int port) {
  return "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(port) + " && cat <&3";
}

class SandboxTest : public SandboxTree {};

TEST_F(SandboxTest, WriteOutsideEveryRootFailsAndLeavesNoFile) {
  RunResult r = Sh("ask", "echo x > " + outside + "/f");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(Exists(outside + "/f"));
  EXPECT_THAT(r.err, HasSubstr("Read-only file system"));
  EXPECT_THAT(r.err, HasSubstr("cwsc: sandbox denied (linux-bwrap): Bubblewrap blocked access "
                               "outside the writable workspace view."));
  nlohmann::json j = Result();
  EXPECT_EQ(j["sandbox_kind"], "linux-bwrap");
  EXPECT_EQ(j["sandbox_denied"], true);
  EXPECT_EQ(j["denial_message"], "Bubblewrap blocked access outside the writable workspace view.");
  EXPECT_EQ(j["exit_code"], r.exit_code);
}

TEST_F(SandboxTest, WriteInsideRootSucceeds) {
  RunResult r = Sh("ask", "echo inside > " + ws + "/new.txt && cat hello.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hello\n");
  EXPECT_EQ(ReadFileOr(ws + "/new.txt"), "inside\n");
  nlohmann::json j = Result();
  EXPECT_EQ(j["sandbox_denied"], false);
  EXPECT_TRUE(j["denial_message"].is_null());
}

TEST_F(SandboxTest, CodewhaleStaysReadOnlyDirectly) {
  RunResult r = Sh("ask", "echo evil > .codewhale/config.toml; echo new > .codewhale/new");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(ReadFileOr(ws + "/.codewhale/config.toml"), "# project\n");
  EXPECT_FALSE(Exists(ws + "/.codewhale/new"));
}

TEST_F(SandboxTest, CodewhaleStaysReadOnlyThroughSymlink) {
  ASSERT_EQ(symlink(".codewhale", (ws + "/link").c_str()), 0);
  RunResult r = Sh("ask", "echo evil > link/config.toml; echo new > link/new");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(ReadFileOr(ws + "/.codewhale/config.toml"), "# project\n");
  EXPECT_FALSE(Exists(ws + "/.codewhale/new"));
}

TEST_F(SandboxTest, CodewhaleSurvivesRenameAndUnlink) {
  RunResult r = Sh("ask",
                   "mv .codewhale moved; rm -rf .codewhale; rmdir .codewhale; "
                   "mv .codewhale/config.toml x; test -f .codewhale/config.toml");
  EXPECT_EQ(r.exit_code, 0) << "the last test(1) sees the file still there";
  EXPECT_EQ(ReadFileOr(ws + "/.codewhale/config.toml"), "# project\n");
  EXPECT_FALSE(Exists(ws + "/moved")) << "the mount point cannot be renamed (EBUSY)";
  // `mv .codewhale/config.toml x` may leave a copy in x (reading is allowed),
  // but the original stays.
  EXPECT_TRUE(Exists(ws + "/.codewhale"));
}

// A protected name that does not exist (the tree has .codewhale but no
// .deepseek) gets an empty read-only placeholder for the run; the directory
// bwrap needs as its mount point is removed afterwards, whatever the run's
// outcome, so a run leaves nothing in the workspace (docs/decisions.md).
TEST_F(SandboxTest, APlaceholderLeavesNothingOnTheHost) {
  RunResult r = Sh("ask", "test -d .deepseek && ! mkdir .deepseek/x 2>/dev/null && echo PROTECTED");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "PROTECTED\n");
  EXPECT_FALSE(Exists(ws + "/.deepseek")) << "the placeholder's mount point was left behind";
  EXPECT_EQ(ReadFileOr(ws + "/.codewhale/config.toml"), "# project\n");  // a real one stays
  // A failing command, and a program bwrap cannot find, leave nothing either.
  EXPECT_EQ(Sh("ask", "exit 3").exit_code, 3);
  EXPECT_FALSE(Exists(ws + "/.deepseek"));
  EXPECT_EQ(Cwsc("ask", {"no-such-program-x"}).exit_code, 127);
  EXPECT_FALSE(Exists(ws + "/.deepseek"));
}

// Two runs in one workspace: the first creates the .deepseek placeholder and
// ends while the second, compiled when the directory existed, still has it
// mounted. Removing the directory then would detach the second sandbox's
// read-only mount (the kernel lazily unmounts a directory removed in
// another mount namespace) and let its command create .deepseek. The first
// run leaves the directory to the second, which stays protected.
TEST_F(SandboxTest, APlaceholderAnotherRunStillUsesStays) {
  auto run = [&](const std::string& script, const std::string& out) {
    std::vector<std::string> argv = {CwscBin(),   "run", config, "--mode",  "ask", "--cwd", ws,
                                     "--timeout", "30",  "--",   "/bin/sh", "-c",  script};
    std::vector<std::string> env = Env();
    return Fork(
        [argv, env] {
          std::vector<char*> a, e;
          for (const std::string& s : argv) a.push_back(const_cast<char*>(s.c_str()));
          a.push_back(nullptr);
          for (const std::string& s : env) e.push_back(const_cast<char*>(s.c_str()));
          e.push_back(nullptr);
          execve(a[0], a.data(), e.data());
          return 127;
        },
        "", out, out + ".err");
  };
  std::string wait_for = "while [ ! -e \"$1\" ]; do sleep 0.05; done";
  Forked first = run("f() { " + wait_for + "; }; echo up > a-started; f b-started", Base() + "/a");
  ASSERT_TRUE(WaitForFile(ws + "/a-started", 20)) << ReadFileOr(Base() + "/a.err");
  Forked second = run("f() { " + wait_for + "; }; echo up > b-started; f go; " +
                          "mkdir -p .deepseek/x 2>/dev/null && echo ESCAPED; echo done",
                      Base() + "/b");
  EXPECT_EQ(first.Wait(), 0) << ReadFileOr(Base() + "/a.err");
  EXPECT_TRUE(Exists(ws + "/.deepseek")) << "removed while the second run had it mounted";
  WriteFile(ws + "/go", "go\n");
  EXPECT_EQ(second.Wait(), 0) << ReadFileOr(Base() + "/b.err");
  EXPECT_EQ(ReadFileOr(Base() + "/b"), "done\n");
  EXPECT_FALSE(Exists(ws + "/.deepseek/x"));
}

// Another run's placeholder seen by the compile, removed by that run before
// this one starts (runs are concurrent): the plan binds the directory
// read-only, and the run makes it again rather than refuse with "is now
// missing" (runtime/protected_dirs.h). Nothing is left afterwards.
TEST_F(SandboxTest, APlaceholderRemovedSinceTheCompileIsMadeAgain) {
  ASSERT_EQ(mkdir((ws + "/.deepseek").c_str(), 0755), 0);
  RunResult plan = ::cwsc::testing::RunWithEnv(
      {CwscBin(), "compile", config, "--mode", "ask", "--cwd", ws, "--target", "plan"}, Env());
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  ASSERT_THAT(plan.out, HasSubstr("\"canonical\": \"" + ws + "/.deepseek\""));
  ASSERT_EQ(rmdir((ws + "/.deepseek").c_str()), 0);
  WriteFile(Base() + "/plan.json", plan.out);
  RunResult r = ::cwsc::testing::RunWithEnv(
      {CwscBin(), "exec", Base() + "/plan.json", "--", "/bin/sh", "-c",
       "test -d .deepseek && ! mkdir .deepseek/x 2>/dev/null && echo PROTECTED"},
      Env(), "", ws);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "PROTECTED\n");
  EXPECT_FALSE(Exists(ws + "/.deepseek")) << "the directory made for the run was left behind";
}

TEST_F(SandboxTest, NetworkOffLoopbackServerUnreachable) {
  LoopbackServer server;
  SetConfig("sandbox_network_access = false\n");
  RunResult r = Cwsc("ask", {"/bin/bash", "-c", ConnectScript(server.port())});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.out, Not(HasSubstr("pong")));
  EXPECT_EQ(server.accepted(), 0);
  // Not a sandbox denial by the conservative rules of docs/behavior.md B-45.
  EXPECT_EQ(Result()["sandbox_denied"], false);
}

TEST_F(SandboxTest, NetworkOnLoopbackServerReachable) {
  LoopbackServer server;
  RunResult r = Cwsc("ask", {"/bin/bash", "-c", ConnectScript(server.port())});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pong\n");
  EXPECT_EQ(server.accepted(), 1);
}

TEST_F(SandboxTest, SlashTmpSharedUnderWorkspaceWrite) {
  TempDir t("/tmp");
  WriteFile(t / "host-marker", "from-host\n");
  RunResult r = Sh("ask", "cat " + (t / "host-marker") + " && echo back > " + (t / "from-child"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "from-host\n");
  EXPECT_EQ(ReadFileOr(t / "from-child"), "back\n");
}

TEST_F(SandboxTest, SlashTmpFreshUnderReadOnly) {
  TempDir t("/tmp");
  WriteFile(t / "host-marker", "from-host\n");
  RunResult r = Sh("plan", "ls -A /tmp; test ! -e " + (t / "host-marker") +
                               " && echo private > /tmp/scratch && cat /tmp/scratch");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "private\n") << "a fresh /tmp lists nothing";
  EXPECT_FALSE(Exists("/tmp/scratch") && ReadFileOr("/tmp/scratch") == "private\n");
}

TEST_F(SandboxTest, TmpdirHonored) {
  std::string tmpdir = Base() + "/mytmp";
  mkdir(tmpdir.c_str(), 0755);
  RunResult r = Sh("ask", "echo \"$TMPDIR\"; echo t > \"$TMPDIR/f\"", {"TMPDIR=" + tmpdir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, tmpdir + "\n");
  EXPECT_EQ(ReadFileOr(tmpdir + "/f"), "t\n");
  // Excluded: TMPDIR stays read-only.
  SetConfig("sandbox_exclude_tmpdir = true\n");
  r = Sh("ask", "echo u > \"$TMPDIR/g\"", {"TMPDIR=" + tmpdir});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(Exists(tmpdir + "/g"));
}

TEST_F(SandboxTest, WorkspaceUnderTmpInReadOnlyModeWorksOrIsRefusedClearly) {
  TempDir t("/tmp");
  WriteFile(t / "file.txt", "in-tmp\n");
  RunResult r = Cwsc("plan", {"/bin/sh", "-c", "pwd; cat file.txt"}, {}, "", t.path());
  EXPECT_THAT(r.err, Not(HasSubstr("Can't chdir")));
  if (r.exit_code == 0) {
    EXPECT_EQ(r.out, t.path() + "\nin-tmp\n");
  } else {
    EXPECT_THAT(r.err, HasSubstr("cwsc: refused: "));
  }
  // And it stays read-only.
  r = Cwsc("plan", {"/bin/sh", "-c", "echo x > file.txt"}, {}, "", t.path());
  EXPECT_EQ(ReadFileOr(t / "file.txt"), "in-tmp\n");
}

TEST_F(SandboxTest, GitCommitInsideRealWorktree) {
  std::string repo = Base() + "/repo", wt = Base() + "/wt";
  auto git = [&](const std::vector<std::string>& args, const std::string& dir) {
    std::vector<std::string> argv = {
        "/usr/bin/git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.invalid"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunWithEnv(argv, Env());
  };
  mkdir(repo.c_str(), 0755);
  ASSERT_EQ(git({"init", "-q", "-b", "main"}, repo).exit_code, 0);
  WriteFile(repo + "/a.txt", "a\n");
  ASSERT_EQ(git({"add", "a.txt"}, repo).exit_code, 0);
  ASSERT_EQ(git({"commit", "-qm", "init"}, repo).exit_code, 0);
  RunResult add = git({"worktree", "add", "-q", wt, "-b", "feature"}, repo);
  ASSERT_EQ(add.exit_code, 0) << add.err;
  ASSERT_TRUE(Exists(wt + "/.git"));
  RunResult r = Cwsc("ask",
                     {"/bin/sh", "-c",
                      "echo b > b.txt && git add b.txt && git -c user.name=t -c "
                      "user.email=t@example.invalid commit -qm from-sandbox"},
                     {}, "", wt);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  RunResult log = git({"log", "-1", "--format=%s"}, wt);
  EXPECT_EQ(log.out, "from-sandbox\n");
}

TEST_F(SandboxTest, DenyListedPathsAreHidden) {
  RunResult r = Sh("ask", "cat \"$HOME/.ssh/id_rsa\"; ls -A \"$HOME/.ssh\"");
  EXPECT_THAT(r.out, Not(HasSubstr("SECRET-KEY")));
  EXPECT_THAT(r.out, Not(HasSubstr("id_rsa")));
  // Host-side the key is still there.
  EXPECT_EQ(ReadFileOr(home + "/.ssh/id_rsa"), "SECRET-KEY\n");
}

TEST_F(SandboxTest, ReadOnlyModeBlocksEveryWrite) {
  RunResult r = Sh("plan", "for p in " + ws + "/w " + home + "/w " + outside + "/w " + ws +
                               "/.codewhale/w; do echo x > $p && echo WROTE $p; done; exit 0");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, Not(HasSubstr("WROTE")));
  for (const std::string& p : {ws + "/w", home + "/w", outside + "/w", ws + "/.codewhale/w"}) {
    EXPECT_FALSE(Exists(p)) << p;
  }
  EXPECT_EQ(Result()["sandbox_kind"], "linux-bwrap");
}

TEST_F(SandboxTest, FullAccessRunsUnwrappedAndReportsNone) {
  RunResult r = Sh("full-access", "echo x > " + outside +
                                      "/f; echo \"[$CODEWHALE_SANDBOX]\"; "
                                      "echo 'Read-only file system' >&2; exit 3");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "[]\n");
  EXPECT_EQ(ReadFileOr(outside + "/f"), "x\n");
  nlohmann::json j = Result();
  EXPECT_EQ(j["sandbox_kind"], "none");
  EXPECT_EQ(j["sandbox_denied"], false) << "never a denial for an unsandboxed run";
  EXPECT_THAT(r.err, Not(HasSubstr("sandbox denied")));
}

TEST_F(SandboxTest, EnvironmentClearedThenAllowListAndMarkers) {
  RunResult r = Cwsc("ask", {"/usr/bin/env"}, {"CWSC_TEST_LEAK=1", "LC_TIME=C", "TERM=dumb"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("CWSC_TEST_LEAK")));
  EXPECT_THAT(r.out, HasSubstr("LC_TIME=C\n"));
  EXPECT_THAT(r.out, HasSubstr("TERM=dumb\n"));
  EXPECT_THAT(r.out, HasSubstr("HOME=" + home + "\n"));
  EXPECT_THAT(r.out, HasSubstr("CODEWHALE_SANDBOX=bwrap\n"));
  EXPECT_THAT(r.out, HasSubstr("DEEPSEEK_SANDBOX=bwrap\n"));
}

TEST_F(SandboxTest, ExitCodesAndSignalsPropagate) {
  EXPECT_EQ(Sh("ask", "exit 42").exit_code, 42);
  RunResult r = Sh("ask", "kill -TERM $$");
  EXPECT_EQ(r.exit_code, 143);
  r = Sh("full-access", "kill -KILL $$");
  EXPECT_EQ(r.exit_code, 137);
  EXPECT_EQ(Result()["signal"], 9);
}

TEST_F(SandboxTest, TimeoutEndsTreeIncludingForkedBackgroundChild) {
  for (const char* mode : {"ask", "full-access"}) {
    std::string marker = "1234.5" + std::to_string(getpid());
    RunResult r = RunWithEnv({CwscBin(), "run", config, "--mode", mode, "--cwd", ws, "--timeout",
                              "1", "--", "/bin/sh", "-c", "sleep " + marker + " & wait"},
                             Env());
    EXPECT_EQ(r.exit_code, 124) << mode << r.err;
    EXPECT_THAT(r.err, HasSubstr("cwsc: timed out after 1 s"));
    EXPECT_TRUE(ProcessesWithArg(marker).empty()) << mode << ": background sleep survived";
  }
}

TEST_F(SandboxTest, BackgroundChildDoesNotOutliveTheCommand) {
  for (const char* mode : {"ask", "full-access"}) {
    std::string marker = "2345.6" + std::to_string(getpid());
    RunResult r = Sh(mode, "sleep " + marker + " & echo started");
    EXPECT_EQ(r.exit_code, 0) << mode << r.err;
    EXPECT_EQ(r.out, "started\n");
    EXPECT_TRUE(ProcessesWithArg(marker).empty()) << mode << ": background sleep survived";
  }
}

TEST_F(SandboxTest, StdinPipedAndLargeOutputs) {
  std::string input;
  for (int i = 0; i < 50000; ++i) input += "row " + std::to_string(i) + "\n";
  RunResult r = Cwsc("ask", {"/bin/cat"}, {}, input);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.out == input) << "stdin did not come through byte for byte";
  r = Sh("ask",
         "head -c 16777216 /dev/zero | tr '\\0' a; head -c 3000000 /dev/zero | tr '\\0' b >&2");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.size(), 16777216u);
  EXPECT_EQ(r.out.find_first_not_of('a'), std::string::npos);
  EXPECT_EQ(r.err.size(), 3000000u);
  EXPECT_EQ(r.err.find_first_not_of('b'), std::string::npos);
}

}  // namespace
}  // namespace cwsc::testing
