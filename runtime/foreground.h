// Ctrl-C at a terminal for bwrap plans. Without help, the terminal's
// SIGINT reaches bwrap too, which has no handler and dies, and its
// --die-with-parent ends the sandbox before the command's own handler can
// finish. So at a terminal the runtime starts the command through a shim
// inside the sandbox (cwsc itself, bound read-only at kForegroundShimPath):
// the shim puts itself in a process group of its own, makes that group the
// terminal's foreground, and execs the command. Ctrl-C then reaches the
// command's group only; bwrap waits for the command as usual, and cwsc takes
// the terminal back when the run ends (runtime/host/spawn.h).
//
//   bwrap ... --ro-bind /usr/bin/cwsc /dev/.cwsc-foreground ... --
//       /dev/.cwsc-foreground __foreground -- PROGRAM ARGS...
#ifndef CWSC_RUNTIME_FOREGROUND_H_
#define CWSC_RUNTIME_FOREGROUND_H_

#include <string>
#include <vector>

namespace cwsc::runtime {

inline constexpr char kForegroundShimPath[] = "/dev/.cwsc-foreground";
inline constexpr char kForegroundShimCommand[] = "__foreground";

// AddForegroundShim rewrites a bwrap argv (launcher prefix allowed) so its
// program runs through the shim; false (argv unchanged) when this binary
// cannot be located or the argv has no `--`.
bool AddForegroundShim(std::vector<std::string>* argv);

// RunForegroundShim is the shim: argv is {path, "__foreground", "--",
// PROGRAM, ARGS...}. It returns only when the program cannot be started
// (127 not found, 126 otherwise, with a message on stderr).
int RunForegroundShim(int argc, char** argv);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_FOREGROUND_H_
