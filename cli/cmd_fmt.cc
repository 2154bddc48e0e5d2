// `cwsc fmt`: print a .cwsp policy in its canonical layout, rewrite it in
// place (-w), or check that it already is (--check).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "compiler/dsl_format.h"

namespace cwsc::cli {
namespace {

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
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("fmt", args, &parse_rc);
  if (!p) return parse_rc;
  const bool check = p->Has("--check");
  const bool write = p->Has("-w");
  const std::vector<std::string>& files = p->positionals;
  if (files.empty()) return PrintUsageError("fmt", "missing FILE");
  if (check && write) return PrintUsageError("fmt", "give --check or -w, not both");
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
      if (*formatted != text) {
        std::printf("%s:%d: not formatted (run `cwsc fmt -w %s`)\n", file.c_str(),
                    FirstDifference(text, *formatted), file.c_str());
        if (rc == kExitOk) rc = kExitCheckFailed;
      }
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
  return rc;
}

}  // namespace cwsc::cli
