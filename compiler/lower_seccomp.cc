#include "compiler/lower_seccomp.h"

#include <cerrno>

namespace cwsc::compiler {
namespace {

// Request numbers from <asm-generic/ioctls.h> (the same on every Linux
// architecture cwsc targets); socket domains from <sys/socket.h>.
constexpr uint64_t kTiocsti = 0x5412;
constexpr uint64_t kTioclinux = 0x541c;
constexpr uint64_t kAfUnix = 1;

void Deny(ir::SyscallFilter& f, const char* syscall, std::vector<ir::ArgTest> args, const char* why,
          const ir::Origin& origin) {
  f.rules.push_back(ir::SyscallRule{syscall, std::move(args), EPERM, why, origin});
}

}  // namespace

ir::SyscallFilter LowerSyscallFilter(const ir::Policy& policy) {
  ir::SyscallFilter f;
  ir::Origin tty = ir::Origin::Default("terminal injection is refused");
  Deny(f, "ioctl", {{1, 0xffffffff, kTiocsti}},
       "TIOCSTI would push input into the caller's terminal", tty);
  Deny(f, "ioctl", {{1, 0xffffffff, kTioclinux}}, "TIOCLINUX can paste into a virtual console",
       tty);
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
  if (!policy.network_access) {
    Deny(f, "socket", {{0, 0xffffffff, kAfUnix}},
         "no AF_UNIX sockets with the network off: host sockets (ssh-agent, docker) stay out of "
         "reach; socketpair still works",
         policy.network_origin);
  }
  return f;
}

}  // namespace cwsc::compiler
