// The live launcher probe (docs/launcher.md "Probe"): the launcher's user
// and groups through `<launcher...> /usr/bin/id -u` and `-G`, then one
// `<launcher...> /usr/bin/bwrap ... -- /bin/true` with the deny masks. Each
// run has a cleared environment, stdin on /dev/null, cwd "/" and a 10 s
// deadline; the launcher's own error (e.g. `sudo: a password is required`)
// becomes the message.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/launcher.h"

namespace cwsc::compiler {
namespace {

constexpr int kDeadlineMs = 10000;
constexpr size_t kMaxOutput = 64 * 1024;

int64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

struct Captured {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;    // -1 when killed or not started
  std::string out, err;  // stdout, stderr (each at most 64 KiB)
  std::string spawn_error;
};

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
    // Both pipes closed; the child exits now (or is killed at the deadline).
    while (true) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (NowMs() >= deadline) {
        c.timed_out = true;
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      struct timespec ts {
        0, 5 * 1000 * 1000
      };
      nanosleep(&ts, nullptr);
    }
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

// Failure turns a failed run into one line: the launcher's first stderr line
// when it printed one, else the exit status.
std::string Failure(const Captured& c) {
  if (!c.spawn_error.empty()) return c.spawn_error;
  if (c.timed_out) return "timed out after 10 s";
  std::string first = c.err.substr(0, c.err.find('\n'));
  if (!first.empty()) return first;
  return absl::StrCat("exit status ", c.exit_code);
}

std::vector<std::string> With(const std::vector<std::string>& launcher,
                              std::initializer_list<const char*> tail) {
  std::vector<std::string> argv = launcher;
  for (const char* t : tail) argv.push_back(t);
  return argv;
}

}  // namespace

LauncherUser RunLauncherUserProbe(const std::vector<std::string>& launcher) {
  LauncherUser u;
  if (launcher.empty() || launcher[0].empty() || launcher[0][0] != '/') {
    u.message = absl::StrCat("the launcher's first program '", launcher.empty() ? "" : launcher[0],
                             "' is not an absolute path");
    return u;
  }
  Captured id_u = RunCaptured(With(launcher, {"/usr/bin/id", "-u"}));
  u.ran = id_u.started;
  if (id_u.exit_code != 0) {
    u.message = Failure(id_u);
    return u;
  }
  std::string text(absl::StripAsciiWhitespace(id_u.out));
  if (!absl::SimpleAtoi(text, &u.uid)) {
    u.message = absl::StrCat("`id -u` through the launcher printed '", text.substr(0, 80),
                             "', not a user id");
    return u;
  }
  Captured id_g = RunCaptured(With(launcher, {"/usr/bin/id", "-G"}));
  if (id_g.exit_code != 0) {
    u.message = Failure(id_g);
    return u;
  }
  std::string groups(absl::StripAsciiWhitespace(id_g.out));
  for (absl::string_view g : absl::StrSplit(groups, ' ', absl::SkipEmpty())) {
    uint32_t gid = 0;
    if (!absl::SimpleAtoi(g, &gid)) {
      u.message = absl::StrCat("`id -G` through the launcher printed '", groups.substr(0, 80),
                               "', not group ids");
      u.gids.clear();
      return u;
    }
    u.gids.push_back(gid);
  }
  if (u.gids.empty()) {
    u.message = "`id -G` through the launcher printed no group ids";
    return u;
  }
  std::sort(u.gids.begin(), u.gids.end());
  u.gids.erase(std::unique(u.gids.begin(), u.gids.end()), u.gids.end());
  u.ok = true;
  return u;
}

ProbeResult RunLauncherBwrapProbe(const std::vector<std::string>& launcher,
                                  const std::vector<std::string>& bwrap_argv) {
  ProbeResult r;
  std::vector<std::string> argv = launcher;
  argv.insert(argv.end(), bwrap_argv.begin(), bwrap_argv.end());
  if (argv.empty() || argv[0].empty() || argv[0][0] != '/') {
    r.message = "the launcher's first program is not an absolute path";
    return r;
  }
  Captured c = RunCaptured(argv);
  r.ran = c.started;
  r.exit_code = c.exit_code;
  r.ok = c.exit_code == 0 && c.spawn_error.empty() && !c.timed_out;
  if (!r.ok) r.message = Failure(c);
  return r;
}

}  // namespace cwsc::compiler
