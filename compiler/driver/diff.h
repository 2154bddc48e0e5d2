// The semantic access diff of `cwsc diff A B` (docs/verification.md): both
// plans' artifacts are asked the same questions (read and write on every
// path either plan names, their parents and a child of each, and the
// network) and only the answers are compared. The result is a value;
// report.h renders it as text and JSON (DiffReport).
#ifndef CWSC_COMPILER_DRIVER_DIFF_H_
#define CWSC_COMPILER_DRIVER_DIFF_H_

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/verify/expect_eval.h"
#include "compiler/driver/verify.h"
#include "ir/plan.h"

namespace cwsc::driver {

// ReadPlanFile reads a plan JSON file (`cwsc compile --target plan`).
absl::StatusOr<ir::LaunchPlan> ReadPlanFile(const std::string& file);

// ProbePaths are the paths a diff asks about for one plan: "/", each path
// the plan names (mount sources and destinations, roots and their protected
// paths, denied and skipped paths, Seatbelt parameters, the working
// directory), normalized, with its parent and a child of it.
std::set<std::string> ProbePaths(const ir::LaunchPlan& plan, const PlanArtifact& art);

// AccessChange is one question A and B answer differently.
struct AccessChange {
  backends::AccessKind kind;
  std::string path;  // "" for the network
  bool widened;      // B allows what A denied
  Decision a, b;
};

struct PlanDiff {
  // The changes, widened ones first, each in the order asked (the network,
  // then each path: write, then read). A change below a path that changed
  // the same way for the same rules is left out: it adds nothing.
  std::vector<AccessChange> changes;
  int widened = 0, narrowed = 0;
  // What else differs, when it does.
  std::optional<std::pair<ir::PlanKind, ir::PlanKind>> plan_kind;
  std::optional<std::pair<std::vector<std::string>, std::vector<std::string>>> launcher;
  std::optional<std::pair<std::string, std::string>> wrapper;
  bool remote_not_compared = false;  // a side is a remote sandbox: its access is not compared
};

// DiffPlans reads both plans' artifacts back and compares them (an internal
// error when an artifact is not understood by its own interpreter).
absl::StatusOr<PlanDiff> DiffPlans(const ir::LaunchPlan& a, const ir::LaunchPlan& b);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_DIFF_H_
