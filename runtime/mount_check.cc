#include "runtime/mount_check.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ir/display.h"
#include "runtime/host/probe_cache.h"

namespace cwsc::runtime {
namespace {

bool Below(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path.size() > dir.size() && absl::StartsWith(path, dir) && path[dir.size()] == '/';
}

}  // namespace

std::string UnescapeMountPath(absl::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      auto octal = [](char c) { return c >= '0' && c <= '7'; };
      if (octal(field[i + 1]) && octal(field[i + 2]) && octal(field[i + 3])) {
        out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                                 (field[i + 3] - '0'));
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

absl::Status CheckSandboxMounts(const ir::LaunchPlan& plan, absl::string_view mountinfo) {
  std::set<std::string> dests, writable_binds, below;  // below: writable subtrees
  for (const ir::Mount& m : plan.mounts()) {
    dests.insert(m.dest.str());
    if (m.op == ir::MountOp::kWritableBind) {
      writable_binds.insert(m.dest.str());
      below.insert(m.dest.str());
    }
    if (m.op == ir::MountOp::kDev) below.insert(m.dest.str());
  }
  std::set<std::string> mounted;
  for (absl::string_view line : absl::StrSplit(mountinfo, '\n', absl::SkipEmpty())) {
    // ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ');
    if (f.size() < 6) {
      return absl::FailedPreconditionError(
          absl::StrCat("the sandbox's mount table has a line cwsc cannot read: ",
                       ir::Displayable(std::string(line))));
    }
    std::string point = UnescapeMountPath(f[4]);
    mounted.insert(point);
    std::vector<absl::string_view> options = absl::StrSplit(f[5], ',');
    if (options.empty() || options[0] != "rw") continue;
    if (dests.count(point) != 0) continue;
    bool inside = false;
    for (const std::string& d : below) inside = inside || Below(point, d);
    if (inside) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        "the sandbox holds a writable mount at ", point,
        " that the plan does not make (a directory on the way to a bind source was swapped "
        "while bubblewrap mounted it); nothing ran"));
  }
  for (const std::string& d : writable_binds) {
    if (mounted.count(d) == 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the writable root ", d,
          " is not mounted where the plan puts it (a directory on the way to it was swapped "
          "while bubblewrap mounted it); nothing ran"));
    }
  }
  return absl::OkStatus();
}

namespace {

constexpr int kLowestFd = 64;  // as the bind descriptors (runtime/bind_fds.cc)
constexpr double kGateSeconds = 10;

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

// High duplicates of a new pipe's ends, close-on-exec (the spawn hands on
// exactly the ones bwrap gets).
absl::Status HighPipe(int* r, int* w) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  *r = fcntl(p[0], F_DUPFD_CLOEXEC, kLowestFd);
  *w = fcntl(p[1], F_DUPFD_CLOEXEC, kLowestFd);
  close(p[0]);
  close(p[1]);
  if (*r < 0 || *w < 0) return absl::InternalError(absl::StrCat("fcntl: ", strerror(errno)));
  return absl::OkStatus();
}

double Now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void Pause(long usec) {
  timespec ts{usec / 1000000, (usec % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

// ReadSmall reads a /proc file of the sandbox (empty when it is gone or
// cannot be read; `err` gets errno).
std::string ReadSmall(const std::string& path, int* err) {
  *err = 0;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = errno;
    return "";
  }
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) *err = errno;
      break;
    }
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > (16u << 20)) break;
  }
  close(fd);
  return out;
}

// RecentGateTimes: how long this process's recent sandboxes took from bwrap's
// info to the gate (seconds).
class RecentGateTimes {
 public:
  void Add(double seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    times_[next_++ % kKept] = seconds;
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    for (double& t : times_) t = 0;
  }
  // Shortest of the recent ones; 0 before any.
  double Shortest() {
    std::lock_guard<std::mutex> lock(mu_);
    double best = 0;
    for (double t : times_) {
      if (t > 0 && (best == 0 || t < best)) best = t;
    }
    return best;
  }

 private:
  static constexpr size_t kKept = 8;
  std::mutex mu_;
  double times_[kKept] = {};
  size_t next_ = 0;
};

RecentGateTimes& GateTimes() {
  static RecentGateTimes* times = new RecentGateTimes();
  return *times;
}

std::mutex metrics_mu;
GateMetrics last_metrics;

}  // namespace

GateSchedule::GateSchedule(double shortest_seconds) : learned(shortest_seconds > 0) {
  if (learned) first_wait_us = static_cast<long>(shortest_seconds * 0.8 * 1e6);
}

long GateSchedule::PauseAfter(int looks) const {
  if (learned) return looks <= 20 ? 100 : 200;
  return looks == 1 ? 50 : looks == 2 ? 100 : 200;
}

GateMetrics LastGateMetrics() {
  std::lock_guard<std::mutex> lock(metrics_mu);
  return last_metrics;
}

double RecentGateShortest() { return GateTimes().Shortest(); }

void ForgetRecentGateTimes() { GateTimes().Clear(); }

absl::StatusOr<MountGate> MountGate::Open() {
  MountGate g;
  absl::Status s = HighPipe(&g.info_r_, &g.info_w_);
  if (s.ok()) s = HighPipe(&g.block_r_, &g.block_w_);
  if (!s.ok()) return s;
  return g;
}

MountGate::MountGate(MountGate&& o) noexcept
    : info_r_(o.info_r_), info_w_(o.info_w_), block_r_(o.block_r_), block_w_(o.block_w_) {
  o.info_r_ = o.info_w_ = o.block_r_ = o.block_w_ = -1;
}

MountGate::~MountGate() {
  CloseFd(&info_r_);
  CloseFd(&info_w_);
  CloseFd(&block_r_);
  CloseFd(&block_w_);
}

std::vector<std::string> MountGate::BwrapArgs() const {
  return {"--info-fd", std::to_string(info_w_), "--block-fd", std::to_string(block_r_)};
}

std::vector<std::pair<int, int>> MountGate::ChildFds() const {
  return {{info_w_, info_w_}, {block_r_, block_r_}};
}

absl::Status MountGate::Release(const ir::LaunchPlan& plan) {
  // bwrap holds its own copies now; ours would keep the pipes open.
  const int block_number = block_r_;
  CloseFd(&info_w_);
  CloseFd(&block_r_);
  const double deadline = Now() + kGateSeconds;
  // The sandbox's pid, from bwrap's info: {"child-pid": N, ...}.
  std::string info;
  long pid = 0;
  while (pid == 0) {
    char buf[512];
    ssize_t n = read(info_r_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::OkStatus();  // bwrap ended first: nothing ran
    info.append(buf, static_cast<size_t>(n));
    size_t at = info.find("\"child-pid\":");
    if (at == std::string::npos) continue;
    size_t digits = info.find_first_of("0123456789", at);
    size_t end =
        digits == std::string::npos ? digits : info.find_first_not_of("0123456789", digits);
    if (end == std::string::npos) continue;  // the number may go on in the next read
    pid = std::strtol(info.c_str() + digits, nullptr, 10);
  }
  // Blocked at the gate: in read(2) on the block descriptor
  // (/proc/PID/syscall: "NR 0xARG0 ...").
  const std::string proc = absl::StrCat("/proc/", pid);
  const std::string at_gate = absl::StrCat(SYS_read, " 0x", absl::Hex(block_number), " ");
  // Each look costs a wake-up; the first waits for most of the time this
  // process's recent sandboxes took to reach the gate (GateSchedule).
  const double started = Now();
  GateMetrics metrics;
  metrics.shortest_seconds = GateTimes().Shortest();
  const bool first_in_process = metrics.shortest_seconds == 0;
  if (first_in_process) {
    metrics.shortest_seconds = ReadGateHint();
    metrics.from_hint = metrics.shortest_seconds > 0;
  }
  const GateSchedule schedule(metrics.shortest_seconds);
  metrics.first_wait_us = schedule.first_wait_us;
  if (schedule.first_wait_us > 0) Pause(schedule.first_wait_us);
  int err = 0;
  double took = 0;
  for (int looks = 1;; ++looks) {
    if (looks == 1) metrics.first_look_after_us = static_cast<long>((Now() - started) * 1e6);
    std::string now = ReadSmall(proc + "/syscall", &err);
    metrics.looks = looks;
    if (err == ENOENT || err == ESRCH) return absl::OkStatus();  // bwrap ended: nothing ran
    if (absl::StartsWith(now, at_gate)) {
      took = Now() - started;
      GateTimes().Add(took);
      break;
    }
    if (Now() > deadline) {
      return absl::FailedPreconditionError(absl::StrCat(
          "bubblewrap's sandbox did not reach the point where its mounts are checked within ",
          kGateSeconds, " s (", err != 0 ? strerror(err) : "still setting up", "); nothing ran"));
    }
    Pause(schedule.PauseAfter(looks));
  }
  {
    std::lock_guard<std::mutex> lock(metrics_mu);
    last_metrics = metrics;
  }
  std::string mountinfo = ReadSmall(proc + "/mountinfo", &err);
  if (err != 0 || mountinfo.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("cannot read the sandbox's mount table (",
                                                      err != 0 ? strerror(err) : "empty",
                                                      "); nothing ran"));
  }
  absl::Status checked = CheckSandboxMounts(plan, mountinfo);
  if (!checked.ok()) return checked;
  ssize_t w;
  do {
    w = write(block_w_, "x", 1);
  } while (w < 0 && errno == EINTR);
  CloseFd(&block_w_);
  // For the next process's first launch; after the release, so that the
  // sandbox does not wait for it. A slower launch raises the hint by a
  // quarter at most (one slow launch on a busy machine should not make the
  // next ones wait long), a faster one lowers it to its own time.
  if (first_in_process) {
    if (metrics.from_hint) {
      WriteGateHint(std::min(took, metrics.shortest_seconds * 1.25), metrics.shortest_seconds);
    } else {
      WriteGateHint(took);
    }
  }
  return absl::OkStatus();
}

}  // namespace cwsc::runtime
