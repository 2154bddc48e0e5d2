#include "cli/json_report.h"

#include <cstdio>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "cli/cli_parse.h"
#include "cli/command_table.h"
#include "cli/version.h"
#include "ir/display.h"

namespace cwsc::cli {
namespace {

std::unique_ptr<JsonReport>& Active() {
  static std::unique_ptr<JsonReport> report;
  return report;
}

const char* SeverityName(ir::Diagnostic::Severity s) {
  switch (s) {
    case ir::Diagnostic::Severity::kError:
      return "error";
    case ir::Diagnostic::Severity::kWarning:
      return "warning";
    case ir::Diagnostic::Severity::kNote:
      return "note";
  }
  return "error";
}

Json OptString(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }
Json OptInt(int v) { return v > 0 ? Json(v) : Json(nullptr); }

}  // namespace

void JsonReport::AddDiagnostic(const ir::Diagnostic& d, const std::string& code) {
  diagnostics_.push_back({SeverityName(d.severity), code, d.message, d.file, d.line, d.col});
}

std::string JsonReport::Render(int exit_code, bool one_line) const {
  Json diagnostics = Json::array();
  bool errors = false;
  for (const ReportDiagnostic& d : diagnostics_) {
    errors = errors || d.severity == "error";
    diagnostics.push_back(Json{{"severity", d.severity},
                               {"code", OptString(d.code)},
                               // Text for people, escaped as on stderr (ir/display.h).
                               {"message", ir::Displayable(d.message)},
                               {"file", OptString(ir::Displayable(d.file))},
                               {"line", OptInt(d.line)},
                               {"col", OptInt(d.col)}});
  }
  Json j{{"cwsc", Json{{"format", "cwsc-report"},
                       {"version", kReportVersion},
                       {"command", command_},
                       {"tool_version", kVersion}}},
         {"ok", !errors && result_.has_value()},
         {"exit_code", exit_code},
         {"result", result_.has_value() ? *result_ : Json(nullptr)},
         {"diagnostics", diagnostics}};
  // Valid JSON whose every byte is inert on a terminal (ir/display.h).
  return ir::TerminalSafeJson(
             j.dump(one_line ? -1 : 2, ' ', false, nlohmann::json::error_handler_t::replace)) +
         "\n";
}

int JsonReport::Finish(int exit_code) {
  // A usage error that printed only the usage text still says what went wrong.
  bool errors = false;
  for (const ReportDiagnostic& d : diagnostics_) errors = errors || d.severity == "error";
  if (exit_code == 2 && !errors && !result_) {
    Add({"error", "usage", "usage error: see `cwsc " + command_ + " --help`", "", 0, 0});
  }
  if (deliver_) {
    deliver_(Render(exit_code, /*one_line=*/true));
    return exit_code;
  }
  std::string text = Render(exit_code, /*one_line=*/false);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return exit_code;
}

bool JsonCommand(const std::string& command) {
  const Command* c = FindCommand(command);
  return c != nullptr && FindFlag(*c, "--json") != nullptr;
}

void StartReport(const std::string& command, const std::vector<std::string>& args) {
  if (!JsonCommand(command)) return;
  bool json = false;
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") return;
    if (a == "--json") json = true;
  }
  if (!json) return;
  Active() = std::make_unique<JsonReport>(command);
  // A usage error (one line and a hint on stderr) is the report's diagnostic.
  SetUsageErrorObserver([](absl::string_view message) {
    if (JsonReport* report = ActiveReport())
      report->Add({"error", "usage", std::string(message), "", 0, 0});
  });
}

JsonReport* ActiveReport() { return Active().get(); }

int FinishReport(int exit_code) {
  if (!Active()) return exit_code;
  int rc = Active()->Finish(exit_code);
  Active().reset();
  return rc;
}

}  // namespace cwsc::cli
