// Diagnostic is a user-facing error or warning about an input file, rendered
// gcc-style with the source line and a caret:
//
//   cfg.toml:3:16: error: invalid sandbox_mode 'sometimes': expected ...
//     sandbox_mode = "sometimes"
//                    ^
//
// Inputs with a position always render as `file:line:col: severity: text`.
#ifndef CWSC_IR_DIAGNOSTICS_H_
#define CWSC_IR_DIAGNOSTICS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace cwsc::ir {

struct Diagnostic {
  enum class Severity { kError, kWarning, kNote };
  Severity severity = Severity::kError;
  std::string file;
  int line = 0;  // 1-based; 0 = no position
  int col = 0;   // 1-based; 0 = no position
  std::string message;
  std::string source_line;  // the offending line, without its newline; may be empty

  // Render formats the diagnostic; the caret line is added when source_line is set.
  std::string Render() const;
  bool operator==(const Diagnostic&) const = default;
};

// Diagnostics collects diagnostics up to a bound, in order.
class Diagnostics {
 public:
  static constexpr size_t kMaxErrors = 20;

  void Add(Diagnostic d);
  bool HasErrors() const { return errors_ > 0; }
  size_t error_count() const { return errors_; }
  bool Full() const { return errors_ >= kMaxErrors; }
  const std::vector<Diagnostic>& all() const { return all_; }
  // RenderAll renders every diagnostic, one after another.
  std::string RenderAll() const;
  // ToStatus is OK without errors, else InvalidArgument carrying RenderAll().
  absl::Status ToStatus() const;

 private:
  std::vector<Diagnostic> all_;
  size_t errors_ = 0;
};

// SourceLineAt returns line `line` (1-based) of `text`, without newline.
std::string SourceLineAt(const std::string& text, int line);

// ErrorAt builds an InvalidArgument status rendering one error diagnostic.
absl::Status ErrorAt(const std::string& file, int line, int col, const std::string& message,
                     const std::string& source_line = "");

}  // namespace cwsc::ir

#endif  // CWSC_IR_DIAGNOSTICS_H_
