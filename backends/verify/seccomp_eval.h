// An independent checker for emitted seccomp programs: a classic BPF
// interpreter over struct seccomp_data (it shares no code with libseccomp),
// the action a SyscallFilter intends for a call, and CheckSeccompProgram,
// which runs the program over every rule's corners (matching and
// non-matching arguments, high bits set in the masked-out half, the edges of
// a rule's block of values, x32 and i386 calls, unrelated calls) and over
// arguments taken from the kernel headers rather than the plan (every socket
// family past AF_MAX and at the rules' edges, type flags OR'ed in, netlink
// protocols past MAX_LINKS, file modes with S_ISUID/S_ISGID for each call
// that takes one), and reports the first disagreement.
//
//   SeccompCall c{.nr = SYS_ioctl, .args = {0, 0x5412}};
//   RunSeccompProgram(bpf, c) == SeccompAction::Errno(EPERM)
#ifndef CWSC_BACKENDS_VERIFY_SECCOMP_EVAL_H_
#define CWSC_BACKENDS_VERIFY_SECCOMP_EVAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/plan.h"

namespace cwsc::backends {

// Return values of a seccomp program (linux/seccomp.h).
namespace seccomp_action {
inline constexpr uint32_t kKillProcess = 0x80000000u;
inline constexpr uint32_t kKillThread = 0x00000000u;
inline constexpr uint32_t kAllow = 0x7fff0000u;
inline constexpr uint32_t Errno(int e) {
  return 0x00050000u | (static_cast<uint32_t>(e) & 0xffffu);
}
}  // namespace seccomp_action

// AUDIT_ARCH_* values (linux/audit.h).
inline constexpr uint32_t kAuditArchX86_64 = 0xc000003eu;
inline constexpr uint32_t kAuditArchI386 = 0x40000003u;
inline constexpr uint32_t kAuditArchAarch64 = 0xc00000b7u;
inline constexpr int kX32SyscallBit = 0x40000000;

// SeccompCall is struct seccomp_data.
struct SeccompCall {
  int nr = 0;
  uint32_t arch = kAuditArchX86_64;
  uint64_t instruction_pointer = 0;
  uint64_t args[6] = {0, 0, 0, 0, 0, 0};
};

// RunSeccompProgram interprets `program` (struct sock_filter[], as bwrap
// reads it) for one call. Errors: a malformed program (size, unknown
// instruction, jump or load out of bounds, no return).
absl::StatusOr<uint32_t> RunSeccompProgram(std::string_view program, const SeccompCall& call);

// SyscallNumber is the x86_64 number of a system call the lowering may name
// (from the kernel headers, not from libseccomp); nullopt when unknown.
std::optional<int> SyscallNumber(std::string_view name);

// IntendedAction is what `filter` means for `call` on an x86_64 host.
absl::StatusOr<uint32_t> IntendedAction(const ir::SyscallFilter& filter, const SeccompCall& call);

// CheckSeccompProgram compares program and intent over every corner; the
// error names the call and both actions. Checks run only on x86_64 hosts
// (elsewhere it returns Unimplemented).
absl::Status CheckSeccompProgram(const ir::SyscallFilter& filter, std::string_view program);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_VERIFY_SECCOMP_EVAL_H_
