// The protected directories of a bwrap run, on the host. A bwrap plan mounts
// over each protected directory of a writable root: a read-only bind of one
// that exists, an empty read-only tmpfs for a protected name that does not
// (a placeholder, docs/decisions.md). bwrap needs the placeholder's mount
// point on the host, in the root, and would leave that empty directory
// behind. So the runtime makes it before the run and removes it afterwards.
//
// Removing it is safe only when no other sandbox has it mounted: the kernel
// lets a directory be removed while another mount namespace has a mount on
// it, and then lazily unmounts that mount, so another run's command would
// lose its read-only placeholder and could create the protected name. Every
// run therefore holds a shared flock on each protected directory it mounts,
// for the whole run, and removes a directory it made only when it can take
// the exclusive lock.
//
// A protected directory the plan binds that is gone since the compile
// (another run removed its placeholder) is made again the same way.
//
//   ProtectedDirs dirs(plan);   // before the checks and the spawn
//   ... run bwrap ...
//   // ~ProtectedDirs: the placeholders this run made are gone
#ifndef CWSC_RUNTIME_PROTECTED_DIRS_H_
#define CWSC_RUNTIME_PROTECTED_DIRS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "ir/plan.h"

namespace cwsc::runtime {

class ProtectedDirs {
 public:
  ProtectedDirs() = default;  // holds nothing (plans that are not bwrap)
  // Takes the shared lock on each protected directory of `plan`'s writable
  // roots, making a placeholder's directory first when it is missing.
  explicit ProtectedDirs(const ir::LaunchPlan& plan);
  // Removes the placeholder directories this run made that are empty and
  // that no other run holds, and lets go of every lock.
  ~ProtectedDirs();
  ProtectedDirs(const ProtectedDirs&) = delete;
  ProtectedDirs& operator=(const ProtectedDirs&) = delete;

  // The protected directories held, as paths (for tests and messages).
  std::vector<std::string> Held() const;

 private:
  struct Dir {
    std::string path;
    int parent_fd = -1;  // O_PATH descriptor of the root the name is in
    std::string name;
    int fd = -1;  // the directory itself, flock()ed shared
    bool made = false;
  };
  void Hold(const std::string& path, bool placeholder);
  std::vector<Dir> dirs_;
};

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_PROTECTED_DIRS_H_
