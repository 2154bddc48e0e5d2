// cwsc-gendoc: writes the man pages and shell completions of cwsc from the
// command table (gendoc/docs.h). Run by the build (gendoc/man/meson.build,
// gendoc/completions/meson.build); not installed.
//   cwsc-gendoc man DIR         cwsc.1 and cwsc-COMMAND.1 for every command
//   cwsc-gendoc bash|zsh|fish FILE
#include <cstdio>
#include <fstream>
#include <string>

#include "cli/command_table.h"
#include "cli/version.h"
#include "gendoc/docs.h"

namespace {

bool Write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) {
    std::fprintf(stderr, "cwsc-gendoc: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fputs("usage: cwsc-gendoc man DIR | bash FILE | zsh FILE | fish FILE\n", stderr);
    return 2;
  }
  std::string what = argv[1], where = argv[2];
  using namespace cwsc::cli;
  using namespace cwsc::gendoc;
  if (what == "man") {
    if (!Write(where + "/cwsc.1", MainManPage(kVersion))) return 1;
    for (const Command& c : Commands()) {
      if (!Write(where + "/" + ManPageName(c), ManPage(c, kVersion))) return 1;
    }
    return 0;
  }
  if (what == "bash") return Write(where, BashCompletion()) ? 0 : 1;
  if (what == "zsh") return Write(where, ZshCompletion()) ? 0 : 1;
  if (what == "fish") return Write(where, FishCompletion()) ? 0 : 1;
  std::fprintf(stderr, "cwsc-gendoc: unknown output '%s'\n", what.c_str());
  return 2;
}
