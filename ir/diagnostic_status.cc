#include "ir/diagnostic_status.h"

#include <nlohmann/json.hpp>

#include <string>

#include "absl/strings/cord.h"

namespace cwsc::ir {
namespace {

constexpr char kPayloadUrl[] = "type.cwsc/diagnostics";

using Json = nlohmann::json;

const Diagnostic::Severity kSeverities[] = {Diagnostic::Severity::kError,
                                            Diagnostic::Severity::kWarning,
                                            Diagnostic::Severity::kNote};

}  // namespace

absl::Status DiagnosticsError(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  Json list = Json::array();
  for (const Diagnostic& d : diagnostics) {
    text += d.Render();
    list.push_back(Json{{"severity", static_cast<int>(d.severity)},
                        {"file", d.file},
                        {"line", d.line},
                        {"col", d.col},
                        {"message", d.message},
                        {"source_line", d.source_line}});
  }
  absl::Status status = absl::InvalidArgumentError(text);
  // Bytes that are not UTF-8 (a path, a source line) are replaced in the
  // payload only; the message keeps them.
  status.SetPayload(kPayloadUrl,
                    absl::Cord(list.dump(-1, ' ', false, Json::error_handler_t::replace)));
  return status;
}

absl::Status DiagnosticError(const Diagnostic& diagnostic) {
  return DiagnosticsError({diagnostic});
}

std::optional<std::vector<Diagnostic>> DiagnosticsOf(const absl::Status& status) {
  auto payload = status.GetPayload(kPayloadUrl);  // absl::optional<absl::Cord>
  if (!payload) return std::nullopt;
  Json list = Json::parse(std::string(*payload), nullptr, /*allow_exceptions=*/false);
  if (!list.is_array()) return std::nullopt;
  std::vector<Diagnostic> out;
  for (const Json& j : list) {
    int severity = j.value("severity", 0);
    if (severity < 0 || severity > 2) return std::nullopt;
    out.push_back(Diagnostic{kSeverities[severity], j.value("file", ""), j.value("line", 0),
                             j.value("col", 0), j.value("message", ""),
                             j.value("source_line", "")});
  }
  // The payload must say what the message says, or the message is the truth.
  std::string text;
  for (const Diagnostic& d : out) text += d.Render();
  if (text != status.message()) return std::nullopt;
  return out;
}

}  // namespace cwsc::ir
