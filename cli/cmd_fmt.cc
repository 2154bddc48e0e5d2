// `cwsc fmt`: print a .cwsp policy in its canonical layout, rewrite it in
// place (-w), or check that it already is (--check).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/json_report.h"
#include "compiler/dsl_format.h"

namespace cwsc::cli {
namespace {

constexpr char kFmtUsage[] =
    "usage: cwsc fmt [--check [--json] | -w] FILE...\n"
    "\n"
    "Format .cwsp policies canonically (docs/dsl.md): one statement per line,\n"
    "two-space indentation, comments kept. Without options the formatted text\n"
    "is printed; -w rewrites each FILE in place; --check prints the files that\n"
    "are not formatted and exits 1 if there is any; --check --json reports them in\n"
    "the JSON report (docs/cli.md).\n"
    "Exit codes: 0 ok, 1 not formatted (--check), 2 bad input or usage.\n";

bool ReadWhole(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *text = ss.str();
  return !in.bad();
}

// FirstDifference is the 1-based line where two texts first differ.
int FirstDifference(const std::string& a, const std::string& b) {
  int line = 1;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] != b[i]) return line;
    if (a[i] == '\n') ++line;
  }
  return line;
}

}  // namespace

int CmdFmt(const Args& args) {
  bool check = false;
  bool write = false;
  std::vector<std::string> files;
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(kFmtUsage, stdout);
      return kExitOk;
    } else if (a == "--check") {
      check = true;
    } else if (a == "--json") {
      continue;  // the report is the dispatcher's (cli/json_report.h)
    } else if (a == "-w" || a == "--write") {
      write = true;
    } else if (!a.empty() && a[0] == '-') {
      PrintError(absl::StrCat("fmt: unknown option '", a, "'"));
      std::fputs(kFmtUsage, stderr);
      return kExitUsage;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty() || (check && write)) {
    std::fputs(kFmtUsage, stderr);
    return kExitUsage;
  }
  JsonReport* report = ActiveReport();
  if (report && !check) {
    PrintError("fmt --json reports a --check: it needs --check");
    return kExitUsage;
  }
  Json json_files = Json::array();
  int rc = kExitOk;
  for (const std::string& file : files) {
    std::string text;
    if (!ReadWhole(file, &text)) {
      PrintError(ir::ErrorAt(file, 0, 0, "cannot read the file"));
      rc = kExitUsage;
      continue;
    }
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
                 {"line", differs ? Json(FirstDifference(text, *formatted)) : Json(nullptr)}});
      } else if (differs) {
        std::printf("%s:%d: not formatted (run `cwsc fmt -w %s`)\n", file.c_str(),
                    FirstDifference(text, *formatted), file.c_str());
      }
      if (differs && rc == kExitOk) rc = kExitCheckFailed;
    } else if (write) {
      if (*formatted == text) continue;
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      out << *formatted;
      if (!out.flush()) {
        PrintError(ir::ErrorAt(file, 0, 0, "cannot write the file"));
        rc = kExitUsage;
      }
    } else {
      std::fwrite(formatted->data(), 1, formatted->size(), stdout);
    }
  }
  if (report && rc != kExitUsage) report->SetResult(Json{{"files", json_files}});
  return rc;
}

}  // namespace cwsc::cli
