// What only the man pages say, beside the command table (cli/command_table.h)
// they are made from: each command's EXAMPLES and the ENVIRONMENT, every
// variable cwsc reads with the commands it affects. The program never prints
// them, so they live with their generator, cwsc-gendoc, not in cli/.
#ifndef CWSC_GENDOC_MAN_TEXT_H_
#define CWSC_GENDOC_MAN_TEXT_H_

#include <span>

#include "absl/strings/string_view.h"

namespace cwsc::gendoc {

// One command line of a command's EXAMPLES: `cwsc NAME ...` with only flags
// of NAME, and what it does (tests/cli/cli_docs_test.py parses it).
struct Example {
  absl::string_view command_line;  // "cwsc compile config.toml --target plan"
  absl::string_view what;          // one phrase, no trailing period
};

// ExamplesOf is the EXAMPLES of command `command` (the first also in
// cwsc(1)); none for a name that is not a command.
std::span<const Example> ExamplesOf(absl::string_view command);

// An environment variable cwsc reads, in the ENVIRONMENT of cwsc(1) (all of
// them) and of cwsc-COMMAND(1) (those naming COMMAND). The list is every
// variable the sources read with a literal name: tests/cli/cli_docs_test.py
// greps cli/, runtime/, compiler/ and lib/ and fails on a variable read but
// not listed (name or also), or listed but not read.
struct EnvironmentVariable {
  absl::string_view name;      // "CODEWHALE_SANDBOX_MODE"
  absl::string_view also;      // other names read the same way, space-separated, or ""
  absl::string_view commands;  // the commands it affects, space-separated, in table order
  absl::string_view meaning;   // one sentence, no trailing period
};

// EnvironmentVariables lists them in the order of cwsc(1).
std::span<const EnvironmentVariable> EnvironmentVariables();

}  // namespace cwsc::gendoc

#endif  // CWSC_GENDOC_MAN_TEXT_H_
