// LowerSyscallFilter builds the seccomp stage of a bwrap plan: the system
// calls the command may not make, each with the reason and origin that put
// it there (docs/runtime.md, "Threat model"; docs/decisions.md).
//
//   ir::SyscallFilter f = LowerSyscallFilter(plan.policy);
//   // f.rules[0]: ioctl with (arg1 & 0xffffffff) == TIOCSTI -> EPERM
#ifndef CWSC_COMPILER_LOWER_SECCOMP_H_
#define CWSC_COMPILER_LOWER_SECCOMP_H_

#include "ir/plan.h"

namespace cwsc::compiler {

ir::SyscallFilter LowerSyscallFilter(const ir::Policy& policy);

// LowerLandlockSyscallFilter is the seccomp stage of a linux-landlock plan:
// the bwrap plan's filter, and with the network off also AF_INET and
// AF_INET6 sockets refused (there is no private network namespace).
ir::SyscallFilter LowerLandlockSyscallFilter(const ir::Policy& policy);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_LOWER_SECCOMP_H_
