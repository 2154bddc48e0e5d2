// cwsc: the command-line entry point. Dispatches to the subcommands in
// cli/cmd_*.cc through one table.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/json_report.h"
#include "cli/version.h"
#include "runtime/foreground.h"

#ifdef CWSC_COVERAGE
// Coverage builds: _exit skips the atexit handler that writes gcov's counters.
extern "C" void __gcov_dump(void);
#endif

namespace {

struct Command {
  const char* name;
  int (*run)(const cwsc::cli::Args&);
  const char* summary;
};

// kCommands lists every subcommand; keep it in the order of `cwsc --help`.
const Command kCommands[] = {
    {"compile", cwsc::cli::CmdCompile, "compile a policy into a launch plan or artifact"},
    {"explain", cwsc::cli::CmdExplain, "show every emitted token with its origin"},
    {"facts", cwsc::cli::CmdFacts, "record the host facts a compile consults"},
    {"check", cwsc::cli::CmdCheck, "validate a policy and evaluate its expectations"},
    {"why", cwsc::cli::CmdWhy, "the decision for one path and the rules behind it"},
    {"diff", cwsc::cli::CmdDiff, "what one policy allows that another does not"},
    {"audit", cwsc::cli::CmdAudit, "the access map of any bwrap argv or Seatbelt profile"},
    {"fmt", cwsc::cli::CmdFmt, "format a .cwsp policy canonically"},
    {"run", cwsc::cli::CmdRun, "compile against this host, then run a program under the plan"},
    {"exec", cwsc::cli::CmdExec, "run a program under a plan compiled earlier"},
    {"doctor", cwsc::cli::CmdDoctor, "which wrapper works here, and why not"},
};

constexpr char kUsage[] =
    "usage: cwsc <command> [options]\n"
    "\n"
    "cwsc compiles a sandbox policy (Codewhale config.toml or a .cwsp policy),\n"
    "a permission mode and host facts into a launch plan, and the plan into a\n"
    "bubblewrap argv, a Seatbelt profile, a launcher command or an OpenSandbox\n"
    "request.\n"
    "\n"
    "commands:\n";

void PrintUsage(FILE* out) {
  std::fputs(kUsage, out);
  for (const Command& c : kCommands) std::fprintf(out, "  %-9s %s\n", c.name, c.summary);
  std::fputs("\nRun `cwsc <command> --help` for a command's options.\n", out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return cwsc::cli::kExitUsage;
  }
  std::string name = argv[1];
  // Inside a sandbox at a terminal: the foreground shim (runtime/foreground.h).
  if (name == cwsc::runtime::kForegroundShimCommand) {
    return cwsc::runtime::RunForegroundShim(argc, argv);
  }
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(stdout);
    return cwsc::cli::kExitOk;
  }
  if (name == "--version") {
    std::printf("cwsc %s\n", cwsc::cli::kVersion);
    return cwsc::cli::kExitOk;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const Command& c : kCommands) {
    if (name == c.name) {
      // Every command has closed its files when it returns: flush stdio and
      // leave without running destructors and exit handlers, which cost
      // `cwsc run` a tenth of a millisecond per launch (docs/runtime.md).
      cwsc::cli::StartReport(name, args);  // --json: the envelope (cli/json_report.h)
      int rc = cwsc::cli::FinishReport(c.run(args));
      std::fflush(nullptr);
#ifdef CWSC_COVERAGE
      __gcov_dump();
#endif
      _exit(rc);
    }
  }
  std::fprintf(stderr, "cwsc: unknown command '%s'\n", name.c_str());
  PrintUsage(stderr);
  return cwsc::cli::kExitUsage;
}
