// Internal to the .cwsp frontend: DslSink, the diagnostic sink the parser's
// error strategy (dsl_frontend.cc) and the semantic pass (dsl_lower.cc)
// share, so a file's syntax and meaning errors come out as one sorted list.
#ifndef CWSC_COMPILER_DSL_SINK_H_
#define CWSC_COMPILER_DSL_SINK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ir/diagnostics.h"

namespace cwsc::compiler {

// DslSink collects positioned errors for one file, up to a bound.
class DslSink {
 public:
  DslSink(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  // Error records an error at a 1-based line and column (0 = no position).
  void Error(int line, int col, const std::string& message);
  bool Full() const { return diags_.size() >= ir::Diagnostics::kMaxErrors; }
  bool HasErrors() const { return !diags_.empty(); }
  // ToStatus renders every error in source order (InvalidArgument), or OK.
  absl::Status ToStatus() const;

 private:
  const std::string& text_;
  std::string file_;
  std::vector<ir::Diagnostic> diags_;
};

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_DSL_SINK_H_
