// The check of a bwrap sandbox's mount table before its command starts
// (runtime/mount_check.h): a writable mount the plan does not make, or a
// writable root not at its place, refuses the run. The unit cases read
// mount tables written here; the end-to-end case has bwrap mount a
// writable root through a symlink, so that it lands away from the plan's
// destination, as the race of docs/runtime.md ("Threat model") makes it.
#include "runtime/mount_check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "absl/strings/str_join.h"
#include "compiler/compile.h"
#include "runtime/execute.h"
#include "runtime/host/probe_cache.h"
#include "runtime/protected_dirs.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::runtime {
namespace {

using ::cwsc::testing::RunResult;

ir::LaunchPlan Plan() {
  ir::LaunchPlan p;
  ir::Bwrap& bwrap = p.launch.emplace<ir::Bwrap>();
  auto add = [&bwrap](ir::MountOp op, const std::string& dest) {
    ir::Mount m;
    m.op = op;
    m.dest = dest;
    if (ir::MountOpHasSource(op)) m.source = dest;
    bwrap.mounts.push_back(m);
  };
  add(ir::MountOp::kReadOnlyBind, "/");
  add(ir::MountOp::kDev, "/dev");
  add(ir::MountOp::kProc, "/proc");
  add(ir::MountOp::kWritableBind, "/tmp");
  add(ir::MountOp::kWritableBind, "/ws/a b/c");
  add(ir::MountOp::kTmpfs, "/etc/ssh");
  return p;
}

std::string Line(int id, const std::string& point, const std::string& options) {
  return absl::StrCat(id, " 1 254:0 / ", point, " ", options, " - ext4 /dev/vda rw\n");
}

std::string Sound() {
  return Line(1, "/", "ro,nosuid") + Line(2, "/dev", "rw,nosuid") +
         Line(3, "/dev/pts", "rw,noexec") + Line(4, "/proc", "rw,nosuid") +
         Line(5, "/proc/sys", "ro,nosuid") + Line(6, "/tmp", "rw,nosuid") +
         Line(7, "/ws/a\\040b/c", "rw,nosuid") + Line(8, "/ws/a\\040b/c/.codewhale", "ro") +
         Line(9, "/ws/a\\040b/c/vol", "rw") + Line(10, "/etc/ssh", "rw,nosuid") +
         Line(11, "/etc/shadow", "ro");
}

TEST(MountCheck, TheMountsThePlanMakesPass) {
  EXPECT_TRUE(CheckSandboxMounts(Plan(), Sound()).ok()) << CheckSandboxMounts(Plan(), Sound());
}

TEST(MountCheck, AWritableMountAwayFromThePlanRefuses) {
  // The race's outcome: the root mounted where a swapped symlink led.
  std::string raced = Line(1, "/", "ro") + Line(2, "/dev", "rw") + Line(4, "/proc", "rw") +
                      Line(6, "/tmp", "rw") + Line(7, "/outside/b/c", "rw,nosuid");
  EXPECT_EQ(CheckSandboxMounts(Plan(), raced).message(),
            "the sandbox holds a writable mount at /outside/b/c that the plan does not make (a "
            "directory on the way to a bind source was swapped while bubblewrap mounted it); "
            "nothing ran");
  // Below a mask is not below a writable root: a denied directory's content.
  EXPECT_FALSE(CheckSandboxMounts(Plan(), Sound() + Line(12, "/etc/ssh/keys", "rw")).ok());
  // Read-only there, nothing to refuse.
  EXPECT_TRUE(CheckSandboxMounts(Plan(), Sound() + Line(12, "/etc/ssh/keys", "ro")).ok());
}

TEST(MountCheck, AWritableRootNotAtItsPlaceRefuses) {
  std::string missing =
      Line(1, "/", "ro") + Line(2, "/dev", "rw") + Line(4, "/proc", "rw") + Line(6, "/tmp", "rw");
  EXPECT_EQ(CheckSandboxMounts(Plan(), missing).message(),
            "the writable root /ws/a b/c is not mounted where the plan puts it (a directory on "
            "the way to it was swapped while bubblewrap mounted it); nothing ran");
  EXPECT_EQ(CheckSandboxMounts(Plan(), "1 2 3\n").message(),
            "the sandbox's mount table has a line cwsc cannot read: 1 2 3");
}

TEST(MountCheck, OctalEscapes) {
  EXPECT_EQ(UnescapeMountPath("/a\\040b\\011c\\012d\\134e"), "/a b\tc\nd\\e");
  EXPECT_EQ(UnescapeMountPath("/x\\04"), "/x\\04");  // too short: as written
  EXPECT_EQ(UnescapeMountPath("/x\\999"), "/x\\999");
}

// End to end: a plan (edited, as `cwsc exec` reads plans from anywhere)
// whose writable root's destination is reached through a symlink, so that
// bwrap would mount it somewhere the plan does not say. Two layers stop it
// before the mount gate has to: a root-bind whose destination is not its
// source breaks the role's rule and is refused when the plan is read (exit
// 2); edited to a self-bind through the symlink, the replay finds the path
// resolving elsewhere (exit 125). The command never starts. The gate itself
// is left for the race no edit can express (a directory swapped while bwrap
// mounts), checked by the MountCheck cases above.
TEST(MountGateRun, AMountAwayFromThePlanIsRefusedBeforeTheCommand) {
  if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "no bwrap";
  cwsc::testing::TempDir t("/var/tmp");
  std::string ws = t / "ws";
  ASSERT_EQ(mkdir(ws.c_str(), 0755), 0);
  ASSERT_EQ(symlink(".", (t / "link").c_str()), 0);
  cwsc::testing::WriteFile(t / "c.toml", "");
  const char* bin = std::getenv("CWSC_BIN");
  std::string cwsc = bin != nullptr ? bin : "cwsc";
  RunResult plan = cwsc::testing::Run(
      {cwsc, "compile", t / "c.toml", "--mode", "ask", "--cwd", ws, "--target", "plan"}, "", {},
      ws);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const nlohmann::json compiled = nlohmann::json::parse(plan.out);
  int index = 0;  // the root-bind's position, counted from 1 as messages do
  for (size_t i = 0; i < compiled["launch"]["mounts"].size(); ++i) {
    const nlohmann::json& m = compiled["launch"]["mounts"][i];
    if (m["role"] == "root-bind" && m["dest"] == ws) {
      ASSERT_EQ(index, 0);
      index = static_cast<int>(i) + 1;
    }
  }
  ASSERT_NE(index, 0);
  const std::vector<std::string> run = {cwsc,      "exec", t / "plan.json",           "--",
                                        "/bin/sh", "-c",   "echo RAN > ran; echo RAN"};

  nlohmann::json away = compiled;
  away["launch"]["mounts"][index - 1]["dest"] = t / "link/ws";
  cwsc::testing::WriteFile(t / "plan.json", away.dump());
  RunResult r = cwsc::testing::Run(run, "", {}, ws);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, t / "plan.json" + ": error: bad plan at '/launch/mounts/" +
                       std::to_string(index - 1) +
                       "/role': a root-bind mount cannot be a writable-bind of '" + ws + "' at '" +
                       (t / "link/ws") + "'\n");

  nlohmann::json through = compiled;
  through["launch"]["mounts"][index - 1]["source"] = t / "link/ws";
  through["launch"]["mounts"][index - 1]["dest"] = t / "link/ws";
  cwsc::testing::WriteFile(t / "plan.json", through.dump());
  r = cwsc::testing::Run(run, "", {}, ws);
  EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "cwsc: refused: mount " + std::to_string(index) + " (--bind " + (t / "link/ws") +
                       ": writable root (configured)): " + (t / "link/ws") + " now resolves to " +
                       ws + "; compile the plan again\n");
  EXPECT_FALSE(cwsc::testing::Exists(ws + "/ran"));
}

// CompileEmptyPolicy compiles an empty config for workspace `ws` (made
// here) against `facts`.
absl::StatusOr<compiler::CompileResult> CompileEmptyPolicy(const cwsc::testing::TempDir& t,
                                                           const std::string& ws,
                                                           compiler::HostFacts* facts) {
  if (mkdir(ws.c_str(), 0755) != 0) return absl::InternalError("cannot make " + ws);
  cwsc::testing::WriteFile(t / "c.toml", "");
  compiler::CompileOptions o;
  o.config_path = t / "c.toml";
  o.cwd = ws;
  o.read_project_config = false;
  return compiler::CompileConfig(o, facts);
}

TEST(MountGateRun, TheNextLaunchWaitsForWhatTheLastOnesTook) {
  if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "no bwrap";
  cwsc::testing::TempDir t("/var/tmp");
  std::string ws = t / "ws";
  std::unique_ptr<compiler::HostFacts> facts = MakeRuntimeFacts();
  absl::StatusOr<compiler::CompileResult> r = CompileEmptyPolicy(t, ws, facts.get());
  ASSERT_TRUE(r.ok()) << r.status();
  if (r->plan.kind() != ir::PlanKind::kLinuxBwrap) GTEST_SKIP() << "bwrap does not work here";
  ExecRequest req;
  req.program = {"/bin/sh", "-c", "echo ran >> ran"};
  ExecOutcome once = ExecutePlan(r->plan, req, facts.get());
  ASSERT_EQ(once.cwsc_exit_code, 0) << once.refusal << once.error;
  const double shortest = RecentGateShortest();
  ASSERT_GT(shortest, 0) << "the first launch's time to the gate was kept";
  ExecOutcome twice = ExecutePlan(r->plan, req, facts.get());
  ASSERT_EQ(twice.cwsc_exit_code, 0) << twice.refusal << twice.error;
  GateMetrics m = LastGateMetrics();
  EXPECT_EQ(m.shortest_seconds, shortest);
  EXPECT_EQ(m.first_wait_us, static_cast<long>(shortest * 0.8 * 1e6));
  EXPECT_GT(m.first_wait_us, 0);
  // The pause chosen is the pause taken: the first look comes after it.
  EXPECT_GE(m.first_look_after_us, m.first_wait_us);
  EXPECT_GE(m.looks, 1);
  EXPECT_EQ(cwsc::testing::ReadFileOr(ws + "/ran"), "ran\nran\n");
}

// ScopedEnv sets a variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// HintCache points the probe cache, and the gate hint beside it, at a
// fresh 0700 directory for one test.
struct HintCache {
  cwsc::testing::TempDir t{"/var/tmp"};
  bool private_dir = chmod(t.path().c_str(), 0700) == 0;
  ScopedEnv xdg{"XDG_RUNTIME_DIR", t.path()};
  ScopedEnv cache{"CWSC_PROBE_CACHE", "1"};
  std::string file = t / "cwsc/gate-time";
};

// The gate hint (runtime/host/probe_cache.h) is what it says or nothing: a
// number of microseconds in range, in a regular file of the user's 0700
// cache directory. Anything else reads as no hint, at once.
TEST(GateHint, ReadsBackWhatWasWrittenAndNothingElse) {
  HintCache h;
  ASSERT_TRUE(h.private_dir);
  const cwsc::testing::TempDir& t = h.t;
  const std::string& file = h.file;
  EXPECT_EQ(ReadGateHint(), 0);
  WriteGateHint(0.0042);
  EXPECT_EQ(cwsc::testing::ReadFileOr(file), "cwsc-gate-time 1\n4200\n");
  EXPECT_EQ(ReadGateHint(), 0.0042);
  WriteGateHint(60);  // out of range: not written
  EXPECT_EQ(ReadGateHint(), 0.0042);
  for (const char* text :
       {"cwsc-gate-time 1\n0\n", "cwsc-gate-time 1\n50001\n", "cwsc-gate-time 1\n-5\n",
        "cwsc-gate-time 1\n12ab\n", "cwsc-gate-time 2\n4200\n", "4200\n", ""}) {
    cwsc::testing::WriteFile(file, text);
    EXPECT_EQ(ReadGateHint(), 0) << text;
  }
  // A FIFO (a command may plant one where the sandbox can write) is not
  // opened for reading, which would wait for a writer; nor is a symlink
  // followed to a hint elsewhere.
  ASSERT_EQ(unlink(file.c_str()), 0);
  ASSERT_EQ(mkfifo(file.c_str(), 0600), 0);
  EXPECT_EQ(ReadGateHint(), 0);
  ASSERT_EQ(unlink(file.c_str()), 0);
  cwsc::testing::WriteFile(t / "elsewhere", "cwsc-gate-time 1\n4200\n");
  ASSERT_EQ(symlink((t / "elsewhere").c_str(), file.c_str()), 0);
  EXPECT_EQ(ReadGateHint(), 0);
  ASSERT_EQ(unlink(file.c_str()), 0);
  // CWSC_PROBE_CACHE=0 turns the hint off with the verdict.
  ScopedEnv off("CWSC_PROBE_CACHE", "0");
  WriteGateHint(0.0042);
  EXPECT_FALSE(cwsc::testing::Exists(file));
  EXPECT_EQ(ReadGateHint(), 0);
}

// A launch whose time is within an eighth of the hint it started from
// leaves the file alone: replacing it (a new file renamed over the old)
// costs the file system a flush of the new file's data on every run.
TEST(GateHint, ATimeCloseToTheKeptHintIsNotWrittenAgain) {
  HintCache h;
  ASSERT_TRUE(h.private_dir);
  const std::string& file = h.file;
  WriteGateHint(0.0040);
  struct stat before {};
  ASSERT_EQ(stat(file.c_str(), &before), 0);
  for (double close : {0.0040, 0.0036, 0.0044}) {
    WriteGateHint(close, /*kept_seconds=*/0.0040);
    struct stat now {};
    ASSERT_EQ(stat(file.c_str(), &now), 0);
    EXPECT_EQ(now.st_ino, before.st_ino) << close;
    EXPECT_EQ(ReadGateHint(), 0.0040) << close;
  }
  WriteGateHint(0.0034, /*kept_seconds=*/0.0040);  // more than an eighth faster
  EXPECT_EQ(ReadGateHint(), 0.0034);
  WriteGateHint(0.0039, /*kept_seconds=*/0.0034);  // more than an eighth slower
  EXPECT_EQ(ReadGateHint(), 0.0039);
  WriteGateHint(0.0039, /*kept_seconds=*/0);  // no hint was read: written
  EXPECT_EQ(cwsc::testing::ReadFileOr(file), "cwsc-gate-time 1\n3900\n");
}

// A process's first launch (every `cwsc run`) starts from the time the
// user's last sandbox took to reach the gate, and leaves its own for the
// next process.
TEST(MountGateRun, AProcesssFirstLaunchWaitsForTheLastProcesssTime) {
  if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "no bwrap";
  HintCache h;
  ASSERT_TRUE(h.private_dir);
  const cwsc::testing::TempDir& t = h.t;
  std::string ws = t / "ws";
  std::unique_ptr<compiler::HostFacts> facts = MakeRuntimeFacts();
  absl::StatusOr<compiler::CompileResult> r = CompileEmptyPolicy(t, ws, facts.get());
  ASSERT_TRUE(r.ok()) << r.status();
  if (r->plan.kind() != ir::PlanKind::kLinuxBwrap) GTEST_SKIP() << "bwrap does not work here";
  WriteGateHint(0.003);
  ForgetRecentGateTimes();
  ExecRequest req;
  req.program = {"/bin/sh", "-c", "echo ran >> ran"};
  ExecOutcome once = ExecutePlan(r->plan, req, facts.get());
  ASSERT_EQ(once.cwsc_exit_code, 0) << once.refusal << once.error;
  GateMetrics m = LastGateMetrics();
  EXPECT_TRUE(m.from_hint);
  EXPECT_EQ(m.shortest_seconds, 0.003);
  EXPECT_EQ(m.first_wait_us, 2400);
  EXPECT_GE(m.first_look_after_us, 2400);
  // This launch's own time is the next process's hint, raised by a quarter
  // at most, and written when it is more than an eighth from the old one.
  const double took = RecentGateShortest();
  ASSERT_GT(took, 0);
  const long next_us = static_cast<long>(std::min(took, 0.003 * 1.25) * 1e6);
  const long kept_us = std::labs(next_us - 3000) <= 3000 / 8 ? 3000 : next_us;
  EXPECT_EQ(ReadGateHint(), static_cast<double>(kept_us) / 1e6) << next_us;
  // A later launch of the same process learns from its own, not the file.
  WriteGateHint(0.0042);
  ExecOutcome twice = ExecutePlan(r->plan, req, facts.get());
  ASSERT_EQ(twice.cwsc_exit_code, 0) << twice.refusal << twice.error;
  m = LastGateMetrics();
  EXPECT_FALSE(m.from_hint);
  EXPECT_EQ(m.shortest_seconds, took);
  EXPECT_EQ(ReadGateHint(), 0.0042);  // and leaves the file alone
  EXPECT_EQ(cwsc::testing::ReadFileOr(ws + "/ran"), "ran\nran\n");
}

}  // namespace
}  // namespace cwsc::runtime

namespace cwsc::runtime {
namespace {

// The protected directories are held before the exec-time checks, so they
// must not follow a root that became a symlink since the compile (a
// concurrent command swapped it): nothing is made or held through it; the
// checks that follow refuse the run.
TEST(ProtectedDirsHold, ARootSwappedForASymlinkIsNotFollowed) {
  cwsc::testing::TempDir t("/var/tmp");
  std::string outside = t / "outside";
  ASSERT_EQ(mkdir(outside.c_str(), 0755), 0);
  ASSERT_EQ(symlink(outside.c_str(), (t / "ws").c_str()), 0);
  ir::LaunchPlan plan;
  plan.launch = ir::Bwrap{};
  ir::Root r;
  r.path = t / "ws";
  r.canonical = t / "ws";  // what the compile saw: a directory
  r.writable_bind = true;
  ir::Protected p;
  p.path = t / "ws/.deepseek";
  p.applied = true;
  p.placeholder = true;
  r.protected_paths.push_back(p);
  plan.roots.push_back(r);
  ProtectedDirs dirs(plan);
  EXPECT_TRUE(dirs.Held().empty());
  EXPECT_FALSE(cwsc::testing::Exists(outside + "/.deepseek"));
}

}  // namespace
}  // namespace cwsc::runtime
