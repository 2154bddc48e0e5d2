#include "runtime/result_channel.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>  // renameat
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace cwsc::runtime {
namespace {

bool WriteAllTo(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

absl::StatusOr<ResultChannel> OpenResultChannel(const std::optional<std::string>& output,
                                                const std::optional<std::string>& json_fd) {
  ResultChannel c;
  if (json_fd) {
    int fd = -1;
    if (!absl::SimpleAtoi(*json_fd, &fd) || fd < 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--json-fd: expected a descriptor number of 3 or more (0, 1 and 2 are the command's "
          "own), got '",
          *json_fd, "'"));
    }
    if (fcntl(fd, F_GETFD) < 0) {
      return absl::InvalidArgumentError(absl::StrCat("--json-fd ", fd, ": not an open descriptor"));
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC);  // never the command's
    c.fd = fd;
    return c;
  }
  if (!output) return c;
  const std::string& path = *output;
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  c.name = slash == std::string::npos ? path : path.substr(slash + 1);
  c.path = path;
  if (c.name.empty() || c.name == "." || c.name == "..") {
    return absl::InvalidArgumentError(absl::StrCat("-o ", path, ": not a file name"));
  }
  c.dir_fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (c.dir_fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("-o ", path, ": cannot open the directory ", dir, ": ", strerror(errno)));
  }
  return c;
}

bool WriteResult(const ResultChannel& c, const std::string& line, int* err) {
  if (c.fd >= 0) {
    if (WriteAllTo(c.fd, line)) return true;
    *err = errno;
    return false;
  }
  std::string tmp = absl::StrCat(".", c.name, ".cwsc-", getpid());
  int fd =
      openat(c.dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && WriteAllTo(fd, line);
  *err = errno;
  if (fd >= 0) close(fd);
  if (ok && renameat(c.dir_fd, tmp.c_str(), c.dir_fd, c.name.c_str()) != 0) {
    ok = false;
    *err = errno;
  }
  if (!ok && fd >= 0) unlinkat(c.dir_fd, tmp.c_str(), 0);
  return ok;
}

}  // namespace cwsc::runtime
