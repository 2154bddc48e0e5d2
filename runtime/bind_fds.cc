#include "runtime/bind_fds.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/bwrap.h"

namespace cwsc::runtime {
namespace {

using compiler::FileType;
using compiler::PathInfo;

// The descriptors sit above those the child is given (0-2, the seccomp
// program's 3), so no dup2 in the child lands on one.
constexpr int kLowestFd = 64;

// BoundByPath: mounts whose source stays a path. `/` and /dev/null cannot
// be swapped by a sandboxed command; /proc and /sys sources are the
// kernel's; bwrap has no descriptor form of --dev-bind.
bool BoundByPath(const ir::Mount& m) {
  if (m.op != ir::MountOp::kReadOnlyBind && m.op != ir::MountOp::kWritableBind) return true;
  const std::string& src = m.source;
  return src == "/" || src == "/dev/null" || absl::StartsWith(src, "/proc/") ||
         absl::StartsWith(src, "/sys/");
}

// WalkWithoutSymlinks is OpenWithoutSymlinks for kernels without openat2:
// one O_PATH|O_NOFOLLOW open per component, each checked not to be a link.
int WalkWithoutSymlinks(const char* path) {
  int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  std::string rest = path;
  size_t at = 0;
  while (at < rest.size()) {
    while (at < rest.size() && rest[at] == '/') ++at;
    if (at >= rest.size()) break;
    size_t end = rest.find('/', at);
    if (end == std::string::npos) end = rest.size();
    std::string name = rest.substr(at, end - at);
    at = end;
    if (name == "." || name == "..") {
      close(dir);
      errno = EINVAL;
      return -1;
    }
    int next = openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    int saved = errno;
    close(dir);
    if (next < 0) {
      errno = saved;
      return -1;
    }
    struct stat st {};
    if (fstat(next, &st) != 0 || S_ISLNK(st.st_mode)) {
      close(next);
      errno = ELOOP;
      return -1;
    }
    dir = next;
  }
  return dir;
}

std::string ModeText(uint32_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

// Mismatch: what changed between the facts and the opened object ("" when
// nothing did).
std::string Mismatch(const struct stat& st, const PathInfo& want) {
  if (!S_ISDIR(st.st_mode)) return "is no longer a directory";
  if (want.type != FileType::kDirectory) return "was not a directory when checked";
  if (st.st_uid != want.uid || st.st_gid != want.gid) {
    return absl::StrCat("is now owned by uid ", st.st_uid, " gid ", st.st_gid, " (checked: uid ",
                        want.uid, " gid ", want.gid, ")");
  }
  if ((st.st_mode & 07777) != want.mode) {
    return absl::StrCat("now has mode ", ModeText(st.st_mode), " (checked: ", ModeText(want.mode),
                        ")");
  }
  return "";
}

std::string MountText(size_t i, const ir::Mount& m) {
  return absl::StrCat("mount ", i + 1, " (", backends::MountOpFlag(m.op), " ", m.source.str(), ": ",
                      m.why.str(), ")");
}

// RaiseFdLimit: a plan with many binds needs as many descriptors at once.
void RaiseFdLimit(size_t needed) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
  rlim_t want = needed + kLowestFd + 64;
  if (lim.rlim_cur >= want) return;
  lim.rlim_cur = lim.rlim_max == RLIM_INFINITY || lim.rlim_max > want ? want : lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
}

}  // namespace

BindSources::~BindSources() {
  for (int fd : fds_) {
    if (fd >= 0) close(fd);
  }
}

int OpenWithoutSymlinks(const char* path) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  if (fd >= 0) return static_cast<int>(fd);
  if (errno != ENOSYS && errno != EPERM) return -1;  // EPERM: a filter refused openat2
  return WalkWithoutSymlinks(path);
}

absl::StatusOr<BindSources> OpenBindSources(const ir::LaunchPlan& plan,
                                            compiler::HostFacts& facts) {
  BindSources out;
  std::vector<int>& fds = *out.mutable_fds();
  const std::span<const ir::Mount> mounts = plan.mounts();
  fds.assign(mounts.size(), -1);
  size_t count = 0;
  for (const ir::Mount& m : mounts) count += !BoundByPath(m);
  RaiseFdLimit(count);
  for (size_t i = 0; i < mounts.size(); ++i) {
    const ir::Mount& m = mounts[i];
    if (BoundByPath(m)) continue;
    int fd = OpenWithoutSymlinks(m.source.c_str());
    if (fd < 0) {
      int err = errno;
      return absl::FailedPreconditionError(
          absl::StrCat(MountText(i, m), ": ", m.source.str(),
                       err == ELOOP ? " is now reached through a symlink"
                       : err == ENOENT || err == ENOTDIR
                           ? " is now missing"
                           : absl::StrCat(" cannot be opened (", std::strerror(err), ")"),
                       "; compile the plan again"));
    }
    int high = fcntl(fd, F_DUPFD_CLOEXEC, kLowestFd);
    close(fd);
    if (high < 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          MountText(i, m), ": no descriptor left to bind it (", std::strerror(errno), ")"));
    }
    fds[i] = high;
    struct stat st {};
    if (fstat(high, &st) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(MountText(i, m), ": fstat: ", std::strerror(errno)));
    }
    std::string changed = Mismatch(st, facts.Path(m.source));
    if (!changed.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(MountText(i, m), ": ", m.source.str(), " ",
                                                        changed, "; compile the plan again"));
    }
  }
  return out;
}

}  // namespace cwsc::runtime
