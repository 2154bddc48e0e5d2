// The linux-landlock plan from recorded facts: when it is chosen, its
// ruleset and skipped list, the plan JSON round trip, the listing, and the
// Landlock evaluator agreeing with the bubblewrap one on the same policies.
#include "compiler/lower_landlock.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "backends/bwrap.h"
#include "backends/landlock.h"
#include "backends/seccomp_filter.h"
#include "backends/verify/expect_eval.h"
#include "backends/verify/landlock_eval.h"
#include "backends/verify/seccomp_eval.h"
#include "ir/plan_json.h"
#include "ir/validate.h"
#include "tests/compiler/test_facts.h"

namespace cwsc::compiler {
namespace {

using backends::AccessKind;
using cwsc::testing::CompileText;
using cwsc::testing::FactsBuilder;
using ir::PlanKind;

constexpr char kNoUserns[] =
    "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces "
    "exceeded (ENOSPC)";

FactsBuilder Host(int abi) {
  FactsBuilder f;
  f.Dir("/home/dev/.ssh").Dir("/home/dev/ws/.codewhale").Landlock(abi);
  return f;
}

TEST(LandlockSelect, FallsBackWhenBwrapCannotMakeNamespaces) {
  FactsBuilder f = Host(7);
  f.Probe(false, kNoUserns);
  auto r = CompileText("", f, "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->plan.kind(), PlanKind::kLinuxLandlock);
  ASSERT_EQ(r->plan.warnings.size(), 1u);
  EXPECT_EQ(r->plan.warnings[0].code, "landlock-fallback");
  EXPECT_EQ(r->plan.warnings[0].message,
            std::string("bubblewrap cannot make its namespaces here (") + kNoUserns +
                "), so the plan confines the command with Landlock ABI 7 and seccomp instead; "
                "what that cannot hold is in the plan's skipped list (cwsc explain)");
  EXPECT_TRUE(ir::Validate(r->plan).empty());
  // Another probe failure (not a namespace) keeps the old behaviour.
  FactsBuilder g = Host(7);
  g.Probe(false, "bwrap: execvp /bin/true: No such file or directory");
  EXPECT_EQ(CompileText("", g, "ask")->plan.kind(), PlanKind::kNone);
  // No Landlock: none, or refused with sandbox_require.
  FactsBuilder h = Host(0);
  h.Probe(false, kNoUserns);
  EXPECT_EQ(CompileText("", h, "ask")->plan.kind(), PlanKind::kNone);
  EXPECT_EQ(CompileText("sandbox_require = true\n", h, "ask")->plan.kind(), PlanKind::kRefused);
  // bwrap asked for: no fallback.
  EXPECT_EQ(CompileText("sandbox_linux_backend = \"bwrap\"\n", f, "ask")->plan.kind(),
            PlanKind::kNone);
  // Full access is never confined.
  EXPECT_EQ(CompileText("", f, "full-access")->plan.kind(), PlanKind::kNone);
}

TEST(LandlockSelect, AskedForEvenWhereBwrapWorks) {
  auto r = CompileText("sandbox_linux_backend = \"Landlock\"\n", Host(7), "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->plan.kind(), PlanKind::kLinuxLandlock);
  EXPECT_TRUE(r->plan.warnings.empty());
  auto bad = CompileText("sandbox_linux_backend = \"firejail\"\n", Host(7), "ask");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StartsWith(bad.status().message(),
                               "/tmp/"))  // the config file's temporary name
      << bad.status();
  EXPECT_TRUE(absl::StrContains(bad.status().message(),
                                ":1:25: error: 'sandbox_linux_backend' must be \"auto\", "
                                "\"bwrap\" or \"landlock\", not 'firejail'\n"))
      << bad.status();
}

// Without a user namespace of its own to forbid nesting in, the Landlock
// plan's filter refuses CLONE_NEWUSER (docs/runtime.md, "The Landlock
// backend"); other clone and unshare calls pass.
TEST(LandlockLower, TheFilterRefusesNewUserNamespaces) {
  auto r = CompileText("sandbox_linux_backend = \"landlock\"\n", Host(7), "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->plan.kind(), PlanKind::kLinuxLandlock);
  ASSERT_TRUE(r->plan.syscall_filter() != nullptr);
  absl::StatusOr<std::string> bpf = backends::EmitSeccompBpf(*r->plan.syscall_filter());
  ASSERT_TRUE(bpf.ok()) << bpf.status();
  auto verdict = [&](const char* name, uint64_t arg0) {
    backends::SeccompCall call;
    call.nr = *backends::SyscallNumber(name);
    call.args[0] = arg0;
    absl::StatusOr<uint32_t> v = backends::RunSeccompProgram(*bpf, call);
    EXPECT_TRUE(v.ok()) << v.status();
    return v.value_or(0);
  };
  constexpr uint32_t kAllow = 0x7fff0000, kErrno = 0x00050000;
  constexpr uint64_t kNewUser = 0x10000000, kNewNs = 0x20000, kSigchld = 17;
  EXPECT_EQ(verdict("unshare", kNewUser), kErrno | EPERM);
  EXPECT_EQ(verdict("unshare", kNewUser | kNewNs), kErrno | EPERM);
  EXPECT_EQ(verdict("unshare", kNewNs), kAllow);  // the kernel asks for CAP_SYS_ADMIN
  EXPECT_EQ(verdict("clone", kNewUser | kSigchld), kErrno | EPERM);
  EXPECT_EQ(verdict("clone", kSigchld), kAllow);
  EXPECT_EQ(verdict("clone3", 0), kErrno | ENOSYS);
  // The bwrap plan's filter leaves these to bwrap's --disable-userns.
  auto b = CompileText("", Host(7), "ask");
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->plan.kind(), PlanKind::kLinuxBwrap);
  for (const ir::SyscallRule& rule : b->plan.syscall_filter()->rules) {
    EXPECT_NE(rule.syscall, "clone3");
  }
}

TEST(LandlockLower, RulesetPerAbi) {
  auto r = CompileText("sandbox_linux_backend = \"landlock\"\n", Host(7), "plan");
  ASSERT_TRUE(r.ok()) << r.status();
  const ir::Landlock& ll = *r->plan.landlock();
  EXPECT_EQ(ll.abi, 7);
  EXPECT_EQ(ll.handled_fs, (1ULL << 16) - 1);
  EXPECT_EQ(ll.handled_net, ir::kLandlockNetBindTcp | ir::kLandlockNetConnectTcp);
  EXPECT_EQ(ll.scoped, ir::kLandlockScopeSignal | ir::kLandlockScopeAbstractUnixSocket);
  // ABI 3: no network, no ioctl, no scopes; the plan says what is not held.
  auto old = CompileText("sandbox_linux_backend = \"landlock\"\n", Host(3), "plan");
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->plan.landlock()->handled_fs, (1ULL << 15) - 1);
  EXPECT_EQ(old->plan.landlock()->handled_net, 0u);
  EXPECT_EQ(old->plan.landlock()->scoped, 0u);
  std::string skipped;
  for (const ir::Skipped& s : old->plan.skipped) skipped += s.what + ": " + s.reason + "\n";
  EXPECT_TRUE(absl::StrContains(skipped,
                                "TCP bind and connect: Landlock ABI < 4 cannot refuse "
                                "them; seccomp refuses AF_INET and AF_INET6 sockets\n"))
      << skipped;
  EXPECT_TRUE(absl::StrContains(skipped, "abstract unix sockets: Landlock ABI < 6"));
  // The network on: nothing network-related is handled.
  auto on = CompileText("sandbox_linux_backend = \"landlock\"\n", Host(7), "ask");
  EXPECT_EQ(on->plan.landlock()->handled_net, 0u);
  EXPECT_EQ(on->plan.landlock()->scoped, ir::kLandlockScopeSignal);
}

TEST(LandlockLower, ListingAndSkipped) {
  auto r = CompileText("sandbox_linux_backend = \"landlock\"\n", Host(7), "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  std::string listing = backends::EmitLandlockListing(*r->plan.landlock());
  EXPECT_TRUE(absl::StartsWith(
      listing,
      "# cwsc Landlock ruleset (ABI 7): every handled access no rule grants is refused\n"
      "# handled filesystem: execute|write_file|read_file|read_dir|remove_dir|remove_file|"
      "make_char|make_dir|make_reg|make_sock|make_fifo|make_block|make_sym|refer|truncate|"
      "ioctl_dev\n"
      "# handled network: none\n"
      "# scoped: signal\n"
      "allow execute|read_file|read_dir beneath every entry of / except dev, etc, home  # read "
      "every entry of / but dev, etc, home: a grant on the directory itself would reach the "
      "excluded path below it [default landlock read view]\n"))
      << listing;
  EXPECT_TRUE(absl::StrContains(
      listing, "allow execute|read_file|read_dir beneath every entry of /home/dev except "))
      << listing;
  EXPECT_TRUE(absl::StrContains(listing,
                                "allow execute|write_file|read_file|read_dir|remove_dir|"
                                "remove_file|make_dir|make_reg|make_sock|make_fifo|make_sym|"
                                "refer|truncate|ioctl_dev beneath /home/dev/ws  # writable root "
                                "(configured) [mode workspace of permission mode ask]"))
      << listing;
  std::string skipped;
  for (const ir::Skipped& s : r->plan.skipped) {
    if (s.kind == ir::SkipKind::kLandlock)
      skipped += s.what + " " + s.path + ": " + s.reason + "\n";
  }
  EXPECT_TRUE(absl::StrContains(
      skipped,
      "protected path /home/dev/ws/.codewhale: writable: a Landlock grant on /home/dev/ws reaches "
      "every path below it, and keeping .codewhale read-only would refuse creating any entry "
      "directly in /home/dev/ws (bubblewrap plans remount it read-only)\n"))
      << skipped;
  EXPECT_TRUE(absl::StrContains(
      skipped,
      "directory listing /home/dev: listing /home/dev is refused, and an entry created in it "
      "after the command starts is not readable by the command: Landlock only grants, and a "
      "grant on /home/dev itself would reach "))
      << skipped;
  EXPECT_TRUE(absl::StrContains(skipped, "private /tmp /tmp: "));
  EXPECT_TRUE(absl::StrContains(skipped, "PID namespace : "));
}

TEST(LandlockLower, PlanJsonRoundTrips) {
  auto r = CompileText("sandbox_linux_backend = \"landlock\"\n", Host(7), "plan");
  ASSERT_TRUE(r.ok()) << r.status();
  absl::StatusOr<std::string> json = ir::PlanToJson(r->plan);
  ASSERT_TRUE(json.ok()) << json.status();
  auto back = ir::PlanFromJson(*json, "plan.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, r->plan);
}

// The same policies, read back from the bwrap argv and from the Landlock
// listing, give the same answers where both backends hold them.
TEST(LandlockAgreement, WithTheBwrapEvaluator) {
  FactsBuilder f = Host(7);
  f.Dir("/usr").Dir("/usr/bin").File("/usr/bin/ls", "", "0755", 0).Dir("/etc").File("/etc/passwd");
  for (const char* mode : {"ask", "plan"}) {
    auto bw = CompileText("", f, mode);
    auto ll = CompileText("sandbox_linux_backend = \"landlock\"\n", f, mode);
    ASSERT_TRUE(bw.ok() && ll.ok());
    ASSERT_EQ(bw->plan.kind(), PlanKind::kLinuxBwrap);
    ASSERT_EQ(ll->plan.kind(), PlanKind::kLinuxLandlock);
    auto argv = backends::EmitBwrapArgv(bw->plan, {});
    ASSERT_TRUE(argv.ok());
    auto b = backends::BwrapChecker::FromArgv(backends::Texts(*argv));
    ASSERT_TRUE(b.ok()) << b.status();
    auto l =
        backends::LandlockChecker::FromListing(backends::EmitLandlockListing(*ll->plan.landlock()));
    ASSERT_TRUE(l.ok()) << l.status();
    struct Q {
      AccessKind kind;
      const char* path;
    };
    for (Q q : std::vector<Q>{{AccessKind::kRead, "/home/dev/.ssh/id_rsa"},
                              {AccessKind::kRead, "/home/dev/.ssh"},
                              {AccessKind::kRead, "/home/dev/ws/a.c"},
                              {AccessKind::kWrite, "/home/dev/ws/a.c"},
                              {AccessKind::kCreate, "/home/dev/ws"},
                              {AccessKind::kWrite, "/etc/passwd"},
                              {AccessKind::kRead, "/etc/passwd"},
                              {AccessKind::kExec, "/usr/bin/ls"},
                              {AccessKind::kWrite, "/usr/bin/ls"},
                              {AccessKind::kCreate, "/home/dev"},
                              {AccessKind::kNetwork, ""}}) {
      EXPECT_EQ(b->Decide(q.kind, q.path).allowed, l->Decide(q.kind, q.path).allowed)
          << mode << " " << backends::AccessKindName(q.kind) << " " << q.path << ": bwrap "
          << b->Decide(q.kind, q.path).rule << " / landlock " << l->Decide(q.kind, q.path).rule;
    }
  }
}

TEST(LandlockEval, ReadsTheListingBack) {
  auto l = backends::LandlockChecker::FromListing(
      "# handled filesystem: execute|write_file|read_file|read_dir|make_reg\n"
      "allow execute|read_file|read_dir beneath every entry of / except home  # x [y]\n"
      "allow execute|read_file|read_dir beneath every entry of /home/u except .ssh  # x [y]\n"
      "allow read_file|write_file|make_reg beneath /home/u/ws  # w [z]\n");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_TRUE(l->Decide(AccessKind::kRead, "/etc/passwd").allowed);
  // A refused read names the grant that leaves the path out, the nearest
  // ancestor's (a deny rule's complement), not "no rule".
  backends::Verdict ssh = l->Decide(AccessKind::kRead, "/home/u/.ssh/id");
  EXPECT_FALSE(ssh.allowed);
  EXPECT_EQ(ssh.rule,
            "allow execute|read_file|read_dir beneath every entry of /home/u except .ssh");
  EXPECT_EQ(ssh.line, 3);
  EXPECT_EQ(ssh.detail, "leaves out /home/u/.ssh");
  backends::Verdict other = l->Decide(AccessKind::kRead, "/home/v/notes");
  EXPECT_FALSE(other.allowed);
  EXPECT_EQ(other.line, 2);
  EXPECT_EQ(other.detail, "leaves out /home");
  EXPECT_TRUE(l->Decide(AccessKind::kRead, "/home/u/src/x").allowed);
  EXPECT_EQ(l->Decide(AccessKind::kWrite, "/etc/passwd").rule,
            "no rule grants write at /etc/passwd");
  EXPECT_TRUE(l->Decide(AccessKind::kWrite, "/home/u/ws/f").allowed);
  EXPECT_EQ(l->Decide(AccessKind::kWrite, "/home/u/ws/f").rule,
            "allow read_file|write_file|make_reg beneath /home/u/ws");
  EXPECT_FALSE(l->Decide(AccessKind::kCreate, "/etc").allowed);
  EXPECT_TRUE(l->Decide(AccessKind::kNetwork, "").allowed);
  EXPECT_FALSE(backends::LandlockChecker::FromListing("allow bogus beneath /\n").ok());
  EXPECT_EQ(
      backends::LandlockChecker::FromListing("# handled filesystem: execute\nallow fly beneath /\n")
          .status()
          .message(),
      "landlock listing line 2: unknown access right 'fly'");
}

}  // namespace
}  // namespace cwsc::compiler
