// The fixture of the hostile-command suites (tests/escape/): each test is an
// attack run through `cwsc run` with real bubblewrap, as root and as the
// unprivileged user cwsc-escape.
#ifndef CWSC_TESTS_ESCAPE_ESCAPE_FIXTURE_H_
#define CWSC_TESTS_ESCAPE_ESCAPE_FIXTURE_H_

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

inline constexpr char kUser[] = "cwsc-escape";

enum class Who { kRoot, kUser };

// Backend is the Linux sandbox the attacks run against: bubblewrap, or
// Landlock and seccomp without namespaces (`--linux-backend landlock`;
// docs/runtime.md, "The Landlock backend"). An attack on what Landlock does
// not promise is skipped for it by CWSC_NOT_PROMISED_BY_LANDLOCK, with the
// reason (the same document lists each).
enum class Backend { kBwrap, kLandlock };

#define CWSC_NOT_PROMISED_BY_LANDLOCK(why)                                             \
  do {                                                                                 \
    if (landlock()) GTEST_SKIP() << "not promised by the Landlock backend: " << (why); \
  } while (0)

struct Variant {
  Who who;
  Backend backend;
};

// Each identity under bubblewrap ("Root", "User": the names the suites had
// before Landlock) and under Landlock ("LandlockRoot", "LandlockUser").
inline std::vector<Variant> AllVariants() {
  return {{Who::kRoot, Backend::kBwrap},
          {Who::kUser, Backend::kBwrap},
          {Who::kRoot, Backend::kLandlock},
          {Who::kUser, Backend::kLandlock}};
}
inline std::vector<Variant> BwrapVariants() {
  return {{Who::kRoot, Backend::kBwrap}, {Who::kUser, Backend::kBwrap}};
}
inline std::string VariantName(const ::testing::TestParamInfo<Variant>& info) {
  std::string who = info.param.who == Who::kRoot ? "Root" : "User";
  return info.param.backend == Backend::kLandlock ? "Landlock" + who : who;
}

inline std::string EnvOr(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

// LandlockAbiOfThisKernel: landlock_create_ruleset(NULL, 0,
// LANDLOCK_CREATE_RULESET_VERSION); 0 without Landlock.
inline long LandlockAbiOfThisKernel() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, 1u);
  return abi < 0 ? 0 : abi;
}

inline std::string CwscBin() { return EnvOr("CWSC_BIN", "cwsc"); }

// The door the attacks come through: `cwsc run`, or libcwsc's cwsc_spawn
// (CWSC_ESCAPE_DOOR=spawn: tests/lib/spawn_run.cc, `cwsc run` rebuilt on
// the library, named by CWSC_SPAWN_RUN). The same attacks, the same
// expectations.
inline bool ThroughSpawn() { return EnvOr("CWSC_ESCAPE_DOOR") == "spawn"; }
inline std::string RunBin() { return ThroughSpawn() ? EnvOr("CWSC_SPAWN_RUN") : CwscBin(); }

// A case about what only the `cwsc` program does (its --json result
// channel, how it renders a message) is skipped through cwsc_spawn.
#define CWSC_ONLY_THROUGH_CWSC_RUN(why)                                               \
  do {                                                                                \
    if (ThroughSpawn()) GTEST_SKIP() << "a case of the cwsc program only: " << (why); \
  } while (0)

inline std::string ShQuote(const std::string& s) { return backends::ShellQuote(s); }

inline std::string ShJoin(const std::vector<std::string>& argv) {
  std::vector<std::string> q;
  for (const std::string& a : argv) q.push_back(ShQuote(a));
  return absl::StrJoin(q, " ");
}

class EscapeTest : public ::testing::TestWithParam<Variant> {
 protected:
  Who who() const { return GetParam().who; }
  bool landlock() const { return GetParam().backend == Backend::kLandlock; }

  void SetUp() override {
    if (geteuid() != 0) {
      if (who() == Who::kRoot) GTEST_SKIP() << "the root variant needs root";
    }
    if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "/usr/bin/bwrap is missing";
    if (landlock() && LandlockAbiOfThisKernel() < 4) {
      GTEST_SKIP() << "the kernel's Landlock ABI is below 4 (or it has none)";
    }
    if (who() == Who::kUser && geteuid() == 0) {
      if (EnvOr("CI") != "true" && EnvOr("CWSC_ALLOW_SYSTEM_CHANGES") != "1") {
        GTEST_SKIP() << "creates the system user " << kUser
                     << ": set CI=true or CWSC_ALLOW_SYSTEM_CHANGES=1 to run it";
      }
      ASSERT_EQ(::cwsc::testing::EnsureUser(kUser, {"--system", "--user-group", "--no-create-home",
                                                    "--shell", "/usr/sbin/nologin"}),
                "");
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
        RunBin(), "run", config, "--mode", mode, "--cwd", cwd.empty() ? ws : cwd};
    if (landlock()) argv.insert(argv.end(), {"--linux-backend", "landlock"});
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

// Listing is every path under `dir` with its mode and size: what the tests
// compare to see that nothing outside changed.
inline std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    struct stat st;
    if (lstat(e.path().c_str(), &st) != 0) continue;
    out.push_back(absl::StrCat(e.path().string(), " ", st.st_mode, " ", st.st_size));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A python loop, run inside a sandbox, that swaps DIR for a symlink to
// TARGET and back as fast as it can until DEADLINE (seconds since the epoch).
inline constexpr char kSwapper[] = R"py(
import os, random, sys, time
d, target, deadline = sys.argv[1], sys.argv[2], float(sys.argv[3])
swaps = 0
while time.time() < deadline:
    try:
        os.rename(d, d + ".real")
        os.symlink(target, d)
        time.sleep(random.random() / 2000)
        os.unlink(d)
        os.rename(d + ".real", d)
        time.sleep(random.random() / 2000)
        swaps += 1
    except OSError as e:
        print("swap failed:", e, file=sys.stderr)
        break
print(swaps)
)py";

}  // namespace cwsc::testing

#endif  // CWSC_TESTS_ESCAPE_ESCAPE_FIXTURE_H_
