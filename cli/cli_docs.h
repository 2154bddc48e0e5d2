// The man pages and shell completions of cwsc, made from the command table
// (cli/command_table.h) at build time by cwsc-gendoc (cli/gendoc_main.cc), so
// they list exactly the commands and flags `--help` does.
#ifndef CWSC_CLI_CLI_DOCS_H_
#define CWSC_CLI_CLI_DOCS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "cli/command_table.h"

namespace cwsc::cli {

// ManPage is cwsc-NAME(1) in man(7) markup; MainManPage is cwsc(1).
std::string ManPage(const Command& c, absl::string_view version);
std::string MainManPage(absl::string_view version);

// ManPageName is the file name of a command's page: "cwsc-compile.1".
std::string ManPageName(const Command& c);

// The completion scripts: bash (share/bash-completion/completions/cwsc),
// zsh (share/zsh/site-functions/_cwsc), fish
// (share/fish/vendor_completions.d/cwsc.fish).
std::string BashCompletion();
std::string ZshCompletion();
std::string FishCompletion();

}  // namespace cwsc::cli

#endif  // CWSC_CLI_CLI_DOCS_H_
