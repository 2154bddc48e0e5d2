// Bind sources by descriptor (docs/runtime.md, "Threat model": time of
// check to time of use). Every path a bwrap argv names is looked up again by
// bwrap when it mounts, after all of cwsc's checks; a command running at the
// same time in a writable root could swap a directory for a symlink in
// between. OpenBindSources opens each bind source of a linux-bwrap plan
// itself, following no symlink on any component (the plan's sources are
// canonical, so none is expected), checks the opened object against the
// facts the plan was checked with (a directory, same owner, group and
// mode), and hands bwrap the descriptor (`--bind-fd`, `--ro-bind-fd`).
#ifndef CWSC_RUNTIME_BIND_FDS_H_
#define CWSC_RUNTIME_BIND_FDS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/facts/host_facts.h"
#include "ir/plan.h"

namespace cwsc::runtime {

// BindSources owns the opened descriptors: one entry per plan mount, -1
// where bwrap keeps the path (the base `/`, /dev/null masks, kernel
// interfaces, device binds, mounts without a source).
class BindSources {
 public:
  BindSources() = default;
  BindSources(BindSources&& other) noexcept : fds_(std::move(other.fds_)) { other.fds_.clear(); }
  BindSources& operator=(BindSources&&) = delete;
  BindSources(const BindSources&) = delete;
  ~BindSources();
  const std::vector<int>& fds() const { return fds_; }
  std::vector<int>* mutable_fds() { return &fds_; }

 private:
  std::vector<int> fds_;
};

// OpenBindSources: FailedPrecondition naming the mount when a source is
// missing, reached through a symlink, or no longer what `facts` said.
absl::StatusOr<BindSources> OpenBindSources(const ir::LaunchPlan& plan, compiler::HostFacts& facts);

// OpenWithoutSymlinks opens `path` (absolute) with O_PATH, following no
// symlink on any component: -1 with errno set (ELOOP for a symlink).
int OpenWithoutSymlinks(const char* path);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_BIND_FDS_H_
