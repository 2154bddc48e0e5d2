// ResolveInput is the value the layering stage hands the resolver: the
// merged policy layers, the canonical permission mode, the working
// directory, an approved escalation, the verdict of the launcher trust rules
// and the requirements' allow-list of sandbox modes (compiler/compile.h
// builds it; compiler/resolve.h takes it).
#ifndef CWSC_COMPILER_RESOLVE_INPUT_H_
#define CWSC_COMPILER_RESOLVE_INPUT_H_

#include <optional>
#include <string>

#include "compiler/layers.h"
#include "compiler/policy_spec.h"
#include "ir/origin.h"

namespace cwsc::compiler {

struct ResolveInput {
  PolicySpec spec;  // merged layers
  ir::PermissionMode mode = ir::PermissionMode::kAsk;
  ir::Origin mode_origin;
  std::string cwd;                      // absolute, as given
  std::optional<std::string> escalate;  // approved per-command escalation target
  bool launcher_trusted = false;        // spec.tool_launcher passed the managed-file trust rules
  std::string launcher_trust_refusal;  // why not (names the file and the rule); compiler/launcher.h
  Requirements requirements;           // the allow-list of sandbox modes, if any
};

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_RESOLVE_INPUT_H_
