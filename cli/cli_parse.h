// The one parser of cwsc's command line, driven by the command table
// (cli/command_table.h): a command accepts exactly the flags its table entry
// lists. Both `--opt value` and `--opt=value` are accepted; `-` alone is an
// argument (stdin), `--` ends the options where the command takes a program.
#ifndef CWSC_CLI_CLI_PARSE_H_
#define CWSC_CLI_CLI_PARSE_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cli/command_table.h"

namespace cwsc::cli {

struct ParsedArgs {
  const Command* command = nullptr;
  bool help = false;
  std::vector<std::string> positionals;
  // Every flag given, in order, by its table name ("-o" for "--output"), with
  // its value ("" for a switch).
  std::vector<std::pair<std::string, std::string>> flags;
  bool saw_dashdash = false;
  std::vector<std::string> program;  // after --

  bool Has(absl::string_view name) const;
  std::optional<std::string> Last(absl::string_view name) const;
  std::vector<std::string> All(absl::string_view name) const;
};

// Parse parses `args` (the words after the command's name) for `command`.
// An error status carries the one-line usage error (without "cwsc: error: ").
absl::StatusOr<ParsedArgs> Parse(const Command& command, const std::vector<std::string>& args);

// DidYouMean returns the candidate closest to `word` (optimal string
// alignment distance, at most 2 and less than half of `word`), or "".
std::string DidYouMean(absl::string_view word, const std::vector<absl::string_view>& candidates);

// PrintUsageError prints `cwsc: error: MESSAGE` and the hint
// `Try 'cwsc COMMAND --help'.` (or `'cwsc --help'` without a command) to
// stderr and returns the usage exit code, 2.
int PrintUsageError(absl::string_view command, absl::string_view message);

// SetUsageErrorObserver: PrintUsageError also hands each message to
// `observer` (the --json report records it; cli/json_report.h). nullptr: none.
using UsageErrorObserver = void (*)(absl::string_view message);
void SetUsageErrorObserver(UsageErrorObserver observer);

// ParseOrExit parses for the command named `name`. On `--help` it prints the
// command's help to stdout and sets *rc to 0; on a usage error it prints the
// error (PrintUsageError) and sets *rc to 2; either way it returns nullopt.
std::optional<ParsedArgs> ParseOrExit(absl::string_view name, const std::vector<std::string>& args,
                                      int* rc);

}  // namespace cwsc::cli

#endif  // CWSC_CLI_CLI_PARSE_H_
