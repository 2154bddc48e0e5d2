// Spawn runs one command to completion and owns its whole process tree:
// new process group, parent-death signal, SIGINT/SIGTERM/SIGHUP/SIGQUIT
// forwarded to the group, an optional timeout (TERM, then KILL after a grace
// period), and a final sweep so that no descendant outlives the call, even
// one that left the process group with setsid(2). stdin and stdout are the
// caller's own descriptors; stderr is either passed through as is or copied
// byte for byte through a pipe so a StderrSink can look at it.
//
//   SpawnRequest req;
//   req.argv = {"/usr/bin/bwrap", ..., "--", "sh", "-c", "echo hi"};
//   req.env = {"PATH=/usr/bin:/bin", "CODEWHALE_SANDBOX=bwrap"};
//   req.timeout_seconds = 30;
//   absl::StatusOr<SpawnResult> r = SpawnAndWait(req);
//   // r->exit_code == 0; 128+N when the child died of signal N.
//
// Only one SpawnAndWait may run at a time in a process (it installs process-
// wide signal handling for its duration and makes the caller a child
// subreaper). The caller must be single-threaded.
//
// StartChild is the same start for a program that embeds cwsc (libcwsc's
// cwsc_spawn): it returns at once with a StartedChild, installs nothing
// process-wide, and may be called from many threads at once.
#ifndef CWSC_RUNTIME_HOST_SPAWN_H_
#define CWSC_RUNTIME_HOST_SPAWN_H_

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

namespace cwsc::runtime {

struct SpawnRequest {
  // argv[0] is executed as given when it contains a '/'; otherwise it is
  // searched in the PATH of `env` (default "/usr/local/bin:/usr/bin:/bin").
  std::vector<std::string> argv;
  std::vector<std::string> env;    // complete child environment, "NAME=VALUE"
  std::optional<std::string> cwd;  // chdir(2) in the child before exec
  double timeout_seconds = 0;      // 0: no timeout
  double kill_grace_seconds = 2;   // TERM → KILL delay on timeout
  // When set, the child's stderr is a pipe whose bytes are copied unchanged
  // to our stderr and handed to this sink; when empty, the child inherits
  // our stderr directly.
  std::function<void(std::string_view)> stderr_sink;
  // When set, forwarded signals and the timeout's TERM go to every other
  // member of the process group but not to the direct child: bubblewrap
  // would die of them at once and take the sandbox down before the command
  // could react. KILL always goes to the whole group.
  bool spare_direct_child = false;
  // Descriptors handed to the program: {descriptor here, number in the
  // child}. Every other descriptor above 2 is closed at exec, whatever the
  // caller left open (docs/runtime.md, "Threat model"). A descriptor here
  // must not be one of the child numbers.
  std::vector<std::pair<int, int>> inherit_fds;
  // Confinement the child applies to itself after chdir, just before exec
  // (linux-landlock plans, runtime/landlock.h): its capability bounding,
  // ambient and inheritable sets emptied and its capabilities dropped,
  // no_new_privs, landlock_restrict_self(landlock_fd), then the seccomp
  // program (a `struct sock_fprog*`). A failure ends the child before exec
  // ("cannot confine the command: ..."), so nothing runs unconfined.
  // When set, called in the parent once the program has started, before
  // the wait: false kills the whole group at once (the caller says why).
  // bwrap plans hold their sandbox at a gate here (runtime/mount_check.h).
  std::function<bool(int pid)> after_start;
  struct Confine {
    bool enabled = false;
    int landlock_fd = -1;
    const void* seccomp_program = nullptr;
  } confine;
};

struct SpawnResult {
  int exit_code = 0;                    // status of the command, 128+N for signal N
  std::optional<int> signal;            // set when the direct child died of a signal
  bool timed_out = false;               // the timeout fired and the tree was ended
  std::optional<int> forwarded_signal;  // last signal forwarded to the group
  int pid = 0;                          // pid of the direct child
};

// SpawnAndWait starts the command and waits for it and every descendant.
// Errors (nothing ran): FailedPrecondition for a program that cannot be
// executed (message names the program and errno text; `exec_errno` is set),
// Internal for an OS failure before the child was started.
struct SpawnError {
  int exec_errno = 0;  // errno of the failed execve (ENOENT, EACCES, ...), 0 otherwise
  std::string message;
};
absl::StatusOr<SpawnResult> SpawnAndWait(const SpawnRequest& request, SpawnError* error = nullptr);

// ChildStdio is the standard descriptors of a started child: each one the
// caller's descriptor (duplicated into the child; the caller keeps and
// closes its own), or -1 for /dev/null.
struct ChildStdio {
  int in = -1;
  int out = -1;
  int err = -1;
};

// StartedChild is a command started by StartChild and not yet waited for.
// It is the child's process group (SpawnRequest::spare_direct_child and the
// timeout apply as in SpawnAndWait), and ends it when destroyed while it
// still runs. Wait, Signal and Kill may be called from different threads.
//
// Unlike SpawnAndWait it cannot sweep a descendant that left the process
// group with setsid(2) (that needs this process to be a child subreaper, a
// process-wide setting an embedding program owns): a bwrap sandbox's
// processes end with its PID namespace; a plan without one has none.
class StartedChild {
 public:
  ~StartedChild();
  StartedChild(const StartedChild&) = delete;
  StartedChild& operator=(const StartedChild&) = delete;

  pid_t pid() const { return pid_; }
  // A pidfd of the direct child (readable once it has exited; -1 on kernels
  // without pidfd_open). Stays open until this object is destroyed.
  int pidfd() const { return pidfd_; }
  // Wait waits up to `timeout_ms` (negative: without limit) for the child.
  // The request's timeout fires whether or not anyone waits. True once it has ended and
  // been reaped (then result() holds its status, and the rest of its
  // process group has been killed).
  bool Wait(int timeout_ms);
  // Signal sends `sig` to the child's process group (sparing the direct
  // child when the request says so); nothing once it has been reaped.
  void Signal(int sig);
  // Kill sends SIGKILL to the whole process group.
  void Kill();
  bool done() const { return done_.load(); }
  const SpawnResult& result() const { return result_; }

 private:
  friend absl::StatusOr<std::unique_ptr<StartedChild>> StartChild(const SpawnRequest&,
                                                                  const ChildStdio&, SpawnError*);
  StartedChild() = default;
  void ReapLocked();  // mu_ held
  void PumpStderr();  // the stderr thread
  void KeepTime();    // the timeout's thread

  pid_t pid_ = -1;
  int pidfd_ = -1;
  bool spare_ = false;
  double kill_grace_seconds_ = 2;
  int64_t timeout_at_ms_ = -1;  // monotonic; -1: no timeout
  int64_t kill_at_ms_ = -1;     // after the timeout's TERM
  std::mutex mu_;
  std::atomic<bool> done_{false};
  SpawnResult result_;
  // stderr through a pipe, copied to the caller's descriptor and handed to
  // the sink by a thread of its own (SpawnRequest::stderr_sink).
  std::function<void(std::string_view)> sink_;
  int err_read_ = -1;
  int err_copy_ = -1;  // the caller's stderr, duplicated; -1: none
  std::atomic<bool> stop_pump_{false};
  std::thread pump_;
  // The timeout fires on a thread of its own (KeepTime), so an engine that
  // only watches the pidfd sees it too. Deadlines are read and written with
  // mu_ held.
  std::condition_variable timer_cv_;
  bool stop_timer_ = false;  // mu_ held
  std::thread timer_;
};

// StartChild starts `request`'s command with `stdio` and returns once it has
// exec'd; errors as SpawnAndWait's. It ignores after_start (the caller
// calls it). The parent-death signal of the child (and bwrap's
// --die-with-parent) fires when the thread that made it exits, so the clone
// is made on a thread that lives as long as the process: the calling thread
// when it is the main one, else the library's spawner thread. Either way
// with every signal blocked meanwhile, and the command starts with default
// dispositions and nothing blocked.
absl::StatusOr<std::unique_ptr<StartedChild>> StartChild(const SpawnRequest& request,
                                                         const ChildStdio& stdio,
                                                         SpawnError* error = nullptr);

// StartPaths counts where this process's StartChild clones were made (for
// tests and bench/): on the calling main thread, or on the spawner thread.
struct StartPaths {
  uint64_t on_main_thread = 0;
  uint64_t on_spawner_thread = 0;
};
StartPaths StartPathCounts();

// RunCaptured runs a short helper program for a probe (the bwrap probe, the
// launcher's `id` and wrapped `/bin/true`), started as SpawnAndWait starts
// its command but with nothing shared: a cleared environment, stdin on
// /dev/null, cwd "/", its own process group, stdout and stderr captured (at
// most 64 KiB each), killed with its group after a 10 s deadline. A program
// that cannot be executed gives exit_code 127 and "cannot execute ..." in
// `err`, as a shell would.
struct Captured {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;    // -1 when killed or not started
  std::string out, err;  // stdout, stderr (each at most 64 KiB)
  std::string spawn_error;
};

Captured RunCaptured(const std::vector<std::string>& argv);

// AtTerminalInForeground: stdin is a terminal whose foreground process
// group is ours, so SpawnAndWait hands the terminal to the child.
bool AtTerminalInForeground();

// ExitCodeForExecErrno maps a failed exec to the shell convention:
// 127 for ENOENT/ENOTDIR, 126 otherwise.
int ExitCodeForExecErrno(int err);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_HOST_SPAWN_H_
