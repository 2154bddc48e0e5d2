// Launcher plans for real (docs/launcher.md): a root-owned managed config
// named by CODEWHALE_MANAGED_CONFIG_PATH pins `sudo -n -u cwsc-agent --`;
// `cwsc run`, started as the non-root engine user cwsc-engine, really runs
// the command as cwsc-agent inside bubblewrap, or nothing runs at all.
//
// Needs root, sudo and a working bubblewrap. It creates the two system users
// and a sudoers rule (tools/setup_test_user.sh), so it runs only when
// CI=true or CWSC_ALLOW_SYSTEM_CHANGES=1 and skips with a message otherwise.
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::testing {
namespace {

constexpr char kAgent[] = "cwsc-agent";
constexpr char kEngine[] = "cwsc-engine";
constexpr char kSetpriv[] = "/usr/bin/setpriv";

std::string EnvOr(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

uid_t UidOf(const char* name) {
  passwd* pw = getpwnam(name);
  return pw != nullptr ? pw->pw_uid : static_cast<uid_t>(-1);
}
gid_t GidOf(const char* name) {
  passwd* pw = getpwnam(name);
  return pw != nullptr ? pw->pw_gid : static_cast<gid_t>(-1);
}

// Why the suite cannot run here ("" when it can); prepares the users once.
const std::string& SkipReason() {
  static const std::string reason = [] {
    if (EnvOr("CI") != "true" && EnvOr("CWSC_ALLOW_SYSTEM_CHANGES") != "1") {
      return std::string(
          "creates system users and a sudoers rule: set CI=true or CWSC_ALLOW_SYSTEM_CHANGES=1 "
          "to run it (tools/setup_test_user.sh)");
    }
    if (geteuid() != 0) return std::string("needs root to create the test users");
    if (access("/usr/bin/bwrap", X_OK) != 0) return std::string("/usr/bin/bwrap is missing");
    if (access(kSetpriv, X_OK) != 0) return std::string("/usr/bin/setpriv is missing");
    std::string script = EnvOr("CWSC_SOURCE_ROOT", ".") + "/tools/setup_test_user.sh";
    RunResult r = Run({"/bin/sh", script, kAgent, kEngine});
    if (r.exit_code != 0) return "tools/setup_test_user.sh failed: " + r.err;
    std::string bin = EnvOr("CWSC_BIN");
    if (bin.empty()) return std::string("CWSC_BIN is not set (run through meson test)");
    RunResult x = Run({"/usr/sbin/runuser", "-u", kEngine, "--", "/usr/bin/test", "-x", bin});
    if (x.exit_code != 0) {
      return "the engine user " + std::string(kEngine) + " cannot execute " + bin +
             " (is the build under a 0700 directory such as /root?)";
    }
    return std::string();
  }();
  return reason;
}

class LauncherLive : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!SkipReason().empty()) {
      // Allowed to change the system but the setup failed: that is an error.
      if (absl::StartsWith(SkipReason(), "tools/setup_test_user.sh failed")) FAIL() << SkipReason();
      GTEST_SKIP() << SkipReason();
    }
    dir_ = std::make_unique<TempDir>("/tmp");
    d_ = dir_->path();
    ASSERT_EQ(chmod(d_.c_str(), 0755), 0);
    WriteFile(d_ + "/secret.txt", "topsecret\n");
    WriteFile(d_ + "/user.toml", "");
    Managed(Launcher(kAgent) + "sandbox_mode = \"workspace-write\"\n");
    ws_ = d_ + "/ws";
    ASSERT_EQ(mkdir(ws_.c_str(), 0777), 0);
    ASSERT_EQ(chmod(ws_.c_str(), 0777), 0);
    ASSERT_EQ(chown(ws_.c_str(), UidOf(kEngine), GidOf(kEngine)), 0);
    WriteFile(ws_ + "/engine.txt", "engine data\n");
    ASSERT_EQ(chown((ws_ + "/engine.txt").c_str(), UidOf(kEngine), GidOf(kEngine)), 0);
    managed_env_ = d_ + "/managed.toml";
  }

  std::string Launcher(const std::string& user) const {
    return absl::StrCat("tool_launcher = [\"/usr/bin/sudo\", \"-n\", \"-u\", \"", user,
                        "\", \"--\"]\nsandbox_network_access = false\n",
                        "sandbox_denied_read_paths = [\"", d_, "/secret.txt\"]\n");
  }

  void Managed(const std::string& text, const std::string& name = "managed.toml") {
    WriteFile(d_ + "/" + name, text);
    chmod((d_ + "/" + name).c_str(), 0644);
  }

  // Cwsc runs cwsc as the engine user in the workspace, with a clean environment.
  RunResult Cwsc(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kSetpriv,
                                     std::string("--reuid=") + kEngine,
                                     std::string("--regid=") + kEngine,
                                     "--init-groups",
                                     "--",
                                     EnvOr("CWSC_BIN")};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=" + home_, "LANG=C"};
    if (!managed_env_.empty()) env.push_back("CODEWHALE_MANAGED_CONFIG_PATH=" + managed_env_);
    return RunWithEnv(argv, env, "", ws_);
  }

  RunResult RunSh(const std::string& script, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"run", d_ + "/user.toml"};
    args.insert(args.end(), extra.begin(), extra.end());
    for (const char* a : {"--", "/bin/sh", "-c"}) args.push_back(a);
    args.push_back(script);
    return Cwsc(args);
  }

  // ExpectNothingRuns: the command would create a file; it must not exist.
  void ExpectNothingRuns(int exit_code, const std::string& reason,
                         const std::vector<std::string>& extra = {}) {
    std::string proof = ws_ + "/ran";
    RunResult r = RunSh("touch " + proof, extra);
    EXPECT_EQ(r.exit_code, exit_code) << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
    EXPECT_FALSE(Exists(proof)) << "the command ran although it was refused";
  }

  std::unique_ptr<TempDir> dir_;
  std::string d_, ws_, managed_env_;
  std::string home_ = "/var/lib/cwsc-engine";
};

TEST_F(LauncherLive, RunsAsTheOtherUserInsideBubblewrap) {
  RunResult r =
      RunSh("id -u; grep NoNewPrivs /proc/self/status", {"--json", "-o", ws_ + "/result.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat(UidOf(kAgent), "\nNoNewPrivs:\t1\n"));
  auto result = nlohmann::json::parse(ReadFileOr(ws_ + "/result.json", "{}"))
                    .value("result", nlohmann::json::object());
  EXPECT_EQ(result.value("sandbox_kind", ""), "launcher+bwrap");
  // The plan says which launcher and for whom.
  RunResult plan = Cwsc({"explain", d_ + "/user.toml", "--", "id"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("/usr/bin/sudo"), std::string::npos);
  EXPECT_NE(plan.out.find(absl::StrCat("# warning [launcher-user]: commands run as the launcher's "
                                       "user (uid ",
                                       UidOf(kAgent))),
            std::string::npos)
      << plan.out;
}

TEST_F(LauncherLive, CannotWriteTheEngineUsersFiles) {
  RunResult r = RunSh("echo agent > new.txt; echo tampered >> engine.txt");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFileOr(ws_ + "/engine.txt"), "engine data\n");
  struct stat st;
  ASSERT_EQ(stat((ws_ + "/new.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, UidOf(kAgent));  // written by the tool user, in the workspace
}

TEST_F(LauncherLive, GetsAPrivateTmp) {
  std::string host_tmp = d_ + "-host-marker";  // directly in the host /tmp
  WriteFile(host_tmp, "host\n");
  std::string inside = host_tmp + "-inside";
  RunResult r =
      RunSh("test -e " + host_tmp + " && echo visible; echo x > " + inside + " && echo wrote");
  unlink(host_tmp.c_str());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote\n");   // the host /tmp is not visible
  EXPECT_FALSE(Exists(inside));  // and nothing written there reaches it
}

TEST_F(LauncherLive, CannotReadADenyListedPath) {
  // Control: the tool user can read the file outside the sandbox...
  RunResult plain = ::cwsc::testing::Run(
      {"/usr/bin/sudo", "-n", "-u", kAgent, "--", "/bin/cat", d_ + "/secret.txt"});
  ASSERT_EQ(plain.out, "topsecret\n") << plain.err;
  // ...and not inside it: the mask hides it.
  RunResult r = RunSh("cat " + d_ + "/secret.txt");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.out.find("topsecret"), std::string::npos);
}

TEST_F(LauncherLive, DeniedPathInAHomeTheToolUserCannotSearchIsMaskedAtTheHome) {
  // The engine's home is 0700: bwrap, running as the tool user, cannot even
  // reach ~/.ssh to mask it there. (Not under /tmp, which the sandbox replaces.)
  TempDir outside("/var/tmp");
  home_ = outside.path() + "/home";
  ASSERT_EQ(mkdir(home_.c_str(), 0700), 0);
  ASSERT_EQ(mkdir((home_ + "/.ssh").c_str(), 0700), 0);
  WriteFile(home_ + "/.ssh/id_ed25519", "private key\n");
  for (const std::string& p : {home_, home_ + "/.ssh", home_ + "/.ssh/id_ed25519"}) {
    ASSERT_EQ(chown(p.c_str(), UidOf(kEngine), GidOf(kEngine)), 0);
  }
  RunResult control = ::cwsc::testing::Run({"/usr/bin/sudo",
                                            "-n",
                                            "-u",
                                            kAgent,
                                            "--",
                                            "/usr/bin/bwrap",
                                            "--unshare-all",
                                            "--die-with-parent",
                                            "--ro-bind",
                                            "/",
                                            "/",
                                            "--dev",
                                            "/dev",
                                            "--proc",
                                            "/proc",
                                            "--tmpfs",
                                            "/tmp",
                                            "--tmpfs",
                                            home_ + "/.ssh",
                                            "--",
                                            "/bin/true"});
  EXPECT_NE(control.exit_code, 0);
  EXPECT_NE(control.err.find("Permission denied"), std::string::npos) << control.err;
  RunResult argv = Cwsc({"compile", d_ + "/user.toml", "--format", "shell"});
  ASSERT_EQ(argv.exit_code, 0) << argv.err;
  EXPECT_NE(argv.out.find(" --tmpfs " + home_ + " "), std::string::npos) << argv.out;
  EXPECT_EQ(argv.out.find(home_ + "/.ssh"), std::string::npos) << argv.out;
  RunResult r = RunSh("ls -A " + home_ + "; id -u");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat(UidOf(kAgent), "\n"));  // the home is an empty tmpfs
}

TEST_F(LauncherLive, TimeoutEndsTheWholeSandbox) {
  RunResult r = Cwsc({"run", d_ + "/user.toml", "--timeout", "1", "--", "/bin/sleep", "41.5"});
  EXPECT_EQ(r.exit_code, 124) << r.err;
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = ProcessesWithArg("41.5").empty();
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(gone) << "a sandboxed process outlived the timeout";
}

TEST_F(LauncherLive, TerminatingCwscEndsTheWholeSandbox) {
  std::string bin = EnvOr("CWSC_BIN");
  std::string managed = managed_env_, user = d_ + "/user.toml", ws = ws_;
  Forked f = Fork(
      [&]() -> int {
        if (chdir(ws.c_str()) != 0) return 99;
        std::string m = "CODEWHALE_MANAGED_CONFIG_PATH=" + managed;
        char* env[] = {const_cast<char*>("PATH=/usr/bin:/bin"),
                       const_cast<char*>("HOME=/var/lib/cwsc-engine"), m.data(), nullptr};
        std::string reuid = std::string("--reuid=") + kEngine,
                    regid = std::string("--regid=") + kEngine;
        const char* argv[] = {kSetpriv, reuid.c_str(), regid.c_str(), "--init-groups",
                              "--",     bin.c_str(),   "run",         user.c_str(),
                              "--",     "/bin/sleep",  "42.5",        nullptr};
        execve(kSetpriv, const_cast<char**>(argv), env);
        return 98;
      },
      "/dev/null", d_ + "/term.out", d_ + "/term.err");
  // cwsc, sudo, bwrap (twice) and sleep all carry the argument: wait for the sandbox.
  bool started = false;
  for (int i = 0; i < 100 && !started; ++i) {
    started = ProcessesWithArg("42.5").size() >= 4;
    if (!started) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(started) << ReadFileOr(d_ + "/term.err");
  ASSERT_EQ(kill(f.pid, SIGTERM), 0);
  f.Wait();
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = ProcessesWithArg("42.5").empty();
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(gone) << "a sandboxed process outlived cwsc";
}

TEST_F(LauncherLive, ExecOfACompiledPlanProbesTheLauncherAgain) {
  RunResult plan = Cwsc({"compile", d_ + "/user.toml", "--target", "plan"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  WriteFile(d_ + "/plan.json", plan.out);
  RunResult r = Cwsc({"exec", d_ + "/plan.json", "--", "/usr/bin/id", "-u"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat(UidOf(kAgent), "\n"));
  // A plan whose launcher no longer works here runs nothing.
  std::string edited = plan.out;
  size_t at = edited.find("\"cwsc-agent\"");
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, 12, "\"root\"");
  WriteFile(d_ + "/plan-root.json", edited);
  Managed(Launcher("root") + "sandbox_mode = \"workspace-write\"\n");  // the host pins it too
  std::string proof = ws_ + "/ran";
  RunResult bad = Cwsc({"exec", d_ + "/plan-root.json", "--", "/usr/bin/touch", proof});
  EXPECT_EQ(bad.exit_code, 125);
  EXPECT_EQ(bad.err,
            "cwsc: refused: the launcher probe failed: `/usr/bin/sudo -n -u root -- /usr/bin/id "
            "-u` did not report the launcher's user: sudo: a password is required\n");
  EXPECT_FALSE(Exists(proof));
}

TEST_F(LauncherLive, APlanWithoutTheLauncherDoesNotRunOnALauncherHost) {
  std::string pinned = managed_env_;
  managed_env_ = d_ + "/no-such-managed.toml";  // compiled where no launcher is pinned
  RunResult plan = Cwsc({"compile", d_ + "/user.toml", "--target", "plan"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  ASSERT_NE(plan.out.find("\"kind\": \"linux-bwrap\""), std::string::npos) << plan.out;
  WriteFile(d_ + "/plain.json", plan.out);
  managed_env_ = pinned;
  std::string proof = ws_ + "/ran";
  RunResult r = Cwsc({"exec", d_ + "/plain.json", "--", "/usr/bin/touch", proof});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_EQ(r.err, absl::StrCat("cwsc: refused: this host's managed config ", pinned,
                                " pins tool_launcher [/usr/bin/sudo -n -u cwsc-agent --], and the "
                                "plan (kind linux-bwrap) does not run through it; compile the "
                                "plan on this host\n"));
  EXPECT_FALSE(Exists(proof));
}

TEST_F(LauncherLive, DoctorReportsTheLauncher) {
  RunResult r = Cwsc({"doctor", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out)["result"];
  EXPECT_EQ(j["sandbox"]["kind"], "linux-bwrap");
  EXPECT_EQ(j["sandbox"]["tool_launcher"],
            nlohmann::json::array({"/usr/bin/sudo", "-n", "-u", kAgent, "--"}));
  EXPECT_EQ(j["launcher"]["runs"], true);
  Managed(Launcher("root") + "sandbox_mode = \"workspace-write\"\n");
  RunResult bad = Cwsc({"doctor", "--json"});
  EXPECT_EQ(bad.exit_code, 1);
  auto k = nlohmann::json::parse(bad.out)["result"];
  EXPECT_TRUE(k["sandbox"]["kind"].is_null());
  EXPECT_EQ(k["sandbox"]["available"], false);
  EXPECT_EQ(k["sandbox"]["reason"],
            "the launcher probe failed: `/usr/bin/sudo -n -u root -- /usr/bin/id -u` did not "
            "report the launcher's user: sudo: a password is required");
}

// ---- every refusal runs nothing ------------------------------------------------

TEST_F(LauncherLive, RefusedWhenTheManagedDirIsGroupWritableForTheEngine) {
  ASSERT_EQ(chown(d_.c_str(), 0, GidOf(kEngine)), 0);
  ASSERT_EQ(chmod(d_.c_str(), 0775), 0);
  ExpectNothingRuns(125, absl::StrCat(d_, " is group-writable (mode 0775, group ", GidOf(kEngine),
                                      ") and the engine's user cwsc-engine is in that group"));
}

TEST_F(LauncherLive, RefusedWhenAnAncestorIsWritableByEveryone) {
  ASSERT_EQ(chmod(d_.c_str(), 0777), 0);
  ExpectNothingRuns(125, absl::StrCat(d_, " is writable by every user (mode 0777)"));
}

TEST_F(LauncherLive, RefusedWhenTheEngineOwnsTheManagedFile) {
  ASSERT_EQ(chown(managed_env_.c_str(), UidOf(kEngine), GidOf(kEngine)), 0);
  ExpectNothingRuns(125, absl::StrCat(managed_env_, " is owned by the engine's user cwsc-engine"));
}

TEST_F(LauncherLive, RefusedForASymlinkedManagedPath) {
  ASSERT_EQ(symlink(managed_env_.c_str(), (d_ + "/link.toml").c_str()), 0);
  managed_env_ = d_ + "/link.toml";
  ExpectNothingRuns(125, absl::StrCat("tool_launcher in ", d_,
                                      "/link.toml is refused: the managed path is a symlink"));
}

TEST_F(LauncherLive, RefusedWhenAUserConfigPointsAtTheManagedFile) {
  WriteFile(d_ + "/user.toml", "managed_config_path = \"" + managed_env_ + "\"\n");
  managed_env_.clear();
  ExpectNothingRuns(125, "is refused: the managed file was named by managed_config_path");
}

TEST_F(LauncherLive, KeyInAUserConfigIsALoadError) {
  WriteFile(d_ + "/user.toml", "tool_launcher = [\"/usr/bin/sudo\", \"-n\"]\n");
  ExpectNothingRuns(2, "'tool_launcher' is only honored from a trusted managed config");
}

TEST_F(LauncherLive, KeyInAProjectConfigStopsTheLaunchUnlessNotRead) {
  ASSERT_EQ(mkdir((ws_ + "/.codewhale").c_str(), 0755), 0);
  WriteFile(ws_ + "/.codewhale/config.toml", "tool_launcher = [\"/bin/sh\"]\n");
  ExpectNothingRuns(2, "'tool_launcher' in a project config stops an interactive launch");
  RunResult r = RunSh("id -u", {"--no-project-config"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat(UidOf(kAgent), "\n"));
}

TEST_F(LauncherLive, RefusedWithoutAManagedSandboxMode) {
  Managed(Launcher(kAgent));
  ExpectNothingRuns(125, "the managed file must set sandbox_mode itself");
}

TEST_F(LauncherLive, RefusedWithManagedDangerFullAccess) {
  Managed(Launcher(kAgent) + "sandbox_mode = \"danger-full-access\"\n");
  ExpectNothingRuns(125, "its sandbox_mode 'danger-full-access'");
}

TEST_F(LauncherLive, RefusedWhenTheLauncherNeedsAPassword) {
  Managed(Launcher("root") + "sandbox_mode = \"workspace-write\"\n");
  ExpectNothingRuns(125, "did not report the launcher's user: sudo: a password is required");
}

TEST_F(LauncherLive, RefusedForAnApprovedEscalationToFullAccess) {
  ExpectNothingRuns(125, "and the policy is danger-full-access (cli --escalate danger-full-access)",
                    {"--escalate", "danger-full-access"});
}

TEST_F(LauncherLive, RefusedWhenBubblewrapIsNotPreferred) {
  Managed(Launcher(kAgent) + "sandbox_mode = \"workspace-write\"\nprefer_bwrap = false\n");
  ExpectNothingRuns(125, "and prefer_bwrap = false");
}

}  // namespace
}  // namespace cwsc::testing
