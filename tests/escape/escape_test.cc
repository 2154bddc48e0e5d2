// Hostile commands against `cwsc run` with real bubblewrap (docs/runtime.md,
// "Threat model"). Each test is an attack: the command is the attacker, and
// the test checks afterwards that nothing outside changed and nothing secret
// was read. Every test runs twice: with cwsc started as root, and as an
// unprivileged user (cwsc-escape, created only where system changes are
// allowed: CI=true or CWSC_ALLOW_SYSTEM_CHANGES=1). Two-run attacks plant
// something in the first run and try to use it in the second.
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/argv_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kUser[] = "cwsc-escape";

enum class Who { kRoot, kUser };

std::string EnvOr(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

std::string CwscBin() { return EnvOr("CWSC_BIN", "cwsc"); }

std::string ShQuote(const std::string& s) { return backends::ShellQuote(s); }

std::string ShJoin(const std::vector<std::string>& argv) {
  std::vector<std::string> q;
  for (const std::string& a : argv) q.push_back(ShQuote(a));
  return absl::StrJoin(q, " ");
}

class EscapeTest : public ::testing::TestWithParam<Who> {
 protected:
  void SetUp() override {
    if (geteuid() != 0) {
      if (GetParam() == Who::kRoot) GTEST_SKIP() << "the root variant needs root";
    }
    if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "/usr/bin/bwrap is missing";
    if (GetParam() == Who::kUser && geteuid() == 0) {
      if (EnvOr("CI") != "true" && EnvOr("CWSC_ALLOW_SYSTEM_CHANGES") != "1") {
        GTEST_SKIP() << "creates the system user " << kUser
                     << ": set CI=true or CWSC_ALLOW_SYSTEM_CHANGES=1 to run it";
      }
      if (getpwnam(kUser) == nullptr) {
        RunResult add =
            ::cwsc::testing::Run({"/usr/sbin/useradd", "--system", "--user-group",
                                  "--no-create-home", "--shell", "/usr/sbin/nologin", kUser});
        ASSERT_EQ(add.exit_code, 0) << add.err;
      }
      passwd* pw = getpwnam(kUser);
      ASSERT_NE(pw, nullptr);
      uid_ = pw->pw_uid;
      gid_ = pw->pw_gid;
      as_other_user_ = true;
    } else {
      uid_ = geteuid();
      gid_ = getegid();
    }
    base_ = std::make_unique<TempDir>("/var/tmp");
    chmod(base_->path().c_str(), 0755);
    home = *base_ / "home";
    ws = *base_ / "ws";
    outside = *base_ / "outside";
    bin = *base_ / "bin";
    for (const std::string& d : {home, home + "/.ssh", ws, outside, bin}) mkdir(d.c_str(), 0755);
    WriteFile(home + "/.ssh/id_ed25519", "SECRET-KEY\n");
    WriteFile(outside + "/target", "ORIGINAL\n");
    std::filesystem::copy_file(SourceRoot() + "/tests/escape/attack.py", bin + "/attack.py");
    config = *base_ / "config.toml";
    WriteFile(config, "");
    ChownAll();
  }

  // ChownAll gives the tree to the user the attack runs as, so that file
  // permissions are never what stops it: only the sandbox may.
  void ChownAll() {
    if (!as_other_user_) return;
    for (const auto& e : std::filesystem::recursive_directory_iterator(base_->path())) {
      lchown(e.path().c_str(), uid_, gid_);
    }
    lchown(base_->path().c_str(), uid_, gid_);
  }

  // Prefix is how a command is started as the attacking identity.
  std::vector<std::string> Prefix(const std::vector<std::string>& env) const {
    std::vector<std::string> argv;
    if (as_other_user_) {
      argv = {"/usr/bin/setpriv", "--reuid", std::to_string(uid_), "--regid", std::to_string(gid_),
              "--clear-groups",   "--"};
    }
    argv.push_back("/usr/bin/env");
    argv.push_back("-i");
    argv.insert(argv.end(), env.begin(), env.end());
    return argv;
  }

  std::vector<std::string> BaseEnv(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home,
                                    "LANG=C.UTF-8"};
    env.insert(env.end(), extra.begin(), extra.end());
    return env;
  }

  // CwscArgv is `cwsc run CONFIG --mode MODE --cwd CWD [extra] -- program`.
  std::vector<std::string> CwscArgv(const std::vector<std::string>& program,
                                    const std::vector<std::string>& extra = {},
                                    const std::string& mode = "ask",
                                    const std::string& cwd = "") const {
    std::vector<std::string> argv = {
        CwscBin(), "run", config, "--mode", mode, "--cwd", cwd.empty() ? ws : cwd};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--");
    argv.insert(argv.end(), program.begin(), program.end());
    return argv;
  }

  RunResult Sh(const std::string& script, const std::vector<std::string>& env_extra = {},
               const std::string& mode = "ask", const std::string& cwd = "") {
    std::vector<std::string> argv = Prefix(BaseEnv(env_extra));
    std::vector<std::string> c = CwscArgv({"/bin/sh", "-c", script}, {}, mode, cwd);
    argv.insert(argv.end(), c.begin(), c.end());
    return ::cwsc::testing::Run(argv);
  }

  // Outer runs a /bin/sh script as the attacking identity, outside any
  // sandbox, with $CWSC set to the cwsc binary (to wrap it in fds, a pty...).
  RunResult Outer(const std::string& script, const std::vector<std::string>& env_extra = {}) {
    std::vector<std::string> env = BaseEnv(env_extra);
    env.push_back("CWSC=" + CwscBin());
    std::vector<std::string> argv = Prefix(env);
    argv.insert(argv.end(), {"/bin/sh", "-c", script});
    return ::cwsc::testing::Run(argv);
  }

  std::unique_ptr<TempDir> base_;
  std::string home, ws, outside, bin, config;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  bool as_other_user_ = false;
};

// 1. Capabilities: none, as root too; the mount table and /proc/sys stay as
// they are.
TEST_P(EscapeTest, NoCapabilitiesNoRemountNoUnmountNoSysctl) {
  mkdir((ws + "/.codewhale").c_str(), 0755);
  WriteFile(ws + "/.codewhale/config.toml", "# project\n");
  ChownAll();
  RunResult r =
      Sh("grep -E '^Cap(Eff|Prm|Amb):' /proc/self/status; "
         "mount -o remount,rw,bind / 2>/dev/null; echo x > " +
         outside +
         "/written 2>/dev/null; "
         "umount /etc/shadow 2>/dev/null; head -c 64 /etc/shadow 2>/dev/null > shadow_seen; "
         "umount " +
         ws +
         "/.codewhale 2>/dev/null; echo evil > .codewhale/config.toml 2>/dev/null; "
         "v=$(cat /proc/sys/kernel/printk_ratelimit); "
         "(echo \"$v\" > /proc/sys/kernel/printk_ratelimit) 2>/dev/null && echo SYSCTL-WRITABLE; "
         "(printf '' > /proc/sysrq-trigger) 2>/dev/null && echo SYSRQ-WRITABLE; "
         "unshare -U true 2>/dev/null && echo NESTED-USERNS; "
         "unshare -m true 2>/dev/null && echo NESTED-MOUNTNS; "
         "exit 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("CapPrm:\t0000000000000000\n"));
  EXPECT_THAT(r.out, HasSubstr("CapEff:\t0000000000000000\n"));
  EXPECT_THAT(r.out, HasSubstr("CapAmb:\t0000000000000000\n"));
  EXPECT_FALSE(Exists(outside + "/written"));
  EXPECT_EQ(ReadFileOr(ws + "/shadow_seen"), "");
  EXPECT_EQ(ReadFileOr(ws + "/.codewhale/config.toml"), "# project\n");
  EXPECT_THAT(r.out, Not(HasSubstr("SYSCTL-WRITABLE")));
  EXPECT_THAT(r.out, Not(HasSubstr("SYSRQ-WRITABLE")));
  EXPECT_THAT(r.out, Not(HasSubstr("NESTED-USERNS")));
  EXPECT_THAT(r.out, Not(HasSubstr("NESTED-MOUNTNS")));
}

// 1b. The kernel's root-only interfaces stay out of reach: masked for a
// root command (OCI default list), refused by the kernel for any other.
TEST_P(EscapeTest, ProcKernelInterfacesAreMaskedOrReadOnly) {
  RunResult r = Sh(
      "for p in /proc/kcore /proc/timer_list /proc/sched_debug; do "
      "  [ -e \"$p\" ] && head -c 1 \"$p\" 2>/dev/null | grep -q . && echo \"READABLE $p\"; done; "
      "for d in /proc/acpi /proc/scsi /proc/asound /sys/firmware; do "
      "  [ -d \"$d\" ] && [ -n \"$(ls -A \"$d\" 2>/dev/null)\" ] && echo \"LISTABLE $d\"; done; "
      "(printf '' > /proc/sysrq-trigger) 2>/dev/null && echo SYSRQ-WRITABLE; "
      "exit 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  if (GetParam() == Who::kRoot) {
    EXPECT_EQ(r.out, "");
  } else {
    EXPECT_THAT(r.out, Not(HasSubstr("READABLE"))) << r.out;
    EXPECT_THAT(r.out, Not(HasSubstr("WRITABLE"))) << r.out;
  }
}

// 2. Terminal injection: TIOCSTI / TIOCLINUX on stdin and on /dev/tty, with
// the high bits of the request set too, at a real pseudo-terminal.
TEST_P(EscapeTest, TerminalInjectionIsRefused) {
  if (access("/usr/bin/script", X_OK) != 0) GTEST_SKIP() << "script(1) is missing";
  std::string attack = ShJoin({"/usr/bin/python3", bin + "/attack.py", "tiocsti"});
  // The control: outside the sandbox the same probe injects (the test can fail).
  RunResult control = Outer("/usr/bin/script -qec " + ShQuote(attack) + " /dev/null");
  ASSERT_THAT(control.out, HasSubstr("stdin-tiocsti ok")) << control.out << control.err;
  for (const char* redirect : {"", " </dev/null"}) {
    std::string run =
        ShJoin(CwscArgv({"/usr/bin/python3", bin + "/attack.py", "tiocsti"})) + redirect;
    RunResult r = Outer("/usr/bin/script -qec " + ShQuote(run) + " /dev/null");
    EXPECT_THAT(r.out, HasSubstr("stdin-tiocsti")) << r.out << r.err;
    EXPECT_THAT(r.out, Not(HasSubstr(" ok"))) << "redirect '" << redirect << "':\n" << r.out;
  }
}

// 3. Descriptors the caller leaked: a writable file outside and $HOME.
TEST_P(EscapeTest, InheritedDescriptorsDoNotReachTheCommand) {
  std::string inner =
      ShJoin(CwscArgv({"/bin/sh", "-c",
                       "ls /proc/self/fd | tr '\\n' ' '; echo; echo pwned >&7; "
                       "cat /proc/self/fd/9/.ssh/id_ed25519; cat /proc/self/fd/7; exit 0"}));
  RunResult r =
      Outer("exec 7>>" + ShQuote(outside + "/target") + " 9<" + ShQuote(home) + "; exec " + inner);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFileOr(outside + "/target"), "ORIGINAL\n");
  EXPECT_THAT(r.out, Not(HasSubstr("SECRET-KEY")));
  // ls itself holds one descriptor open on /proc/self/fd (3).
  EXPECT_THAT(r.out, ::testing::StartsWith("0 1 2 3 \n")) << r.out;
}

// 4. A planted `.git` symlink must not make another repository's git
// directories writable on the next run (hooks would run outside later).
TEST_P(EscapeTest, PlantedDotGitSymlinkDoesNotOpenAnotherRepository) {
  std::string other = *base_ / "other", otherwt = *base_ / "otherwt";
  std::vector<std::string> git_env = {"GIT_CONFIG_NOSYSTEM=1", "HOME=" + base_->path(),
                                      "GIT_AUTHOR_NAME=t",     "GIT_AUTHOR_EMAIL=t@e",
                                      "GIT_COMMITTER_NAME=t",  "GIT_COMMITTER_EMAIL=t@e"};
  ASSERT_EQ(::cwsc::testing::Run({"/usr/bin/git", "init", "-q", other}, "", git_env).exit_code, 0);
  ASSERT_EQ(
      ::cwsc::testing::Run(
          {"/usr/bin/git", "-C", other, "commit", "-q", "--allow-empty", "-m", "i"}, "", git_env)
          .exit_code,
      0);
  RunResult wt = ::cwsc::testing::Run(
      {"/usr/bin/git", "-C", other, "worktree", "add", "-q", otherwt}, "", git_env);
  ASSERT_EQ(wt.exit_code, 0) << wt.err;
  mkdir((ws + "/sub").c_str(), 0755);
  ChownAll();
  std::string hooks = other + "/.git/hooks/post-checkout";
  std::string wtgit = other + "/.git/worktrees/otherwt/pwned";
  std::string write =
      "echo pwned > " + hooks + " 2>/dev/null; echo pwned > " + wtgit + " 2>/dev/null; exit 0";
  // The link at the workspace, found from the workspace and from below it.
  for (const std::string& link : {ws + "/.git"}) {
    RunResult plant = Sh("ln -s " + otherwt + "/.git " + link);
    ASSERT_EQ(plant.exit_code, 0) << plant.err;
    ASSERT_TRUE(std::filesystem::is_symlink(link));
    for (const std::string& cwd : {ws, ws + "/sub"}) {
      RunResult r = Sh(write, {}, "ask", cwd);
      EXPECT_FALSE(Exists(hooks)) << "cwd " << cwd << "\n" << r.err;
      EXPECT_FALSE(Exists(wtgit)) << "cwd " << cwd << "\n" << r.err;
    }
    unlink(link.c_str());
  }
}

// 5. A symlink planted inside a writable root redirects TMPDIR on the next
// run: it must not become a writable bind of the directory outside.
TEST_P(EscapeTest, SymlinkPlantedInAWritableRootDoesNotRedirectTheNextRun) {
  mkdir((ws + "/tp").c_str(), 0755);
  mkdir((ws + "/tp/tmpdir").c_str(), 0755);
  mkdir((outside + "/tmpdir").c_str(), 0755);
  ChownAll();
  std::vector<std::string> env = {"TMPDIR=" + ws + "/tp/tmpdir"};
  RunResult plant = Sh("mv tp tp.old && ln -s " + outside + " tp", env);
  ASSERT_EQ(plant.exit_code, 0) << plant.err;
  RunResult r = Sh("echo pwned > \"$TMPDIR/pwned\" 2>/dev/null; exit 0", env);
  EXPECT_FALSE(Exists(outside + "/tmpdir/pwned")) << r.err;
  // A configured writable root through the same kind of link.
  WriteFile(config, "sandbox_writable_roots = [\"" + ws + "/tp/tmpdir\"]\n");
  ChownAll();
  r = Sh("echo pwned > " + ws + "/tp/tmpdir/pwned2 2>/dev/null; exit 0");
  EXPECT_FALSE(Exists(outside + "/tmpdir/pwned2")) << r.err;
}

// 6. Protected names that do not exist yet: the command must not create
// them, nor keep a hard link to what it created for a later run.
TEST_P(EscapeTest, ProtectedNamesThatDoNotExistStayUnwritable) {
  RunResult r1 =
      Sh("mkdir -p .codewhale .deepseek 2>/dev/null; "
         "echo 'sandbox_mode = \"danger-full-access\"' > .codewhale/config.toml 2>/dev/null; "
         "echo evil > .deepseek/config.toml 2>/dev/null; "
         "ln .codewhale/config.toml hardlink 2>/dev/null; exit 0");
  EXPECT_EQ(r1.exit_code, 0) << r1.err;
  EXPECT_FALSE(Exists(ws + "/.codewhale/config.toml"));
  EXPECT_FALSE(Exists(ws + "/.deepseek/config.toml"));
  RunResult r2 = Sh("echo 'sandbox_mode = \"danger-full-access\"' > hardlink 2>/dev/null; exit 0");
  EXPECT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_FALSE(Exists(ws + "/.codewhale/config.toml"));
  // A third run still compiles: nothing the first two did broke the config.
  RunResult r3 = Sh("echo still-runs");
  EXPECT_EQ(r3.exit_code, 0) << r3.err;
  EXPECT_EQ(r3.out, "still-runs\n");
}

// 6b. A hard link to a protected file made before it was protected (by
// hand, or by an older sandbox): the run is refused, nothing is written.
TEST_P(EscapeTest, HardLinkToAProtectedFileIsRefused) {
  mkdir((ws + "/.codewhale").c_str(), 0755);
  WriteFile(ws + "/.codewhale/config.toml", "# project\n");
  ASSERT_EQ(link((ws + "/.codewhale/config.toml").c_str(), (ws + "/hardlink").c_str()), 0);
  ChownAll();
  RunResult r = Sh("echo 'sandbox_mode = \"danger-full-access\"' > hardlink; echo ran");
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "cwsc: refused: the protected file " + ws +
                       "/.codewhale/config.toml has more than one hard link; a name for it "
                       "outside the protected directory may be writable in the sandbox; remove "
                       "the extra links (find " +
                       ws + " -samefile " + ws + "/.codewhale/config.toml)\n");
  EXPECT_EQ(ReadFileOr(ws + "/.codewhale/config.toml"), "# project\n");
  unlink((ws + "/hardlink").c_str());
  RunResult ok = Sh("echo ran");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// 7. `--json -o FILE`: a symlink the command planted at FILE is never
// followed, and the file is written where it was when the run started.
TEST_P(EscapeTest, JsonResultFileNeverFollowsASymlink) {
  mkdir((ws + "/out").c_str(), 0755);
  ChownAll();
  std::vector<std::string> argv = Prefix(BaseEnv());
  std::vector<std::string> c = CwscArgv(
      {"/bin/sh", "-c",
       "ln -s " + outside + "/target out/result.json; mv out out.old; ln -s " + outside + " out"},
      {"--json", "-o", ws + "/out/result.json"});
  argv.insert(argv.end(), c.begin(), c.end());
  RunResult r = ::cwsc::testing::Run(argv);
  EXPECT_EQ(ReadFileOr(outside + "/target"), "ORIGINAL\n") << r.err;
  EXPECT_FALSE(Exists(outside + "/result.json")) << r.err;
}

// 8. The JSON result travels on a channel the command cannot write.
TEST_P(EscapeTest, JsonResultCannotBeForgedByTheCommand) {
  std::string inner =
      ShJoin(CwscArgv({"/bin/sh", "-c",
                       "printf '{\"sandbox_kind\":\"forged\"}' >&2; "
                       "echo '{\"sandbox_kind\":\"forged\"}' >&3 2>/dev/null; exit 4"},
                      {"--json", "--json-fd", "3"}));
  RunResult r = Outer("exec 3>" + ShQuote(ws + "/result.json") + "; " + inner);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  std::string result = ReadFileOr(ws + "/result.json");
  EXPECT_THAT(result, Not(HasSubstr("forged")));
  EXPECT_THAT(result, HasSubstr("\"exit_code\":4"));
  // Without a channel of its own, --json is refused rather than mixed into
  // the command's stderr.
  std::vector<std::string> argv = Prefix(BaseEnv());
  std::vector<std::string> c = CwscArgv({"/bin/true"}, {"--json"});
  argv.insert(argv.end(), c.begin(), c.end());
  RunResult bare = ::cwsc::testing::Run(argv);
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_EQ(bare.err,
            "cwsc: error: --json needs -o FILE or --json-fd N: the command's own stderr cannot "
            "carry a result it could forge\nTry 'cwsc run --help'.\n");
}

// 9. With the network off, host AF_UNIX sockets (an ssh-agent, docker) stay
// out of reach; socketpair still works.
TEST_P(EscapeTest, HostUnixSocketsAreUnreachableWithTheNetworkOff) {
  std::string stream = outside + "/agent.sock", dgram = outside + "/dgram.sock";
  std::string marker = outside + "/received", ready = outside + "/ready";
  Forked server = Fork([&] {
    execl("/usr/bin/python3", "python3", (bin + "/attack.py").c_str(), "serve", stream.c_str(),
          dgram.c_str(), marker.c_str(), ready.c_str(), nullptr);
    return 127;
  });
  ASSERT_TRUE(WaitForFile(ready, 10));
  // The control: outside the sandbox both sockets answer.
  RunResult control =
      Outer(ShJoin({"/usr/bin/python3", bin + "/attack.py", "unix", stream, dgram}));
  EXPECT_THAT(control.out, HasSubstr("unix-stream ok"));
  EXPECT_THAT(control.out, HasSubstr("unix-dgram ok"));
  for (int i = 0; i < 50 && ReadFileOr(marker).size() < 20; ++i) usleep(100000);
  unlink(marker.c_str());
  WriteFile(config, "sandbox_network_access = false\n");
  ChownAll();
  for (const char* mode : {"ask", "plan"}) {
    std::vector<std::string> argv = Prefix(BaseEnv());
    std::vector<std::string> c =
        CwscArgv({"/usr/bin/python3", bin + "/attack.py", "unix", stream, dgram}, {}, mode);
    argv.insert(argv.end(), c.begin(), c.end());
    RunResult r = ::cwsc::testing::Run(argv);
    EXPECT_THAT(r.out, HasSubstr("unix-stream errno=")) << mode << "\n" << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("unix-dgram errno=")) << mode << "\n" << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("socketpair ok")) << mode << "\n" << r.out << r.err;
  }
  usleep(300000);
  EXPECT_EQ(ReadFileOr(marker), "");
  WriteFile(ready + ".stop", "");
  kill(server.pid, SIGTERM);
  server.Wait();
}

// 10. Shadow copies and group shadow files are masked like /etc/shadow.
TEST_P(EscapeTest, ShadowCopiesAreHidden) {
  std::string script;
  std::vector<std::string> present;
  for (const char* p : {"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-"}) {
    if (!Exists(p)) continue;
    present.push_back(p);
    script += absl::StrCat("cat ", p, " 2>/dev/null; ");
  }
  if (present.empty()) GTEST_SKIP() << "no shadow files on this host";
  RunResult r = Sh(script + "exit 0");
  for (const std::string& p : present) {
    std::string content = ReadFileOr(p);
    std::string first_line = content.substr(0, content.find('\n'));
    if (first_line.empty()) continue;
    EXPECT_THAT(r.out, Not(HasSubstr(first_line))) << p;
  }
}

INSTANTIATE_TEST_SUITE_P(AsRootAndAsUser, EscapeTest, ::testing::Values(Who::kRoot, Who::kUser),
                         [](const ::testing::TestParamInfo<Who>& info) {
                           return info.param == Who::kRoot ? "Root" : "User";
                         });

}  // namespace
}  // namespace cwsc::testing
