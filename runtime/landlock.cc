#include "runtime/landlock.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/bind_fds.h"

namespace cwsc::runtime {
namespace {

// The kernel's structures as of ABI 6 (the installed header may be older).
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};
struct __attribute__((packed)) PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
};

int CreateRuleset(const RulesetAttr* attr, size_t size, uint32_t flags) {
  return static_cast<int>(syscall(SYS_landlock_create_ruleset, attr, size, flags));
}

int AddPathRule(int ruleset, int fd, uint64_t access) {
  PathBeneathAttr a{access, fd};
  return static_cast<int>(
      syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &a, 0));
}

// AddOne adds a rule for the object `fd`: a directory gets `access`, a
// file only the file rights of it; a symlink gets nothing.
absl::Status AddOne(int ruleset, int fd, uint64_t access, const std::string& path, int* added) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot stat ", path, ": ", strerror(errno)));
  }
  if (S_ISLNK(st.st_mode)) return absl::OkStatus();
  if (!S_ISDIR(st.st_mode)) access &= ir::kLandlockFsFileRights;
  if (access == 0) return absl::OkStatus();
  if (AddPathRule(ruleset, fd, access) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("the Landlock rule for ", path, " (", ir::LandlockFsAccessNames(access),
                     ") was refused by the kernel: ", strerror(errno)));
  }
  ++*added;
  return absl::OkStatus();
}

// What reading needs; any other right (writing, making, removing, linking)
// is refused rather than granted through a symlink.
constexpr uint64_t kReadRights =
    ir::kLandlockFsExecute | ir::kLandlockFsReadFile | ir::kLandlockFsReadDir;

}  // namespace

int HostLandlockAbi() {
  int abi = CreateRuleset(nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : abi;
}

LandlockRuleset::~LandlockRuleset() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<LandlockRuleset> BuildLandlockRuleset(const ir::Landlock& ll) {
  int host = HostLandlockAbi();
  if (host < 1) {
    return absl::FailedPreconditionError(
        "the plan needs Landlock, but this kernel does not offer it (landlock_create_ruleset "
        "failed); compile the plan on this host");
  }
  if (host < ll.abi) {
    return absl::FailedPreconditionError(absl::StrCat("the plan was compiled for Landlock ABI ",
                                                      ll.abi, ", but this kernel offers ABI ", host,
                                                      "; compile the plan on this host"));
  }
  RulesetAttr attr{ll.handled_fs, ll.handled_net, ll.scoped};
  int fd = CreateRuleset(&attr, sizeof attr, 0);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("landlock_create_ruleset refused the plan's ruleset (filesystem ",
                     ir::LandlockFsAccessNames(ll.handled_fs), ", network ",
                     ir::LandlockNetAccessNames(ll.handled_net), ", scopes ",
                     ir::LandlockScopeNames(ll.scoped), "): ", strerror(errno)));
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  LandlockRuleset rs(fd);
  for (const ir::LandlockRule& r : ll.rules) {
    // A rule's path is canonical: it is opened following no symlink on any
    // component (runtime/bind_fds.h), so a command that swapped a directory
    // on the way for a symlink (at the same time, from another sandbox, or
    // in an earlier run) cannot carry the grant to where the link points.
    // Such a path refuses the run when the rule grants more than reading;
    // a read grant is left out (less access, never more).
    int obj = OpenWithoutSymlinks(r.path.c_str());
    if (obj < 0) {
      if (errno == ELOOP && (r.access & ~kReadRights) != 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the Landlock rule for ", r.path, " (", ir::LandlockFsAccessNames(r.access),
            ") would be reached through a symlink, which the command may have put "
            "there; compile the plan again"));
      }
      continue;  // missing, or a read grant through a symlink: nothing to grant
    }
    if (r.except_names.empty()) {
      absl::Status s = AddOne(fd, obj, r.access, r.path, &rs.rules_added);
      close(obj);
      if (!s.ok()) return s;
      continue;
    }
    // Every entry of the directory but the excluded names, as it is now.
    int dfd = openat(obj, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    close(obj);
    if (dfd < 0) continue;
    DIR* dir = fdopendir(dfd);
    if (dir == nullptr) {
      close(dfd);
      continue;
    }
    absl::Status status = absl::OkStatus();
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (std::binary_search(r.except_names.begin(), r.except_names.end(), name)) continue;
      int obj = openat(dfd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (obj < 0) continue;
      std::string path = r.path == "/" ? "/" + name : r.path + "/" + name;
      status = AddOne(fd, obj, r.access, path, &rs.rules_added);
      close(obj);
      if (!status.ok()) break;
    }
    closedir(dir);
    if (!status.ok()) return status;
  }
  return rs;
}

}  // namespace cwsc::runtime
