// Errors that stay structured until cli/ renders them: a Status whose
// payload carries the ir::Diagnostic list that caused it. The message is
// their rendering, so code that only has the Status (a test, a library
// caller) still reads the same text; cli/ renders from the payload.
//
//   absl::Status s = DiagnosticError({Severity::kError, "p.json", 2, 11, "malformed plan JSON"});
//   std::optional<std::vector<Diagnostic>> d = DiagnosticsOf(s);  // the one above
#ifndef CWSC_IR_DIAGNOSTIC_STATUS_H_
#define CWSC_IR_DIAGNOSTIC_STATUS_H_

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "ir/diagnostics.h"

namespace cwsc::ir {

// DiagnosticsError is an InvalidArgument status carrying `diagnostics`.
absl::Status DiagnosticsError(const std::vector<Diagnostic>& diagnostics);
absl::Status DiagnosticError(const Diagnostic& diagnostic);

// StoppedDiagnosticsError is DiagnosticsError for a list that stopped at
// the error limit (Diagnostics::kMaxErrors): its message ends with
// kStoppedLine, which is no diagnostic; renderers print that line after
// the diagnostics.
inline constexpr char kStoppedLine[] = "too many errors; stopping";
absl::Status StoppedDiagnosticsError(const std::vector<Diagnostic>& diagnostics);
// StoppedAtErrorLimit: the status was made by StoppedDiagnosticsError.
bool StoppedAtErrorLimit(const absl::Status& status);

// DiagnosticsOf returns the diagnostics a status carries; nullopt when it
// carries none (a status made another way).
std::optional<std::vector<Diagnostic>> DiagnosticsOf(const absl::Status& status);

}  // namespace cwsc::ir

#endif  // CWSC_IR_DIAGNOSTIC_STATUS_H_
