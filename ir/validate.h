// Validate checks that a LaunchPlan is one the backends and the runtime can
// act on, beyond what its type says (a plan holds one launch, ir::Launch):
// a bwrap launch has mounts and they are well formed, a refusal has a
// reason, the platform fits the launch, roots agree with their skip
// reasons. PlanFromJson runs it on every plan it reads, so `cwsc exec`
// refuses an impossible plan.
//
//   std::vector<PlanProblem> problems = Validate(plan);  // empty: valid
//
// Each problem names the JSON pointer (docs/plan.md) of the offending value.
#ifndef CWSC_IR_VALIDATE_H_
#define CWSC_IR_VALIDATE_H_

#include <ostream>
#include <string>
#include <vector>

#include "ir/plan.h"

namespace cwsc::ir {

struct PlanProblem {
  std::string pointer;  // JSON pointer into the plan's JSON form, e.g. "/launch/refusal"
  std::string message;
  bool operator==(const PlanProblem&) const = default;
  // For test failure messages: "/launch/refusal: a refused plan needs a refusal".
  friend void PrintTo(const PlanProblem& p, std::ostream* os) {
    *os << p.pointer << ": " << p.message;
  }
};

// Validate lists every problem of `plan`, in the order of its JSON form.
std::vector<PlanProblem> Validate(const LaunchPlan& plan);

}  // namespace cwsc::ir

#endif  // CWSC_IR_VALIDATE_H_
