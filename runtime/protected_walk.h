// The exec-time walk of a protected directory (docs/runtime.md, "Exec-time
// checks"). A protected directory is bound read-only, but a file in it with
// a second hard link could be written through the other name, and a
// symlink in it could send its reader (the agent reading its own config)
// to a file the command may write. Either may have been prepared while the
// directory was not protected (an earlier run whose root was its parent's
// parent). The walk goes to every depth, through descriptors, and fails
// closed: past its entry budget it refuses rather than say "none found".
#ifndef CWSC_RUNTIME_PROTECTED_WALK_H_
#define CWSC_RUNTIME_PROTECTED_WALK_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"

namespace cwsc::runtime {

// kProtectedWalkBudget: entries one run examines, over all its protected
// directories; a protected directory with more (a large .git) is refused
// with the path and the fix.
inline constexpr size_t kProtectedWalkBudget = 100000;

// CheckProtectedTree: OK when no regular file below `dir` has more than one
// hard link and no symlink below it points outside `dir`. `budget` is
// decremented per entry; FailedPrecondition naming the path otherwise.
// `root` is the writable root `dir` is protected under (for the fix text).
absl::Status CheckProtectedTree(const std::string& dir, const std::string& root, size_t* budget);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_PROTECTED_WALK_H_
