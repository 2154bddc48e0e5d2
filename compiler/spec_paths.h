// The path settings of a PolicySpec expanded ($HOME, $WORKSPACE, ~, ...) and
// checked, with errors at the setting's file:line:col. The resolver and the
// deny list expand with the host's values; `check` and `compile` validate
// with placeholders, so both agree in every mode.
#ifndef CWSC_COMPILER_SPEC_PATHS_H_
#define CWSC_COMPILER_SPEC_PATHS_H_

#include <string>

#include "absl/status/statusor.h"
#include "compiler/paths.h"
#include "compiler/policy_spec.h"

namespace cwsc::compiler {

// ExpandSettingPath expands one path setting; errors carry its file:line:col.
absl::StatusOr<std::string> ExpandSettingPath(const Setting<std::string>& s, const PathVars& vars,
                                              bool lexical = true);

// ValidateSpecPaths checks every path setting in a way that holds in every
// mode (relative paths and unknown variables are errors even where the mode
// does not use the setting), so `check` and `compile` agree.
absl::Status ValidateSpecPaths(const PolicySpec& spec);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_SPEC_PATHS_H_
