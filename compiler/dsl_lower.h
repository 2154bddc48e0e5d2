// Internal to the .cwsp frontend: the diagnostic sink shared by the parser's
// error strategy and the semantic pass, and the semantic pass itself
// (LowerDslTree), which checks a parse tree and lowers every policy block to
// a PolicySpec. Included only by dsl_frontend.cc and dsl_lower.cc.
#ifndef CWSC_COMPILER_DSL_LOWER_H_
#define CWSC_COMPILER_DSL_LOWER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/dsl_frontend.h"
#include "ir/diagnostics.h"

namespace antlr4 {
class ParserRuleContext;
}  // namespace antlr4

namespace cwsc::compiler {

// kDslStatementList names every statement, for messages.
inline constexpr const char* kDslStatementList =
    "mode, network, writable, read_only, device, deny read, exempt read, deny_defaults, tmp, "
    "slash_tmp, tmpdir, protect, wrapper, linux_backend, require_sandbox, backend, launcher, "
    "managed_config or expect";

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

// LowerDslTree checks the parse tree of a whole file (a FileContext) and
// appends each policy to `out`; errors go to `sink`.
void LowerDslTree(antlr4::ParserRuleContext* file_tree, const std::string& file, Layer layer,
                  DslSink* sink, DslFile* out);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_DSL_LOWER_H_
