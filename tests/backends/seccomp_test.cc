// The seccomp stage: lowering, the libseccomp emitter, the independent BPF
// interpreter that checks it, the listing golden, and the plan JSON form.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>

#include "backends/seccomp_filter.h"
#include "backends/verify/seccomp_eval.h"
#include "compiler/lower_seccomp.h"
#include "gmock/gmock.h"
#include "ir/plan_json.h"
#include "tests/runtime/proc_helpers.h"
#include "tests/testing/golden.h"

namespace cwsc::backends {
namespace {

using ::testing::HasSubstr;

ir::SyscallFilter Filter(bool network) {
  ir::Policy p;
  p.network_access = network;
  p.network_origin = ir::Origin::Default(network ? "network on" : "network off");
  return compiler::LowerSyscallFilter(p);
}

std::string Bpf(const ir::SyscallFilter& f) {
  absl::StatusOr<std::string> bpf = EmitSeccompBpf(f);
  EXPECT_TRUE(bpf.ok()) << bpf.status();
  return bpf.ok() ? *bpf : std::string();
}

SeccompCall Call(int nr, uint64_t a0 = 0, uint64_t a1 = 0, uint64_t a2 = 0, uint64_t a3 = 0) {
  SeccompCall c;
  c.nr = nr;
  c.args[0] = a0;
  c.args[1] = a1;
  c.args[2] = a2;
  c.args[3] = a3;
  return c;
}

// ModeCall is a call whose argument `index` is a file mode.
SeccompCall ModeCall(int nr, int index, uint64_t mode) {
  SeccompCall c;
  c.nr = nr;
  c.args[index] = mode;
  return c;
}

uint32_t Verdict(const std::string& bpf, const SeccompCall& c) {
  absl::StatusOr<uint32_t> a = RunSeccompProgram(bpf, c);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? *a : 0xffffffffu;
}

#if defined(__x86_64__)

// Programs are kept for reuse (an engine emits the same one per launch):
// each filter, emitted again among others that differ in one part of one
// rule (the call, the errno, an argument test), still gets the program of
// its own rules; a rule's reason and origin do not change the program.
TEST(Seccomp, ProgramsEmittedAgainFollowTheirOwnRules) {
  auto one = [](const std::string& call, int err, std::vector<ir::ArgTest> args,
                const std::string& why = "test") {
    ir::SyscallFilter f;
    ir::SyscallRule r;
    r.syscall = call;
    r.errno_value = err;
    r.args = std::move(args);
    r.why = why;
    f.rules.push_back(r);
    return f;
  };
  const uint32_t kAllow = 0x7fff0000u, kErrno = 0x00050000u;
  struct Case {
    ir::SyscallFilter filter;
    uint32_t mkdir_0755, mkdir_0777, rmdir;
  };
  std::vector<Case> cases = {
      {one("mkdir", EPERM, {}), kErrno | EPERM, kErrno | EPERM, kAllow},
      {one("mkdir", EACCES, {}), kErrno | EACCES, kErrno | EACCES, kAllow},
      {one("mkdir", EPERM, {{1, 0777, 0777}}), kAllow, kErrno | EPERM, kAllow},
      {one("mkdir", EPERM, {{1, 0777, 0755}}), kErrno | EPERM, kAllow, kAllow},
      {one("rmdir", EPERM, {}), kAllow, kAllow, kErrno | EPERM},
  };
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      std::string bpf = Bpf(c.filter);
      EXPECT_EQ(Verdict(bpf, Call(SYS_mkdir, 0, 0755)), c.mkdir_0755) << round << " " << i;
      EXPECT_EQ(Verdict(bpf, Call(SYS_mkdir, 0, 0777)), c.mkdir_0777) << round << " " << i;
      EXPECT_EQ(Verdict(bpf, Call(SYS_rmdir)), c.rmdir) << round << " " << i;
    }
  }
  EXPECT_EQ(Bpf(one("mkdir", EPERM, {}, "another reason")), Bpf(cases[0].filter));
}

TEST(Seccomp, ProgramIsLoadableShape) {
  for (bool net : {false, true}) {
    std::string bpf = Bpf(Filter(net));
    EXPECT_FALSE(bpf.empty());
    EXPECT_EQ(bpf.size() % 8, 0u);
    EXPECT_LE(bpf.size() / 8, 4096u);
  }
}

TEST(Seccomp, TerminalInjectionIsRefusedWhateverTheHighBits) {
  std::string bpf = Bpf(Filter(true));
  uint32_t eperm = seccomp_action::Errno(EPERM);
  EXPECT_EQ(Verdict(bpf, Call(SYS_ioctl, 0, 0x5412)), eperm);
  EXPECT_EQ(Verdict(bpf, Call(SYS_ioctl, 0, (0x123ull << 32) | 0x5412)), eperm);
  EXPECT_EQ(Verdict(bpf, Call(SYS_ioctl, 7, 0x541c)), eperm);
  EXPECT_EQ(Verdict(bpf, Call(SYS_ioctl, 0, 0x5413)), seccomp_action::kAllow);  // TIOCGWINSZ
  EXPECT_EQ(Verdict(bpf, Call(SYS_ioctl, 0, 0x540f)), seccomp_action::kAllow);  // TIOCGPGRP
}

TEST(Seccomp, OtherArchitecturesAndX32AreKilled) {
  std::string bpf = Bpf(Filter(true));
  SeccompCall x32 = Call(SYS_getpid | kX32SyscallBit);
  EXPECT_EQ(Verdict(bpf, x32), seccomp_action::kKillProcess);
  SeccompCall i386 = Call(54 /* ioctl on i386 */, 0, 0x5412);
  i386.arch = kAuditArchI386;
  EXPECT_EQ(Verdict(bpf, i386), seccomp_action::kKillProcess);
  EXPECT_EQ(Verdict(bpf, Call(SYS_getpid)), seccomp_action::kAllow);
}

TEST(Seccomp, UnixSocketsOnlyWithTheNetworkOff) {
  uint32_t eperm = seccomp_action::Errno(EPERM);
  std::string off = Bpf(Filter(false)), on = Bpf(Filter(true));
  EXPECT_EQ(Verdict(off, Call(SYS_socket, 1 /* AF_UNIX */, 1)), eperm);
  EXPECT_EQ(Verdict(off, Call(SYS_socket, (1ull << 40) | 1, 2)), eperm);
  EXPECT_EQ(Verdict(off, Call(SYS_socket, 2 /* AF_INET */, 1)), seccomp_action::kAllow);
  EXPECT_EQ(Verdict(off, Call(SYS_socketpair, 1, 1)), seccomp_action::kAllow);
  EXPECT_EQ(Verdict(on, Call(SYS_socket, 1, 1)), seccomp_action::kAllow);
}

// With the network off, socket families are an allow-list (AF_INET,
// AF_INET6, AF_NETLINK; AF_UNIX keeps its own EPERM rule): every other
// number below 64 (past AF_MAX, 46) is refused, whatever the type flags or
// the high half of the register say; the kernel refuses the rest itself.
TEST(Seccomp, SocketFamiliesAreAnAllowListWithTheNetworkOff) {
  std::string off = Bpf(Filter(false)), on = Bpf(Filter(true));
  uint32_t noaf = seccomp_action::Errno(EAFNOSUPPORT), allow = seccomp_action::kAllow;
  for (uint64_t family = 0; family < 80; ++family) {
    bool allowed = family == AF_INET || family == AF_INET6 || family == AF_NETLINK || family >= 64;
    uint32_t want = family == AF_UNIX ? seccomp_action::Errno(EPERM) : allowed ? allow : noaf;
    for (uint64_t type : {uint64_t{SOCK_STREAM}, uint64_t{SOCK_DGRAM | SOCK_CLOEXEC},
                          uint64_t{SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC}}) {
      EXPECT_EQ(Verdict(off, Call(SYS_socket, family, type)), want) << family << " " << type;
      EXPECT_EQ(Verdict(off, Call(SYS_socket, (0xabcull << 32) | family, type)), want) << family;
      EXPECT_EQ(Verdict(on, Call(SYS_socket, family, type)), allow) << family;
    }
  }
  EXPECT_EQ(Verdict(off, Call(SYS_socket, AF_VSOCK, SOCK_STREAM)), noaf);
  EXPECT_EQ(Verdict(off, Call(SYS_socket, AF_MAX, SOCK_STREAM)), noaf);
  EXPECT_EQ(Verdict(off, Call(SYS_socket, 63, SOCK_STREAM)), noaf);
}

// Netlink with the network off: NETLINK_ROUTE only (getaddrinfo, ip(8) in
// the private network namespace); audit, uevents, sock_diag... refused.
TEST(Seccomp, OnlyRouteNetlinkWithTheNetworkOff) {
  std::string off = Bpf(Filter(false)), on = Bpf(Filter(true));
  uint32_t noproto = seccomp_action::Errno(EPROTONOSUPPORT), allow = seccomp_action::kAllow;
  for (uint64_t proto = 0; proto < 64; ++proto) {
    uint32_t want = proto == 0 || proto >= 32 ? allow : noproto;  // >= MAX_LINKS: the kernel
    for (uint64_t type : {uint64_t{SOCK_RAW}, uint64_t{SOCK_DGRAM | SOCK_CLOEXEC}}) {
      EXPECT_EQ(Verdict(off, Call(SYS_socket, AF_NETLINK, type, proto)), want) << proto;
      EXPECT_EQ(Verdict(off, Call(SYS_socket, AF_NETLINK, type, (7ull << 32) | proto)), want)
          << proto;
      EXPECT_EQ(Verdict(on, Call(SYS_socket, AF_NETLINK, type, proto)), allow) << proto;
    }
  }
  // The protocol test applies to netlink only.
  EXPECT_EQ(Verdict(off, Call(SYS_socket, AF_INET, SOCK_DGRAM, IPPROTO_UDP)), allow);
}

// A socketpair is connected to its twin; only the datagram types could be
// addressed at another socket (sendto, connect), so with the network off
// socketpair is AF_UNIX stream or seqpacket, with any type flags.
TEST(Seccomp, SocketpairIsUnixStreamOrSeqpacketWithTheNetworkOff) {
  std::string off = Bpf(Filter(false)), on = Bpf(Filter(true));
  uint32_t eperm = seccomp_action::Errno(EPERM), allow = seccomp_action::kAllow;
  for (uint64_t flags : {uint64_t{0}, uint64_t{SOCK_CLOEXEC}, uint64_t{SOCK_NONBLOCK},
                         uint64_t{SOCK_CLOEXEC | SOCK_NONBLOCK}, uint64_t{0xfff00000000}}) {
    for (uint64_t type = 0; type < 16; ++type) {
      uint32_t want = type == SOCK_STREAM || type == SOCK_SEQPACKET ? allow : eperm;
      EXPECT_EQ(Verdict(off, Call(SYS_socketpair, AF_UNIX, type | flags)), want) << type;
      EXPECT_EQ(Verdict(on, Call(SYS_socketpair, AF_UNIX, type | flags)), allow) << type;
    }
  }
  uint32_t noaf = seccomp_action::Errno(EAFNOSUPPORT);
  for (int family : {0, AF_INET, AF_INET6, AF_NETLINK, AF_TIPC, AF_VSOCK, 63}) {
    EXPECT_EQ(Verdict(off, Call(SYS_socketpair, family, SOCK_STREAM)), noaf) << family;
    EXPECT_EQ(Verdict(on, Call(SYS_socketpair, family, SOCK_STREAM)), allow) << family;
  }
}

// No plan lets the command make a setuid or setgid file: not by chmod, not
// by the mode of a call that creates one. openat2 carries its mode in
// memory a filter cannot read, so it answers ENOSYS (callers fall back to
// openat).
TEST(Seccomp, SetuidAndSetgidBitsAreRefusedForEveryPlan) {
  struct ModeArg {
    int nr;
    int index;
  };
  const ModeArg calls[] = {
      {SYS_chmod, 1},   {SYS_fchmod, 1}, {SYS_fchmodat, 2}, {452, 2},  // fchmodat2
      {SYS_open, 2},    {SYS_openat, 3}, {SYS_creat, 1},    {SYS_mknod, 1},
      {SYS_mknodat, 2}, {SYS_mkdir, 1},  {SYS_mkdirat, 2}};
  uint32_t eperm = seccomp_action::Errno(EPERM), allow = seccomp_action::kAllow;
  for (bool net : {false, true}) {
    std::string bpf = Bpf(Filter(net));
    for (const ModeArg& c : calls) {
      for (uint64_t mode : {04755ull, 02755ull, 06000ull, 04000ull | S_IFREG, 02000ull | S_IFDIR,
                            (1ull << 40) | 04644}) {
        EXPECT_EQ(Verdict(bpf, ModeCall(c.nr, c.index, mode)), eperm) << c.nr << " " << mode;
      }
      for (uint64_t mode : {0755ull, 01777ull, 0644ull | S_IFREG, (1ull << 40) | 0755}) {
        EXPECT_EQ(Verdict(bpf, ModeCall(c.nr, c.index, mode)), allow) << c.nr << " " << mode;
      }
    }
    EXPECT_EQ(Verdict(bpf, Call(SYS_openat2)), seccomp_action::Errno(ENOSYS));
    // A mode bit elsewhere than in the mode argument is something else.
    EXPECT_EQ(Verdict(bpf, Call(SYS_openat, AT_FDCWD, 0, O_RDONLY | O_CLOEXEC, 0)), allow);
  }
}

TEST(Seccomp, MountsKeyringsAndIoUringAreRefused) {
  std::string bpf = Bpf(Filter(true));
  uint32_t eperm = seccomp_action::Errno(EPERM);
  for (int nr : {SYS_mount, SYS_umount2, SYS_pivot_root, SYS_move_mount, SYS_fsopen, SYS_keyctl,
                 SYS_add_key, SYS_io_uring_setup, SYS_io_uring_enter}) {
    EXPECT_EQ(Verdict(bpf, Call(nr)), eperm) << nr;
  }
}

TEST(Seccomp, CheckerAgreesWithTheEmitter) {
  for (bool net : {false, true}) {
    ir::SyscallFilter f = Filter(net);
    EXPECT_TRUE(CheckSeccompProgram(f, Bpf(f)).ok()) << CheckSeccompProgram(f, Bpf(f));
  }
}

// The checker is not a mirror of the emitter: a program missing a rule the
// plan has is caught, and so is one refusing more than the plan says.
TEST(Seccomp, CheckerCatchesAProgramThatDisagreesWithThePlan) {
  ir::SyscallFilter full = Filter(false);
  ir::SyscallFilter partial = full;
  partial.rules.erase(partial.rules.begin() + 1);  // TIOCLINUX
  absl::Status missing = CheckSeccompProgram(full, Bpf(partial));
  EXPECT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.message()), HasSubstr("answers ALLOW"));
  EXPECT_THAT(std::string(missing.message()), HasSubstr("means ERRNO(1)"));
  absl::Status extra = CheckSeccompProgram(partial, Bpf(full));
  EXPECT_FALSE(extra.ok());
}

// The checker tries the corners the socket and mode rules turn on: type
// flags OR'ed in, every family block's edges, each mode-carrying call. A
// program that compares the socketpair type with its flags, that stops the
// family allow-list short, or that lacks fchmodat2 is caught.
TEST(Seccomp, CheckerCatchesFlagsFamilyEdgesAndMissingModeRules) {
  ir::SyscallFilter plan = Filter(false);
  ir::SyscallFilter flags = plan;
  bool changed = false;
  for (ir::SyscallRule& r : flags.rules) {
    for (ir::ArgTest& a : r.args) {
      if (r.syscall == "socketpair" && a.index == 1) {
        a.mask = 0xffffffff;
        changed = true;
      }
    }
  }
  EXPECT_TRUE(changed);
  EXPECT_FALSE(CheckSeccompProgram(plan, Bpf(flags)).ok());
  ir::SyscallFilter short_list = plan;
  auto last_family = std::find_if(short_list.rules.rbegin(), short_list.rules.rend(),
                                  [](const ir::SyscallRule& r) {
                                    return r.syscall == "socket" && r.errno_value == EAFNOSUPPORT;
                                  });
  ASSERT_NE(last_family, short_list.rules.rend());
  short_list.rules.erase(std::next(last_family).base());
  EXPECT_FALSE(CheckSeccompProgram(plan, Bpf(short_list)).ok());
  ir::SyscallFilter no_fchmodat2 = plan;
  std::erase_if(no_fchmodat2.rules,
                [](const ir::SyscallRule& r) { return r.syscall == "fchmodat2"; });
  EXPECT_NE(no_fchmodat2.rules.size(), plan.rules.size());
  absl::Status missing = CheckSeccompProgram(plan, Bpf(no_fchmodat2));
  EXPECT_THAT(std::string(missing.message()), HasSubstr("nr 452"));
}

TEST(Seccomp, MalformedProgramsAreErrorsNotVerdicts) {
  EXPECT_EQ(RunSeccompProgram("", Call(1)).status().message(),
            "a seccomp program is a non-empty multiple of 8 bytes, got 0");
  EXPECT_FALSE(RunSeccompProgram(std::string(7, '\0'), Call(1)).ok());
  // ld [0]; (no return)
  std::string no_ret("\x20\x00\x00\x00\x00\x00\x00\x00", 8);
  EXPECT_EQ(RunSeccompProgram(no_ret, Call(1)).status().message(),
            "the program ends without a return");
  // ja +5 past the end
  std::string far("\x05\x00\x00\x00\x05\x00\x00\x00", 8);
  EXPECT_EQ(RunSeccompProgram(far, Call(1)).status().message(),
            "instruction 0: jump past the end of the program");
  // ld [64]: outside seccomp_data
  std::string out("\x20\x00\x00\x00\x40\x00\x00\x00\x06\x00\x00\x00\x00\x00\xff\x7f", 16);
  EXPECT_EQ(RunSeccompProgram(out, Call(1)).status().message(),
            "instruction 0: load outside seccomp_data");
}

TEST(Seccomp, UnknownSystemCallIsAnError) {
  ir::SyscallFilter f;
  f.rules.push_back(ir::SyscallRule{"no_such_call", {}, EPERM, "x", ir::Origin::Default("t")});
  EXPECT_EQ(EmitSeccompBpf(f).status().message(),
            "unknown system call 'no_such_call' in the syscall filter");
}

// Golden listings, with the semantic check beside them: the program they
// describe passes the checker, and every rule is named in the listing.
TEST(Seccomp, ListingGolden) {
  for (bool net : {false, true}) {
    ir::SyscallFilter f = Filter(net);
    absl::StatusOr<std::string> listing = EmitSeccompListing(f);
    ASSERT_TRUE(listing.ok()) << listing.status();
    std::string path = cwsc::testing::SourceRoot() + "/tests/golden/seccomp/" +
                       (net ? "network-on.txt" : "network-off.txt");
    cwsc::testing::CheckGolden(path, *listing);
    EXPECT_TRUE(CheckSeccompProgram(f, Bpf(f)).ok());
    for (const ir::SyscallRule& r : f.rules) {
      EXPECT_THAT(*listing, HasSubstr(": " + r.syscall)) << r.syscall;
    }
    EXPECT_EQ(*listing, *EmitSeccompListing(f)) << "deterministic";
  }
}

#endif  // __x86_64__

TEST(SeccompPlanJson, RoundTripsAndRejectsImpossibleRules) {
  ir::LaunchPlan plan;
  ir::Bwrap& bwrap = plan.launch.emplace<ir::Bwrap>();
  plan.platform = ir::Platform::kLinux;
  plan.permission_mode = ir::PermissionMode::kAsk;
  bwrap.mounts.push_back({ir::MountOp::kReadOnlyBind, "/", "/", "root view", {}});
  bwrap.syscall_filter = Filter(false);
  absl::StatusOr<std::string> json = ir::PlanToJson(plan);
  ASSERT_TRUE(json.ok());
  EXPECT_THAT(*json, HasSubstr("\"mask\": \"0xffffffff\""));
  EXPECT_THAT(*json, HasSubstr("\"value\": \"0x5412\""));
  absl::StatusOr<ir::LaunchPlan> back = ir::PlanFromJson(*json, "p.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, plan);
  auto bad = [&](const std::string& from, const std::string& to) {
    std::string text = *json;
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    absl::StatusOr<ir::LaunchPlan> p = ir::PlanFromJson(text, "p.json");
    EXPECT_FALSE(p.ok()) << to;
    return p.ok() ? std::string() : std::string(p.status().message());
  };
  EXPECT_EQ(
      bad("\"value\": \"0x5412\"", "\"value\": \"0x1ffffffff\""),
      "p.json: error: bad plan at '/launch/syscall_filter/rules/0/args/0/value': has bits outside "
      "the mask\n");
  EXPECT_EQ(bad("\"index\": 1", "\"index\": 6"),
            "p.json: error: bad plan at '/launch/syscall_filter/rules/0/args/0/index': expected 0 "
            "to 5\n");
  EXPECT_EQ(bad("\"mask\": \"0xffffffff\"", "\"mask\": \"ffffffff\""),
            "p.json: error: bad plan at '/launch/syscall_filter/rules/0/args/0/mask': expected "
            "\"0x\" and "
            "1 to 16 hexadecimal digits\n");
  EXPECT_EQ(
      bad("\"syscall\": \"ioctl\"", "\"syscall\": \"io ctl\""),
      "p.json: error: bad plan at '/launch/syscall_filter/rules/0/syscall': expected a system call "
      "name\n");
  EXPECT_EQ(bad("\"default\": \"allow\"", "\"default\": \"kill\""),
            "p.json: error: bad plan at '/launch/syscall_filter/default': expected \"allow\"\n");
}

}  // namespace
}  // namespace cwsc::backends
