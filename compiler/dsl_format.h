// FormatDsl prints a .cwsp file in its canonical layout: one statement per
// line, two-space indentation, `{` at the end of its line, one blank line
// between policies, at most one blank line kept where the author left some,
// and every comment kept (trailing comments stay on their line). Only white
// space changes (and the optional `;` after a backend block is dropped), so
// the formatted file parses to the same policies.
//
//   absl::StatusOr<std::string> out = FormatDsl(text, "agent.cwsp");
//
// A file with syntax errors is not formatted: the status carries the
// rendered errors. FormatDsl(FormatDsl(x)) == FormatDsl(x).
#ifndef CWSC_COMPILER_DSL_FORMAT_H_
#define CWSC_COMPILER_DSL_FORMAT_H_

#include <string>

#include "absl/status/statusor.h"

namespace cwsc::compiler {

absl::StatusOr<std::string> FormatDsl(const std::string& text, const std::string& file);

// FirstDifferingLine is the 1-based line where `a` and `b` first differ
// (`cwsc fmt --check` names it); when one is a prefix of the other, the
// line the longer one goes on at.
int FirstDifferingLine(const std::string& a, const std::string& b);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_DSL_FORMAT_H_
