// The seccomp backend: a plan's SyscallFilter as the classic BPF program
// bubblewrap loads with `--seccomp FD` (built with libseccomp for this
// machine's architecture), and as a readable listing for golden review.
//
//   absl::StatusOr<std::string> bpf = EmitSeccompBpf(*plan.syscall_filter());
//   // bpf->size() % 8 == 0: struct sock_filter[], as bwrap reads it
//
// The program allows every call no rule refuses, refuses a matching call
// with the rule's errno, and kills the process for a call made through
// another architecture's convention (i386 int 0x80, x32): a denylist that
// another ABI could bypass would promise nothing.
#ifndef CWSC_BACKENDS_SECCOMP_FILTER_H_
#define CWSC_BACKENDS_SECCOMP_FILTER_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/plan.h"

namespace cwsc::backends {

// The fd number the bwrap argv names in `--seccomp`; the runtime places the
// program there (runtime/execute.h), and a user running a compiled argv by
// hand redirects it: `3< filter.bpf`.
inline constexpr int kSeccompFd = 3;

absl::StatusOr<std::string> EmitSeccompBpf(const ir::SyscallFilter& filter);

// EmitSeccompListing: one comment line per rule (system call, argument
// tests, errno, why, origin), then libseccomp's pseudo filter code.
absl::StatusOr<std::string> EmitSeccompListing(const ir::SyscallFilter& filter);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_SECCOMP_FILTER_H_
