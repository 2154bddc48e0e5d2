// RunCaptured: one short helper run for the probes (see run_captured.h).
#include "runtime/host/run_captured.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace cwsc::runtime {
namespace {

constexpr int kDeadlineMs = 10000;
constexpr size_t kMaxOutput = 64 * 1024;

int64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace

Captured RunCaptured(const std::vector<std::string>& argv) {
  Captured c;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    c.spawn_error = absl::StrCat("pipe: ", std::strerror(errno));
    return c;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    c.spawn_error = absl::StrCat("pipe: ", std::strerror(errno));
    close(out_pipe[0]);
    close(out_pipe[1]);
    return c;
  }
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  char* empty_env[] = {nullptr};
  pid_t pid = fork();
  if (pid < 0) {
    c.spawn_error = absl::StrCat("fork: ", std::strerror(errno));
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    return c;
  }
  if (pid == 0) {
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    if (chdir("/") != 0) _exit(126);
    execve(cargv[0], cargv.data(), empty_env);
    dprintf(2, "cannot execute %s: %s\n", cargv[0], std::strerror(errno));
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  c.started = true;
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
