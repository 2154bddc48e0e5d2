#include "runtime/foreground.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cwsc::runtime {

bool AddForegroundShim(std::vector<std::string>* argv) {
  char self[4096];
  if (realpath("/proc/self/exe", self) == nullptr) return false;
  auto dashdash = std::find(argv->begin(), argv->end(), "--");
  if (dashdash == argv->end()) return false;
  size_t at = static_cast<size_t>(dashdash - argv->begin());
  // After `--`: the shim, its command word and its own `--`.
  argv->insert(argv->begin() + static_cast<long>(at) + 1,
               {kForegroundShimPath, kForegroundShimCommand, "--"});
  // Before `--`: the bind that puts this binary at the shim's path.
  argv->insert(argv->begin() + static_cast<long>(at), {"--ro-bind", self, kForegroundShimPath});
  return true;
}

int RunForegroundShim(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[2], "--") != 0) {
    std::fputs("cwsc: __foreground is internal: __foreground -- PROGRAM ARGS...\n", stderr);
    return 2;
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
  std::fprintf(stderr, "cwsc: cannot run '%s': %s\n", argv[3], std::strerror(err));
  return err == ENOENT || err == ENOTDIR ? 127 : 126;
}

}  // namespace cwsc::runtime
