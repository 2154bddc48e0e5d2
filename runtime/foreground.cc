#include "runtime/foreground.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "ir/display.h"

namespace cwsc::runtime {

std::string AddForegroundShim(std::vector<std::string>* argv) {
  char self[4096];
  if (realpath("/proc/self/exe", self) == nullptr) {
    int err = errno;
    char link[4096];
    ssize_t n = readlink("/proc/self/exe", link, sizeof link - 1);
    std::string what = n > 0 ? std::string(link, static_cast<size_t>(n)) : "/proc/self/exe";
    return "this cwsc binary (" + what + ") cannot be found by path: " + std::strerror(err);
  }
  auto dashdash = std::find(argv->begin(), argv->end(), "--");
  if (dashdash == argv->end()) return "the bwrap argv has no `--`";
  size_t at = static_cast<size_t>(dashdash - argv->begin());
  // After `--`: the shim, its command word and its own `--`.
  argv->insert(argv->begin() + static_cast<long>(at) + 1,
               {kForegroundShimPath, kForegroundShimCommand, "--"});
  // Before `--`: the bind that puts this binary at the shim's path.
  argv->insert(argv->begin() + static_cast<long>(at), {"--ro-bind", self, kForegroundShimPath});
  return "";
}

void RunForegroundShim(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[2], "--") != 0) {
    std::fputs("cwsc: __foreground is internal: __foreground -- PROGRAM ARGS...\n", stderr);
    std::fflush(stderr);
    _exit(2);
  }
  setpgid(0, 0);
  int tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (tty >= 0) {
    // tcsetpgrp from what is now a background group raises SIGTTOU.
    sigset_t ttou, old;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    sigprocmask(SIG_BLOCK, &ttou, &old);
    tcsetpgrp(tty, getpid());
    sigprocmask(SIG_SETMASK, &old, nullptr);
    close(tty);
  }
  execvp(argv[3], argv + 3);
  int err = errno;
  std::fprintf(stderr, "cwsc: cannot run '%s': %s\n", ir::Displayable(argv[3]).c_str(),
               std::strerror(err));
  std::fflush(stderr);
  _exit(err == ENOENT || err == ENOTDIR ? 127 : 126);
}

}  // namespace cwsc::runtime
