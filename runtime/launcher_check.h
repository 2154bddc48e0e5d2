// The exec-time checks of launcher plans (docs/launcher.md): a plan is
// compiled once and may run later or on another host, so before anything
// runs `cwsc exec` and `cwsc run` ask the host again, through HostFacts.
//
//   absl::Status s = RecheckLauncher(plan, *facts);   // launcher+bwrap plans
//   absl::Status p = CheckHostLauncher(plan, *facts); // every plan
#ifndef CWSC_RUNTIME_LAUNCHER_CHECK_H_
#define CWSC_RUNTIME_LAUNCHER_CHECK_H_

#include "absl/status/status.h"
#include "compiler/facts/host_facts.h"
#include "ir/plan.h"

namespace cwsc::runtime {

// RecheckLauncher is the exec-time check of a launcher+bwrap plan: the
// launcher's first program is still an absolute executable file, and the
// launcher probe (user, then a wrapped /bin/true with the plan's own deny
// masks) passes through `facts` (cached per process). FailedPrecondition's
// message is the refusal reason.
absl::Status RecheckLauncher(const ir::LaunchPlan& plan, compiler::HostFacts& facts);

// CheckHostLauncher is the exec-time guard for plans compiled elsewhere:
// when this host's managed config (CODEWHALE_MANAGED_CONFIG_PATH or the
// default path) sets tool_launcher, only a launcher+bwrap plan with that
// same launcher may run here. Refused and opensandbox plans pass through
// (nothing runs locally for them).
absl::Status CheckHostLauncher(const ir::LaunchPlan& plan, compiler::HostFacts& facts);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_LAUNCHER_CHECK_H_
