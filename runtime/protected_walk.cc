#include "runtime/protected_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ir/status_macros.h"

namespace cwsc::runtime {
namespace {

// StaysInside: the symlink at `link` (below `top`) with target `target`
// names, lexically, a path inside `top`, and its target climbs with no
// "..". This is the whole check only where the kernel has no openat2 (see
// LinkStaysInside): a ".." after a link is resolved from where the link
// leads, not lexically, so without the kernel's own walk a target with ".."
// is taken to leave.
bool StaysInside(const std::string& top, const std::string& link, const std::string& target) {
  if (target.empty() || target[0] == '/') {
    return absl::StartsWith(target, top + "/") || target == top;
  }
  std::vector<std::string> parts;
  for (absl::string_view c : absl::StrSplit(link.substr(0, link.rfind('/')), '/')) {
    if (!c.empty()) parts.emplace_back(c);
  }
  for (absl::string_view c : absl::StrSplit(target, '/')) {
    if (c.empty() || c == ".") continue;
    if (c == "..") return false;
    parts.emplace_back(c);
  }
  std::string path;
  for (const std::string& p : parts) absl::StrAppend(&path, "/", p);
  return path == top || absl::StartsWith(path, top + "/");
}

// Inside is what LinkStaysInside found.
enum class Inside { kYes, kNo, kUnknown };

// LinkStaysInside asks the kernel where the symlink at `rel` (relative to
// the protected directory `top_fd`) leads: openat2 with RESOLVE_BENEATH
// follows it, and every link after it, exactly as a reader would, and
// fails with EXDEV the moment the walk would leave `top_fd`. An absolute
// target spelled inside `top` is asked from `top_fd` the same way. A walk
// that stays inside and ends at a missing name stays inside (the directory
// is read-only in the sandbox). kUnknown: no openat2, or an error that
// says nothing about where the link leads.
Inside LinkStaysInside(int top_fd, const std::string& top, const std::string& rel,
                       const std::string& target, int* err) {
  std::string from = rel;
  if (!target.empty() && target[0] == '/') {
    if (target == top) return Inside::kYes;
    if (!absl::StartsWith(target, top + "/")) return Inside::kNo;
    from = target.substr(top.size() + 1);
  }
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0; attempt < 8; ++attempt) {
    long fd = syscall(SYS_openat2, top_fd, from.c_str(), &how, sizeof how);
    if (fd >= 0) {
      close(static_cast<int>(fd));
      return Inside::kYes;
    }
    *err = errno;
    if (errno == EAGAIN) continue;  // a rename meanwhile: the kernel asks to retry
    if (errno == ENOENT || errno == ENOTDIR) return Inside::kYes;
    if (errno == EXDEV) return Inside::kNo;
    return Inside::kUnknown;
  }
  return Inside::kUnknown;
}

class Walker {
 public:
  Walker(const std::string& top, const std::string& root, size_t* budget)
      : top_(top), root_(root), budget_(budget) {}
  Walker(const Walker&) = delete;
  Walker& operator=(const Walker&) = delete;
  ~Walker() {
    for (const Level& l : stack_) closedir(l.dir);
    if (top_fd_ >= 0) close(top_fd_);
  }

  // Walk: `fd` is the directory `top`, opened without following a symlink;
  // it is closed here. Depth first with a stack of its own: one open
  // directory and the length of its path per level, so a tree nested
  // thousands of levels deep (past PATH_MAX: every open is relative) costs
  // no call stack and no copy of its path per level. A level that cannot be
  // opened, no descriptor left included, refuses the run.
  absl::Status Walk(int fd) {
    path_ = top_;
    // Links are followed from the top, beneath it (LinkStaysInside).
    top_fd_ = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (top_fd_ < 0) {
      int err = errno;
      close(fd);
      return Unreadable(path_, err);
    }
    CWSC_RETURN_IF_ERROR(Push(fd));
    while (!stack_.empty()) {
      Level& level = stack_.back();
      path_.resize(level.path_size);
      errno = 0;
      dirent* e = readdir(level.dir);
      if (e == nullptr) {
        if (errno != 0) return Unreadable(path_, errno);
        closedir(level.dir);
        stack_.pop_back();
        continue;
      }
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      absl::StrAppend(&path_, "/", e->d_name);
      CWSC_RETURN_IF_ERROR(Entry(dirfd(level.dir), e->d_name));
    }
    return absl::OkStatus();
  }

 private:
  struct Level {
    DIR* dir;
    size_t path_size;  // path_ is this directory's path when cut to it
  };

  absl::Status Push(int fd) {
    DIR* d = fdopendir(fd);
    if (d == nullptr) {
      int err = errno;
      close(fd);
      return Unreadable(path_, err);
    }
    stack_.push_back(Level{d, path_.size()});
    return absl::OkStatus();
  }

  // Entry checks path_, the entry `name` of the directory `parent`.
  absl::Status Entry(int parent, const char* name) {
    const std::string& path = path_;
    if (*budget_ == 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the protected directory ", top_, " holds more than ", kProtectedWalkBudget,
          " entries, too many to check for hard links and symlinks before every run (at ", path,
          "); make it smaller, or take its name off the protected names"));
    }
    --*budget_;
    struct stat st {};
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return Unreadable(path, errno);
    if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the protected file ", path,
          " has more than one hard link; a name for it outside the protected directory may "
          "be writable in the sandbox; remove the extra links (find ",
          root_, " -samefile ", path, ")"));
    }
    if (S_ISLNK(st.st_mode)) {
      std::string target(4096, '\0');
      ssize_t n = readlinkat(parent, name, target.data(), target.size() - 1);
      if (n < 0) return Unreadable(path, errno);
      target.resize(static_cast<size_t>(n));
      int err = 0;
      Inside inside = LinkStaysInside(top_fd_, top_, path.substr(top_.size() + 1), target, &err);
      if (inside == Inside::kUnknown) {
        if (err != ENOSYS && err != EPERM) return Unreadable(path, err);
        // No openat2 (or a filter refused it): the lexical rule, with no "..".
        inside = StaysInside(top_, path, target) ? Inside::kYes : Inside::kNo;
      }
      if (inside == Inside::kNo) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the protected directory ", top_, " holds the symlink ", path, " -> ", target,
            ", which leads out of it, where the sandbox may write; remove the link"));
      }
      return absl::OkStatus();
    }
    if (!S_ISDIR(st.st_mode)) return absl::OkStatus();
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return Unreadable(path, errno);
    return Push(fd);
  }

  absl::Status Unreadable(const std::string& path, int err) const {
    return absl::FailedPreconditionError(absl::StrCat("cannot check the protected path ", path,
                                                      " for hard links and symlinks (",
                                                      std::strerror(err), ")"));
  }

  const std::string& top_;
  const std::string& root_;
  size_t* budget_;
  int top_fd_ = -1;           // the top directory, for LinkStaysInside
  std::string path_;          // the entry being checked
  std::vector<Level> stack_;  // the open directories, top first
};

}  // namespace

absl::Status CheckProtectedTree(const std::string& dir, const std::string& root, size_t* budget) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return absl::OkStatus();   // the bind's own check reports it
    if (errno == ENOTDIR) return absl::OkStatus();  // a protected file: no tree below it
    return absl::FailedPreconditionError(absl::StrCat("cannot check the protected path ", dir,
                                                      " for hard links and symlinks (",
                                                      std::strerror(errno), ")"));
  }
  return Walker(dir, root, budget).Walk(fd);
}

}  // namespace cwsc::runtime
