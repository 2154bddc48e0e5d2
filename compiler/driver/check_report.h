// `cwsc check` run for one file and its report, once for both front doors:
// the program prints it, and libcwsc's cwsc_check_file returns the same
// bytes (docs/verification.md, docs/embedding.md). What runs is check.h's
// plan: each policy's expectations decided in each mode (expect.h), every
// verdict with the rule and the plan element behind it, the live probes'
// answers under --live, and the lints; then the counts.
#ifndef CWSC_COMPILER_DRIVER_CHECK_REPORT_H_
#define CWSC_COMPILER_DRIVER_CHECK_REPORT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/driver/check.h"
#include "compiler/driver/expect.h"
#include "compiler/driver/report.h"
#include "compiler/facts/host_facts.h"
#include "ir/diagnostics.h"

namespace cwsc::driver {

// CheckRun is one file's check: the file, and what every policy's run
// shares (the compile options, the facts rule, the modes and targets
// chosen, the live probes; `lint` is --lint, set per policy from the plan).
struct CheckRun {
  CheckInput input;
  ExpectOptions expect;
  bool strict = false;  // a warning about the config's keys fails the check
};

// CheckFacts gives the facts the first policy that runs compiles against
// (the front door's live or recorded facts): asked once, and only when a
// policy runs. The facts stay the caller's.
using CheckFacts = std::function<absl::StatusOr<compiler::HostFacts*>()>;

enum class CheckStop {
  kNone,
  kInput,          // the file is not valid, the facts cannot be read, or a compile failed (exit 2)
  kNotApplicable,  // a mode's plan emits none of the chosen targets (exit 4)
  kInternal,       // an artifact its own interpreter cannot read (exit 2)
};

// CheckOutcome is what the check found. When `stop` is set, `status` says
// why, after `notes`; there is no report.
struct CheckOutcome {
  std::vector<ir::Diagnostic> notes;  // the config's, shown first
  // Each compiled mode's setting notes (SettingNotes), each once however
  // many modes skip the same setting, in the order found.
  std::vector<ir::Diagnostic> setting_notes;
  CheckStop stop = CheckStop::kNone;
  absl::Status status;
  // The report: the text `cwsc check` prints and its --json result.
  Report report;
  // A file with nothing to check (a config without expectations, a .cwsp
  // file with no policy): the line said of it, which the text starts with
  // ("FILE: LINE") and the --json report gives as a note; else "".
  std::string valid_line;
  bool failed = false;  // an expectation failed, or --strict did (exit 1)
};

// RunCheck runs the check of `run` and renders its report.
CheckOutcome RunCheck(const CheckRun& run, const CheckFacts& facts);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_CHECK_REPORT_H_
