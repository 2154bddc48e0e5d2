// What `cwsc check`, `cwsc why` and `cwsc diff` share: a plan's artifact
// read back through its interpreter, decisions mapped to the plan element
// (and so the config line) that emitted the deciding rule, and the values
// an expectation's path variables take (docs/verification.md).
#ifndef CWSC_COMPILER_DRIVER_VERIFY_H_
#define CWSC_COMPILER_DRIVER_VERIFY_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/emitted.h"
#include "backends/verify/expect_eval.h"
#include "backends/verify/landlock_eval.h"
#include "compiler/facts/host_facts.h"
#include "compiler/paths.h"
#include "ir/display.h"
#include "ir/plan.h"

namespace cwsc::driver {

// PlanArtifact is what a plan emits, ready to be asked about.
struct PlanArtifact {
  std::string target;  // "bwrap", "seatbelt", "none" (no OS sandbox), "refused", "opensandbox"
  const ir::LaunchPlan* plan = nullptr;
  std::optional<backends::BwrapChecker> bwrap;
  backends::EmittedArgv bwrap_argv;
  std::optional<backends::SbplChecker> sbpl;
  std::optional<backends::LandlockChecker> landlock;
  std::vector<std::string> landlock_lines;  // the listing, for the origin of a rule's line
  backends::EmittedArgv sbpl_argv;  // the sandbox-exec argv: its -DKEY=VALUE tokens carry origins
  backends::EmittedArgv profile_lines;
  // bwrap: the deny rules whose target did not exist when the plan was
  // compiled, so the argv holds no mask for them (NoteAbsentDenyTargets).
  std::vector<ir::DeniedPath> absent_denied;
};

// ArtifactOf emits the plan's artifact and reads it back (an internal error
// when the emitted artifact is not understood by its own interpreter).
absl::StatusOr<PlanArtifact> ArtifactOf(const ir::LaunchPlan& plan);

// NoteAbsentDenyTargets fills art->absent_denied from the facts the plan was
// compiled against: a denied path that is missing and that the argv leaves
// unmasked, the same test the runtime's exec-time check makes
// (runtime/execute.cc, CheckDeniedPaths). A read or exec of such a path, or
// below it, is then reported "absent", a denial: there is nothing to read.
void NoteAbsentDenyTargets(PlanArtifact* art, compiler::HostFacts* facts);
// The same in two steps, for a caller that keeps a plan beyond its facts
// (libcwsc): the denied paths missing on the host (the facts answer from
// memory: the compile asked about each), then those the argv leaves unmasked.
std::vector<ir::DeniedPath> MissingDenyTargets(const ir::LaunchPlan& plan,
                                               compiler::HostFacts* facts);
void NoteAbsentDenyTargets(PlanArtifact* art, const std::vector<ir::DeniedPath>& missing);

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
  std::string note;                  // "absent: ..." (detail "absent"), else ""
};

Decision DecideOn(const PlanArtifact& art, backends::AccessKind kind, const std::string& path);

// SkipConcerns: whether what the plan skipped (`s`) bears on an access at
// `path`: a skipped setting or root at the path or above it; a Landlock
// "directory listing" D only at D itself or at an entry made in D (a file
// deeper down is reached through a grant of its own).
bool SkipConcerns(const ir::Skipped& s, const std::string& path);

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

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_VERIFY_H_
