#include "backends/verify/seccomp_eval.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstring>
#include <utility>
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

// Word is the 32-bit word at `offset` (a multiple of 4 below 64) of the
// call's struct seccomp_data, little-endian: nr, arch, the instruction
// pointer, then each argument's low and high half.
uint32_t Word(const SeccompCall& c, uint32_t offset) {
  auto half = [offset](uint64_t v) { return static_cast<uint32_t>(offset % 8 == 0 ? v : v >> 32); };
  if (offset == 0) return static_cast<uint32_t>(c.nr);
  if (offset == 4) return c.arch;
  if (offset < 16) return half(c.instruction_pointer);
  return half(c.args[(offset - 16) / 8]);
}

std::string Hex32(uint32_t v) { return absl::StrFormat("0x%08x", v); }

std::string ActionName(uint32_t a) {
  if (a == seccomp_action::kAllow) return "ALLOW";
  if (a == seccomp_action::kKillProcess) return "KILL_PROCESS";
  if (a == seccomp_action::kKillThread) return "KILL_THREAD";
  if ((a & 0xffff0000u) == 0x00050000u) return absl::StrCat("ERRNO(", a & 0xffffu, ")");
  return Hex32(a);
}

// Decode reads struct sock_filter[] into instructions, once per program.
absl::StatusOr<std::vector<Insn>> Decode(std::string_view program) {
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
  return insns;
}

// Execute runs decoded instructions for one call.
absl::StatusOr<uint32_t> Execute(const std::vector<Insn>& insns, const SeccompCall& call) {
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

}  // namespace

absl::StatusOr<uint32_t> RunSeccompProgram(std::string_view program, const SeccompCall& call) {
  absl::StatusOr<std::vector<Insn>> insns = Decode(program);
  if (!insns.ok()) return insns.status();
  return Execute(*insns, call);
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
                                   "sendto",         "read",
                                   "write",          "openat",
                                   "execve",         "chmod",
                                   "fchmod",         "fchmodat",
                                   "fchmodat2",      "open",
                                   "openat2",        "creat",
                                   "mknod",          "mknodat",
                                   "mkdir",          "mkdirat",
                                   "clone",          "clone3",
                                   "unshare"};

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
      {"sendto", SYS_sendto},
      {"read", SYS_read},
      {"write", SYS_write},
      {"openat", SYS_openat},
      {"execve", SYS_execve},
      {"chmod", SYS_chmod},
      {"fchmod", SYS_fchmod},
      {"fchmodat", SYS_fchmodat},
      {"fchmodat2", 452},  // Linux 6.6; newer than this libc's headers
      {"open", SYS_open},
      {"openat2", SYS_openat2},
      {"creat", SYS_creat},
      {"mknod", SYS_mknod},
      {"mknodat", SYS_mknodat},
      {"mkdir", SYS_mkdir},
      {"clone", SYS_clone},
      {"clone3", 435},  // Linux 5.3
      {"unshare", SYS_unshare},
      {"mkdirat", SYS_mkdirat},
  };
  for (const Entry& e : kTable) {
    if (name == e.name) return e.nr;
  }
#else
  (void)name;
#endif
  return std::nullopt;
}

namespace {

// A rule with its system call number looked up once.
struct ResolvedRule {
  int nr;
  const ir::SyscallRule* rule;
};

absl::StatusOr<std::vector<ResolvedRule>> Resolve(const ir::SyscallFilter& filter) {
  std::vector<ResolvedRule> out;
  for (const ir::SyscallRule& r : filter.rules) {
    std::optional<int> nr = SyscallNumber(r.syscall);
    if (!nr)
      return absl::InvalidArgumentError(absl::StrCat("unknown system call '", r.syscall, "'"));
    out.push_back({*nr, &r});
  }
  return out;
}

// Intended: the first rule whose tests all hold decides; no rule, allow.
uint32_t Intended(const std::vector<ResolvedRule>& rules, const SeccompCall& call) {
  if (call.arch != kAuditArchX86_64 || (call.nr & kX32SyscallBit) != 0) {
    return seccomp_action::kKillProcess;
  }
  for (const ResolvedRule& r : rules) {
    if (r.nr != call.nr) continue;
    bool all = true;
    for (const ir::ArgTest& t : r.rule->args) {
      all = all && (call.args[t.index] & t.mask) == t.value;
    }
    if (all) return seccomp_action::Errno(r.rule->errno_value);
  }
  return seccomp_action::kAllow;
}

}  // namespace

absl::StatusOr<uint32_t> IntendedAction(const ir::SyscallFilter& filter, const SeccompCall& call) {
  absl::StatusOr<std::vector<ResolvedRule>> rules = Resolve(filter);
  if (!rules.ok()) return rules.status();
  return Intended(*rules, call);
}

namespace {

// AddSocketCorners: every family number up to past AF_MAX, at the edge of
// the family rules (64) and of sa_family_t, type flags OR'ed in (and high bits in the register for
// the families the filter names); every socketpair type; every netlink protocol up to past
// MAX_LINKS.
template <typename Add>
void AddSocketCorners(const Add& add) {
  const int socket_nr = *SyscallNumber("socket"), pair_nr = *SyscallNumber("socketpair");
  std::vector<uint64_t> families;
  for (uint64_t f = 0; f <= AF_MAX + 2; ++f) families.push_back(f);
  for (uint64_t f :
       {0x3full, 0x40ull, 0x41ull, 0xfffeull, 0xffffull, 0x10000ull, 0x10001ull, 0xffffffffull}) {
    families.push_back(f);
  }
  for (uint64_t f : {AF_UNIX, AF_INET, AF_VSOCK}) families.push_back(f | 0x100000000ull);
  const uint64_t flags[] = {0, SOCK_CLOEXEC, SOCK_NONBLOCK | SOCK_CLOEXEC};
  for (uint64_t family : families) {
    for (int nr : {socket_nr, pair_nr}) {
      SeccompCall c{.nr = nr};
      c.args[0] = family;
      c.args[1] = SOCK_STREAM | flags[family % 3];
      add(c);
    }
  }
  for (uint64_t type = 0; type < 16; ++type) {
    for (uint64_t flag : {flags[0], flags[2]}) {
      SeccompCall c{.nr = pair_nr};
      c.args[0] = AF_UNIX;
      c.args[1] = type | flag;
      add(c);
    }
  }
  for (uint64_t protocol = 0; protocol < 34; ++protocol) {
    SeccompCall c{.nr = socket_nr};
    c.args[0] = AF_NETLINK;
    c.args[1] = SOCK_RAW | flags[protocol % 3];
    c.args[2] = protocol;
    add(c);
  }
  SeccompCall udp{.nr = socket_nr};  // a protocol number in another family
  udp.args[0] = AF_INET;
  udp.args[1] = SOCK_DGRAM;
  udp.args[2] = 17;
  add(udp);
}

// AddModeCorners: each call that takes a file mode, with modes carrying
// S_ISUID, S_ISGID, both, the sticky bit, a file type, and neither.
template <typename Add>
void AddModeCorners(const Add& add) {
  const std::pair<const char*, int> calls[] = {
      {"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"open", 2},   {"openat", 3},
      {"creat", 1}, {"mknod", 1},  {"mknodat", 2},  {"mkdir", 1},     {"mkdirat", 2}};
  for (const auto& [name, index] : calls) {
    for (uint64_t mode :
         {uint64_t{0755}, uint64_t{S_ISUID | 0755}, uint64_t{S_ISGID | 0755},
          uint64_t{S_ISUID | S_ISGID}, uint64_t{S_ISVTX | 0777}, uint64_t{S_IFREG | S_ISUID | 0644},
          uint64_t{S_IFREG | 0644} | (uint64_t{1} << 40),
          uint64_t{S_ISGID} | (uint64_t{1} << 40)}) {
      SeccompCall c{.nr = *SyscallNumber(name)};
      c.args[index] = mode;
      add(c);
    }
  }
}

// AddRuleCorners: for each rule, a call it matches (also through the other
// ABIs, which must be killed), the same with high bits set where its masks
// do not look, each argument one bit off, and the edges of a block of
// values: its last value and the next one.
template <typename Add, typename AddAllAbis>
void AddRuleCorners(const std::vector<ResolvedRule>& rules, const Add& add,
                    const AddAllAbis& add_all_abis) {
  for (const ResolvedRule& r : rules) {
    SeccompCall match{.nr = r.nr};
    for (const ir::ArgTest& t : r.rule->args) match.args[t.index] = t.value;
    add_all_abis(match);
    SeccompCall high = match;
    for (const ir::ArgTest& t : r.rule->args) high.args[t.index] |= ~t.mask & 0x123456789abcdef0ull;
    add(high);
    for (const ir::ArgTest& t : r.rule->args) {
      SeccompCall miss = match;
      miss.args[t.index] ^= (t.mask & 1) ? 1 : (t.mask & (~t.mask + 1));
      add(miss);
      uint64_t size = t.mask & (~t.mask + 1);
      if (size <= 1) continue;
      SeccompCall last = match, next = match;
      last.args[t.index] = t.value + size - 1;
      next.args[t.index] = t.value + size;
      add(last);
      add(next);
    }
  }
}

}  // namespace

absl::Status CheckSeccompProgram(const ir::SyscallFilter& filter, std::string_view program) {
#if !defined(__x86_64__)
  return absl::UnimplementedError("the seccomp checker knows x86_64 only");
#endif
  absl::StatusOr<std::vector<ResolvedRule>> rules = Resolve(filter);
  if (!rules.ok()) return rules.status();
  absl::StatusOr<std::vector<Insn>> insns = Decode(program);
  if (!insns.ok()) return insns.status();
  std::vector<SeccompCall> calls;
  auto add = [&](const SeccompCall& c) { calls.push_back(c); };
  auto add_all_abis = [&](const SeccompCall& c) {
    calls.push_back(c);
    SeccompCall x32 = c;
    x32.nr |= kX32SyscallBit;
    calls.push_back(x32);
    SeccompCall i386 = c;
    i386.arch = kAuditArchI386;
    calls.push_back(i386);
  };
  // Every call the checker knows, with plain arguments, and the arguments a
  // rule may look at, chosen from the kernel's headers rather than from the
  // plan: a program that refuses more (or less) than the plan says is
  // caught even where no rule looks.
  for (const char* name : kKnownCalls) add_all_abis(SeccompCall{.nr = *SyscallNumber(name)});
  for (uint64_t request : {0x5412ull, 0x541cull, 0x5413ull, 0x540full}) {
    SeccompCall c{.nr = *SyscallNumber("ioctl")};
    c.args[1] = request;
    add_all_abis(c);
  }
  AddSocketCorners(add);
  AddModeCorners(add);
  AddRuleCorners(*rules, add, add_all_abis);
  for (const SeccompCall& c : calls) {
    absl::StatusOr<uint32_t> got = Execute(*insns, c);
    if (!got.ok()) return got.status();
    uint32_t want = Intended(*rules, c);
    if (*got != want) {
      return absl::InternalError(absl::StrFormat(
          "the seccomp program answers %s for nr %d arch 0x%08x args [0x%x 0x%x 0x%x]; the plan "
          "means %s",
          ActionName(*got), c.nr, c.arch, c.args[0], c.args[1], c.args[2], ActionName(want)));
    }
  }
  return absl::OkStatus();
}

}  // namespace cwsc::backends
