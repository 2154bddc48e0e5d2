// Subcommands of the `cwsc` command line. Each takes the arguments after its
// own name and returns the process exit code (docs/cli.md lists them):
//   0 ok, 1 check/expectation failed, 2 bad input or usage,
//   3 plan refused, 4 target not applicable to the plan, 125 runtime failure.
#ifndef CWSC_CLI_COMMANDS_H_
#define CWSC_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace cwsc::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitRefused = 3;
inline constexpr int kExitNotApplicable = 4;

using Args = std::vector<std::string>;

int CmdCompile(const Args& args);
int CmdExplain(const Args& args);
int CmdFacts(const Args& args);
int CmdRun(const Args& args);
int CmdExec(const Args& args);
int CmdDoctor(const Args& args);
int CmdFmt(const Args& args);
int CmdCheck(const Args& args);
int CmdWhy(const Args& args);
int CmdDiff(const Args& args);
int CmdAudit(const Args& args);

}  // namespace cwsc::cli

#endif  // CWSC_CLI_COMMANDS_H_
