#include "ir/diagnostics.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/diagnostic_status.h"

namespace cwsc::ir {
namespace {

const char* SeverityName(Diagnostic::Severity s) {
  switch (s) {
    case Diagnostic::Severity::kError: return "error";
    case Diagnostic::Severity::kWarning: return "warning";
    case Diagnostic::Severity::kNote: return "note";
  }
  return "error";
}

// Printable replaces control bytes so a hostile line cannot forge output lines.
std::string Printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\t') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7f) {
      out += '?';
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

std::string Diagnostic::Render() const {
  std::string out;
  if (!file.empty()) {
    out = file;
    if (line > 0) absl::StrAppend(&out, ":", line, ":", col > 0 ? col : 1);
    out += ": ";
  }
  absl::StrAppend(&out, SeverityName(severity), ": ", message, "\n");
  if (!source_line.empty() && line > 0) {
    constexpr size_t kMaxShown = 200;
    std::string shown = Printable(source_line.substr(0, kMaxShown));
    absl::StrAppend(&out, "  ", shown, "\n");
    size_t caret = col > 0 ? static_cast<size_t>(col - 1) : 0;
    caret = std::min(caret, shown.size());  // at end of line/file: point just past it
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
  // The closing line is no diagnostic: the status is text only.
  std::string text;
  for (const Diagnostic& d : errors) text += d.Render();
  return absl::InvalidArgumentError(text + "too many errors; stopping\n");
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
