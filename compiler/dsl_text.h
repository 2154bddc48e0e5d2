// Text-level helpers of the .cwsp frontend that need no parser: the input
// pre-check (size, NUL bytes, UTF-8), string-literal unescaping and the
// checks on path strings and names. Shared by dsl_frontend.cc and
// dsl_format.cc so both reject hostile input the same way.
//
//   std::optional<ir::Diagnostic> bad = PrecheckDslText(text, "p.cwsp");
//   DslString s = UnescapeDslString("\"$HOME/x\"");   // s.value == "$HOME/x"
#ifndef CWSC_COMPILER_DSL_TEXT_H_
#define CWSC_COMPILER_DSL_TEXT_H_

#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostics.h"

namespace cwsc::compiler {

// kMaxDslBytes bounds the size of a policy file; larger input is rejected
// before parsing so time and memory stay bounded.
inline constexpr size_t kMaxDslBytes = 1 << 20;
// kMaxDslStringBytes bounds one path or string value.
inline constexpr size_t kMaxDslStringBytes = 4096;

// PrecheckDslText rejects input the parser must never see: more than
// kMaxDslBytes, a NUL byte, or invalid UTF-8. The diagnostic points at the
// first offending byte.
std::optional<ir::Diagnostic> PrecheckDslText(const std::string& text, const std::string& file);

// DslString is an unescaped string literal.
struct DslString {
  std::string value;
  std::vector<size_t> escaped_dollars;  // offsets in `value` of `$` written as `\$`
  std::string error;                    // non-empty when the literal is bad
  int error_offset = 0;                 // code points from the opening quote
};

// UnescapeDslString decodes a STRING token's text (with its quotes):
// \" \\ \$ \n \t; anything else after a backslash is an error.
DslString UnescapeDslString(const std::string& token_text);

// CheckDslPath validates a path as written in a policy: not empty, a leading
// `~`, `~/`, `$WORKSPACE`, `$HOME`, `$CWD` or `$TMPDIR` (also `${NAME}`) or
// an absolute path, no variable later in the path, at most
// kMaxDslStringBytes. Returns the problem in plain words, or "" when fine.
std::string CheckDslPath(const std::string& path);

// CheckDslPathValue is CheckDslPath that ignores `$` written as `\$`.
std::string CheckDslPathValue(const DslString& s);

// CheckProtectName validates a `protect` entry: one path component.
std::string CheckProtectName(const std::string& name);

// CodePoints counts UTF-8 code points (the unit of a diagnostic column).
int CodePoints(const std::string& s);

// QuoteForMessage quotes a value for an error message, shortened to 60
// code points, with control bytes escaped.
std::string QuoteForMessage(const std::string& s);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_DSL_TEXT_H_
