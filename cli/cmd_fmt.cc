// `cwsc fmt`: print a .cwsp policy in its canonical layout, rewrite it in
// place (-w), or check that it already is (--check).
#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/json_report.h"
#include "compiler/dsl_format.h"
#include "ir/display.h"

namespace cwsc::cli {

int CmdFmt(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("fmt", args, &parse_rc);
  if (!p) return parse_rc;
  const bool check = p->Has("--check");
  const bool write = p->Has("-w");
  const std::vector<std::string>& files = p->positionals;
  if (files.empty()) return PrintUsageError("fmt", "missing FILE");
  if (check && write) return PrintUsageError("fmt", "give --check or -w, not both");
  if (write && std::find(files.begin(), files.end(), "-") != files.end()) {
    return PrintUsageError("fmt", "-w cannot rewrite stdin (-)");
  }
  JsonReport* report = ActiveReport();
  if (report && !check) {
    return PrintUsageError("fmt", "fmt --json reports a --check: it needs --check");
  }
  Json json_files = Json::array();
  int rc = kExitOk;
  for (const std::string& path : files) {
    const std::string file = InputName(path);
    absl::StatusOr<std::string> read = ReadInput(path);
    if (!read.ok()) {
      PrintError(read.status());
      rc = kExitUsage;
      continue;
    }
    const std::string& text = *read;
    absl::StatusOr<std::string> formatted = compiler::FormatDsl(text, file);
    if (!formatted.ok()) {
      PrintError(formatted.status());
      rc = kExitUsage;
      continue;
    }
    if (check) {
      bool differs = *formatted != text;
      if (report) {
        json_files.push_back(
            Json{{"file", file},
                 {"formatted", !differs},
                 {"line",
                  differs ? Json(compiler::FirstDifferingLine(text, *formatted)) : Json(nullptr)}});
      } else if (differs) {
        std::string shown = ir::Displayable(file);
        if (path == "-") {
          std::printf("%s:%d: not formatted\n", shown.c_str(),
                      compiler::FirstDifferingLine(text, *formatted));
        } else {
          std::printf("%s:%d: not formatted (run `cwsc fmt -w %s`)\n", shown.c_str(),
                      compiler::FirstDifferingLine(text, *formatted), shown.c_str());
        }
      }
      if (differs && rc == kExitOk) rc = kExitCheckFailed;
    } else if (write) {
      if (*formatted == text) continue;
      if (!WriteFileReplacing(file, *formatted)) rc = kExitUsage;
    } else {
      std::fwrite(formatted->data(), 1, formatted->size(), stdout);
    }
  }
  if (report && rc != kExitUsage) report->SetResult(Json{{"files", json_files}});
  return rc;
}

}  // namespace cwsc::cli
