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
// program runs through the shim. When it cannot (this binary cannot be
// located: it was replaced or deleted since it started, or runs from a
// memfd), the argv stays unchanged and the result says why, for the
// warning the run prints; "" when the shim is in place.
std::string AddForegroundShim(std::vector<std::string>* argv);

// RunForegroundShim is the shim: argv is {path, "__foreground", "--",
// PROGRAM, ARGS...}. It execs the program and never returns: when the
// program cannot be started it says so on stderr and leaves with _exit (127
// not found, 126 otherwise, 2 on misuse). _exit, because this process lives
// inside the sandbox: exit-time hooks of an instrumented build (a leak
// check that reads /proc, coverage counters written to the build tree) have
// nothing to do there and would change its status.
[[noreturn]] void RunForegroundShim(int argc, char** argv);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_FOREGROUND_H_
