// The man pages and shell completions of cwsc, made from the command table
// (cli/command_table.h) at build time by cwsc-gendoc (gendoc/gendoc_main.cc),
// so they list exactly the commands and flags `--help` does. Not part of the
// program: a build-time generator that reads cli/'s table (docs/architecture.md).
#ifndef CWSC_GENDOC_DOCS_H_
#define CWSC_GENDOC_DOCS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "cli/command_table.h"

namespace cwsc::gendoc {

// ManPage is cwsc-NAME(1) in man(7) markup; MainManPage is cwsc(1).
std::string ManPage(const cli::Command& c, absl::string_view version);
std::string MainManPage(absl::string_view version);

// ManPageName is the file name of a command's page: "cwsc-compile.1".
std::string ManPageName(const cli::Command& c);

// The completion scripts: bash (share/bash-completion/completions/cwsc),
// zsh (share/zsh/site-functions/_cwsc), fish
// (share/fish/vendor_completions.d/cwsc.fish).
std::string BashCompletion();
std::string ZshCompletion();
std::string FishCompletion();

}  // namespace cwsc::gendoc

#endif  // CWSC_GENDOC_DOCS_H_
