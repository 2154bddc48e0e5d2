// The S-expression reader under the SBPL evaluator (backends/verify/sbpl_eval.h):
// turns profile text into nested lists of symbols, numbers, "strings" and
// #"regex" literals, each with its line, column and source span. Comments run
// from ';' to the end of the line. Internal to the evaluator.
#ifndef CWSC_BACKENDS_VERIFY_SBPL_SEXPR_H_
#define CWSC_BACKENDS_VERIFY_SBPL_SEXPR_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cwsc::backends::sbpl_internal {

struct Node {
  enum class Kind { kList, kSymbol, kString, kRegex, kNumber };
  Kind kind = Kind::kList;
  std::string text;  // symbol name, decoded string, regex source, number digits
  std::vector<Node> items;
  int line = 0;
  int col = 0;
  size_t begin = 0;  // offsets into the profile text
  size_t end = 0;
};

// ReadSexprs reads every top-level form of `text`; errors read
// "name:line:col: error: ...".
absl::StatusOr<std::vector<Node>> ReadSexprs(absl::string_view text, absl::string_view name);

// SexprError formats an error at a position the way ReadSexprs does.
absl::Status SexprError(absl::string_view name, int line, int col, absl::string_view msg);

}  // namespace cwsc::backends::sbpl_internal

#endif  // CWSC_BACKENDS_VERIFY_SBPL_SEXPR_H_
