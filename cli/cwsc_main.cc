// cwsc: the command-line entry point. Dispatches to the subcommands in
// cli/cmd_*.cc; the commands, their flags and help are in cli/command_table.h.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "cli/cli_help.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "cli/json_report.h"
#include "cli/version.h"
#include "runtime/foreground.h"

#ifdef CWSC_COVERAGE
// Coverage builds: _exit skips the atexit handler that writes gcov's counters.
extern "C" void __gcov_dump(void);
#endif

namespace {

using Runner = int (*)(const cwsc::cli::Args&);

// RunnerOf maps a command of the table (cli/command_table.h) to its code.
Runner RunnerOf(absl::string_view name) {
  using namespace cwsc::cli;
  static constexpr std::pair<absl::string_view, Runner> kRunners[] = {
      {"compile", CmdCompile}, {"explain", CmdExplain}, {"facts", CmdFacts},   {"check", CmdCheck},
      {"why", CmdWhy},         {"diff", CmdDiff},       {"audit", CmdAudit},   {"fmt", CmdFmt},
      {"run", CmdRun},         {"exec", CmdExec},       {"doctor", CmdDoctor},
  };
  for (const auto& [n, r] : kRunners) {
    if (n == name) return r;
  }
  return nullptr;
}

// UnknownCommand is the usage error for a word that names no command.
int UnknownCommand(const std::string& name) {
  std::vector<absl::string_view> names;
  for (const cwsc::cli::Command& c : cwsc::cli::Commands()) names.push_back(c.name);
  std::string m = "unknown command '" + name + "'";
  if (std::string near = cwsc::cli::DidYouMean(name, names); !near.empty()) {
    m += " (did you mean '" + near + "'?)";
  }
  return cwsc::cli::PrintUsageError("", m);
}

// Help is `cwsc help [COMMAND]`.
int Help(const std::vector<std::string>& args) {
  int rc = 0;
  std::optional<cwsc::cli::ParsedArgs> p = cwsc::cli::ParseOrExit("help", args, &rc);
  if (!p) return rc;
  if (p->positionals.empty()) {
    std::fputs(cwsc::cli::MainHelp().c_str(), stdout);
    return cwsc::cli::kExitOk;
  }
  const cwsc::cli::Command* c = cwsc::cli::FindCommand(p->positionals[0]);
  if (c == nullptr) return UnknownCommand(p->positionals[0]);
  std::fputs(cwsc::cli::CommandHelp(*c).c_str(), stdout);
  return cwsc::cli::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return cwsc::cli::PrintUsageError("", "no command given");
  std::string name = argv[1];
  // Inside a sandbox at a terminal: the foreground shim (runtime/foreground.h).
  if (name == cwsc::runtime::kForegroundShimCommand) {
    cwsc::runtime::RunForegroundShim(argc, argv);
  }
  if (name == "--help" || name == "-h") {
    std::fputs(cwsc::cli::MainHelp().c_str(), stdout);
    return cwsc::cli::kExitOk;
  }
  if (name == "--version") {
    std::printf("cwsc %s\n", cwsc::cli::kVersion);
    return cwsc::cli::kExitOk;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  if (name == "help") return Help(args);
  if (Runner run = RunnerOf(name)) {
    // Every command has closed its files when it returns: flush stdio and
    // leave without running destructors and exit handlers, which cost
    // `cwsc run` a tenth of a millisecond per launch (docs/runtime.md).
    cwsc::cli::StartReport(name, args);  // --json: the envelope (cli/json_report.h)
    int rc = cwsc::cli::FinishReport(run(args));
    std::fflush(nullptr);
#ifdef CWSC_COVERAGE
    __gcov_dump();
#endif
    _exit(rc);
  }
  return UnknownCommand(name);
}
