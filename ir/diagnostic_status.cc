#include "ir/diagnostic_status.h"

#include <string>
#include <string_view>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace cwsc::ir {
namespace {

constexpr char kPayloadUrl[] = "type.cwsc/diagnostics";
constexpr char kStoppedUrl[] = "type.cwsc/stopped-at-error-limit";

const Diagnostic::Severity kSeverities[] = {
    Diagnostic::Severity::kError, Diagnostic::Severity::kWarning, Diagnostic::Severity::kNote};

}  // namespace

// The payload lists each diagnostic as `SEVERITY LINE COL ` and then its
// file, message and source line, each as `LENGTH:BYTES`: every byte is
// kept, so a diagnostic about a file whose name is not UTF-8 still travels
// as data (JSON would have replaced those bytes, and the payload would no
// longer match the message).
namespace {

void AppendField(const std::string& s, std::string* out) {
  *out += std::to_string(s.size());
  *out += ':';
  *out += s;
}

bool ReadInt(std::string_view* in, char end, long* out) {
  size_t at = in->find(end);
  if (at == std::string_view::npos || at == 0 || at > 10) return false;
  long v = 0;
  for (char c : in->substr(0, at)) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  in->remove_prefix(at + 1);
  *out = v;
  return true;
}

bool ReadField(std::string_view* in, std::string* out) {
  long n = 0;
  if (!ReadInt(in, ':', &n) || n < 0 || static_cast<size_t>(n) > in->size()) return false;
  *out = std::string(in->substr(0, static_cast<size_t>(n)));
  in->remove_prefix(static_cast<size_t>(n));
  return true;
}

}  // namespace

absl::Status DiagnosticsError(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  std::string payload;
  for (const Diagnostic& d : diagnostics) {
    text += d.Render();
    payload += std::to_string(static_cast<int>(d.severity)) + " " + std::to_string(d.line) + " " +
               std::to_string(d.col) + " ";
    AppendField(d.file, &payload);
    AppendField(d.message, &payload);
    AppendField(d.source_line, &payload);
  }
  absl::Status status = absl::InvalidArgumentError(text);
  status.SetPayload(kPayloadUrl, absl::Cord(payload));
  return status;
}

absl::Status DiagnosticError(const Diagnostic& diagnostic) {
  return DiagnosticsError({diagnostic});
}

absl::Status StoppedDiagnosticsError(const std::vector<Diagnostic>& diagnostics) {
  absl::Status listed = DiagnosticsError(diagnostics);
  absl::Status status =
      absl::InvalidArgumentError(absl::StrCat(listed.message(), kStoppedLine, "\n"));
  listed.ForEachPayload([&status](absl::string_view url, const absl::Cord& payload) {
    status.SetPayload(url, payload);
  });
  status.SetPayload(kStoppedUrl, absl::Cord("1"));
  return status;
}

bool StoppedAtErrorLimit(const absl::Status& status) {
  return status.GetPayload(kStoppedUrl).has_value();
}

std::optional<std::vector<Diagnostic>> DiagnosticsOf(const absl::Status& status) {
  auto payload = status.GetPayload(kPayloadUrl);  // absl::optional<absl::Cord>
  if (!payload) return std::nullopt;
  const std::string bytes(*payload);
  std::string_view in = bytes;
  std::vector<Diagnostic> out;
  while (!in.empty()) {
    long severity = 0, line = 0, col = 0;
    Diagnostic d;
    if (!ReadInt(&in, ' ', &severity) || !ReadInt(&in, ' ', &line) || !ReadInt(&in, ' ', &col) ||
        severity < 0 || severity > 2 || !ReadField(&in, &d.file) || !ReadField(&in, &d.message) ||
        !ReadField(&in, &d.source_line)) {
      return std::nullopt;
    }
    d.severity = kSeverities[severity];
    d.line = static_cast<int>(line);
    d.col = static_cast<int>(col);
    out.push_back(std::move(d));
  }
  // The payload must say what the message says, or the message is the truth.
  std::string text;
  for (const Diagnostic& d : out) text += d.Render();
  if (StoppedAtErrorLimit(status)) absl::StrAppend(&text, kStoppedLine, "\n");
  if (text != status.message()) return std::nullopt;
  return out;
}

}  // namespace cwsc::ir
