#include "compiler/file_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace cwsc::compiler {

FileText ReadFileText(const std::string& path, const ReadOptions& options) {
  FileText out;
  int flags = O_RDONLY | O_CLOEXEC;
  if (options.regular_only) flags |= O_NONBLOCK;  // opening a FIFO must not wait for a writer
  if (options.no_follow) flags |= O_NOFOLLOW;
  int fd = open(path.c_str(), flags);
  if (fd < 0) {
    out.open_errno = errno;
    return out;
  }
  if (options.regular_only) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
      out.open_errno = errno;
    } else if (!S_ISREG(st.st_mode)) {
      out.not_regular = true;
    } else if (static_cast<size_t>(st.st_size) > options.limit) {
      out.too_large = true;
    }
    if (!out.ok()) {
      close(fd);
      return out;
    }
  }
  char buf[16384];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      out.read_errno = errno;
      break;
    }
    out.data.append(buf, static_cast<size_t>(n));
    if (out.data.size() > options.limit) {
      out.too_large = true;
      break;
    }
  }
  close(fd);
  return out;
}

}  // namespace cwsc::compiler
