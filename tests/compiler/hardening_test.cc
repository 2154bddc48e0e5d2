// Compile-time hardening on recorded facts (docs/decisions.md, "Hardening
// beyond the reference argv"): planted symlinks, placeholders for missing
// protected names, the kernel masks, the seccomp stage. The live attacks
// are in tests/escape/.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/bwrap.h"
#include "backends/verify/bwrap_interp.h"
#include "compiler/worktree.h"
#include "gmock/gmock.h"
#include "ir/validate.h"
#include "tests/compiler/test_facts.h"

namespace cwsc::compiler {
namespace {

using cwsc::testing::CompileText;
using cwsc::testing::FactsBuilder;
using ::testing::HasSubstr;

const ir::Root* RootAt(const ir::LaunchPlan& p, const std::string& path) {
  for (const ir::Root& r : p.roots) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

bool Mounted(const ir::LaunchPlan& p, ir::MountOp op, const std::string& dest) {
  return std::any_of(p.mounts().begin(), p.mounts().end(),
                     [&](const ir::Mount& m) { return m.op == op && m.dest == dest; });
}

// TMPDIR's parent inside the workspace was swapped for a symlink outside.
TEST(Hardening, RootThroughASymlinkInsideAWritableRootIsSkipped) {
  FactsBuilder f;
  f.Env("TMPDIR", "/home/dev/ws/tp/tmpdir")
      .Dir("/home/dev/ws/tp", "/srv/outside")
      .Through("/home/dev/ws/tp/tmpdir", "/srv/outside/tmpdir")
      .Dir("/srv")
      .Dir("/srv/outside")
      .Dir("/srv/outside/tmpdir");
  auto r = CompileText("", f);
  ASSERT_TRUE(r.ok()) << r.status();
  const ir::Root* tmpdir = RootAt(r->plan, "/srv/outside/tmpdir");
  ASSERT_NE(tmpdir, nullptr);
  EXPECT_FALSE(tmpdir->writable_bind);
  EXPECT_EQ(tmpdir->skip, ir::RootSkip::kPlantedSymlink);
  EXPECT_EQ(tmpdir->skip_reason,
            "passes through the symlink /home/dev/ws/tp inside the writable root /home/dev/ws; "
            "the sandboxed command could have planted it");
  EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/outside/tmpdir"));
  // The same for a configured root and for bwrap_ro_roots.
  r = CompileText(
      "sandbox_writable_roots = [\"/home/dev/ws/tp/tmpdir\"]\n"
      "bwrap_ro_roots = [\"/home/dev/ws/tp\"]\n",
      f);
  ASSERT_TRUE(r.ok()) << r.status();
  const ir::Root* configured = RootAt(r->plan, "/home/dev/ws/tp/tmpdir");
  ASSERT_NE(configured, nullptr);
  EXPECT_FALSE(configured->writable_bind);
  EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kReadOnlyBind, "/srv/outside"));
  bool skipped_ro = false;
  for (const ir::Skipped& s : r->plan.skipped) {
    skipped_ro = skipped_ro || (s.what == "bwrap_ro_roots" && s.path == "/home/dev/ws/tp" &&
                                absl::StartsWith(s.reason, "passes through the symlink"));
  }
  EXPECT_TRUE(skipped_ro);
}

// A symlink in a directory the user may write is suspect even outside this
// run's writable roots: another workspace's run, or an earlier run whose
// working directory was there, could have planted it (docs/decisions.md,
// "Who could have written it").
TEST(Hardening, SymlinkInAUserWritableDirectoryIsSkipped) {
  FactsBuilder f;
  f.Dir("/home/dev/link", "/srv/data").Dir("/srv", "", "0755", 0).Dir("/srv/data");
  auto r = CompileText("sandbox_writable_roots = [\"/home/dev/link\"]\n", f);
  ASSERT_TRUE(r.ok()) << r.status();
  const ir::Root* root = RootAt(r->plan, "/home/dev/link");
  ASSERT_NE(root, nullptr);
  EXPECT_FALSE(root->writable_bind);
  EXPECT_EQ(root->skip, ir::RootSkip::kPlantedSymlink);
  EXPECT_EQ(root->skip_reason,
            "passes through the symlink /home/dev/link in /home/dev, a directory the sandboxed "
            "user (uid 1000, groups 1000) may write; the sandboxed command could have planted "
            "it");
  EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/data"));
  // The same for the working directory: the command runs where the link
  // points, but nothing there becomes writable.
  f.Cwd("/home/dev/link");
  r = CompileText("", f);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/data"));
  // As root, a root-owned directory with u+w is writable by the command too
  // (it holds no capabilities but owns the directory).
  FactsBuilder root_facts;
  root_facts.AsRoot().Dir("/opt", "", "0755", 0).Dir("/opt/link", "/srv/data").Dir("/srv/data");
  r = CompileText("sandbox_writable_roots = [\"/opt/link\"]\n", root_facts);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/data"));
}

// The owner of a directory may write it whatever its mode (chmod needs no
// capability): a link in a directory the user owns is suspect even when
// the write bits are off, as an earlier run leaves it with `chmod 555`.
TEST(Hardening, ALinkInADirectoryItsOwnerMadeReadOnlyIsSkipped) {
  FactsBuilder f;
  f.Dir("/srv", "", "0755", 0)
      .Dir("/srv/w", "", "0555", 1000)
      .Link("/srv/w/next", "/srv/data", "/srv/data")
      .Dir("/srv/data", "", "0755", 0);
  auto r = CompileText("sandbox_writable_roots = [\"/srv/w/next\"]\n", f);
  ASSERT_TRUE(r.ok()) << r.status();
  const ir::Root* root = RootAt(r->plan, "/srv/w/next");
  ASSERT_NE(root, nullptr);
  EXPECT_FALSE(root->writable_bind);
  EXPECT_EQ(root->skip_reason,
            "passes through the symlink /srv/w/next in /srv/w, a directory the sandboxed user "
            "(uid 1000, groups 1000) may write; the sandboxed command could have planted it");
  EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/data"));
  // Another user's read-only directory is not the user's to change.
  FactsBuilder other;
  other.Dir("/srv", "", "0755", 0)
      .Dir("/srv/w", "", "0555", 1001)
      .Link("/srv/w/next", "/srv/data", "/srv/data")
      .Dir("/srv/data", "", "0755", 0);
  r = CompileText("sandbox_writable_roots = [\"/srv/w/next\"]\n", other);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/data"));
}

// A symlink in a directory the user cannot write was not made by a sandboxed
// command of this user: it is followed.
TEST(Hardening, SymlinkInADirectoryTheUserCannotWriteIsTrusted) {
  FactsBuilder f;
  f.Dir("/opt", "", "0755", 0)
      .Dir("/opt/link", "/srv/data")
      .Dir("/srv", "", "0755", 0)
      .Dir("/srv/data");
  auto r = CompileText("sandbox_writable_roots = [\"/opt/link\"]\n", f);
  ASSERT_TRUE(r.ok()) << r.status();
  const ir::Root* root = RootAt(r->plan, "/opt/link");
  ASSERT_NE(root, nullptr);
  EXPECT_TRUE(root->writable_bind) << root->skip_reason;
  EXPECT_TRUE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/data"));
}

// A directory the user cannot write by its owner, group and other bits,
// but whose group bits allow writing: with a POSIX ACL those bits are the
// mask over entries that may name the user, and cwsc reads no ACL. A link
// in it is skipped, saying why; without the group write bit it is trusted
// (above).
TEST(Hardening, SymlinkInADirectoryAnAclMayLetTheUserWriteIsSkipped) {
  FactsBuilder f;
  f.Dir("/opt", "", "0775", 0)
      .Dir("/opt/link", "/srv/data")
      .Dir("/srv", "", "0755", 0)
      .Dir("/srv/data");
  auto r = CompileText("sandbox_writable_roots = [\"/opt/link\"]\n", f);
  ASSERT_TRUE(r.ok()) << r.status();
  const ir::Root* root = RootAt(r->plan, "/opt/link");
  ASSERT_NE(root, nullptr);
  EXPECT_FALSE(root->writable_bind);
  EXPECT_EQ(root->skip, ir::RootSkip::kPlantedSymlink);
  EXPECT_EQ(root->skip_reason,
            "passes through the symlink /opt/link in /opt, a directory whose group bits (mode "
            "0775) would be the mask of a POSIX ACL, which may let the sandboxed user (uid 1000, "
            "groups 1000) write it; the sandboxed command could have planted it");
  EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/data"));
}

// A trusted link may lead through one the command could have planted: the
// walk follows the trusted link's target (not its canonical form) and
// meets the planted one. Here /opt/tl (root's, in a directory the user
// cannot write) points into the user's /home/dev/ws/x, a link an earlier
// run could have made to anywhere.
TEST(Hardening, APlantedSymlinkBehindATrustedOneIsSkipped) {
  FactsBuilder f;
  f.Dir("/opt", "", "0755", 0)
      .Link("/opt/tl", "/home/dev/ws/x", "/srv/data", "directory", 0)
      .Link("/home/dev/ws/x", "../../../srv/data", "/srv/data")
      .Dir("/srv", "", "0755", 0)
      .Dir("/srv/data")
      .Through("/opt/tl/b", "/srv/data/b")
      .Dir("/srv/data/b");
  for (std::string spelled : {"/opt/tl", "/opt/tl/b"}) {
    auto r = CompileText("sandbox_writable_roots = [\"" + spelled + "\"]\n", f);
    ASSERT_TRUE(r.ok()) << r.status();
    const ir::Root* root = RootAt(r->plan, spelled);
    ASSERT_NE(root, nullptr) << spelled;
    EXPECT_FALSE(root->writable_bind) << spelled;
    EXPECT_EQ(root->skip, ir::RootSkip::kPlantedSymlink) << spelled;
    EXPECT_EQ(root->skip_reason,
              "passes through the symlink /home/dev/ws/x inside the writable root /home/dev/ws; "
              "the sandboxed command could have planted it")
        << spelled;
    EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/data")) << spelled;
    EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/data/b")) << spelled;
  }
  // The working directory reached that way runs there, nothing writable.
  f.Cwd("/opt/tl/b");
  auto r = CompileText("", f);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/data/b"));
  // A trusted link to a directory, with no link behind it, is bound.
  FactsBuilder inside;
  inside.Dir("/opt", "", "0755", 0)
      .Link("/opt/tl", "/home/dev/ws/y", "/home/dev/ws/y", "directory", 0)
      .Dir("/home/dev/ws/y");
  r = CompileText("sandbox_writable_roots = [\"/opt/tl\"]\n", inside);
  ASSERT_TRUE(r.ok()) << r.status();
  const ir::Root* root = RootAt(r->plan, "/opt/tl");
  ASSERT_NE(root, nullptr);
  EXPECT_TRUE(root->writable_bind) << root->skip_reason;
}

// A denied path below a writable root: every directory between the root
// and the mask is bound onto itself, so the command cannot rename the way
// to the secret (docs/decisions.md, "Deny targets that cannot be moved").
TEST(Hardening, DirectoriesAboveADenyMaskInAWritableRootArePinned) {
  FactsBuilder f;
  f.Cwd("/home/dev")
      .Dir("/home/dev/.config")
      .Dir("/home/dev/.config/cloud")
      .Dir("/home/dev/.config/cloud/keys");
  auto r = CompileText(
      "sandbox_read_denylist_defaults = false\n"
      "sandbox_denied_read_paths = [\"~/.config/cloud/keys\"]\n",
      f);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> pins;
  size_t mask_at = 0;
  for (size_t i = 0; i < r->plan.mounts().size(); ++i) {
    const ir::Mount& m = r->plan.mounts()[i];
    if (m.why == "pins the way to a denied path (a mount point cannot be renamed)") {
      EXPECT_EQ(m.op, ir::MountOp::kWritableBind);
      EXPECT_EQ(m.source, m.dest);
      pins.push_back(m.dest);
    }
    if (m.dest == "/home/dev/.config/cloud/keys") mask_at = i;
  }
  EXPECT_EQ(pins, (std::vector<std::string>{"/home/dev/.config", "/home/dev/.config/cloud"}));
  // The semantic check: the pins change no access; the mask still hides.
  auto argv = backends::EmitBwrapArgv(r->plan, {"true"});
  ASSERT_TRUE(argv.ok());
  auto view = backends::InterpretBwrapArgv(backends::Texts(*argv));
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->Find("/home/dev/.config/x").access, backends::Access::kWritable);
  EXPECT_EQ(view->Find("/home/dev/.config/cloud/keys/k").access, backends::Access::kHidden);
  EXPECT_GT(mask_at, 0u);
  // Outside every writable root nothing is pinned.
  f.Cwd("/home/dev/ws");
  r = CompileText("sandbox_denied_read_paths = [\"~/.config/cloud/keys\"]\n", f);
  ASSERT_TRUE(r.ok()) << r.status();
  for (const ir::Mount& m : r->plan.mounts()) {
    EXPECT_NE(m.why, "pins the way to a denied path (a mount point cannot be renamed)") << m.dest;
  }
}

TEST(Hardening, MissingProtectedNamesGetAReadOnlyPlaceholder) {
  FactsBuilder f;
  f.Dir("/home/dev/ws/.codewhale");  // exists: bound read-only onto itself
  auto r = CompileText("sandbox_protected_names = [\".git\"]\n", f);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(Mounted(r->plan, ir::MountOp::kReadOnlyBind, "/home/dev/ws/.codewhale"));
  for (const char* name : {"/home/dev/ws/.deepseek", "/home/dev/ws/.git"}) {
    EXPECT_TRUE(Mounted(r->plan, ir::MountOp::kTmpfs, name)) << name;
    EXPECT_TRUE(Mounted(r->plan, ir::MountOp::kRemountReadOnly, name)) << name;
  }
  const ir::Root* ws = RootAt(r->plan, "/home/dev/ws");
  ASSERT_NE(ws, nullptr);
  int placeholders = 0;
  for (const ir::Protected& p : ws->protected_paths) placeholders += p.placeholder && p.applied;
  EXPECT_EQ(placeholders, 2);
  // The semantic check: nothing under the placeholder is writable.
  auto argv = backends::EmitBwrapArgv(r->plan, {"true"});
  ASSERT_TRUE(argv.ok());
  auto view = backends::InterpretBwrapArgv(backends::Texts(*argv));
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_NE(view->Find("/home/dev/ws/.deepseek/config.toml").access, backends::Access::kWritable);
  EXPECT_EQ(view->Find("/home/dev/ws/src.c").access, backends::Access::kWritable);
}

TEST(Hardening, ProtectedNameThatIsASymlinkIsNotFollowed) {
  FactsBuilder f;
  f.Dir("/home/dev/ws/.codewhale", "/home/dev/ws/decoy").Dir("/home/dev/ws/decoy");
  auto r = CompileText("", f);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kReadOnlyBind, "/home/dev/ws/decoy"));
  ASSERT_FALSE(r->plan.warnings.empty());
  EXPECT_EQ(r->plan.warnings[0].code, "protected-name-symlink");
  EXPECT_EQ(r->plan.warnings[0].message,
            "/home/dev/ws/.codewhale is a symlink: it is not protected, and what it names may be "
            "writable; replace it with a directory");
}

TEST(Hardening, SymlinkedDotGitIsNeverAWorktree) {
  FactsBuilder f;
  f.Dir("/x")
      .Dir("/x/ws")
      .Dir("/x/main")
      .Dir("/x/main/.git")
      .Dir("/x/main/.git/worktrees")
      .Dir("/x/main/.git/worktrees/wt")
      .Dir("/x/wt")
      .File("/x/ws/.git", "/x/wt/.git")
      .File("/x/wt/.git")
      .Content("/x/ws/.git", "gitdir: /x/main/.git/worktrees/wt\n")
      .Content("/x/wt/.git", "gitdir: /x/main/.git/worktrees/wt\n")
      .File("/x/main/.git/worktrees/wt/commondir")
      .Content("/x/main/.git/worktrees/wt/commondir", "../..\n")
      .Dir("/x/main/.git/worktrees/wt/../..", "/x/main/.git")
      .File("/x/main/.git/worktrees/wt/gitdir")
      .Content("/x/main/.git/worktrees/wt/gitdir", "/x/wt/.git\n")
      .File("/x/main/.git/HEAD")
      .Dir("/x/main/.git/objects")
      .Dir("/x/main/.git/refs");
  auto facts = f.Build();
  WorktreeMetadata m = FindWorktreeMetadata(*facts, "/x/ws");
  EXPECT_FALSE(m.verified());
  EXPECT_EQ(m.rejected, "the .git file is a symlink; a sandboxed command could have planted it");
  // The real worktree itself is still recognized.
  EXPECT_TRUE(FindWorktreeMetadata(*facts, "/x/wt").verified());
}

TEST(Hardening, KernelInterfacesThatExistAreMaskedForARootCommand) {
  FactsBuilder f;
  f.Dir("/proc/sys")
      .File("/proc/sysrq-trigger")
      .File("/proc/kcore")
      .Dir("/proc/acpi")
      .Missing("/proc/keys");
  // Another uid: the kernel's own checks refuse these; no mount is spent.
  auto user = CompileText("", f);
  ASSERT_TRUE(user.ok()) << user.status();
  EXPECT_FALSE(Mounted(user->plan, ir::MountOp::kReadOnlyBind, "/proc/sys"));
  EXPECT_FALSE(Mounted(user->plan, ir::MountOp::kReadOnlyBind, "/proc/kcore"));
  f.AsRoot();
  auto r = CompileText("", f);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(Mounted(r->plan, ir::MountOp::kReadOnlyBind, "/proc/sys"));
  EXPECT_TRUE(Mounted(r->plan, ir::MountOp::kReadOnlyBind, "/proc/sysrq-trigger"));
  EXPECT_TRUE(Mounted(r->plan, ir::MountOp::kReadOnlyBind, "/proc/kcore"));
  EXPECT_TRUE(Mounted(r->plan, ir::MountOp::kTmpfs, "/proc/acpi"));
  EXPECT_TRUE(Mounted(r->plan, ir::MountOp::kRemountReadOnly, "/proc/acpi"));
  EXPECT_FALSE(Mounted(r->plan, ir::MountOp::kReadOnlyBind, "/proc/keys"));
  auto argv = backends::EmitBwrapArgv(r->plan, {"true"});
  ASSERT_TRUE(argv.ok());
  auto view = backends::InterpretBwrapArgv(backends::Texts(*argv));
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->Find("/proc/sys/kernel/printk").access, backends::Access::kReadOnly);
  EXPECT_EQ(view->Find("/proc/kcore").access, backends::Access::kHidden);
  EXPECT_TRUE(view->caps_dropped);
  EXPECT_TRUE(view->unshare_user);
  EXPECT_TRUE(view->nested_userns_disabled);
  EXPECT_EQ(view->seccomp_fd, "3");
  EXPECT_FALSE(view->new_session);
}

TEST(Hardening, SyscallFilterFollowsTheNetwork) {
  FactsBuilder f;
  auto on = CompileText("", f, "ask");
  auto off = CompileText("", f, "plan");
  ASSERT_TRUE(on.ok() && off.ok());
  ASSERT_TRUE(on->plan.syscall_filter() && off->plan.syscall_filter());
  auto has_socket = [](const ir::SyscallFilter& fl) {
    return std::any_of(fl.rules.begin(), fl.rules.end(),
                       [](const ir::SyscallRule& r) { return r.syscall == "socket"; });
  };
  EXPECT_FALSE(has_socket(*on->plan.syscall_filter()));
  EXPECT_TRUE(has_socket(*off->plan.syscall_filter()));
  // Unsandboxed plans carry none.
  auto full = CompileText("", f, "full-access");
  ASSERT_TRUE(full.ok());
  EXPECT_FALSE(full->plan.syscall_filter() != nullptr);
}

// A setuid or setgid file is refused in every plan with a filter, network
// on or off; the socket rules come only with the network off.
TEST(Hardening, SetuidBitsAreRefusedWhateverTheNetwork) {
  FactsBuilder f;
  for (const char* mode : {"ask", "plan"}) {
    auto c = CompileText("", f, mode);
    ASSERT_TRUE(c.ok() && c->plan.syscall_filter()) << mode;
    std::set<std::string> calls;
    for (const ir::SyscallRule& r : c->plan.syscall_filter()->rules) {
      if (r.args.size() == 1 && r.args[0].mask == 04000 && r.args[0].value == 04000) {
        calls.insert(r.syscall);
      }
    }
    EXPECT_EQ(calls,
              (std::set<std::string>{"chmod", "creat", "fchmod", "fchmodat", "fchmodat2", "mkdir",
                                     "mkdirat", "mknod", "mknodat", "open", "openat"}))
        << mode;
    bool socketpair =
        std::any_of(c->plan.syscall_filter()->rules.begin(), c->plan.syscall_filter()->rules.end(),
                    [](const ir::SyscallRule& r) { return r.syscall == "socketpair"; });
    EXPECT_EQ(socketpair, std::string(mode) == "plan") << mode;
  }
}

// Every mount says what it is for, and the role is the one its lowering
// gave it: the runtime picks the masks it checks and the launcher probe's
// masks by role, never by guessing from the operation and the paths.
TEST(Hardening, EveryMountCarriesTheRoleItsLoweringGaveIt) {
  FactsBuilder f;
  f.AsRoot()
      .Dir("/proc/sys")
      .File("/proc/kcore")
      .Dir("/proc/acpi")
      .Dir("/home/dev/ws/.codewhale")
      .Dir("/home/dev/ws/.config")
      .Dir("/home/dev/ws/.config/keys")
      .Dir("/home/dev/.ssh")
      .File("/home/dev/.netrc")
      .Dir("/srv/ro")
      .Device("/dev/kvm");
  auto r = CompileText(
      "sandbox_read_denylist_defaults = false\n"
      "sandbox_denied_read_paths = [\"~/.ssh\", \"~/.netrc\", \"/home/dev/ws/.config/keys\"]\n"
      "bwrap_ro_roots = [\"/srv/ro\"]\n"
      "bwrap_dev_roots = [\"/dev/kvm\"]\n",
      f);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> got;
  for (const ir::Mount& m : r->plan.mounts()) {
    got.push_back(
        absl::StrCat(ir::MountRoleName(m.role), " ", ir::MountOpName(m.op), " ", m.dest.str()));
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "base read-only-bind /",
                     "base dev /dev",
                     "base proc /proc",
                     "kernel-read-only read-only-bind /proc/sys",
                     "kernel-mask read-only-bind /proc/kcore",
                     "kernel-mask tmpfs /proc/acpi",
                     "kernel-mask remount-read-only /proc/acpi",
                     "base tmpfs /tmp",
                     "device device-bind /dev/kvm",
                     "root-bind writable-bind /home/dev/ws",
                     "root-bind writable-bind /tmp",
                     "protected read-only-bind /home/dev/ws/.codewhale",
                     "placeholder tmpfs /home/dev/ws/.deepseek",
                     "placeholder remount-read-only /home/dev/ws/.deepseek",
                     "placeholder tmpfs /tmp/.codewhale",
                     "placeholder remount-read-only /tmp/.codewhale",
                     "placeholder tmpfs /tmp/.deepseek",
                     "placeholder remount-read-only /tmp/.deepseek",
                     "read-only-root read-only-bind /srv/ro",
                     "deny-pin writable-bind /home/dev/ws/.config",
                     "deny-mask tmpfs /home/dev/.ssh",
                     "deny-mask read-only-bind /home/dev/.netrc",
                     "deny-mask tmpfs /home/dev/ws/.config/keys",
                 }));
  EXPECT_EQ(ir::Validate(r->plan), std::vector<ir::PlanProblem>{});
  // A read-only plan whose working directory is under /tmp shows it read-only.
  FactsBuilder tmp;
  tmp.Dir("/tmp/ws").Cwd("/tmp/ws");
  r = CompileText("sandbox_mode = \"read-only\"\n", tmp);
  ASSERT_TRUE(r.ok()) << r.status();
  bool shown = false;
  for (const ir::Mount& m : r->plan.mounts()) {
    if (m.dest == "/tmp/ws") shown = m.role == ir::MountRole::kTmpView;
  }
  EXPECT_TRUE(shown);
}

}  // namespace
}  // namespace cwsc::compiler
