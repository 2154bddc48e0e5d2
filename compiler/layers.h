// Config layering (docs/behavior.md B-2, B-3): user config < env overrides < managed
// overlay; the project overlay (`<workspace>/.codewhale/config.toml`) may only
// tighten sandbox_mode. Env values and overlay files come from HostFacts.
#ifndef CWSC_COMPILER_LAYERS_H_
#define CWSC_COMPILER_LAYERS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/facts/host_facts.h"
#include "compiler/overlay.h"
#include "compiler/policy_spec.h"
#include "ir/diagnostics.h"

namespace cwsc::compiler {

// EnvOverrides reads the CODEWHALE_* (legacy DEEPSEEK_*) variables of docs/behavior.md B-2.
absl::StatusOr<PolicySpec> EnvOverrides(HostFacts& facts, std::vector<ir::Diagnostic>* notes);

// kDefaultManagedConfigPath and its legacy fallback (docs/config.md).
inline constexpr char kDefaultManagedConfigPath[] = "/etc/codewhale/managed_config.toml";
inline constexpr char kLegacyManagedConfigPath[] = "/etc/deepseek/managed_config.toml";

// kDefaultRequirementsPath and its legacy fallback (docs/behavior.md B-1, B-3 step 4).
inline constexpr char kDefaultRequirementsPath[] = "/etc/codewhale/requirements.toml";
inline constexpr char kLegacyRequirementsPath[] = "/etc/deepseek/requirements.toml";

// Requirements is an administrator's allow-list of sandbox modes.
struct Requirements {
  std::string path;                     // the file read; empty when none exists
  std::vector<ir::PolicyType> allowed;  // allowed_sandbox_modes; empty = no list
  ir::Origin origin;                    // where allowed_sandbox_modes is
  bool Allows(ir::PolicyType mode) const;
  std::string Describe() const;  // "<path> allows a, b"
};

// ReadRequirements reads the requirements file named by requirements_path
// (key or env), else the default path, else the legacy one.
absl::StatusOr<Requirements> ReadRequirements(HostFacts& facts, const PolicySpec& merged);

struct ManagedLayer {
  std::string path;                  // the file read; empty when none exists
  bool from_env_or_default = false;  // named by CODEWHALE_MANAGED_CONFIG_PATH or the default
  PolicySpec spec;
};

// ReadManagedLayer finds and reads the managed overlay for the merged user+env spec.
absl::StatusOr<ManagedLayer> ReadManagedLayer(HostFacts& facts, const PolicySpec& merged,
                                              std::vector<ir::Diagnostic>* notes);

// ApplyProjectLayer reads `<cwd>/.codewhale/config.toml` (legacy `.deepseek`)
// and applies the tightening rules of docs/behavior.md B-5 to `merged`.
absl::Status ApplyProjectLayer(HostFacts& facts, const std::string& cwd, PolicySpec& merged,
                               std::vector<ir::Diagnostic>* notes);

// ProjectModeAllowed is the docs/behavior.md B-5 rank rule.
bool ProjectModeAllowed(std::optional<ir::PolicyType> current, ir::PolicyType project);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_LAYERS_H_
