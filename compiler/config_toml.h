// ReadTomlConfig reads one Codewhale config layer (user, managed or project
// config.toml) into a PolicySpec. Only the top-level sandbox keys of
// docs/behavior.md B-1 (and their camelCase aliases) and the cwsc extensions are
// read; every other key is ignored with a note. A known key with a wrong type
// or value is an error naming file:line:col and the key.
#ifndef CWSC_COMPILER_CONFIG_TOML_H_
#define CWSC_COMPILER_CONFIG_TOML_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/modes.h"
#include "compiler/policy_spec.h"
#include "compiler/toml_lists.h"
#include "ir/diagnostics.h"

namespace cwsc::compiler {

struct ConfigLayer {
  PolicySpec spec;
  std::vector<ir::Diagnostic> notes;  // ignored keys and the like
};

// TomlReadOptions: fast_list_min is the smallest list of plain strings read
// without toml++'s DOM (compiler/toml_lists.h); SIZE_MAX leaves every list to
// toml++. The result is the same either way (tests and the config_toml fuzz
// target compare the two).
struct TomlReadOptions {
  size_t fast_list_min = kFastListMin;
  // When set, counts the lists whose entries came from the scanner.
  size_t* fast_lists_used = nullptr;
};

absl::StatusOr<ConfigLayer> ReadTomlConfig(const std::string& text, const std::string& file,
                                           Layer layer, const TomlReadOptions& options = {});

// RequirementsFile is a parsed requirements.toml: allowed_sandbox_modes,
// parsed (compiler/modes.h), each once; other keys are ignored.
struct RequirementsFile {
  std::vector<ir::PolicyType> allowed;
  ir::Origin origin;
};
absl::StatusOr<RequirementsFile> ParseRequirements(const std::string& text,
                                                   const std::string& file);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_CONFIG_TOML_H_
