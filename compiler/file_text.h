// ReadFileText: a whole file read with open(2) and read(2). It serves the
// reads on the path of every `cwsc run` (the config, the probe cache,
// /proc files), where setting up an iostream would cost more than the read.
//
//   FileText t = ReadFileText("/proc/self/status", {.limit = 1 << 20});
//   if (t.ok()) Parse(t.data);
#ifndef CWSC_COMPILER_FILE_TEXT_H_
#define CWSC_COMPILER_FILE_TEXT_H_

#include <cstddef>
#include <string>

namespace cwsc::compiler {

struct ReadOptions {
  size_t limit = 0;           // more bytes than this is `too_large`
  bool regular_only = false;  // refuse anything but a regular file (a FIFO would block)
  bool no_follow = false;     // O_NOFOLLOW: a symlink as the last component fails
};

struct FileText {
  std::string data;
  int open_errno = 0;        // open(2) or fstat(2) failed with this errno
  int read_errno = 0;        // read(2) failed with this errno
  bool not_regular = false;  // regular_only, and the file is not a regular file
  bool too_large = false;    // the file holds more than `limit` bytes
  bool ok() const { return open_errno == 0 && read_errno == 0 && !not_regular && !too_large; }
};

// ReadFileText reads `path` whole; EINTR is retried. On any failure `data`
// holds what was read before it.
FileText ReadFileText(const std::string& path, const ReadOptions& options);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_FILE_TEXT_H_
