#include "compiler/driver/live_probe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace cwsc::driver {
namespace {

// RunQuiet runs argv with this process's environment, stdin/stdout on
// /dev/null, and returns its exit status (-1 when it could not start or died
// of a signal); `*err` gets the first line it wrote on stderr (what `cwsc
// run` says when it refuses to start the sandbox).
int RunQuiet(const std::vector<std::string>& argv, std::string* err) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int errfd = memfd_create("cwsc-probe-stderr", MFD_CLOEXEC);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  if (errfd >= 0) {
    posix_spawn_file_actions_adddup2(&fa, errfd, 2);
  } else {
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  bool waited = rc == 0;
  while (waited && waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) waited = false;
  }
  if (errfd >= 0) {
    char buf[512];
    ssize_t n = pread(errfd, buf, sizeof buf, 0);
    if (n > 0) err->assign(buf, static_cast<size_t>(n));
    err->resize(std::min(err->size(), err->find('\n')));
    close(errfd);
  }
  if (!waited) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Verdict reads a probe's exit status: 0 allowed, 1 denied, anything else
// (124 timeout, 125 the sandbox could not start, 126/127) means nothing was learnt.
LiveResult FromExit(int code, const std::string& how, const std::string& err) {
  LiveResult r;
  if (code == 0 || code == 1) {
    r.probed = true;
    r.allowed = code == 0;
    r.why = how;
  } else {
    r.why = absl::StrCat("the probe did not run (cwsc run exit ", code, err.empty() ? "" : ": ",
                         err, ")");
  }
  return r;
}

LiveResult Probe(const std::vector<std::string>& argv, const std::string& how) {
  std::string err;
  int code = RunQuiet(argv, &err);
  return FromExit(code, how, err);
}

std::vector<std::string> With(std::vector<std::string> argv,
                              std::initializer_list<std::string> more) {
  argv.insert(argv.end(), more);
  return argv;
}

}  // namespace

LiveResult LiveProbe(const std::vector<std::string>& run_argv, backends::AccessKind kind,
                     const std::string& path) {
  LiveResult none;
  struct stat st {};
  bool exists = lstat(path.c_str(), &st) == 0;
  switch (kind) {
    case backends::AccessKind::kRead: {
      if (!exists || !S_ISREG(st.st_mode)) {
        none.why = "not probed: not a regular file on this host";
        return none;
      }
      // A /dev/null mask is not a regular file: reading it reads nothing.
      return Probe(
          With(run_argv, {"/bin/sh", "-c", "[ -f \"$1\" ] && cat -- \"$1\" > /dev/null || exit 1",
                          "sh", path}),
          "cat");
    }
    case backends::AccessKind::kExec: {
      if (!exists || !S_ISREG(st.st_mode) || (st.st_mode & 0111) == 0) {
        none.why = "not probed: not an executable file on this host";
        return none;
      }
      return Probe(
          With(run_argv, {"/bin/sh", "-c", "[ -f \"$1\" ] && [ -x \"$1\" ] || exit 1", "sh", path}),
          "test -x");
    }
    case backends::AccessKind::kCreate:
    case backends::AccessKind::kWrite: {
      if (kind == backends::AccessKind::kCreate && !(exists && S_ISDIR(st.st_mode))) {
        none.why = "not probed: not a directory on this host";
        return none;
      }
      if (exists && S_ISREG(st.st_mode)) {
        // Open for appending, write nothing: the content stays as it was.
        return Probe(
            With(run_argv, {"/bin/sh", "-c",
                            "[ -f \"$1\" ] && ( : >> \"$1\" ) 2> /dev/null || exit 1", "sh", path}),
            "open for append");
      }
      std::string target = path;
      if (exists && S_ISDIR(st.st_mode)) {
        target = absl::StrCat(path, "/.cwsc-live-probe-", getpid());
      } else if (exists) {
        none.why = "not probed: neither a file nor a directory on this host";
        return none;
      } else {
        std::string parent = path.substr(0, path.rfind('/'));
        struct stat pst {};
        if (parent.empty()) parent = "/";
        if (stat(parent.c_str(), &pst) != 0 || !S_ISDIR(pst.st_mode)) {
          none.why = "not probed: its directory does not exist on this host";
          return none;
        }
      }
      struct stat tst {};
      if (lstat(target.c_str(), &tst) == 0) {
        none.why = absl::StrCat("not probed: ", target, " exists");
        return none;
      }
      // A failed redirection ends a subshell only, so the probe itself exits 0.
      std::string err;
      int code = RunQuiet(
          With(run_argv, {"/bin/sh", "-c", "( : > \"$1\" ) 2> /dev/null; exit 0", "sh", target}),
          &err);
      if (code != 0) return FromExit(code == 1 ? -1 : code, "", err);
      // Only what reached the host counts: a private tmpfs keeps the file inside.
      LiveResult r;
      r.probed = true;
      r.allowed = lstat(target.c_str(), &tst) == 0;
      r.why = absl::StrCat("create ", target, ", seen from the host");
      if (r.allowed) unlink(target.c_str());
      return r;
    }
    case backends::AccessKind::kNetwork: {
      // "HOST:PORT": only a loopback target can be probed, with cwsc's own
      // listener on that port; "" (any): a listener on a free port.
      int want_port = 0;
      if (!path.empty()) {
        size_t colon = path.rfind(':');
        std::string host = path.substr(0, colon);
        if (host != "127.0.0.1" && host != "localhost") {
          none.why = "not probed: only a loopback target can be probed";
          return none;
        }
        want_port = std::atoi(path.c_str() + colon + 1);
      }
      int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(static_cast<uint16_t>(want_port));
      socklen_t len = sizeof(a);
      if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
          listen(fd, 4) != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        if (fd >= 0) close(fd);
        none.why = "not probed: cannot listen on 127.0.0.1";
        return none;
      }
      if (access("/bin/bash", X_OK) != 0) {
        close(fd);
        none.why = "not probed: /bin/bash is needed to connect";
        return none;
      }
      int port = ntohs(a.sin_port);
      LiveResult r =
          Probe(With(run_argv, {"/bin/bash", "-c",
                                absl::StrCat("exec 3<>/dev/tcp/127.0.0.1/", port, " || exit 1")}),
                absl::StrCat("connect to a listener on the host's 127.0.0.1:", port));
      close(fd);
      return r;
    }
  }
  return none;
}

}  // namespace cwsc::driver
