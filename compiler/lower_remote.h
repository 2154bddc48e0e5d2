// LowerRemote takes the remote path of a plan (docs/behavior.md B-70, docs/opensandbox.md):
// when `sandbox_backend` names OpenSandbox (trimmed, case-insensitive:
// opensandbox | open-sandbox | open_sandbox) the plan becomes kind
// opensandbox with `plan.remote()` filled (contract, URL, where the key comes
// from, what the remote side does not enforce). An unsupported backend, or one
// that cannot be used (bad URL, missing required setting), gives a refused
// plan with the reason: never local execution.
//
//   if (spec.sandbox_backend->value.kind != BackendKind::kNone) {
//     LowerRemote(spec, &plan); return plan;
//   }
//
// Call it after the policy, roots and deny list are resolved (they decide
// `not_enforced`) and before any wrapper or launcher logic.
#ifndef CWSC_COMPILER_LOWER_REMOTE_H_
#define CWSC_COMPILER_LOWER_REMOTE_H_

#include <optional>
#include <string>

#include "compiler/policy_spec.h"
#include "ir/plan.h"

namespace cwsc::compiler {

// kDefaultSandboxUrl is the Codewhale default for sandbox_url.
inline constexpr char kDefaultSandboxUrl[] = "http://localhost:8080";

// CheckRemoteUrl returns why `url` cannot be used as a base URL, or nullopt.
std::optional<std::string> CheckRemoteUrl(const std::string& url);

// LowerRemote sets plan->kind(), plan->remote() / plan->refusal() (and clears the
// local-wrapper parts of the plan, which do not apply).
void LowerRemote(const PolicySpec& spec, ir::LaunchPlan* plan);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_LOWER_REMOTE_H_
