// The compiler's stages as values (docs/architecture.md, "The compiler's
// stages"), for `cwsc explain --stage`: the settings the frontend read from
// the config file, the settings after layering, the resolved policy and the
// plan. The settings are listed through the config-key table
// (compiler/config_key_table.h), so a key added there is shown here; a
// secret's value is never part of a StageSetting.
#ifndef CWSC_COMPILER_DRIVER_STAGE_H_
#define CWSC_COMPILER_DRIVER_STAGE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/compile.h"
#include "compiler/driver/report.h"
#include "compiler/policy_spec.h"
#include "ir/origin.h"

namespace cwsc::driver {

// Stage names a stage a user can look at: kSpec (the config file as its
// frontend read it), kLayered (after the environment overrides, the managed
// and project overlays and the command line), kPolicy (the resolved
// ir::Policy), kPlan (the launch plan).
enum class Stage { kSpec, kLayered, kPolicy, kPlan };

// ParseStage: "spec", "layered", "policy" or "plan".
std::optional<Stage> ParseStage(std::string_view name);
std::string_view StageName(Stage stage);

// StageSetting is one key a spec sets: its name, its value as TOML spells it
// ("(withheld)" for a secret), and where it came from (a list's first
// entry's origin when the list has no origin of its own).
struct StageSetting {
  std::string key;
  std::string value;
  ir::Origin origin;
  bool secret = false;
};

// SpecSettings lists the keys `spec` sets, in the config-key table's order.
std::vector<StageSetting> SpecSettings(const compiler::PolicySpec& spec);

// StageReport is `cwsc explain --stage`'s report of compile `r` (docs/cli.md,
// "explain --stage"): a spec's settings, one per line with its origin (a
// secret withheld), or the policy or the plan as JSON. kSpec reads the
// config file of `copts` again.
absl::StatusOr<Report> StageReport(Stage stage, const compiler::CompileOptions& copts,
                                   const compiler::CompileResult& r);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_STAGE_H_
