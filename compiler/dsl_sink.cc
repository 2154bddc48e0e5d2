#include "compiler/dsl_sink.h"

#include <algorithm>

namespace cwsc::compiler {

void DslSink::Error(int line, int col, const std::string& message) {
  if (Full()) return;
  // After a syntax error the parser may resume at the same token (an unknown
  // word parsed as the next statement); one error per position is enough.
  for (const ir::Diagnostic& d : diags_) {
    if (line > 0 && d.line == line && d.col == col) return;
  }
  diags_.push_back(ir::Diagnostic{ir::Diagnostic::Severity::kError, file_, line, col, message,
                                  line > 0 ? ir::SourceLineAt(text_, line) : ""});
}

absl::Status DslSink::ToStatus() const {
  std::vector<ir::Diagnostic> sorted = diags_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.line != b.line ? a.line < b.line : a.col < b.col;
  });
  ir::Diagnostics all;
  for (ir::Diagnostic& d : sorted) all.Add(std::move(d));
  return all.ToStatus();
}

}  // namespace cwsc::compiler
