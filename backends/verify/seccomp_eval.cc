#include "backends/verify/seccomp_eval.h"

#include <sys/syscall.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace cwsc::backends {
namespace {

constexpr size_t kMaxInstructions = 4096;  // BPF_MAXINSNS
constexpr uint32_t kDataSize = 64;         // sizeof(struct seccomp_data)

struct Insn {
  uint16_t code;
  uint8_t jt;
  uint8_t jf;
  uint32_t k;
};

// Word reads the 32-bit little-endian word at `offset` of the call's data.
uint32_t Word(const SeccompCall& c, uint32_t offset) {
  uint8_t data[kDataSize] = {};
  uint32_t nr = static_cast<uint32_t>(c.nr);
  auto put = [&](uint32_t at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i)
      data[at + static_cast<uint32_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
  };
  put(0, nr, 4);
  put(4, c.arch, 4);
  put(8, c.instruction_pointer, 8);
  for (uint32_t i = 0; i < 6; ++i) put(16 + 8 * i, c.args[i], 8);
  return static_cast<uint32_t>(data[offset]) | static_cast<uint32_t>(data[offset + 1]) << 8 |
         static_cast<uint32_t>(data[offset + 2]) << 16 |
         static_cast<uint32_t>(data[offset + 3]) << 24;
}

std::string Hex32(uint32_t v) { return absl::StrFormat("0x%08x", v); }

std::string ActionName(uint32_t a) {
  if (a == seccomp_action::kAllow) return "ALLOW";
  if (a == seccomp_action::kKillProcess) return "KILL_PROCESS";
  if (a == seccomp_action::kKillThread) return "KILL_THREAD";
  if ((a & 0xffff0000u) == 0x00050000u) return absl::StrCat("ERRNO(", a & 0xffffu, ")");
  return Hex32(a);
}

}  // namespace

absl::StatusOr<uint32_t> RunSeccompProgram(std::string_view program, const SeccompCall& call) {
  if (program.empty() || program.size() % 8 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a seccomp program is a non-empty multiple of 8 bytes, got ", program.size()));
  }
  std::vector<Insn> insns(program.size() / 8);
  if (insns.size() > kMaxInstructions) {
    return absl::InvalidArgumentError(absl::StrCat("the program has ", insns.size(),
                                                   " instructions; the kernel takes at most 4096"));
  }
  for (size_t i = 0; i < insns.size(); ++i) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(program.data()) + 8 * i;
    insns[i].code = static_cast<uint16_t>(p[0] | p[1] << 8);
    insns[i].jt = p[2];
    insns[i].jf = p[3];
    insns[i].k = static_cast<uint32_t>(p[4]) | static_cast<uint32_t>(p[5]) << 8 |
                 static_cast<uint32_t>(p[6]) << 16 | static_cast<uint32_t>(p[7]) << 24;
  }
  uint32_t a = 0, x = 0, mem[16] = {};
  size_t pc = 0;
  auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("instruction ", pc, ": ", what));
  };
  while (pc < insns.size()) {
    const Insn& in = insns[pc];
    uint16_t cls = in.code & 0x07;
    switch (cls) {
      case 0x00:    // BPF_LD
      case 0x01: {  // BPF_LDX
        uint16_t size = in.code & 0x18, mode = in.code & 0xe0;
        if (size != 0x00) return bad("only 32-bit loads are allowed");
        uint32_t v = 0;
        if (mode == 0x20 && cls == 0x00) {  // ABS
          if (in.k % 4 != 0 || in.k + 4 > kDataSize) return bad("load outside seccomp_data");
          v = Word(call, in.k);
        } else if (mode == 0x00) {  // IMM
          v = in.k;
        } else if (mode == 0x60) {  // MEM
          if (in.k >= 16) return bad("scratch memory index out of range");
          v = mem[in.k];
        } else if (mode == 0x80) {  // LEN
          v = kDataSize;
        } else {
          return bad(absl::StrCat("load mode ", Hex32(mode), " is not allowed"));
        }
        (cls == 0x00 ? a : x) = v;
        ++pc;
        break;
      }
      case 0x02:    // BPF_ST
      case 0x03: {  // BPF_STX
        if (in.k >= 16) return bad("scratch memory index out of range");
        mem[in.k] = cls == 0x02 ? a : x;
        ++pc;
        break;
      }
      case 0x04: {  // BPF_ALU
        uint32_t src = (in.code & 0x08) ? x : in.k;
        switch (in.code & 0xf0) {
          case 0x00:
            a += src;
            break;
          case 0x10:
            a -= src;
            break;
          case 0x20:
            a *= src;
            break;
          case 0x30:
            if (src == 0) return uint32_t{seccomp_action::kKillThread};  // the kernel's verdict
            a /= src;
            break;
          case 0x40:
            a |= src;
            break;
          case 0x50:
            a &= src;
            break;
          case 0x60:
            a = src >= 32 ? 0 : a << src;
            break;
          case 0x70:
            a = src >= 32 ? 0 : a >> src;
            break;
          case 0x80:
            a = static_cast<uint32_t>(-static_cast<int64_t>(a));
            break;
          case 0x90:
            if (src == 0) return uint32_t{seccomp_action::kKillThread};
            a %= src;
            break;
          case 0xa0:
            a ^= src;
            break;
          default:
            return bad("unknown ALU operation");
        }
        ++pc;
        break;
      }
      case 0x05: {  // BPF_JMP
        uint16_t op = in.code & 0xf0;
        size_t next;
        if (op == 0x00) {  // JA
          next = pc + 1 + in.k;
        } else {
          uint32_t src = (in.code & 0x08) ? x : in.k;
          bool t;
          switch (op) {
            case 0x10:
              t = a == src;
              break;
            case 0x20:
              t = a > src;
              break;
            case 0x30:
              t = a >= src;
              break;
            case 0x40:
              t = (a & src) != 0;
              break;
            default:
              return bad("unknown jump");
          }
          next = pc + 1 + (t ? in.jt : in.jf);
        }
        if (next >= insns.size()) return bad("jump past the end of the program");
        pc = next;
        break;
      }
      case 0x06: {  // BPF_RET
        uint16_t rval = in.code & 0x18;
        if (rval == 0x00) return in.k;
        if (rval == 0x10) return a;
        return bad("return of X is not allowed");
      }
      case 0x07: {  // BPF_MISC
        if ((in.code & 0xf8) == 0x00) {
          x = a;
        } else if ((in.code & 0xf8) == 0x80) {
          a = x;
        } else {
          return bad("unknown misc operation");
        }
        ++pc;
        break;
      }
    }
  }
  return absl::InvalidArgumentError("the program ends without a return");
}

const char* const kKnownCalls[] = {"ioctl",          "mount",
                                   "umount2",        "pivot_root",
                                   "move_mount",     "open_tree",
                                   "fsopen",         "fsconfig",
                                   "fsmount",        "fspick",
                                   "mount_setattr",  "io_uring_setup",
                                   "io_uring_enter", "io_uring_register",
                                   "keyctl",         "add_key",
                                   "request_key",    "socket",
                                   "socketpair",     "connect",
                                   "read",           "write",
                                   "openat",         "execve"};

std::optional<int> SyscallNumber(std::string_view name) {
#if defined(__x86_64__)
  struct Entry {
    const char* name;
    int nr;
  };
  static const Entry kTable[] = {
      {"ioctl", SYS_ioctl},
      {"mount", SYS_mount},
      {"umount2", SYS_umount2},
      {"pivot_root", SYS_pivot_root},
      {"move_mount", SYS_move_mount},
      {"open_tree", SYS_open_tree},
      {"fsopen", SYS_fsopen},
      {"fsconfig", SYS_fsconfig},
      {"fsmount", SYS_fsmount},
      {"fspick", SYS_fspick},
      {"mount_setattr", 442},
      {"io_uring_setup", SYS_io_uring_setup},
      {"io_uring_enter", SYS_io_uring_enter},
      {"io_uring_register", SYS_io_uring_register},
      {"keyctl", SYS_keyctl},
      {"add_key", SYS_add_key},
      {"request_key", SYS_request_key},
      {"socket", SYS_socket},
      {"socketpair", SYS_socketpair},
      {"connect", SYS_connect},
      {"read", SYS_read},
      {"write", SYS_write},
      {"openat", SYS_openat},
      {"execve", SYS_execve},
  };
  for (const Entry& e : kTable) {
    if (name == e.name) return e.nr;
  }
#else
  (void)name;
#endif
  return std::nullopt;
}

absl::StatusOr<uint32_t> IntendedAction(const ir::SyscallFilter& filter, const SeccompCall& call) {
  if (call.arch != kAuditArchX86_64 || (call.nr & kX32SyscallBit) != 0) {
    return uint32_t{seccomp_action::kKillProcess};
  }
  for (const ir::SyscallRule& r : filter.rules) {
    std::optional<int> nr = SyscallNumber(r.syscall);
    if (!nr)
      return absl::InvalidArgumentError(absl::StrCat("unknown system call '", r.syscall, "'"));
    if (*nr != call.nr) continue;
    bool all = true;
    for (const ir::ArgTest& t : r.args) {
      all = all && (call.args[t.index] & t.mask) == t.value;
    }
    if (all) return seccomp_action::Errno(r.errno_value);
  }
  return uint32_t{seccomp_action::kAllow};
}

absl::Status CheckSeccompProgram(const ir::SyscallFilter& filter, std::string_view program) {
#if !defined(__x86_64__)
  return absl::UnimplementedError("the seccomp checker knows x86_64 only");
#endif
  std::vector<SeccompCall> calls;
  auto add = [&](SeccompCall c) {
    calls.push_back(c);
    SeccompCall x32 = c;
    x32.nr |= kX32SyscallBit;
    calls.push_back(x32);
    SeccompCall i386 = c;
    i386.arch = kAuditArchI386;
    calls.push_back(i386);
  };
  // Every call the checker knows, with plain arguments, and the ioctl
  // requests and socket domains a rule may name: a program that refuses
  // more (or less) than the plan says is caught even where no rule looks.
  for (const char* name : kKnownCalls) add(SeccompCall{.nr = *SyscallNumber(name)});
  for (uint64_t request : {0x5412ull, 0x541cull, 0x5413ull, 0x540full}) {
    SeccompCall c{.nr = *SyscallNumber("ioctl")};
    c.args[1] = request;
    add(c);
  }
  for (uint64_t domain : {1ull, 2ull, 10ull, 16ull}) {  // AF_UNIX, AF_INET, AF_INET6, AF_NETLINK
    SeccompCall c{.nr = *SyscallNumber("socket")};
    c.args[0] = domain;
    add(c);
  }
  for (const ir::SyscallRule& r : filter.rules) {
    std::optional<int> nr = SyscallNumber(r.syscall);
    if (!nr)
      return absl::InvalidArgumentError(absl::StrCat("unknown system call '", r.syscall, "'"));
    SeccompCall match{.nr = *nr};
    for (const ir::ArgTest& t : r.args) match.args[t.index] = t.value;
    add(match);
    SeccompCall high = match;  // bits the mask ignores must not matter
    for (const ir::ArgTest& t : r.args) high.args[t.index] |= ~t.mask & 0x123456789abcdef0ull;
    add(high);
    for (const ir::ArgTest& t : r.args) {  // one argument off by one bit: no match
      SeccompCall miss = match;
      miss.args[t.index] ^= (t.mask & 1) ? 1 : (t.mask & (~t.mask + 1));
      add(miss);
    }
  }
  for (const SeccompCall& c : calls) {
    absl::StatusOr<uint32_t> got = RunSeccompProgram(program, c);
    if (!got.ok()) return got.status();
    absl::StatusOr<uint32_t> want = IntendedAction(filter, c);
    if (!want.ok()) return want.status();
    if (*got != *want) {
      return absl::InternalError(absl::StrFormat(
          "the seccomp program answers %s for nr %d arch 0x%08x args [0x%x 0x%x 0x%x]; the plan "
          "means %s",
          ActionName(*got), c.nr, c.arch, c.args[0], c.args[1], c.args[2], ActionName(*want)));
    }
  }
  return absl::OkStatus();
}

}  // namespace cwsc::backends
