#include "runtime/host/spawn.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/file_text.h"

namespace cwsc::runtime {
namespace {

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr char kDefaultPath[] = "/usr/local/bin:/usr/bin:/bin";

// ExecFailure is what the child writes into the parent's memory (it shares
// it until exec) when it cannot reach execve (stage 1: chdir, stage 2:
// exec, stage 3-6: confinement: capabilities, no_new_privs, Landlock,
// seccomp).
struct ExecFailure {
  int stage;
  int err;
};

// Fd closes a descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void Reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

std::string ErrnoText(int err) { return std::strerror(err); }

// Candidates lists the paths execve will try for argv[0], as execvp would.
std::vector<std::string> Candidates(const std::string& program,
                                    const std::vector<std::string>& env) {
  if (program.find('/') != std::string::npos) return {program};
  std::string path = kDefaultPath;
  for (const std::string& e : env) {
    if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
  }
  std::vector<std::string> out;
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    std::string d(dir.empty() ? "." : std::string(dir.data(), dir.size()));
    out.push_back(d + "/" + program);
  }
  return out;
}

void WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// ProcStat is the parent and process group of a process, from /proc/PID/stat
// (the fields after the parenthesised command name, which may hold spaces).
struct ProcStat {
  pid_t ppid = 0;
  pid_t pgrp = 0;
};

// ReadProcFile reads a /proc file without iostreams (this runs on every
// SIGCHLD); nullopt when it cannot be opened.
std::optional<std::string> ReadProcFile(const std::string& path) {
  compiler::FileText t = compiler::ReadFileText(path, {.limit = 1 << 20});
  if (t.open_errno != 0) return std::nullopt;
  return std::move(t.data);
}

bool ReadProcStat(const char* pid, ProcStat* out) {
  std::optional<std::string> text = ReadProcFile(std::string("/proc/") + pid + "/stat");
  if (!text) return false;
  size_t close_paren = text->rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 > text->size()) return false;
  // ") S PPID PGRP ...": state, then the parent and the process group.
  std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(*text).substr(close_paren + 2), ' ');
  return fields.size() >= 3 && absl::SimpleAtoi(fields[1], &out->ppid) &&
         absl::SimpleAtoi(fields[2], &out->pgrp);
}

// ChildPids lists the direct children of this process (orphaned descendants
// land here because the caller is a child subreaper).
std::vector<pid_t> ChildPids() {
  std::vector<pid_t> out;
  std::string self = std::to_string(getpid());
  if (std::optional<std::string> text = ReadProcFile("/proc/self/task/" + self + "/children")) {
    for (absl::string_view field : absl::StrSplit(*text, ' ', absl::SkipWhitespace())) {
      pid_t p = 0;
      if (absl::SimpleAtoi(field, &p) && p > 0) out.push_back(p);
    }
    return out;
  }
  // Kernels without CONFIG_PROC_CHILDREN: scan /proc for our children.
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return out;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    ProcStat st;
    if (ReadProcStat(e->d_name, &st) && st.ppid == getpid()) {
      out.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
    }
  }
  closedir(dir);
  return out;
}

// SignalGroup sends `sig` to process group `pgid`; with `spare` > 0, to
// every member but `spare` (found through /proc).
void SignalGroup(pid_t pgid, int sig, pid_t spare) {
  if (spare <= 0) {
    kill(-pgid, sig);
    return;
  }
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    pid_t p = static_cast<pid_t>(std::atoi(e->d_name));
    if (p == spare) continue;
    ProcStat st;
    if (ReadProcStat(e->d_name, &st) && st.pgrp == pgid) kill(p, sig);
  }
  closedir(dir);
}

// KillTree ends every remaining process of the tree: the process group, then
// every child of ours (orphans re-parented to us), until none is left.
void KillTree(pid_t pgid) {
  kill(-pgid, SIGKILL);
  for (;;) {
    for (pid_t p : ChildPids()) kill(p, SIGKILL);
    pid_t r = waitpid(-1, nullptr, __WALL);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;  // ECHILD: nothing left
  }
}

int64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void ArmTimer(int tfd, double seconds) {
  itimerspec spec{};
  double whole = std::floor(seconds);
  spec.it_value.tv_sec = static_cast<time_t>(whole);
  spec.it_value.tv_nsec = static_cast<long>((seconds - whole) * 1e9);
  if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  timerfd_settime(tfd, 0, &spec, nullptr);
}

// IgnoredSignals is the set of signals this process ignores, from the SigIgn
// mask of /proc/self/status (one read instead of a query per signal); every
// signal when /proc cannot tell.
sigset_t IgnoredSignals() {
  sigset_t out;
  sigfillset(&out);
  std::optional<std::string> status = ReadProcFile("/proc/self/status");
  if (!status) return out;
  size_t at = status->find("\nSigIgn:\t");
  if (at == std::string::npos) return out;
  size_t begin = at + 9, end = status->find('\n', begin);
  uint64_t mask = 0;
  if (end == std::string::npos ||
      !absl::SimpleHexAtoi(absl::string_view(*status).substr(begin, end - begin), &mask)) {
    return out;
  }
  sigemptyset(&out);
  for (int s = 1; s <= 64 && s < NSIG; ++s) {
    if (mask & (uint64_t{1} << (s - 1))) sigaddset(&out, s);
  }
  return out;
}

// ChildArgs is everything the child needs, laid out by the parent before
// the clone.
struct ChildArgs {
  const std::vector<char*>* candidates;
  char* const* argv;
  char* const* envp;
  const char* cwd;
  int stdin_fd;                        // -1: keep ours
  int stdout_fd;                       // -1: keep ours
  int stderr_fd;                       // -1: keep ours
  ExecFailure* failure;                // the parent's, written only by a child that then exits
  const std::pair<int, int>* inherit;  // {here, in the child}
  size_t inherit_count;
  bool take_terminal;
  pid_t parent;
  const SpawnRequest::Confine* confine;
  sigset_t old_mask;
  sigset_t ignored;  // signals whose disposition is SIG_IGN
};

// ConfineSelf applies SpawnRequest::confine to the calling child with
// system calls only; it returns 0, or the failing stage (errno set).
int ConfineSelf(const SpawnRequest::Confine& c) {
  // Root keeps no capability across the exec: an empty bounding set (needs
  // CAP_SETPCAP; without it there is nothing to drop), no ambient ones,
  // then none at all now.
  for (int cap = 0; cap < 64; ++cap) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capset, &header, data) != 0) return 3;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 4;
  if (c.landlock_fd >= 0 && syscall(SYS_landlock_restrict_self, c.landlock_fd, 0u) != 0) return 5;
  if (c.seccomp_program != nullptr &&
      syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0u, c.seccomp_program) != 0) {
    return 6;
  }
  return 0;
}

// ChildMain runs in the child, which shares the parent's memory until it
// execs (CLONE_VM | CLONE_VFORK, as posix_spawn does; the parent is
// suspended meanwhile): only system calls and no allocation. The only memory
// of the parent it writes is errno, which the parent reads only when the
// clone itself failed, and the ExecFailure of a child that then exits.
int ChildMain(void* raw) {
  const ChildArgs& a = *static_cast<const ChildArgs*>(raw);
  setpgid(0, 0);
  if (a.take_terminal) tcsetpgrp(STDIN_FILENO, getpid());  // SIGTTOU still blocked here
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != a.parent) _exit(125);
  // Dispositions: cwsc installs no handler on this path, and execve resets
  // caught signals anyway; what survives an exec is SIG_IGN inherited from
  // cwsc's own parent, so those go back to default.
  for (int s = 1; s < NSIG; ++s) {
    if (sigismember(&a.ignored, s) == 1) signal(s, SIG_DFL);
  }
  sigprocmask(SIG_SETMASK, &a.old_mask, nullptr);
  if (a.stdin_fd >= 0) dup2(a.stdin_fd, STDIN_FILENO);
  if (a.stdout_fd >= 0) dup2(a.stdout_fd, STDOUT_FILENO);
  if (a.stderr_fd >= 0) dup2(a.stderr_fd, STDERR_FILENO);
  // Only 0, 1, 2 and the handed descriptors reach the program: everything
  // else becomes close-on-exec.
  if (syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) != 0) {
    rlimit lim{};
    int max = getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < (1u << 20)
                  ? static_cast<int>(lim.rlim_cur)
                  : (1 << 20);
    for (int fd = 3; fd < max; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  for (size_t i = 0; i < a.inherit_count; ++i) {
    const auto& [here, there] = a.inherit[i];
    if (here == there) {
      fcntl(there, F_SETFD, 0);
    } else {
      dup2(here, there);  // the copy is not close-on-exec
    }
  }
  if (a.cwd != nullptr && chdir(a.cwd) != 0) {
    *a.failure = ExecFailure{1, errno};
    _exit(125);
  }
  if (a.confine != nullptr && a.confine->enabled) {
    int stage = ConfineSelf(*a.confine);
    if (stage != 0) {
      *a.failure = ExecFailure{stage, errno};
      _exit(125);
    }
  }
  int saved = ENOENT;
  for (char* path : *a.candidates) {
    execve(path, a.argv, a.envp);
    if (errno != ENOENT && errno != ENOTDIR) saved = errno;
    if (errno == EACCES || errno == ENOENT || errno == ENOTDIR) continue;
    break;
  }
  *a.failure = ExecFailure{2, saved};
  _exit(127);
}

// ---- start ------------------------------------------------------------------

// SignalMask blocks, for one SpawnAndWait, the signals the loop reads from a
// signalfd (SIGCHLD and the forwarded ones) plus SIGTTOU and SIGPIPE, and
// restores the caller's mask at the end.
class SignalMask {
 public:
  SignalMask() {
    sigemptyset(&handled_);
    sigaddset(&handled_, SIGCHLD);
    for (int s : kForwardedSignals) sigaddset(&handled_, s);
    sigset_t blocked = handled_;
    sigaddset(&blocked, SIGTTOU);
    sigaddset(&blocked, SIGPIPE);
    sigprocmask(SIG_BLOCK, &blocked, &old_);
  }
  ~SignalMask() {
    // Drop signals that arrived for the child before unblocking.
    sigset_t pending;
    sigpending(&pending);
    for (int s : {SIGCHLD, SIGPIPE}) {
      if (sigismember(&pending, s) && !sigismember(&old_, s)) {
        timespec zero{};
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, s);
        sigtimedwait(&one, nullptr, &zero);
      }
    }
    sigprocmask(SIG_SETMASK, &old_, nullptr);
  }
  SignalMask(const SignalMask&) = delete;
  SignalMask& operator=(const SignalMask&) = delete;

  const sigset_t& handled() const { return handled_; }
  const sigset_t& old() const { return old_; }

 private:
  sigset_t handled_;
  sigset_t old_;
};

// Child is a started command: its pid (also its process group) and the
// descriptors the wait loop watches.
struct Child {
  pid_t pid = 0;
  bool take_terminal = false;
  Fd sfd;    // signalfd of SignalMask::handled()
  Fd tfd;    // the timeout's timerfd
  Fd err_r;  // the read end of the stderr pipe, when there is a sink

  void GiveBackTerminal() const {
    if (take_terminal) tcsetpgrp(STDIN_FILENO, getpgrp());
  }
};

// ChildSetup is how to start one child: what it runs, where, and which
// descriptors it gets.
struct ChildSetup {
  std::vector<std::string> candidates;  // the paths execve tries for argv[0], in order
  std::vector<std::string> argv, env;
  const char* cwd = nullptr;  // chdir(2) before exec; nullptr: ours
  int stdin_fd = -1;          // -1: keep ours
  int stdout_fd = -1;
  int stderr_fd = -1;
  const std::vector<std::pair<int, int>>* inherit = nullptr;  // {here, in the child}
  bool take_terminal = false;
  sigset_t mask;  // the child's signal mask
  const SpawnRequest::Confine* confine = nullptr;
  // Every signal back to its default action in the child, not only the
  // ignored ones: an embedding program may have handlers, and a handler
  // must not run in a child that shares its memory.
  bool reset_all_signals = false;
};

sigset_t SignalsToReset(const ChildSetup& setup) {
  if (!setup.reset_all_signals) return IgnoredSignals();
  sigset_t all;
  sigfillset(&all);
  return all;
}

// Launched is a child that was started: its pid, and the failure it
// reported before its exec (it has then been reaped).
struct Launched {
  pid_t pid = -1;
  std::optional<ExecFailure> failure;
};

// CloneAndExec starts the child and waits until it has reached its exec or
// reported why it could not (chdir, confinement or exec). Internal: an OS
// failure before the child was started.
absl::StatusOr<Launched> CloneAndExec(ChildSetup& setup) {
  std::vector<char*> cand_ptrs, argv_ptrs, env_ptrs;
  for (std::string& c : setup.candidates) cand_ptrs.push_back(c.data());
  for (std::string& a : setup.argv) argv_ptrs.push_back(a.data());
  argv_ptrs.push_back(nullptr);
  for (std::string& e : setup.env) env_ptrs.push_back(e.data());
  env_ptrs.push_back(nullptr);

  ExecFailure failure{0, 0};
  static const std::vector<std::pair<int, int>> kNone;
  const std::vector<std::pair<int, int>>& inherit = setup.inherit ? *setup.inherit : kNone;
  ChildArgs child_args{&cand_ptrs,     argv_ptrs.data(), env_ptrs.data(),      setup.cwd,
                       setup.stdin_fd, setup.stdout_fd,  setup.stderr_fd,      &failure,
                       inherit.data(), inherit.size(),   setup.take_terminal,  getpid(),
                       setup.confine,  setup.mask,       SignalsToReset(setup)};
  // The child's stack: it runs only ChildMain and execve. A clone that
  // shares memory costs no page-table copy and no copy-on-write faults, and
  // its exec does not tear down a copy of our address space.
  constexpr size_t kChildStack = 64 * 1024;
  void* stack = mmap(nullptr, kChildStack, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return absl::InternalError(absl::StrCat("mmap: ", ErrnoText(errno)));
  pid_t pid = clone(ChildMain, static_cast<char*>(stack) + kChildStack,
                    CLONE_VM | CLONE_VFORK | SIGCHLD, &child_args);
  int clone_errno = errno;
  munmap(stack, kChildStack);
  if (pid < 0) return absl::InternalError(absl::StrCat("clone: ", ErrnoText(clone_errno)));
  // The child has set its process group (and taken the terminal): we resume
  // (CLONE_VFORK) once it has released our memory, by its exec or its exit,
  // so `failure` is final here. Not waiting for the rest of the exec (a pipe
  // closed on exec would close only when the new program is loaded) lets
  // this process go on while the kernel loads it.
  Launched out;
  out.pid = pid;
  if (failure.stage != 0) {
    waitpid(pid, nullptr, 0);
    out.failure = failure;
  }
  return out;
}

// StartFailure is the error for a child that reported `failure` before
// its exec (it has been reaped): FailedPrecondition naming the directory,
// the confinement step or the program.
absl::Status StartFailure(const SpawnRequest& request, const ExecFailure& failure,
                          SpawnError* error) {
  static const char* const kConfineSteps[] = {"drop its capabilities", "set no_new_privs",
                                              "apply the Landlock ruleset",
                                              "load the seccomp program"};
  std::string what =
      failure.stage == 1 ? absl::StrCat("cannot change to directory '", request.cwd.value_or(""),
                                        "': ", ErrnoText(failure.err))
      : failure.stage >= 3 && failure.stage <= 6
          ? absl::StrCat("cannot confine the command (", kConfineSteps[failure.stage - 3],
                         "): ", ErrnoText(failure.err), "; nothing ran")
          : absl::StrCat("cannot run '", request.argv[0], "': ", ErrnoText(failure.err));
  if (error != nullptr) {
    error->exec_errno = failure.stage == 2 ? failure.err : 0;
    error->message = what;
  }
  return absl::FailedPreconditionError(what);
}

// Start starts the command of `request` with the descriptors the wait loop
// needs, and waits until it has exec'd (FailedPrecondition when it could
// not, naming the program or the directory).
absl::Status Start(const SpawnRequest& request, const SignalMask& mask, Child* child,
                   SpawnError* error) {
  Fd err_w;
  if (request.stderr_sink) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
      return absl::InternalError(absl::StrCat("pipe: ", ErrnoText(errno)));
    child->err_r.Reset(p[0]);
    err_w.Reset(p[1]);
  }
  child->sfd.Reset(signalfd(-1, &mask.handled(), SFD_CLOEXEC));
  child->tfd.Reset(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
  if (child->sfd.get() < 0 || child->tfd.get() < 0) {
    return absl::InternalError(absl::StrCat("signalfd/timerfd: ", ErrnoText(errno)));
  }
  child->take_terminal = AtTerminalInForeground();

  ChildSetup setup;
  setup.candidates = Candidates(request.argv[0], request.env);
  setup.argv = request.argv;
  setup.env = request.env;
  setup.cwd = request.cwd ? request.cwd->c_str() : nullptr;
  setup.stderr_fd = err_w.get();
  setup.inherit = &request.inherit_fds;
  setup.confine = &request.confine;
  setup.take_terminal = child->take_terminal;
  setup.mask = mask.old();
  absl::StatusOr<Launched> launched = CloneAndExec(setup);
  if (!launched.ok()) return launched.status();
  child->pid = launched->pid;
  err_w.Reset();
  if (!launched->failure) return absl::OkStatus();
  child->GiveBackTerminal();
  return StartFailure(request, *launched->failure, error);
}

// ---- loop -------------------------------------------------------------------

// Supervisor waits for the direct child: it forwards signals to the group,
// enforces the timeout (TERM, then KILL after the grace period), copies the
// child's stderr, and reaps orphans of the tree as they exit.
class Supervisor {
 public:
  Supervisor(const SpawnRequest& request, const Child& child, SpawnResult* result)
      : request_(request), child_(child), result_(result), stderr_open_(child.err_r.get() >= 0) {}

  // Run returns once the direct child has exited (observed, not reaped).
  void Run() {
    bool main_done = false;
    while (!main_done) {
      pollfd fds[3] = {
          {child_.sfd.get(), POLLIN, 0}, {child_.tfd.get(), POLLIN, 0}, {-1, POLLIN, 0}};
      if (stderr_open_) fds[2].fd = child_.err_r.get();
      int n = poll(fds, 3, -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (fds[2].revents != 0) PumpStderr();
      if (fds[1].revents & POLLIN) OnTimer();
      if (fds[0].revents & POLLIN) main_done = OnSignal();
    }
  }

  // DrainStderr copies what is left in the stderr pipe once every writer
  // is gone, to EOF.
  void DrainStderr() {
    while (stderr_open_) {
      pollfd p{child_.err_r.get(), POLLIN, 0};
      if (poll(&p, 1, 1000) <= 0) break;
      PumpStderr();
    }
  }

 private:
  pid_t Spared() const { return request_.spare_direct_child ? child_.pid : 0; }

  void PumpStderr() {
    ssize_t n = read(child_.err_r.get(), buf_, sizeof buf_);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
      stderr_open_ = false;
      return;
    }
    if (stderr_ok_) {
      const char* p = buf_;
      size_t left = static_cast<size_t>(n);
      while (left > 0) {
        ssize_t w = write(STDERR_FILENO, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
          stderr_ok_ = false;
          break;
        }
        p += w;
        left -= static_cast<size_t>(w);
      }
    }
    request_.stderr_sink(std::string_view(buf_, static_cast<size_t>(n)));
  }

  void OnTimer() {
    uint64_t ticks;
    if (read(child_.tfd.get(), &ticks, sizeof ticks) <= 0) return;
    if (!term_sent_) {
      result_->timed_out = true;
      term_sent_ = true;
      SignalGroup(child_.pid, SIGTERM, Spared());
      ArmTimer(child_.tfd.get(), request_.kill_grace_seconds);
    } else {
      kill(-child_.pid, SIGKILL);
      kill(child_.pid, SIGKILL);
    }
  }

  // OnSignal forwards a caught signal; returns whether the direct child has exited.
  bool OnSignal() {
    signalfd_siginfo info;
    if (read(child_.sfd.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      int sig = static_cast<int>(info.ssi_signo);
      if (sig != SIGCHLD) {
        result_->forwarded_signal = sig;
        SignalGroup(child_.pid, sig, Spared());
      }
    }
    // Observe (without reaping) our direct child, so its process group id
    // stays reserved until the group has been killed.
    bool exited = false;
    siginfo_t si{};
    if (waitid(P_PID, static_cast<id_t>(child_.pid), &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        si.si_pid == child_.pid) {
      exited = true;
    }
    // Reap the other children that have exited (orphans of the tree).
    for (pid_t p : ChildPids()) {
      if (p != child_.pid) waitpid(p, nullptr, WNOHANG | __WALL);
    }
    return exited;
  }

  const SpawnRequest& request_;
  const Child& child_;
  SpawnResult* result_;
  bool term_sent_ = false;
  bool stderr_open_;
  bool stderr_ok_ = true;  // our own stderr still accepts writes
  char buf_[65536];
};

// ---- reap -------------------------------------------------------------------

// Reap ends what the command left behind while its group id is still held
// by the zombie, then collects the direct child's status and sweeps the
// rest of the tree.
void Reap(const Child& child, SpawnResult* result) {
  int status = 0;
  kill(-child.pid, SIGKILL);
  if (waitpid(child.pid, &status, 0) == child.pid) {
    if (WIFEXITED(status)) {
      result->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result->signal = WTERMSIG(status);
      result->exit_code = 128 + WTERMSIG(status);
    }
  }
  KillTree(child.pid);
  child.GiveBackTerminal();
}

}  // namespace

bool AtTerminalInForeground() {
  return isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
}

int ExitCodeForExecErrno(int err) { return (err == ENOENT || err == ENOTDIR) ? 127 : 126; }

absl::StatusOr<SpawnResult> SpawnAndWait(const SpawnRequest& request, SpawnError* error) {
  if (request.argv.empty()) return absl::InvalidArgumentError("no program to run");
  SignalMask mask;
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  Child child;
  if (absl::Status started = Start(request, mask, &child, error); !started.ok()) return started;
  if (request.after_start && !request.after_start(child.pid)) {
    kill(-child.pid, SIGKILL);
    kill(child.pid, SIGKILL);
  }
  if (request.timeout_seconds > 0) ArmTimer(child.tfd.get(), request.timeout_seconds);

  SpawnResult result;
  result.pid = child.pid;
  Supervisor supervisor(request, child, &result);
  supervisor.Run();
  Reap(child, &result);
  // Every writer of the stderr pipe is gone now.
  supervisor.DrainStderr();
  return result;
}

// ---- started children (libcwsc) -----------------------------------------------

namespace {

// Spawner makes the clones of StartChild called from threads other than the
// main one, on one thread that lives as long as the process, with every
// signal blocked (no handler of the embedding program can run there, nor in
// a child that shares its memory until exec).
class Spawner {
 public:
  // Get is this process's spawner. A process made by fork(2) has none of
  // its parent's threads, so it gets a spawner of its own on first use
  // (the parent's object, its thread gone, is left as it is).
  static Spawner& Get() {
    static std::mutex mu;
    static Spawner* spawner = nullptr;  // never destroyed: its thread runs on
    std::lock_guard<std::mutex> lock(mu);
    if (spawner == nullptr || spawner->pid_ != getpid()) spawner = new Spawner();
    return *spawner;
  }

  absl::StatusOr<Launched> Clone(ChildSetup& setup) {
    Job job{&setup};
    std::unique_lock<std::mutex> lock(mu_);
    queue_.push_back(&job);
    cv_.notify_all();
    cv_.wait(lock, [&] { return job.done; });
    return std::move(job.result);
  }

 private:
  struct Job {
    ChildSetup* setup;
    absl::StatusOr<Launched> result = absl::InternalError("not started");
    bool done = false;
  };

  Spawner() : pid_(getpid()) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);  // the new thread inherits it
    std::thread([this] { Loop(); }).detach();
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }

  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return !queue_.empty(); });
      Job* job = queue_.front();
      queue_.erase(queue_.begin());
      lock.unlock();
      absl::StatusOr<Launched> r = CloneAndExec(*job->setup);
      lock.lock();
      job->result = std::move(r);
      job->done = true;
      cv_.notify_all();
    }
  }

  const pid_t pid_;  // the process whose thread this is
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Job*> queue_;
};

// CloneFromHere: the calling thread is the process's main thread, which
// lives as long as the process, so the parent-death signals can be tied to
// it; the clone is made here, without the spawner thread's two wake-ups.
bool CloneFromHere() { return syscall(SYS_gettid) == getpid(); }

std::atomic<uint64_t> clones_on_main{0}, clones_on_spawner{0};

// CloneBlocked is CloneAndExec with every signal blocked in this thread
// meanwhile, as on the spawner thread: the child starts with them blocked,
// so no handler of the embedding program runs in it before its exec.
absl::StatusOr<Launched> CloneBlocked(ChildSetup& setup) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  absl::StatusOr<Launched> launched = CloneAndExec(setup);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return launched;
}

}  // namespace

StartPaths StartPathCounts() {
  return {clones_on_main.load(std::memory_order_relaxed),
          clones_on_spawner.load(std::memory_order_relaxed)};
}

absl::StatusOr<std::unique_ptr<StartedChild>> StartChild(const SpawnRequest& request,
                                                         const ChildStdio& stdio,
                                                         SpawnError* error) {
  if (request.argv.empty()) return absl::InvalidArgumentError("no program to run");
  std::unique_ptr<StartedChild> child(new StartedChild());
  Fd devnull(open("/dev/null", O_RDWR | O_CLOEXEC));
  if (devnull.get() < 0) return absl::InternalError(absl::StrCat("/dev/null: ", ErrnoText(errno)));
  Fd err_w;
  if (request.stderr_sink) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
      return absl::InternalError(absl::StrCat("pipe: ", ErrnoText(errno)));
    }
    child->err_read_ = p[0];
    err_w.Reset(p[1]);
    if (stdio.err >= 0) child->err_copy_ = fcntl(stdio.err, F_DUPFD_CLOEXEC, 3);
    child->sink_ = request.stderr_sink;
  }
  ChildSetup setup;
  setup.candidates = Candidates(request.argv[0], request.env);
  setup.argv = request.argv;
  setup.env = request.env;
  setup.cwd = request.cwd ? request.cwd->c_str() : nullptr;
  setup.stdin_fd = stdio.in >= 0 ? stdio.in : devnull.get();
  setup.stdout_fd = stdio.out >= 0 ? stdio.out : devnull.get();
  setup.stderr_fd = err_w.get() >= 0 ? err_w.get() : stdio.err >= 0 ? stdio.err : devnull.get();
  setup.inherit = &request.inherit_fds;
  setup.confine = &request.confine;
  setup.reset_all_signals = true;
  sigemptyset(&setup.mask);
  const bool here = CloneFromHere();
  (here ? clones_on_main : clones_on_spawner).fetch_add(1, std::memory_order_relaxed);
  absl::StatusOr<Launched> launched = here ? CloneBlocked(setup) : Spawner::Get().Clone(setup);
  err_w.Reset();
  if (!launched.ok()) return launched.status();
  if (launched->failure) return StartFailure(request, *launched->failure, error);
  child->pid_ = launched->pid;
  // Not reaped yet, so the pid cannot have been reused.
  child->pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, child->pid_, 0));
  child->spare_ = request.spare_direct_child;
  child->kill_grace_seconds_ = request.kill_grace_seconds;
  child->result_.pid = child->pid_;
  if (request.timeout_seconds > 0) {
    child->timeout_at_ms_ = NowMs() + static_cast<int64_t>(request.timeout_seconds * 1000);
  }
  StartedChild* c = child.get();
  if (child->err_read_ >= 0) child->pump_ = std::thread([c] { c->PumpStderr(); });
  if (child->timeout_at_ms_ >= 0) child->timer_ = std::thread([c] { c->KeepTime(); });
  return child;
}

void StartedChild::KeepTime() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (done_.load() || stop_timer_) return;
    int64_t now = NowMs();
    if (kill_at_ms_ < 0 && now >= timeout_at_ms_) {
      // Not reaped while mu_ is held, so the group's id is still the child's.
      result_.timed_out = true;
      SignalGroup(pid_, SIGTERM, spare_ ? pid_ : 0);
      kill_at_ms_ = now + static_cast<int64_t>(kill_grace_seconds_ * 1000);
    } else if (kill_at_ms_ >= 0 && now >= kill_at_ms_) {
      kill(-pid_, SIGKILL);
      kill(pid_, SIGKILL);
      return;
    }
    int64_t next = kill_at_ms_ >= 0 ? kill_at_ms_ : timeout_at_ms_;
    timer_cv_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(1, next - NowMs())));
  }
}

void StartedChild::PumpStderr() {
  // The caller's descriptor is closed when the pipe is: its reader sees the
  // end of the command's stderr then, not when this object goes.
  struct CloseCopy {
    int* fd;
    ~CloseCopy() {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
  } close_copy{&err_copy_};
  char buf[16384];
  for (;;) {
    pollfd p{err_read_, POLLIN, 0};
    int n = poll(&p, 1, 100);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {
      // Quiet: once the child is reaped, a descendant that keeps the pipe
      // open must not hold the waiter.
      if (stop_pump_.load()) return;
      continue;
    }
    ssize_t got = read(err_read_, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return;
    if (err_copy_ >= 0) WriteAll(err_copy_, buf, static_cast<size_t>(got));
    sink_(std::string_view(buf, static_cast<size_t>(got)));
  }
}

bool StartedChild::Wait(int timeout_ms) {
  // The timeout is the timer thread's (KeepTime): a wait only watches.
  int64_t until = timeout_ms < 0 ? -1 : NowMs() + timeout_ms;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!done_.load()) {
        siginfo_t si{};
        if (waitid(P_PID, static_cast<id_t>(pid_), &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            si.si_pid == pid_) {
          ReapLocked();
        }
      }
      if (done_.load()) {
        // Every writer of the stderr pipe is gone (or ends within the pump's
        // quiet interval); joined under the lock, so no waiter returns
        // before the sink has seen all of it.
        stop_pump_.store(true);
        if (pump_.joinable()) pump_.join();
        return true;
      }
    }
    int64_t now = NowMs();
    if (until >= 0 && now >= until) return false;
    int wait_ms = until < 0 ? -1 : static_cast<int>(until - now);
    if (pidfd_ >= 0) {
      pollfd p{pidfd_, POLLIN, 0};
      poll(&p, 1, wait_ms);
    } else {  // no pidfd (a kernel before 5.3): look again shortly
      pollfd none{-1, 0, 0};
      poll(&none, 1, wait_ms < 0 || wait_ms > 5 ? 5 : wait_ms);
    }
  }
}

void StartedChild::ReapLocked() {
  int status = 0;
  // The zombie still holds the group's id: end the rest of the group first.
  kill(-pid_, SIGKILL);
  if (waitpid(pid_, &status, 0) == pid_) {
    if (WIFEXITED(status)) {
      result_.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result_.signal = WTERMSIG(status);
      result_.exit_code = 128 + WTERMSIG(status);
    }
  }
  done_.store(true);
  timer_cv_.notify_all();
}

void StartedChild::Signal(int sig) {
  std::lock_guard<std::mutex> lock(mu_);
  if (done_.load()) return;
  result_.forwarded_signal = sig;
  SignalGroup(pid_, sig, spare_ ? pid_ : 0);
}

void StartedChild::Kill() {
  std::lock_guard<std::mutex> lock(mu_);
  if (done_.load()) return;
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
}

StartedChild::~StartedChild() {
  if (pid_ > 0 && !done_.load()) {
    Kill();
    Wait(-1);
  }
  if (timer_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_timer_ = true;
    }
    timer_cv_.notify_all();
    timer_.join();
  }
  if (pump_.joinable()) {
    stop_pump_.store(true);
    pump_.join();
  }
  for (int fd : {pidfd_, err_read_, err_copy_}) {
    if (fd >= 0) close(fd);
  }
}

// ---- captured runs (the probes) ----------------------------------------------

Captured RunCaptured(const std::vector<std::string>& argv) {
  constexpr int kDeadlineMs = 10000;
  constexpr size_t kMaxOutput = 64 * 1024;
  Captured c;
  if (argv.empty()) {
    c.spawn_error = "no program to run";
    return c;
  }
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    c.spawn_error = absl::StrCat("pipe: ", ErrnoText(errno));
    return c;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    c.spawn_error = absl::StrCat("pipe: ", ErrnoText(errno));
    close(out_pipe[0]);
    close(out_pipe[1]);
    return c;
  }
  Fd out_w(out_pipe[1]), err_w(err_pipe[1]);
  Fd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
  ChildSetup setup;
  setup.candidates = {argv[0]};  // run as given: no PATH search
  setup.argv = argv;
  setup.cwd = "/";
  setup.stdin_fd = devnull.get();
  setup.stdout_fd = out_w.get();
  setup.stderr_fd = err_w.get();
  sigprocmask(SIG_SETMASK, nullptr, &setup.mask);
  absl::StatusOr<Launched> launched = CloneAndExec(setup);
  out_w.Reset();
  err_w.Reset();
  if (!launched.ok()) {
    c.spawn_error = std::string(launched.status().message());
    close(out_pipe[0]);
    close(err_pipe[0]);
    return c;
  }
  c.started = true;
  pid_t pid = launched->pid;
  if (launched->failure) {  // reaped already: as a shell reports it
    close(out_pipe[0]);
    close(err_pipe[0]);
    if (launched->failure->stage == 1) {
      c.exit_code = 126;
    } else {
      c.exit_code = 127;
      c.err =
          absl::StrCat("cannot execute ", argv[0], ": ", ErrnoText(launched->failure->err), "\n");
    }
    return c;
  }
  int64_t deadline = NowMs() + kDeadlineMs;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* bufs[2] = {&c.out, &c.err};
  int open_fds = 2;
  while (open_fds > 0) {
    int64_t left = deadline - NowMs();
    if (left <= 0) {
      c.timed_out = true;
      break;
    }
    int n = poll(fds, 2, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buf[4096];
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        if (bufs[i]->size() < kMaxOutput) bufs[i]->append(buf, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  if (c.timed_out) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  } else {
    // Both pipes closed; the child exits now (or is killed at the deadline):
    // wait for it on a pidfd, which becomes readable when it exits.
    int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    while (true) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      int64_t left = deadline - NowMs();
      if (left <= 0) {
        c.timed_out = true;
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      if (pidfd >= 0) {
        pollfd p{pidfd, POLLIN, 0};
        poll(&p, 1, static_cast<int>(left));
      } else {  // no pidfd (a kernel before 5.3): look again shortly
        pollfd none{-1, 0, 0};
        poll(&none, 1, 1);
      }
    }
    if (pidfd >= 0) close(pidfd);
  }
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd >= 0) close(fds[i].fd);
  }
  if (!c.timed_out && WIFEXITED(status)) c.exit_code = WEXITSTATUS(status);
  if (!c.timed_out && WIFSIGNALED(status)) {
    c.spawn_error = absl::StrCat("killed by signal ", WTERMSIG(status));
  }
  return c;
}

}  // namespace cwsc::runtime
