// What `cwsc check`, `cwsc why` and `cwsc diff` share: a plan's artifact
// read back through its interpreter, decisions mapped to the plan element
// (and so the config line) that emitted the deciding rule, and the values
// an expectation's path variables take (docs/verification.md).
#ifndef CWSC_CLI_VERIFY_H_
#define CWSC_CLI_VERIFY_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/emitted.h"
#include "backends/verify/expect_eval.h"
#include "compiler/facts/host_facts.h"
#include "compiler/paths.h"
#include "ir/plan.h"

namespace cwsc::cli {

// PlanArtifact is what a plan emits, ready to be asked about.
struct PlanArtifact {
  std::string target;  // "bwrap", "seatbelt", "none" (no OS sandbox), "refused", "opensandbox"
  const ir::LaunchPlan* plan = nullptr;
  std::optional<backends::BwrapChecker> bwrap;
  backends::EmittedArgv bwrap_argv;
  std::optional<backends::SbplChecker> sbpl;
  backends::EmittedArgv sbpl_argv;  // the sandbox-exec argv: its -DKEY=VALUE tokens carry origins
  backends::EmittedArgv profile_lines;
};

// ArtifactOf emits the plan's artifact and reads it back (an internal error
// when the emitted artifact is not understood by its own interpreter).
absl::StatusOr<PlanArtifact> ArtifactOf(const ir::LaunchPlan& plan);

// EmitCheckedSeccompBpf is the program bwrap reads on fd 3, emitted and read
// back against the filter's intent (`cwsc compile --target seccomp-bpf`,
// libcwsc's cwsc_plan_seccomp_bpf): an error when they disagree; on an
// architecture the checker does not know, the program unchecked.
absl::StatusOr<std::string> EmitCheckedSeccompBpf(const ir::SyscallFilter& filter);

// Decision is a verdict with where it came from.
struct Decision {
  bool checkable = true;  // false: the artifact cannot be evaluated here (remote)
  bool allowed = false;
  std::string detail;                // "writable", "hidden", "file-write-create", ...
  std::string rule;                  // the deciding rule as written
  std::string where;                 // "layer 4, argv 17" / "profile line 40"
  std::optional<ir::Origin> origin;  // the plan element that emitted the rule
  std::vector<std::string> params;   // Seatbelt: "KEY=value (origin)" the rule uses
};

Decision DecideOn(const PlanArtifact& art, backends::AccessKind kind, const std::string& path);

// VarsFor: $WORKSPACE and $CWD are the plan's working directory, $HOME and ~
// the facts' HOME (else the user's home), $TMPDIR the facts' TMPDIR (else /tmp).
compiler::PathVars VarsFor(const ir::LaunchPlan& plan, compiler::HostFacts* facts);

backends::AccessKind KindOf(ir::Expectation::Kind kind);

// OriginOfLayer maps a bwrap mount layer back to the plan mount that emitted it.
std::optional<ir::Origin> OriginOfArg(const PlanArtifact& art, int arg);

// StrictlyInside: `path` lies below `dir` (both absolute, normalized).
bool StrictlyInside(const std::string& path, const std::string& dir);

// ReadText reads a whole file ("FILE: error: cannot read the file").
absl::StatusOr<std::string> ReadText(const std::string& file);

// ExpectationsOf reads `--expect FILE.cwsp`: the expectations of every policy
// in it (a policy holding only expect lines is the usual form).
absl::StatusOr<std::vector<ir::Expectation>> ExpectationsOf(const std::string& file);

// RenderWhy prints the decision for `path` and the chain behind it.
std::string RenderWhy(const PlanArtifact& art, const std::string& path,
                      const std::vector<backends::AccessKind>& kinds, const std::string& context);

}  // namespace cwsc::cli

#endif  // CWSC_CLI_VERIFY_H_
