// Help texts made from the command table (cli/command_table.h): `cwsc
// --help`, and `cwsc help CMD` / `cwsc CMD --help`.
#ifndef CWSC_CLI_CLI_HELP_H_
#define CWSC_CLI_CLI_HELP_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "cli/command_table.h"

namespace cwsc::cli {

// MainHelp is `cwsc --help`: the usage, what cwsc does, every command.
std::string MainHelp();

// CommandHelp is `cwsc CMD --help`: synopsis, description, every flag with
// its values, exit status.
std::string CommandHelp(const Command& c);

// SynopsisLines are the command's synopsis lines, each "cwsc NAME ...".
std::vector<std::string> SynopsisLines(const Command& c);

// FlagLabel is how a flag is shown: "-o, --output FILE", "--mode MODE".
std::string FlagLabel(const Flag& f);

// Wrap fills `text` into lines of at most `width` columns, the first indented
// by `first`, the others by `rest` spaces; each line ends with '\n'.
std::string Wrap(absl::string_view text, size_t first, size_t rest, size_t width = 79);

}  // namespace cwsc::cli

#endif  // CWSC_CLI_CLI_HELP_H_
