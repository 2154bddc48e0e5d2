#include "ir/diagnostics.h"

#include "absl/strings/str_cat.h"
#include "ir/diagnostic_status.h"
#include "ir/display.h"

namespace cwsc::ir {
namespace {

const char* SeverityName(Diagnostic::Severity s) {
  switch (s) {
    case Diagnostic::Severity::kError:
      return "error";
    case Diagnostic::Severity::kWarning:
      return "warning";
    case Diagnostic::Severity::kNote:
      return "note";
  }
  return "error";
}

// SourceShown is a source line as a diagnostic shows it: a tab becomes a
// space (indentation stays readable and the caret stays aligned), every
// other byte as Displayable shows it.
std::string SourceShown(std::string s) {
  for (char& c : s) {
    if (c == '\t') c = ' ';
  }
  return s;
}

}  // namespace

std::string Diagnostic::Render() const {
  // Every field may hold a value from a file or the host: each is escaped
  // here, the one place a diagnostic becomes text (docs/decisions.md,
  // "Displayed values").
  std::string out;
  if (!file.empty()) {
    out = Displayable(file);
    if (line > 0) absl::StrAppend(&out, ":", line, ":", col > 0 ? col : 1);
    out += ": ";
  }
  absl::StrAppend(&out, SeverityName(severity), ": ", Displayable(message), "\n");
  if (!source_line.empty() && line > 0) {
    constexpr size_t kMaxShown = 200;
    std::string source = SourceShown(source_line.substr(0, kMaxShown));
    // The column counts code points; at end of line/file the caret points just past it.
    size_t caret = DisplayablePrefixWidth(source, col > 0 ? static_cast<size_t>(col - 1) : 0);
    absl::StrAppend(&out, "  ", Displayable(source), "\n");
    absl::StrAppend(&out, "  ", std::string(caret, ' '), "^\n");
  }
  return out;
}

void Diagnostics::Add(Diagnostic d) {
  if (d.severity == Diagnostic::Severity::kError) {
    if (Full()) return;
    ++errors_;
  }
  all_.push_back(std::move(d));
}

std::string Diagnostics::RenderAll() const {
  std::string out;
  for (const Diagnostic& d : all_) out += d.Render();
  return out;
}

absl::Status Diagnostics::ToStatus() const {
  if (!HasErrors()) return absl::OkStatus();
  std::vector<Diagnostic> errors;
  for (const Diagnostic& d : all_) {
    if (d.severity == Diagnostic::Severity::kError) errors.push_back(d);
  }
  if (errors_ < kMaxErrors) return DiagnosticsError(errors);
  return StoppedDiagnosticsError(errors);
}

std::string SourceLineAt(const std::string& text, int line) {
  if (line <= 0) return "";
  size_t pos = 0;
  for (int l = 1; l < line; ++l) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return "";
    ++pos;
  }
  size_t end = text.find('\n', pos);
  std::string out = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  if (!out.empty() && out.back() == '\r') out.pop_back();
  return out;
}

absl::Status ErrorAt(const std::string& file, int line, int col, const std::string& message,
                     const std::string& source_line) {
  return DiagnosticError({Diagnostic::Severity::kError, file, line, col, message, source_line});
}

}  // namespace cwsc::ir
