#include "compiler/lower_seccomp.h"

#include <cerrno>
#include <cstdint>
#include <initializer_list>

#include "absl/strings/str_cat.h"

namespace cwsc::compiler {
namespace {

// Request numbers from <asm-generic/ioctls.h> (the same on every Linux
// architecture cwsc targets); socket domains and types from <sys/socket.h>,
// netlink protocols from <linux/netlink.h>, mode bits from <sys/stat.h>.
constexpr uint64_t kTiocsti = 0x5412;
constexpr uint64_t kTioclinux = 0x541c;
constexpr uint64_t kAfUnix = 1;
constexpr uint64_t kAfInet = 2;
constexpr uint64_t kAfInet6 = 10;
constexpr uint64_t kAfNetlink = 16;
constexpr uint64_t kNetlinkRoute = 0;
constexpr uint64_t kSockStream = 1;
constexpr uint64_t kSockSeqpacket = 5;
constexpr uint64_t kSockTypeMask = 0xf;         // the rest of the type is flags (SOCK_CLOEXEC...)
constexpr uint64_t kCloneNewuser = 0x10000000;  // <linux/sched.h>
constexpr uint64_t kSetuid = 04000;
constexpr uint64_t kSetgid = 02000;
// The allow-lists are spelled as deny rules for every number below a
// limit except the allowed ones; past the limit the kernel refuses the
// number itself. Families: socket() answers EAFNOSUPPORT for family >=
// AF_MAX (46 in Linux 6.18), so below 64 covers every family the kernel has
// and the next 18 it may add, at 17 rules (up to 65535, the width of
// sa_family_t, would take 20 more, a third more time to build and check
// the program on every launch). Netlink protocols stop at MAX_LINKS (32),
// a fixed array size in af_netlink.c.
constexpr uint64_t kFamilyLimit = 64;
constexpr uint64_t kNetlinkLimit = 32;

void Deny(ir::SyscallFilter& f, const char* syscall, std::vector<ir::ArgTest> args, const char* why,
          const ir::Origin& origin, int errno_value = EPERM) {
  f.rules.push_back(ir::SyscallRule{syscall, std::move(args), errno_value, why, origin});
}

// Block is a run of argument values [start, start + size), size a power of
// two and start a multiple of it, as one masked comparison.
struct Block {
  uint64_t start;
  uint64_t size;
  ir::ArgTest Test(int index, uint64_t field) const {
    return ir::ArgTest{index, field & ~(size - 1), start};
  }
  // Range names the block: "family 0", "families 4-7".
  std::string Range(const char* one, const char* many) const {
    return size == 1 ? absl::StrCat(one, " ", start)
                     : absl::StrCat(many, " ", start, "-", start + size - 1);
  }
};

bool AnyIn(std::initializer_list<uint64_t> values, uint64_t start, uint64_t size) {
  for (uint64_t v : values) {
    if (v >= start && v - start < size) return true;
  }
  return false;
}

// Outside turns an allow-list into deny rules: the fewest aligned blocks
// that hold every value below `limit` (a power of two) except the allowed
// ones. A seccomp rule can only say "refuse when (arg & mask) == value",
// and libseccomp takes one comparison per argument per rule, so "not one
// of these" is spelled as the blocks around them.
std::vector<Block> Outside(std::initializer_list<uint64_t> allowed, uint64_t limit) {
  std::vector<Block> blocks;
  for (uint64_t v = 0; v < limit;) {
    if (AnyIn(allowed, v, 1)) {
      ++v;
      continue;
    }
    uint64_t size = 1;
    while (v % (size * 2) == 0 && v + size * 2 <= limit && !AnyIn(allowed, v, size * 2)) size *= 2;
    blocks.push_back({v, size});
    v += size;
  }
  return blocks;
}

void DenyTerminalInjection(ir::SyscallFilter& f) {
  ir::Origin tty = ir::Origin::Default("terminal injection is refused");
  Deny(f, "ioctl", {{1, 0xffffffff, kTiocsti}},
       "TIOCSTI would push input into the caller's terminal", tty);
  Deny(f, "ioctl", {{1, 0xffffffff, kTioclinux}}, "TIOCLINUX can paste into a virtual console",
       tty);
}

void DenyKernelState(ir::SyscallFilter& f) {
  ir::Origin mounts = ir::Origin::Default("the mount table is fixed once the sandbox starts");
  for (const char* s : {"mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen",
                        "fsconfig", "fsmount", "fspick", "mount_setattr"}) {
    Deny(f, s, {}, "changes the mount table", mounts);
  }
  ir::Origin uring = ir::Origin::Default("io_uring operations bypass system-call filtering");
  for (const char* s : {"io_uring_setup", "io_uring_enter", "io_uring_register"}) {
    Deny(f, s, {}, "io_uring runs operations this filter cannot see", uring);
  }
  ir::Origin keys = ir::Origin::Default("kernel keyrings are not namespaced");
  for (const char* s : {"keyctl", "add_key", "request_key"}) {
    Deny(f, s, {}, "reaches the kernel keyrings of the user outside", keys);
  }
}

// DenySetuidFiles: a file the command leaves setuid or setgid runs later
// with its owner's (a root command's: uid 0) or group's rights for whoever
// starts it, outside the sandbox. The bits are refused in every call that
// sets a mode: the chmod family and the calls that create a file with one.
void DenySetuidFiles(ir::SyscallFilter& f) {
  ir::Origin origin = ir::Origin::Default(
      "a setuid or setgid file left in a writable root runs with its owner's rights later");
  struct ModeArg {
    const char* syscall;
    int index;  // the mode argument
  };
  static constexpr ModeArg kCalls[] = {
      {"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"open", 2},   {"openat", 3},
      {"creat", 1}, {"mknod", 1},  {"mknodat", 2},  {"mkdir", 1},     {"mkdirat", 2}};
  for (const ModeArg& c : kCalls) {
    Deny(f, c.syscall, {{c.index, kSetuid, kSetuid}}, "sets S_ISUID", origin);
    Deny(f, c.syscall, {{c.index, kSetgid, kSetgid}}, "sets S_ISGID", origin);
  }
  // openat2 carries its mode in a struct the filter cannot read; ENOSYS is
  // what a kernel without openat2 says, and callers fall back to openat.
  Deny(f, "openat2", {},
       "its mode is in memory the filter cannot read (callers fall back to openat)", origin,
       ENOSYS);
}

// DenyLocalSockets, with the network off: the private network namespace
// holds loopback TCP/UDP and routing netlink; everything else a socket
// could reach is outside it.
void DenyLocalSockets(ir::SyscallFilter& f, const ir::Origin& origin) {
  Deny(f, "socket", {{0, 0xffffffff, kAfUnix}},
       "no AF_UNIX sockets with the network off: host sockets (ssh-agent, docker) stay out of "
       "reach; stream and seqpacket socketpairs still work",
       origin);
  // Families are an allow-list: AF_INET, AF_INET6, AF_NETLINK (and AF_UNIX,
  // refused above with EPERM). EAFNOSUPPORT is what a kernel without the
  // family answers, so a tool probing for one falls back as it would there.
  for (const Block& b : Outside({kAfUnix, kAfInet, kAfInet6, kAfNetlink}, kFamilyLimit)) {
    f.rules.push_back(ir::SyscallRule{
        "socket",
        {b.Test(0, 0xffffffff)},
        EAFNOSUPPORT,
        absl::StrCat(b.Range("family", "families"),
                     ": with the network off only AF_INET, AF_INET6 and AF_NETLINK are allowed "
                     "(AF_VSOCK reaches the hypervisor host)"),
        origin});
  }
  for (const Block& b : Outside({kNetlinkRoute}, kNetlinkLimit)) {
    f.rules.push_back(ir::SyscallRule{
        "socket",
        {{0, 0xffffffff, kAfNetlink}, b.Test(2, 0xffffffff)},
        EPROTONOSUPPORT,
        absl::StrCat(b.Range("netlink protocol", "netlink protocols"),
                     ": only NETLINK_ROUTE (getaddrinfo, ip) with the network off; audit, "
                     "uevents and the rest are the host's"),
        origin});
  }
  // A socketpair is connected to its twin, but a datagram one can still be
  // addressed (sendto, connect) at any host datagram socket by path.
  // seccomp cannot see which family an fd has nor read the address, so
  // the pair itself is limited: AF_UNIX, stream or seqpacket (an address
  // given to those is refused or ignored).
  for (const Block& b : Outside({kAfUnix}, kFamilyLimit)) {
    f.rules.push_back(
        ir::SyscallRule{"socketpair",
                        {b.Test(0, 0xffffffff)},
                        EAFNOSUPPORT,
                        absl::StrCat(b.Range("family", "families"),
                                     ": socketpair is AF_UNIX only with the network off"),
                        origin});
  }
  for (const Block& b : Outside({kSockStream, kSockSeqpacket}, kSockTypeMask + 1)) {
    f.rules.push_back(ir::SyscallRule{
        "socketpair",
        {{0, 0xffffffff, kAfUnix}, b.Test(1, kSockTypeMask)},
        EPERM,
        absl::StrCat(b.Range("type", "types"),
                     " (flags ignored): a datagram pair could be addressed at a host socket; "
                     "stream and seqpacket pairs cannot"),
        origin});
  }
}

}  // namespace

ir::SyscallFilter LowerLandlockSyscallFilter(const ir::Policy& policy) {
  ir::SyscallFilter f = LowerSyscallFilter(policy);
  // No user namespace of its own to forbid nesting in (bwrap's
  // --disable-userns): a new user namespace would give the command every
  // capability inside it, and the kernel code only those reach. clone3
  // carries its flags in memory the filter cannot read; ENOSYS is what a
  // kernel without it says, and libc falls back to clone.
  ir::Origin userns = ir::Origin::Default("no user namespaces inside a Landlock sandbox");
  Deny(f, "unshare", {{0, kCloneNewuser, kCloneNewuser}},
       "CLONE_NEWUSER: a new user namespace holds every capability", userns);
  Deny(f, "clone", {{0, kCloneNewuser, kCloneNewuser}},
       "CLONE_NEWUSER: a new user namespace holds every capability", userns);
  Deny(f, "clone3", {}, "its flags are in memory the filter cannot read (libc falls back to clone)",
       userns, ENOSYS);
  if (policy.network_access) return f;
  // No network namespace: an IP socket would reach the host's network.
  // Landlock refuses TCP bind and connect (ABI >= 4); UDP and raw sockets
  // only this refuses.
  for (uint64_t family : {kAfInet, kAfInet6}) {
    f.rules.push_back(ir::SyscallRule{
        "socket",
        {{0, 0xffffffff, family}},
        EAFNOSUPPORT,
        absl::StrCat("family ", family == kAfInet ? "AF_INET" : "AF_INET6",
                     ": with the network off and no network namespace, an IP socket would reach "
                     "the host's network"),
        policy.network_origin});
  }
  return f;
}

ir::SyscallFilter LowerSyscallFilter(const ir::Policy& policy) {
  ir::SyscallFilter f;
  DenyTerminalInjection(f);
  DenyKernelState(f);
  DenySetuidFiles(f);
  if (!policy.network_access) DenyLocalSockets(f, policy.network_origin);
  return f;
}

}  // namespace cwsc::compiler
