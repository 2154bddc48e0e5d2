// Hostile commands against `cwsc run` with real bubblewrap (docs/runtime.md,
// "Threat model"). Each test is an attack: the command is the attacker, and
// the test checks afterwards that nothing outside changed and nothing secret
// was read. Every test runs twice: with cwsc started as root, and as an
// unprivileged user (cwsc-escape, created only where system changes are
// allowed: CI=true or CWSC_ALLOW_SYSTEM_CHANGES=1). Two-run attacks plant
// something in the first run and try to use it in the second.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "tests/escape/escape_fixture.h"

namespace cwsc::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// SetuidOrSetgid lists the files and directories under `dir` (and `dir`)
// with S_ISUID or S_ISGID set.
std::vector<std::string> SetuidOrSetgid(const std::string& dir) {
  std::vector<std::string> out;
  auto check = [&](const std::string& p) {
    struct stat st;
    if (lstat(p.c_str(), &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) != 0) out.push_back(p);
  };
  check(dir);
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) check(e.path());
  return out;
}

// 0. The attacks run against the backend the variant names: a Landlock
// variant that quietly ran bubblewrap would prove nothing.
TEST_P(EscapeTest, TheVariantRunsTheBackendItNames) {
  std::string result = *base_ / "result.json";
  std::vector<std::string> argv = Prefix(BaseEnv());
  std::vector<std::string> c = CwscArgv({"/bin/true"}, {"--json", "-o", result});
  argv.insert(argv.end(), c.begin(), c.end());
  RunResult r = ::cwsc::testing::Run(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadFileOr(result), HasSubstr(landlock() ? "\"sandbox_kind\":\"linux-landlock\""
                                                       : "\"sandbox_kind\":\"linux-bwrap\""));
}

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
  // Landlock does not hold protected names (docs/runtime.md, "The Landlock
  // backend"); everything else here it holds.
  if (!landlock()) {
    EXPECT_EQ(ReadFileOr(ws + "/.codewhale/config.toml"), "# project\n");
  }
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
  if (who() == Who::kRoot && !landlock()) {
    EXPECT_EQ(r.out, "");
  } else {
    // Without a mount namespace nothing masks the root-only interfaces:
    // a root command under Landlock reads them (docs/runtime.md, "The
    // Landlock backend", not promised); it still writes none.
    if (who() != Who::kRoot) {
      EXPECT_THAT(r.out, Not(HasSubstr("READABLE"))) << r.out;
    }
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
  CWSC_NOT_PROMISED_BY_LANDLOCK(
      "protected names are not held (docs/runtime.md, \"The Landlock backend\")");
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
  CWSC_NOT_PROMISED_BY_LANDLOCK(
      "protected names are not held (docs/runtime.md, \"The Landlock backend\")");
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
  CWSC_ONLY_THROUGH_CWSC_RUN("how `cwsc run --json -o` writes its file");
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
  CWSC_ONLY_THROUGH_CWSC_RUN("the --json result channel of `cwsc run`");
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

// 9b. With the network off, no other socket reaches the host either: a
// datagram socketpair addressed at a host datagram socket (sendto, connect),
// AF_VSOCK (the hypervisor), netlink other than NETLINK_ROUTE, every family
// off the allow-list, type flags OR'ed in. Stream and seqpacket socketpairs
// still work, and addressing them elsewhere reaches nothing.
TEST_P(EscapeTest, SocketpairsAndOtherFamiliesDoNotReachTheHostWithTheNetworkOff) {
  std::string stream = outside + "/agent.sock", dgram = outside + "/dgram.sock";
  std::string marker = outside + "/received", ready = outside + "/ready";
  Forked server = Fork([&] {
    execl("/usr/bin/python3", "python3", (bin + "/attack.py").c_str(), "serve", stream.c_str(),
          dgram.c_str(), marker.c_str(), ready.c_str(), nullptr);
    return 127;
  });
  ASSERT_TRUE(WaitForFile(ready, 10));
  std::vector<std::string> probe = {"/usr/bin/python3", bin + "/attack.py", "sockets", dgram};
  // The control: outside the sandbox a datagram socketpair reaches the host socket.
  RunResult control = Outer(ShJoin(probe));
  EXPECT_THAT(control.out, HasSubstr("pair-dgram-sendto ok")) << control.out << control.err;
  for (int i = 0; i < 50 && ReadFileOr(marker).find("pair-dgram-sendto") == std::string::npos;
       ++i) {
    usleep(100000);
  }
  EXPECT_THAT(ReadFileOr(marker), HasSubstr("pair-dgram-sendto"));
  unlink(marker.c_str());
  WriteFile(config, "sandbox_network_access = false\n");
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  std::vector<std::string> argv = Prefix(BaseEnv());
  std::vector<std::string> c = CwscArgv(probe);
  argv.insert(argv.end(), c.begin(), c.end());
  RunResult r = ::cwsc::testing::Run(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* works : {"pair-stream ok", "pair-seqpacket ok", "netlink-route ok",
                            "netlink-route-dgram-cloexec ok"}) {
    EXPECT_THAT(r.out, HasSubstr(works)) << r.out;
  }
  // bwrap's private network namespace holds IP sockets that reach nothing;
  // without one (Landlock) the seccomp stage refuses them.
  for (const char* family : {"family-inet ", "family-inet6 "}) {
    EXPECT_THAT(r.out, HasSubstr(std::string(family) + (landlock() ? "errno=97" : "ok"))) << r.out;
  }
  for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
    std::string want;
    if (absl::StartsWith(line, "pair-dgram")) want = " errno=1";  // EPERM
    if (absl::StartsWith(line, "family-") && !absl::StartsWith(line, "family-inet")) {
      want = " errno=97";  // EAFNOSUPPORT
    }
    if (absl::StartsWith(line, "netlink-") && !absl::StartsWith(line, "netlink-route")) {
      want = " errno=93";  // EPROTONOSUPPORT
    }
    if (!want.empty()) {
      EXPECT_TRUE(absl::EndsWith(line, want)) << line;
    }
  }
  // Addressed elsewhere, a stream pair refuses and a seqpacket pair sends to its twin.
  EXPECT_THAT(r.out, Not(HasSubstr("-sendto ok"))) << r.out;
  EXPECT_THAT(r.out, Not(HasSubstr("-connect ok"))) << r.out;
  EXPECT_THAT(r.out, HasSubstr("family-vsock errno=97"));
  EXPECT_THAT(r.out, HasSubstr("family-vsock-high errno=97"));
  usleep(300000);
  EXPECT_EQ(ReadFileOr(marker), "");
  EXPECT_EQ(Listing(outside), before);
  EXPECT_EQ(ReadFileOr(outside + "/target"), "ORIGINAL\n");
  WriteFile(ready + ".stop", "");
  kill(server.pid, SIGTERM);
  server.Wait();
}

// 9c. No plan lets the command leave a setuid or setgid file for someone to
// run later (a root command's would run as euid 0): not by chmod, fchmod,
// fchmodat, fchmodat2, nor through the mode of open, creat, an O_TMPFILE
// file given a name, mknod, mkdir, openat2, nor by tools (chmod u+s,
// install -m 4755, cp -p of a setuid program).
TEST_P(EscapeTest, NoSetuidOrSetgidFileCanBeLeftBehind) {
  std::string control_dir = outside + "/control";
  mkdir(control_dir.c_str(), 0755);
  ChownAll();
  // The control: outside the sandbox every attempt leaves such a file.
  RunResult control =
      Outer(ShJoin({"/usr/bin/python3", bin + "/attack.py", "setuid", control_dir}));
  EXPECT_THAT(control.out, HasSubstr("chmod-suid ok")) << control.out << control.err;
  EXPECT_THAT(control.out, HasSubstr("open-creat-suid ok")) << control.out;
  EXPECT_THAT(SetuidOrSetgid(control_dir), ::testing::Contains(control_dir + "/open-suid"));
  std::filesystem::remove_all(control_dir);
  std::vector<std::string> before = Listing(outside);
  std::string su = Exists("/usr/bin/su") ? "/usr/bin/su" : "/bin/mount";
  for (const char* net : {"", "sandbox_network_access = false\n"}) {
    WriteFile(config, net);
    std::string dir = ws + (*net != '\0' ? "/off" : "/on");
    mkdir(dir.c_str(), 0755);
    ChownAll();
    RunResult r = Sh(ShJoin({"/usr/bin/python3", bin + "/attack.py", "setuid", dir}) + "; cd " +
                     ShQuote(dir) +
                     "; echo x > tool; chmod u+s tool 2>/dev/null; chmod g+s . 2>/dev/null; "
                     "install -m 4755 tool installed 2>/dev/null; cp -p " +
                     su + " su-copy 2>/dev/null; exit 0");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
      std::string want = absl::StartsWith(line, "openat2") ? " errno=38" : " errno=1";
      EXPECT_TRUE(absl::EndsWith(line, want)) << "'" << net << "': " << line;
    }
    EXPECT_THAT(r.out, HasSubstr("fchmodat2-suid errno=1"));
    EXPECT_THAT(SetuidOrSetgid(ws), ::testing::IsEmpty()) << "'" << net << "'";
  }
  EXPECT_EQ(Listing(outside), before);
  EXPECT_EQ(ReadFileOr(outside + "/target"), "ORIGINAL\n");
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

INSTANTIATE_TEST_SUITE_P(AsRootAndAsUser, EscapeTest, ::testing::ValuesIn(AllVariants()),
                         VariantName);

}  // namespace
}  // namespace cwsc::testing
