// The JSON envelope every reporting command prints with `--json`
// (docs/cli.md, "JSON output"; schema: docs/cli.schema.json):
//
//   {"cwsc": {"format": "cwsc-report", "version": 1, "command": "diff",
//             "tool_version": "0.1.0"},
//    "ok": true, "exit_code": 1, "result": {...} | null,
//    "diagnostics": [{"severity", "code", "message", "file", "line", "col"}, ...]}
//
// The dispatcher starts a report when a JSON-capable command gets `--json`
// (before `--`), commands fill `result`, and PrintError / PrintNotes /
// PrintWarning (cli_options.h) record every diagnostic they print into it.
// When the command returns, the envelope is written on stdout, or on the
// result channel a command set (`run`/`exec`: -o FILE, --json-fd N).
#ifndef CWSC_CLI_JSON_REPORT_H_
#define CWSC_CLI_JSON_REPORT_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/driver/report.h"
#include "ir/diagnostics.h"

namespace cwsc::cli {

using Json = driver::Json;

// kReportVersion is the envelope's version: it grows only when a field's
// meaning changes or a field goes away (docs/cli.md, "Compatibility").
inline constexpr int kReportVersion = 1;

struct ReportDiagnostic {
  std::string severity;  // "error", "warning" or "note"
  std::string code;      // "" when the diagnostic has none
  std::string message;
  std::string file;  // "" when it names no file
  int line = 0;      // 0 when it has no position
  int col = 0;
};

class JsonReport {
 public:
  explicit JsonReport(std::string command) : command_(std::move(command)) {}

  const std::string& command() const { return command_; }
  void SetResult(Json result) { result_ = std::move(result); }
  bool has_result() const { return result_.has_value(); }
  void Add(ReportDiagnostic d) { diagnostics_.push_back(std::move(d)); }
  void AddDiagnostic(const ir::Diagnostic& d, const std::string& code = "");
  const std::vector<ReportDiagnostic>& diagnostics() const { return diagnostics_; }

  // Deliver sends the envelope somewhere else than stdout (run/exec's channel).
  void SetDelivery(std::function<void(const std::string&)> deliver) {
    deliver_ = std::move(deliver);
  }
  // Render is the envelope for exit code `exit_code`: indented, or one line.
  std::string Render(int exit_code, bool one_line) const;
  // Finish renders and delivers the envelope; returns exit_code.
  int Finish(int exit_code);

 private:
  std::string command_;
  std::optional<Json> result_;
  std::vector<ReportDiagnostic> diagnostics_;
  std::function<void(const std::string&)> deliver_;
};

// JsonCommand: `command` reports in the envelope with --json.
bool JsonCommand(const std::string& command);

// StartReport starts the report of `command` when it is JSON-capable and
// `args` holds `--json` before any `--` (and no --help); else does nothing.
void StartReport(const std::string& command, const std::vector<std::string>& args);

// ActiveReport is the running command's report, or nullptr without --json.
JsonReport* ActiveReport();

// FinishReport writes the active report's envelope (if any); returns exit_code.
int FinishReport(int exit_code);

}  // namespace cwsc::cli

#endif  // CWSC_CLI_JSON_REPORT_H_
