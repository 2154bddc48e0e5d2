#include "runtime/protected_dirs.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include "absl/strings/string_view.h"
#include "compiler/paths.h"
#include "runtime/bind_fds.h"

namespace cwsc::runtime {
namespace {

// SameDir: `name` in `parent_fd` is still the directory open at `fd` (not
// removed, or removed and made again, by another run).
bool SameDir(int parent_fd, const std::string& name, int fd) {
  struct stat by_name {
  }, held{};
  return fstatat(parent_fd, name.c_str(), &by_name, AT_SYMLINK_NOFOLLOW) == 0 &&
         fstat(fd, &held) == 0 && by_name.st_dev == held.st_dev && by_name.st_ino == held.st_ino;
}

absl::string_view Basename(absl::string_view path) {
  size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

int Flock(int fd, int op) {
  int rc;
  do {
    rc = flock(fd, op);
  } while (rc != 0 && errno == EINTR);
  return rc;
}

}  // namespace

ProtectedDirs::ProtectedDirs(const ir::LaunchPlan& plan) {
  std::set<std::string> seen;  // duplicate roots share their protected paths
  for (const ir::Root& r : plan.roots) {
    if (!r.writable_bind || r.canonical.empty()) continue;
    for (const ir::Protected& p : r.protected_paths) {
      if (!p.applied) continue;
      // A placeholder is mounted at the name under the root's canonical
      // path (compiler/resolve_roots.cc), a protected directory at its own.
      const std::string at_name = compiler::JoinPath(r.canonical.str(), Basename(p.path));
      std::string path = p.placeholder ? at_name : p.canonical;
      if (path.empty() || !seen.insert(path).second) continue;
      // A protected directory the compile saw at its name (perhaps another
      // run's placeholder) and that is gone now is made again, empty, as a
      // placeholder would be: its read-only bind then has a source.
      Hold(path, p.placeholder || path == at_name);
    }
  }
}

// Hold opens and share-locks the directory at `path`; for a placeholder it
// makes the directory when it is missing. A directory that is not there
// (or not a directory) is not held: bwrap then does what it would have done.
void ProtectedDirs::Hold(const std::string& path, bool placeholder) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash + 1 == path.size()) return;
  Dir d;
  d.path = path;
  d.name = path.substr(slash + 1);
  std::string parent = slash == 0 ? "/" : path.substr(0, slash);
  // The root as the compile saw it, following no symlink: a root swapped
  // for one since (by a concurrent command) is not followed; the exec-time
  // checks, which come after, refuse the run.
  d.parent_fd = OpenWithoutSymlinks(parent.c_str());
  if (d.parent_fd < 0) return;
  struct stat st {};
  if (fstat(d.parent_fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
    close(d.parent_fd);
    return;
  }
  // A few rounds: the directory may be removed by the run that made it
  // between our open and our lock (it held the exclusive lock).
  for (int round = 0; round < 4; ++round) {
    d.made = placeholder && mkdirat(d.parent_fd, d.name.c_str(), 0755) == 0;
    d.fd = openat(d.parent_fd, d.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d.fd < 0) break;
    if (Flock(d.fd, LOCK_SH) == 0 && SameDir(d.parent_fd, d.name, d.fd)) {
      dirs_.push_back(std::move(d));
      return;
    }
    close(d.fd);
    d.fd = -1;
  }
  if (d.made) unlinkat(d.parent_fd, d.name.c_str(), AT_REMOVEDIR);
  close(d.parent_fd);
}

ProtectedDirs::~ProtectedDirs() {
  for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it) {
    // The exclusive lock fails while another run holds the directory; an
    // entry that is not empty (made on the host during the run) stays.
    if (it->made && Flock(it->fd, LOCK_EX | LOCK_NB) == 0 &&
        SameDir(it->parent_fd, it->name, it->fd)) {
      unlinkat(it->parent_fd, it->name.c_str(), AT_REMOVEDIR);
    }
    close(it->fd);
    close(it->parent_fd);
  }
}

std::vector<std::string> ProtectedDirs::Held() const {
  std::vector<std::string> out;
  for (const Dir& d : dirs_) out.push_back(d.path);
  return out;
}

}  // namespace cwsc::runtime
