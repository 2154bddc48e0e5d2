// The access map of `cwsc audit` (docs/verification.md): a sandbox cwsc did
// not write (any bwrap command line, or a Seatbelt profile) read through the
// interpreters `cwsc check` uses, and expectations decided on it. The
// results are values, and the report of them (AuditReport) a driver::Report
// that cli/cmd_audit.cc prints as text or --json.
#ifndef CWSC_COMPILER_DRIVER_AUDIT_H_
#define CWSC_COMPILER_DRIVER_AUDIT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/verify/expect_eval.h"
#include "compiler/driver/report.h"
#include "compiler/driver/verify.h"
#include "compiler/paths.h"
#include "ir/plan.h"

namespace cwsc::driver {

// AuditPath is a mount destination of a bwrap argv and what a read of it meets.
struct AuditPath {
  std::string path;    // normalized
  std::string access;  // "writable", "read-only", "device", "private", "hidden", "none"
  std::string rule;    // the deciding argument, as written
};

// AuditParam is a parameter of a Seatbelt profile and what the profile
// allows at its value.
struct AuditParam {
  std::string key, value;
  Decision read, write;
};

// Audit is an artifact read back with no plan behind it: decisions come
// from the artifact alone (art.plan points at `plan`, which holds only its kind).
struct Audit {
  std::unique_ptr<ir::LaunchPlan> plan;
  PlanArtifact art;
  // bwrap: each mount destination once (at its last layer), in layer order.
  std::vector<AuditPath> paths;
  std::string chdir;  // bwrap's --chdir, "" without one
  // seatbelt: the profile's file, the network and each parameter given.
  std::string file;
  Decision network;
  std::vector<AuditParam> parameters;
};

// AuditBwrapArgv reads a bwrap command line; a flag of a newer bwrap is
// skipped (art.bwrap->view().skipped names each).
absl::StatusOr<Audit> AuditBwrapArgv(const std::vector<std::string>& argv);

// AuditSbplFile reads a Seatbelt profile with its parameters (-D KEY=VALUE).
absl::StatusOr<Audit> AuditSbplFile(const std::string& file, const backends::SbplParams& params);

// AuditVars are the values an audited path's variables take: --home (else
// $HOME), --workspace (else the argv's --chdir) for $WORKSPACE and $CWD,
// $TMPDIR (else /tmp).
compiler::PathVars AuditVars(const std::optional<std::string>& home,
                             const std::optional<std::string>& workspace, const std::string& chdir);

// AuditVerdict is an expectation decided on the audited artifact.
struct AuditVerdict {
  ir::Expectation expectation;
  std::string path;  // expanded; network: "" or HOST:PORT
  Decision decision;
  bool pass = false;
};

// CheckAudit decides each expectation on `art` (an error at the
// expectation's place when its path does not expand).
absl::StatusOr<std::vector<AuditVerdict>> CheckAudit(const PlanArtifact& art,
                                                     const compiler::PathVars& vars,
                                                     const std::vector<ir::Expectation>& es);

// SkippedFlagWarnings names each flag of a newer bwrap the audit of an
// argv skipped (warning code "unknown-bwrap-flag"): what it does is missing
// from the map, so the reader must know it is there.
std::vector<std::string> SkippedFlagWarnings(const Audit& a);

// AuditAsk is what `cwsc audit` asks of the audited artifact beyond its map.
struct AuditAsk {
  std::optional<std::string> why;           // --why PATH, as given
  std::vector<backends::AccessKind> kinds;  // what --why explains; empty: read and write
  std::optional<std::string> expect;        // --expect FILE.cwsp
  std::optional<std::string> home, workspace;
};

// AuditResult is `cwsc audit`'s report and the expectations that failed.
struct AuditResult {
  Report report;
  int failed = 0;
};

// AuditReport is the report of `a`: the map (a bwrap argv's mounts by
// access and its symlinks, or a profile's network and parameters), then the
// decision for `ask.why` and the expectations of `ask.expect` with their
// verdicts. An error (a --why path or an expectation's path that does not
// expand, an unreadable .cwsp file) names its place.
absl::StatusOr<AuditResult> AuditReport(const Audit& a, const AuditAsk& ask);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_AUDIT_H_
