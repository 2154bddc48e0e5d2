// The linux-landlock backend for real: cwsc runs inside `bwrap
// --unshare-user --disable-userns --dev-bind / / -- ...` (no user
// namespaces, so bubblewrap's probe fails for a namespace reason) and
// falls back to Landlock + seccomp; writes outside the roots fail, denied
// paths are unreadable, the network off holds for TCP and unix sockets,
// exit statuses and signals come back (docs/runtime.md, "The Landlock
// backend").
#include <pwd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/plan.h"
#include "runtime/landlock.h"
#include "tests/runtime/sandbox_fixture.h"

namespace cwsc::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class LandlockRunTest : public SandboxTree {
 protected:
  void SetUp() override {
    SandboxTree::SetUp();
    RunResult r = RunWithEnv({"/usr/bin/bwrap", "--unshare-user", "--disable-userns", "--dev-bind",
                              "/", "/", "--", "/bin/true"},
                             Env());
    if (r.exit_code != 0) GTEST_SKIP() << "bwrap cannot make the outer namespace: " << r.err;
    if (syscall(SYS_landlock_create_ruleset, nullptr, 0, 1u) < 1) {
      GTEST_SKIP() << "this kernel offers no Landlock";
    }
  }

  RunResult Run(const std::string& mode, const std::string& script,
                const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {"/usr/bin/bwrap",
                                     "--unshare-user",
                                     "--disable-userns",
                                     "--dev-bind",
                                     "/",
                                     "/",
                                     "--",
                                     CwscBin(),
                                     "run",
                                     config,
                                     "--mode",
                                     mode,
                                     "--cwd",
                                     ws};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {"--", "/bin/sh", "-c", script});
    std::vector<std::string> env = Env();
    env.push_back("CWSC_PROBE_CACHE=0");
    return RunWithEnv(argv, env);
  }
};

// A rule's path is opened following no symlink: a directory swapped for a
// symlink after the compile (by a command running at the same time, or an
// earlier run) cannot carry a write grant to where the link points.
TEST(LandlockRuleset, ARulePathThroughASymlinkIsRefusedNotFollowed) {
  int abi = runtime::HostLandlockAbi();
  if (abi < 1) GTEST_SKIP() << "this kernel offers no Landlock";
  TempDir tmp("/var/tmp");
  std::filesystem::create_directories(tmp / "real/sub");
  std::filesystem::create_directory_symlink(tmp / "real", tmp / "link");
  const uint64_t read = ir::kLandlockFsExecute | ir::kLandlockFsReadFile | ir::kLandlockFsReadDir;
  const uint64_t write = read | ir::kLandlockFsWriteFile | ir::kLandlockFsMakeReg;
  ir::Landlock ll;
  ll.abi = 1;
  ll.handled_fs = write;
  // The rules the kernel took, or the refusal.
  auto build = [&ll]() -> std::string {
    absl::StatusOr<runtime::LandlockRuleset> rs = runtime::BuildLandlockRuleset(ll);
    return rs.ok() ? "added " + std::to_string(rs->rules_added)
                   : std::string(rs.status().message());
  };
  ll.rules = {{tmp / "real/sub", write, {}, "writable root", {}}};
  EXPECT_EQ(build(), "added 1");
  // The same grant through the link: refused, naming the rule.
  ll.rules = {{tmp / "link/sub", write, {}, "writable root", {}}};
  EXPECT_EQ(build(), "the Landlock rule for " + tmp / "link/sub" +
                         " (execute|write_file|read_file|read_dir|make_reg) would be reached "
                         "through a symlink, which the command may have put there; compile the "
                         "plan again");
  // A read grant through the link, and an expanded directory through it:
  // left out (less access), not followed.
  ll.rules = {{tmp / "link", read, {}, "read view", {}},
              {tmp / "link", read, {"other"}, "read view", {}}};
  EXPECT_EQ(build(), "added 0");
  // Expanded through the real path: one rule for its one entry.
  ll.rules = {{tmp / "real", read, {"other"}, "read view", {}}};
  EXPECT_EQ(build(), "added 1");
}

TEST_F(LandlockRunTest, FallsBackAndWritesOnlyUnderTheRoots) {
  RunResult r = Run("ask", "echo in > " + ws + "/new.txt && echo out > " + outside + "/x");
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("cwsc: warning: bubblewrap cannot make its namespaces here ("));
  EXPECT_THAT(r.err, HasSubstr("so the plan confines the command with Landlock ABI "));
  EXPECT_THAT(r.err, HasSubstr("Permission denied"));
  EXPECT_EQ(ReadFileOr(ws + "/new.txt"), "in\n");
  EXPECT_FALSE(Exists(outside + "/x"));
  // Nothing runs unconfined: no "without a sandbox" warning.
  EXPECT_THAT(r.err, Not(HasSubstr("without a sandbox")));
  // The protected name is not held (the plan says so) but reading works.
  r = Run("ask", "cat " + ws + "/hello.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hello\n");
}

TEST_F(LandlockRunTest, DeniedPathsAreUnreadable) {
  RunResult r = Run("ask", "cat " + home + "/.ssh/id_rsa");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.out, Not(HasSubstr("SECRET-KEY")));
  EXPECT_THAT(r.err, HasSubstr("Permission denied"));
  // Through another name for the same directory: still refused.
  symlink((home + "/.ssh").c_str(), (ws + "/ssh-link").c_str());
  r = Run("ask", "cat " + ws + "/ssh-link/id_rsa");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.out, Not(HasSubstr("SECRET-KEY")));
  // Raw devices are not readable either.
  r = Run("ask", "head -c 1 /dev/mem >/dev/null 2>&1 || head -c1 /dev/vda >/dev/null");
  EXPECT_NE(r.exit_code, 0);
}

TEST_F(LandlockRunTest, NetworkOffRefusesTcpAndUnixSockets) {
  const std::string py = "/usr/bin/python3";
  if (!Exists(py)) GTEST_SKIP() << "needs python3";
  // A host TCP listener and a host unix socket the command must not reach.
  std::string script =
      py +
      " -c '\nimport socket, errno\nfor fam, addr in ((socket.AF_INET, (\"127.0.0.1\", 9)), "
      "(socket.AF_UNIX, \"/run/none\"), (socket.AF_UNIX, \"\\0abstract\")):\n  try:\n    s = "
      "socket.socket(fam, socket.SOCK_STREAM)\n    s.connect(addr)\n    print(\"connected\")\n  "
      "except OSError as e:\n    print(errno.errorcode[e.errno])\n'";
  RunResult r = Run("plan", script);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "EAFNOSUPPORT\nEPERM\nEPERM\n");
  // The network on (ask mode): an AF_INET socket can be made.
  r = Run("ask", py + " -c 'import socket; socket.socket(); print(\"ok\")'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok\n");
}

TEST_F(LandlockRunTest, ExitStatusAndSignalsComeBack) {
  RunResult r = Run("ask", "exit 7");
  EXPECT_EQ(r.exit_code, 7) << r.err;
  r = Run("ask", "kill -TERM $$");
  EXPECT_EQ(r.exit_code, 128 + 15) << r.err;
  // Signals to processes outside the sandbox are refused (scope, ABI 6).
  r = Run("ask", "kill -0 1 && echo reached || echo refused");
  EXPECT_EQ(r.out, "refused\n") << r.err;
}

TEST_F(LandlockRunTest, DoctorSaysLandlock) {
  std::vector<std::string> env = Env();
  env.push_back("CWSC_PROBE_CACHE=0");
  RunResult d = RunWithEnv({"/usr/bin/bwrap", "--unshare-user", "--disable-userns", "--dev-bind",
                            "/", "/", "--", CwscBin(), "doctor", config},
                           env);
  EXPECT_EQ(d.exit_code, 0) << d.err;
  EXPECT_THAT(d.out, StartsWith("sandbox: linux-landlock (available)\n  why: bubblewrap does not "
                                "work here (the bwrap probe failed: bwrap: Creating new "
                                "namespace failed: "));
  EXPECT_THAT(d.out, HasSubstr("; commands are confined with Landlock and seccomp, which hold "
                               "less (cwsc explain lists what)\n"));
  EXPECT_THAT(d.out, HasSubstr("\ncommand (ask mode): linux-landlock\n"));
}

TEST_F(LandlockRunTest, AskedForOnAHostWithBubblewrap) {
  SetConfig("sandbox_linux_backend = \"landlock\"\n");
  RunResult r = RunWithEnv({CwscBin(), "run", config, "--cwd", ws, "--", "/bin/sh", "-c",
                            "echo out > " + outside + "/y"},
                           Env({"CWSC_PROBE_CACHE=0"}));
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Exists(outside + "/y"));
  RunResult c = RunWithEnv({CwscBin(), "compile", config, "--cwd", ws, "--target", "plan"}, Env());
  EXPECT_THAT(c.out, HasSubstr("\"kind\": \"linux-landlock\""));
  // exec of that plan: runs here, and is refused under another home, whose
  // credential stores the ruleset would not leave out.
  WriteFile(Base() + "/ll-plan.json", c.out);
  RunResult e = RunWithEnv(
      {CwscBin(), "exec", Base() + "/ll-plan.json", "--", "/bin/sh", "-c", "exit 4"}, Env());
  EXPECT_EQ(e.exit_code, 4) << e.err;
  e = RunWithEnv({CwscBin(), "exec", Base() + "/ll-plan.json", "--", "/bin/true"},
                 {"PATH=/usr/bin:/bin", "HOME=/nonexistent-home"});
  EXPECT_EQ(e.exit_code, 125);
  EXPECT_THAT(e.err, StartsWith("cwsc: refused: the environment variable HOME was '" + home +
                                "' when the plan was compiled and is '/nonexistent-home' now"));
  RunResult l =
      RunWithEnv({CwscBin(), "compile", config, "--cwd", ws, "--target", "landlock"}, Env());
  EXPECT_EQ(l.exit_code, 0) << l.err;
  EXPECT_THAT(l.out, StartsWith("# cwsc Landlock ruleset (ABI "));
  // explain: the ruleset, then what it cannot hold.
  RunResult x = RunWithEnv({CwscBin(), "explain", config, "--cwd", ws}, Env());
  EXPECT_EQ(x.exit_code, 0) << x.err;
  EXPECT_THAT(x.out, HasSubstr("\n# cwsc Landlock ruleset (ABI "));
  EXPECT_THAT(x.out, HasSubstr("\n# skipped protected path " + ws +
                               "/.codewhale: writable: a Landlock grant on " + ws +
                               " reaches every path below it"));
  EXPECT_THAT(x.out, HasSubstr("\n# skipped private /tmp /tmp: without a mount namespace the "
                               "command sees the host's /tmp"));
  EXPECT_THAT(l.out, HasSubstr("\nallow execute|write_file|read_file|read_dir|remove_dir|"));
  EXPECT_THAT(l.out, HasSubstr(" beneath " + ws + "  # writable root (configured) ["));
}

}  // namespace
}  // namespace cwsc::testing

namespace cwsc::testing {
namespace {

// As a second, non-root user (created only where system changes are
// allowed): Landlock asked for on this host, the tree owned by that user so
// that only the sandbox stops the writes and reads.
TEST(LandlockSecondUser, WritesOutsideAndDeniedReadsFail) {
  const char* ci = std::getenv("CI");
  const char* allow = std::getenv("CWSC_ALLOW_SYSTEM_CHANGES");
  if (!((ci && std::string(ci) == "true") || (allow && std::string(allow) == "1"))) {
    GTEST_SKIP() << "creates a system user: set CI=true or CWSC_ALLOW_SYSTEM_CHANGES=1";
  }
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create the user";
  if (syscall(SYS_landlock_create_ruleset, nullptr, 0, 1u) < 1) GTEST_SKIP() << "no Landlock";
  constexpr const char* kUser = "cwsc-ll-user";
  ASSERT_EQ(cwsc::testing::EnsureUser(kUser, {"--system", "--user-group", "--no-create-home",
                                              "--shell", "/usr/sbin/nologin"}),
            "");
  passwd* pw = getpwnam(kUser);
  ASSERT_NE(pw, nullptr);
  TempDir base("/var/tmp");
  chmod(base.path().c_str(), 0755);
  std::string home = base / "home", ws = base / "ws", outside = base / "outside";
  for (const std::string& d : {home, home + "/.ssh", ws, outside}) mkdir(d.c_str(), 0755);
  WriteFile(home + "/.ssh/id_rsa", "SECRET-KEY\n");
  WriteFile(base / "c.toml", "sandbox_linux_backend = \"landlock\"\n");
  for (const auto& e : std::filesystem::recursive_directory_iterator(base.path())) {
    lchown(e.path().c_str(), pw->pw_uid, pw->pw_gid);
  }
  lchown(base.path().c_str(), pw->pw_uid, pw->pw_gid);
  auto as_user = [&](const std::string& script) {
    return cwsc::testing::Run({"/usr/bin/setpriv",
                               "--reuid",
                               std::to_string(pw->pw_uid),
                               "--regid",
                               std::to_string(pw->pw_gid),
                               "--clear-groups",
                               "--",
                               "/usr/bin/env",
                               "-i",
                               "PATH=/usr/bin:/bin",
                               "HOME=" + home,
                               "CWSC_PROBE_CACHE=0",
                               CwscBin(),
                               "run",
                               base / "c.toml",
                               "--cwd",
                               ws,
                               "--",
                               "/bin/sh",
                               "-c",
                               script});
  };
  RunResult r = as_user("echo in > " + ws + "/f && echo out > " + outside + "/g");
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFileOr(ws + "/f"), "in\n");
  EXPECT_FALSE(Exists(outside + "/g"));
  r = as_user("cat " + home + "/.ssh/id_rsa");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.out.find("SECRET-KEY"), std::string::npos);
  r = as_user("exit 9");
  EXPECT_EQ(r.exit_code, 9) << r.err;
}

}  // namespace
}  // namespace cwsc::testing
