// Compile-time hardening on recorded facts (docs/decisions.md, "Hardening
// beyond the reference argv"): planted symlinks, placeholders for missing
// protected names, the kernel masks, the seccomp stage. The live attacks
// are in tests/escape/.
#include <gtest/gtest.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "backends/bwrap.h"
#include "backends/verify/bwrap_interp.h"
#include "compiler/worktree.h"
#include "gmock/gmock.h"
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
  return std::any_of(p.mounts.begin(), p.mounts.end(),
                     [&](const ir::Mount& m) { return m.op == op && m.dest == dest; });
}

// TMPDIR's parent inside the workspace was swapped for a symlink outside.
TEST(Hardening, RootThroughASymlinkInsideAWritableRootIsSkipped) {
  FactsBuilder f;
  f.Env("TMPDIR", "/home/dev/ws/tp/tmpdir")
      .Dir("/home/dev/ws/tp", "/srv/outside")
      .Through("/home/dev/ws/tp/tmpdir", "/srv/outside/tmpdir")
      .Dir("/srv").Dir("/srv/outside").Dir("/srv/outside/tmpdir");
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

// A symlink the user made outside every writable root is trusted.
TEST(Hardening, SymlinkOutsideWritableRootsIsTrusted) {
  FactsBuilder f;
  f.Dir("/home/dev/link", "/srv/data").Dir("/srv").Dir("/srv/data");
  auto r = CompileText("sandbox_writable_roots = [\"/home/dev/link\"]\n", f);
  ASSERT_TRUE(r.ok()) << r.status();
  const ir::Root* root = RootAt(r->plan, "/home/dev/link");
  ASSERT_NE(root, nullptr);
  EXPECT_TRUE(root->writable_bind) << root->skip_reason;
  EXPECT_TRUE(Mounted(r->plan, ir::MountOp::kWritableBind, "/srv/data"));
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
  f.Dir("/x").Dir("/x/ws").Dir("/x/main").Dir("/x/main/.git").Dir("/x/main/.git/worktrees")
      .Dir("/x/main/.git/worktrees/wt").Dir("/x/wt")
      .File("/x/ws/.git", "/x/wt/.git")
      .File("/x/wt/.git")
      .Content("/x/ws/.git", "gitdir: /x/main/.git/worktrees/wt\n")
      .Content("/x/wt/.git", "gitdir: /x/main/.git/worktrees/wt\n")
      .File("/x/main/.git/worktrees/wt/commondir")
      .Content("/x/main/.git/worktrees/wt/commondir", "../..\n")
      .Dir("/x/main/.git/worktrees/wt/../..", "/x/main/.git")
      .File("/x/main/.git/worktrees/wt/gitdir")
      .Content("/x/main/.git/worktrees/wt/gitdir", "/x/wt/.git\n");
  auto facts = f.Build();
  WorktreeMetadata m = FindWorktreeMetadata(*facts, "/x/ws");
  EXPECT_FALSE(m.verified());
  EXPECT_EQ(m.rejected, "the .git file is a symlink; a sandboxed command could have planted it");
  // The real worktree itself is still recognized.
  EXPECT_TRUE(FindWorktreeMetadata(*facts, "/x/wt").verified());
}

TEST(Hardening, KernelInterfacesThatExistAreMaskedForARootCommand) {
  FactsBuilder f;
  f.Dir("/proc/sys").File("/proc/sysrq-trigger").File("/proc/kcore").Dir("/proc/acpi")
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
  ASSERT_TRUE(on->plan.syscall_filter && off->plan.syscall_filter);
  auto has_socket = [](const ir::SyscallFilter& fl) {
    return std::any_of(fl.rules.begin(), fl.rules.end(),
                       [](const ir::SyscallRule& r) { return r.syscall == "socket"; });
  };
  EXPECT_FALSE(has_socket(*on->plan.syscall_filter));
  EXPECT_TRUE(has_socket(*off->plan.syscall_filter));
  // Unsandboxed plans carry none.
  auto full = CompileText("", f, "full-access");
  ASSERT_TRUE(full.ok());
  EXPECT_FALSE(full->plan.syscall_filter.has_value());
}

}  // namespace
}  // namespace cwsc::compiler
