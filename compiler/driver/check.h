// What `cwsc check` runs for one file, decided from its text before any
// compile (docs/verification.md): a TOML config read and validated as every
// compile reads it, or every policy of a .cwsp file (or the one --policy
// names), each with its own expectations and those of --expect; which of
// them run their expectations (expect.h) and which are only valid. The
// result is a value: check_report.h runs and renders it.
#ifndef CWSC_COMPILER_DRIVER_CHECK_H_
#define CWSC_COMPILER_DRIVER_CHECK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/driver/expect.h"
#include "ir/diagnostics.h"
#include "ir/plan.h"

namespace cwsc::driver {

struct CheckInput {
  std::string file;  // as diagnostics name it ("<stdin>" for -)
  std::string text;
  bool dsl = false;                    // a .cwsp file (else a TOML config)
  bool managed = false;                // read as the managed config layer
  std::string policy;                  // --policy NAME of a .cwsp file
  std::vector<ir::Expectation> extra;  // --expect FILE's, added to every policy's
  bool lint = false;                   // --lint
};

// CheckedPolicy is one subject of the check: a policy of a .cwsp file, or
// the TOML config (name "").
struct CheckedPolicy {
  CheckSubject subject;
  bool header = true;  // the report names it with its expectation count first
  bool run = true;     // false: valid, nothing to run (no expectations, no --lint)
  bool lint = false;   // compile every mode for its lints, whatever --lint says
};

// How the file's report reads.
enum class CheckShape {
  kPolicies,    // each policy's checks, then the counts
  kConfigOnly,  // a TOML config without expectations: one line, its lints
  kNoPolicy,    // a .cwsp file that defines no policy
};

struct CheckPlan {
  std::vector<ir::Diagnostic> notes;  // the config's notes, shown first
  absl::Status status;                // not valid: why (exit 2); nothing else is set
  size_t warnings = 0;                // the config's warnings (an ignored look-alike key, ...)
  CheckShape shape = CheckShape::kPolicies;
  std::vector<CheckedPolicy> policies;  // in file order
};

// PlanCheck decides what checking `in` runs. Without expectations, a TOML
// config is still compiled in every mode for its setting notes and lints,
// as `compile` shows them, unless it is a managed layer alone (not the
// config a compile reads: it is only validated).
CheckPlan PlanCheck(const CheckInput& in);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_CHECK_H_
