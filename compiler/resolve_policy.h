// The resolved policy, the resolver's first value (docs/behavior.md B-10 -
// B-12): the posture of the permission mode, narrowed by sandbox_mode, with
// its network stance, then an approved per-command escalation applied. The
// roots, the wrapper and the mounts (compiler/resolver.h) follow from it.
//
//   ir::Policy p = PolicyFor(in);                   // mode ask: workspace-write
//   CWSC_RETURN_IF_ERROR(ApplyEscalation(in, &p));  // --escalate, ask mode only
#ifndef CWSC_COMPILER_RESOLVE_POLICY_H_
#define CWSC_COMPILER_RESOLVE_POLICY_H_

#include "absl/status/status.h"
#include "compiler/resolve_input.h"
#include "ir/plan.h"

namespace cwsc::compiler {

// PolicyFor: the permission mode's policy narrowed by sandbox_mode (values
// normalized as docs/decisions.md (item 7) says).
ir::Policy PolicyFor(const ResolveInput& in);

// ApplyEscalation applies in.escalate, if any, to `p` (docs/behavior.md
// B-12); an escalation that is not allowed or not wider is an error.
absl::Status ApplyEscalation(const ResolveInput& in, ir::Policy* p);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_RESOLVE_POLICY_H_
