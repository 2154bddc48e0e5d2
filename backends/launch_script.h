// The launch script (`cwsc compile --format script`): one POSIX sh script
// that runs a plan's argv as printed is safe to run, where the bare argv is
// not: the environment cleared but for the plan's allow-list and markers,
// and the seccomp program, when the argv reads one, on descriptor 3.
//
//   absl::StatusOr<std::string> s = EmitLaunchScript(plan, argv, "0.1.0");
//
// What the script does not do that `cwsc run` does (the exec-time checks,
// binds by descriptor, placeholders, the foreground shim) its header says;
// docs/decisions.md, "The launch script".
#ifndef CWSC_BACKENDS_LAUNCH_SCRIPT_H_
#define CWSC_BACKENDS_LAUNCH_SCRIPT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/plan.h"

namespace cwsc::backends {

// EmitLaunchScript renders the script for `argv` (the plan's artifact as
// `--format lines` prints it); when the argv reads bwrap's `--seccomp 3`,
// the script carries the plan's seccomp program. FailedPrecondition when
// the plan's kind is applied by cwsc itself (linux-landlock, opensandbox),
// when the argv reads a descriptor the plan has no program for, or when
// the argv cannot follow `env` (its first token holds '=', which env would
// take for a variable).
absl::StatusOr<std::string> EmitLaunchScript(const ir::LaunchPlan& plan,
                                             const std::vector<std::string>& argv,
                                             absl::string_view tool_version);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_LAUNCH_SCRIPT_H_
