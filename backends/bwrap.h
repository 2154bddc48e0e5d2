// EmitBwrapArgv renders a linux-bwrap or launcher+bwrap plan as an argv in
// the order of docs/decisions.md (item 3) / docs/behavior.md B-42:
//
//   [launcher...] /usr/bin/bwrap --unshare-all [--share-net] --die-with-parent
//     <mounts in plan order> --chdir <cwd> -- <program> <args...>
//
// With no program the argv ends at `--`. Every token carries its Origin.
#ifndef CWSC_BACKENDS_BWRAP_H_
#define CWSC_BACKENDS_BWRAP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/emitted.h"
#include "ir/plan.h"

namespace cwsc::backends {

// MountOpFlag is bwrap's spelling of a mount operation: "--ro-bind", "--bind", ...
const char* MountOpFlag(ir::MountOp op);

// `source_fds`, when not empty, has one entry per plan mount: a read-only or
// writable bind whose entry is a descriptor (>= 0) is emitted as
// `--ro-bind-fd FD DEST` / `--bind-fd FD DEST`, binding the object the
// runtime opened and checked instead of whatever the path names when bwrap
// looks it up (runtime/bind_fds.h). The printed plan keeps paths.
absl::StatusOr<EmittedArgv> EmitBwrapArgv(const ir::LaunchPlan& plan,
                                          const std::vector<std::string>& program,
                                          const std::vector<int>& source_fds = {});

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_BWRAP_H_
