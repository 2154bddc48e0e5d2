#include "compiler/driver/check.h"

#include <utility>

#include "ir/diagnostics.h"

namespace cwsc::driver {

CheckPlan PlanCheck(const CheckInput& in) {
  CheckPlan out;
  const compiler::Layer layer = in.managed ? compiler::Layer::kManaged : compiler::Layer::kUser;
  if (in.dsl) {
    absl::StatusOr<std::vector<CheckSubject>> subjects =
        DslSubjects(in.text, in.file, layer, in.policy, in.extra);
    if (!subjects.ok()) {
      out.status = subjects.status();
      return out;
    }
    if (subjects->empty()) out.shape = CheckShape::kNoPolicy;
    for (CheckSubject& s : *subjects) {
      const bool run = !s.expectations.empty() || in.lint;
      out.policies.push_back({std::move(s), true, run, in.lint});
    }
    return out;
  }
  if (!in.policy.empty()) {
    out.status = ir::ErrorAt(in.file, 0, 0, "--policy selects a policy of a .cwsp file");
    return out;
  }
  ConfigCheck cc = CheckTomlConfig(in.text, in.file, layer);
  out.notes = std::move(cc.notes);
  if (!cc.status.ok()) {
    out.status = cc.status;
    return out;
  }
  out.warnings = cc.warnings;
  if (!in.extra.empty()) {
    out.policies.push_back({{"", in.file, in.extra}, true, true, in.lint});
    return out;
  }
  out.shape = CheckShape::kConfigOnly;
  if (!in.managed) out.policies.push_back({{"", in.file, {}}, false, true, true});
  return out;
}

}  // namespace cwsc::driver
