// ReplayConsulted is the exec-time recheck of a plan's facts: every
// question the compile asked the host (ir::Consulted: the user, the
// environment variables read, whether API key variables are set, the probes,
// the Landlock ABI, every path) is asked again, and the first answer that
// differs refuses the run, naming the old and the new answer, as a build
// tool finds an output dirty when an input changed.
//
// A changed path is let through only where the sandbox cannot see it: a
// bwrap plan's view hides it (below a tmpfs or a /dev/null mask, or at a
// mask's own mount point while that is still itself: not a symlink, and
// resolving to itself where it exists; its kind the checks of the plan's
// mounts judge) and no mount's source is at or below it. What the
// plan relies on and the record lacks under that spelling (a worktree's
// metadata found through its .git file; an edited plan) is judged as it is
// now: a bind's source still exists as the kind bwrap binds and resolves to
// itself, a denied path that exists is hidden.
//
//   absl::Status s = ReplayConsulted(plan, facts, &view);   // view: bwrap kinds
#ifndef CWSC_RUNTIME_REPLAY_H_
#define CWSC_RUNTIME_REPLAY_H_

#include "absl/status/status.h"
#include "backends/verify/bwrap_interp.h"
#include "compiler/facts/host_facts.h"
#include "ir/plan.h"

namespace cwsc::runtime {

// FailedPrecondition with the refusal's reason (no "cwsc:" prefix), or OK.
// `view` is the plan's bwrap view, nullptr for other kinds (no path may
// then change).
absl::Status ReplayConsulted(const ir::LaunchPlan& plan, compiler::HostFacts& facts,
                             const backends::BwrapView* view);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_REPLAY_H_
