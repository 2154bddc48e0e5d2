// Canonical JSON form of a LaunchPlan (`cwsc compile --target plan`), and
// its reader (`cwsc exec PLAN.json`). Keys come in a fixed order, so the
// same plan always gives the same bytes; docs/plan.md documents every key.
//
//   absl::StatusOr<std::string> text = PlanToJson(plan);
//   absl::StatusOr<LaunchPlan> back = PlanFromJson(*text, "plan.json");  // == plan
#ifndef CWSC_IR_PLAN_JSON_H_
#define CWSC_IR_PLAN_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/plan.h"

namespace cwsc::ir {

// PlanToJson renders the plan, 2-space indented, with a final newline. It
// fails only when a string is not valid UTF-8 (JSON cannot carry it).
absl::StatusOr<std::string> PlanToJson(const LaunchPlan& plan);

// PlanFromJson parses a plan and checks it with ir::Validate (ir/validate.h);
// errors name `file`, the line and column of a syntax error, or the JSON
// pointer of a bad value or of the first problem Validate finds. A plan of
// another schema_version is refused before anything else is read.
absl::StatusOr<LaunchPlan> PlanFromJson(const std::string& text, const std::string& file);

// UnsupportedVersionMessage says why a plan of `version` is not read.
std::string UnsupportedVersionMessage(int version);

}  // namespace cwsc::ir

#endif  // CWSC_IR_PLAN_JSON_H_
