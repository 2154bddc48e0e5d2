// kArgvNote: the note `cwsc compile` prints last on stderr with a
// linux-bwrap argv in the forms people read (`lines`, `shell`):
// docs/decisions.md, "The launch script".
#ifndef CWSC_TESTS_CLI_ARGV_NOTE_H_
#define CWSC_TESTS_CLI_ARGV_NOTE_H_

namespace cwsc::testing {

inline constexpr char kArgvNote[] =
    "cwsc: note: run as printed, this argv passes on the caller's whole environment and needs "
    "its seccomp program on descriptor 3 (`--target seccomp-bpf`); `--format script` sets up "
    "both\n";

}  // namespace cwsc::testing

#endif  // CWSC_TESTS_CLI_ARGV_NOTE_H_
