// The read deny list (docs/behavior.md B-50): built-in credential stores, user
// additions and exemptions, expanded for the OS wrappers as docs/behavior.md B-53 says (the
// canonical spelling first when it differs, then the literal one).
#ifndef CWSC_COMPILER_DENY_LIST_H_
#define CWSC_COMPILER_DENY_LIST_H_

#include <string>
#include <vector>

#include "compiler/facts/host_facts.h"
#include "compiler/paths.h"
#include "compiler/policy_spec.h"
#include "ir/plan.h"

namespace cwsc::compiler {

// BuiltinDenyRule is one built-in rule before expansion.
struct BuiltinDenyRule {
  std::string path;   // absolute
  std::string label;  // "~/.ssh", "/etc/shadow", "$CODEWHALE_HOME/secrets"
};

// BuiltinDenyRules lists the built-in rules for a platform and home.
std::vector<BuiltinDenyRule> BuiltinDenyRules(HostFacts& facts, const std::string& platform,
                                              const std::string& home);

// BuildDenyList returns the docs/behavior.md B-53 list the wrappers mask, in order. Errors come
// from bad paths in the spec (relative, unknown variable) and name the key.
absl::StatusOr<std::vector<ir::DeniedPath>> BuildDenyList(HostFacts& facts, const PolicySpec& spec,
                                                          const std::string& platform,
                                                          const PathVars& vars);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_DENY_LIST_H_
