// ResolvePlan turns the merged policy layers, the permission mode and the
// host facts into a LaunchPlan: posture → policy (docs/behavior.md B-10), narrowing by
// sandbox_mode, writable roots (docs/behavior.md B-20) with verified worktree metadata (B-21),
// protected descendants, the deny list (docs/behavior.md B-50), wrapper selection (B-30) and the
// bwrap mount list (docs/behavior.md B-41–B-43) in the order of docs/decisions.md (item 3).
#ifndef CWSC_COMPILER_RESOLVE_H_
#define CWSC_COMPILER_RESOLVE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/facts/host_facts.h"
#include "compiler/layers.h"
#include "compiler/paths.h"
#include "compiler/policy_spec.h"
#include "compiler/resolve_input.h"
#include "compiler/spec_paths.h"
#include "ir/plan.h"

namespace cwsc::compiler {

absl::StatusOr<ir::LaunchPlan> ResolvePlan(const ResolveInput& in, HostFacts& facts);

// PostureLabel is the byte-stable label of docs/behavior.md B-22 for the plan.
// `no_new_privs` (whether cwsc run sets the flag at startup) adds the
// full-access suffix of docs/behavior.md B-22; nullopt leaves it out.
std::string PostureLabel(const ir::LaunchPlan& plan,
                         std::optional<bool> no_new_privs = std::nullopt);

// kChildEnvAllowList is the spawn allow-list of docs/behavior.md B-32 ("X_*" = prefix).
extern const char* const kChildEnvAllowList[];

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_RESOLVE_H_
