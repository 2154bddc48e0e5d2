// Git worktree metadata verification (docs/behavior.md B-21; B-90) on
// recorded facts. The live `git worktree add` cases are in tests/cli/live_test.cc.
#include "compiler/worktree.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "tests/compiler/test_facts.h"

namespace cwsc::compiler {
namespace {

using cwsc::testing::FactsBuilder;

// CommonDir gives `dir` what a real common git directory holds.
FactsBuilder& CommonDir(FactsBuilder& f, const std::string& dir) {
  return f.File(dir + "/HEAD").Dir(dir + "/objects").Dir(dir + "/refs");
}

FactsBuilder Worktree(const std::string& back_pointer) {
  FactsBuilder f;
  f.Dir("/x")
      .Dir("/x/main-repo")
      .Dir("/x/main-repo/.git")
      .Dir("/x/main-repo/.git/worktrees")
      .Dir("/x/main-repo/.git/worktrees/feature")
      .Dir("/x/feature-worktree")
      .Dir("/x/feature-worktree/crates")
      .Dir("/x/feature-worktree/crates/cli")
      .File("/x/feature-worktree/.git")
      .Content("/x/feature-worktree/.git", "gitdir: /x/main-repo/.git/worktrees/feature\n")
      .File("/x/main-repo/.git/worktrees/feature/commondir")
      .Content("/x/main-repo/.git/worktrees/feature/commondir", "../..\n")
      .Dir("/x/main-repo/.git/worktrees/feature/../..", "/x/main-repo/.git")
      .File("/x/main-repo/.git/worktrees/feature/gitdir")
      .Content("/x/main-repo/.git/worktrees/feature/gitdir", back_pointer + "\n")
      .File("/x/other/.git")
      .Dir("/x/other");
  CommonDir(f, "/x/main-repo/.git");
  return f;
}

TEST(Worktree, VerifiedMetadata) {
  auto facts = Worktree("/x/feature-worktree/.git").Build();
  WorktreeMetadata m = FindWorktreeMetadata(*facts, "/x/feature-worktree");
  EXPECT_TRUE(m.verified()) << m.rejected;
  EXPECT_EQ(m.git_dir, "/x/main-repo/.git/worktrees/feature");
  EXPECT_EQ(m.common_dir, "/x/main-repo/.git");
  // Case 19: from a nested directory too.
  WorktreeMetadata nested = FindWorktreeMetadata(*facts, "/x/feature-worktree/crates/cli");
  EXPECT_EQ(nested.git_dir, m.git_dir);
}

// The `.git` asked about is spelled on the stack when it fits; a directory
// whose `.git` path is longer than that buffer (and one exactly at its edge)
// is searched the same: the worktree is found from every depth.
TEST(Worktree, LongPathsAreSearchedTheSame) {
  for (size_t len : {240u, 250u, 251u, 252u, 300u, 1000u}) {
    // /x/feature-worktree/<pad>: the .git path under it is `len` + 5 bytes long.
    std::string deep = "/x/feature-worktree/";
    deep += std::string(len - deep.size(), 'p');
    auto facts = Worktree("/x/feature-worktree/.git").Dir(deep).Dir(deep + "/q").Build();
    for (const std::string& start : {deep, deep + "/q"}) {
      NoWorktreeAbove memo;
      WorktreeMetadata m = FindWorktreeMetadata(*facts, start, &memo);
      EXPECT_TRUE(m.verified()) << len << " " << m.rejected;
      EXPECT_EQ(m.dot_git, "/x/feature-worktree/.git") << len;
      EXPECT_EQ(m.common_dir, "/x/main-repo/.git") << len;
    }
    // A .git file at the long directory itself is the one found.
    auto own = Worktree("/x/feature-worktree/.git").Dir(deep).File(deep + "/.git").Build();
    EXPECT_EQ(FindWorktreeMetadata(*own, deep).dot_git, deep + "/.git") << len;
  }
}

// The memo of directories with no .git file above them answers the same as
// a search without it, in any order of roots, and asks the facts less.
TEST(Worktree, MemoAnswersAsTheFullSearch) {
  auto facts = Worktree("/x/feature-worktree/.git").Dir("/x/plain").Dir("/x/plain/a").Build();
  const std::vector<std::string> roots = {
      "/x/plain/a", "/x/plain",  "/x/feature-worktree/crates/cli", "/x/feature-worktree", "/x",
      "/x/other",   "/x/plain/a"};
  NoWorktreeAbove memo;
  for (const std::string& r : roots) {
    WorktreeMetadata want = FindWorktreeMetadata(*facts, r);
    WorktreeMetadata got = FindWorktreeMetadata(*facts, r, &memo);
    EXPECT_EQ(got.git_dir, want.git_dir) << r;
    EXPECT_EQ(got.dot_git, want.dot_git) << r;
    EXPECT_EQ(got.rejected, want.rejected) << r;
  }
  // Ancestors are remembered; a directory only asked about is not (no root
  // lies inside it, and ten thousand sibling roots would fill the memo).
  EXPECT_TRUE(memo.contains("/x/plain"));
  EXPECT_FALSE(memo.contains("/x/plain/a"));
  EXPECT_TRUE(memo.contains("/"));
  EXPECT_FALSE(memo.contains("/x/feature-worktree"));  // it has a .git file
}

// A root that does not resolve is walked up as spelled: by components while
// it is not plain ("/", ".", ".." or a trailing separator), then by cutting
// the last component; the answer is the plain spelling's.
TEST(Worktree, UnresolvedSpellingsWalkUpByComponents) {
  auto facts = Worktree("/x/feature-worktree/.git").Dir("/x/plain").Dir("/x/plain/a").Build();
  for (const std::string& r : {std::string("/x/feature-worktree/crates/cli/"),
                               std::string("/x/feature-worktree/crates/../crates/cli/."),
                               std::string("/x/feature-worktree//crates/cli")}) {
    WorktreeMetadata m = FindWorktreeMetadata(*facts, r);
    EXPECT_EQ(m.git_dir, "/x/main-repo/.git/worktrees/feature") << r << ": " << m.rejected;
  }
  NoWorktreeAbove memo;
  WorktreeMetadata none = FindWorktreeMetadata(*facts, "/x/plain/a/", &memo);
  EXPECT_TRUE(none.dot_git.empty());
  // The parent of "/x/plain/a/" is "/x/plain", not "/x/plain/a".
  EXPECT_FALSE(memo.contains("/x/plain/a"));
  EXPECT_TRUE(memo.contains("/x/plain"));
  EXPECT_TRUE(memo.contains("/"));
}

TEST(Worktree, PlanAddsMetadataRootsAsWritable) {
  FactsBuilder f = Worktree("/x/feature-worktree/.git");
  f.Cwd("/x/feature-worktree/crates/cli");
  auto r = cwsc::testing::CompileText("", f, "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> binds;
  for (const auto& mnt : r->plan.mounts()) {
    if (mnt.op == ir::MountOp::kWritableBind) binds.push_back(mnt.dest);
  }
  EXPECT_EQ(binds,
            (std::vector<std::string>{"/tmp", "/x/feature-worktree/crates/cli", "/x/main-repo/.git",
                                      "/x/main-repo/.git/worktrees/feature"}));
}

// A protected worktree's main .git inside two nested writable roots is
// listed under both (as the inner root's protected name and as the outer
// root's worktree metadata), and mounted read-only once, in path order.
TEST(Worktree, ProtectedMainGitInNestedRootsIsMountedOnce) {
  FactsBuilder f = Worktree("/x/feature-worktree/.git");
  f.Cwd("/x/feature-worktree");
  auto r = cwsc::testing::CompileText(
      "sandbox_writable_roots = [\"/x\", \"/x/main-repo\"]\n"
      "sandbox_protected_names = [\".git\"]\n",
      f, "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  int listed = 0;
  for (const ir::Root& root : r->plan.roots) {
    for (const ir::Protected& p : root.protected_paths) {
      listed += p.canonical == "/x/main-repo/.git" && p.applied;
    }
  }
  EXPECT_EQ(listed, 2);
  std::vector<std::string> read_only;
  for (const auto& mnt : r->plan.mounts()) {
    if (mnt.op == ir::MountOp::kReadOnlyBind && absl::StartsWith(mnt.dest, "/x/")) {
      read_only.push_back(mnt.dest);
    }
  }
  EXPECT_EQ(read_only, (std::vector<std::string>{"/x/feature-worktree/.git", "/x/main-repo/.git"}));
}

TEST(Worktree, ForeignBackPointerIsRejected) {
  auto facts = Worktree("/x/other/.git").Build();
  WorktreeMetadata m = FindWorktreeMetadata(*facts, "/x/feature-worktree");
  EXPECT_FALSE(m.verified());
  EXPECT_EQ(m.rejected, "the back-pointer names '/x/other/.git', not this worktree");
}

TEST(Worktree, MissingPiecesAreRejected) {
  FactsBuilder no_line = Worktree("/x/feature-worktree/.git");
  no_line.Content("/x/feature-worktree/.git", "nothing here\n");
  EXPECT_EQ(FindWorktreeMetadata(*no_line.Build(), "/x/feature-worktree").rejected,
            "the .git file has no 'gitdir:' line");
  FactsBuilder outside = Worktree("/x/feature-worktree/.git");
  outside.Content("/x/main-repo/.git/worktrees/feature/commondir", "/x\n").Dir("/x");
  EXPECT_EQ(FindWorktreeMetadata(*outside.Build(), "/x/feature-worktree").rejected,
            "the git dir is not under <common dir>/worktrees");
  FactsBuilder plain;
  plain.Dir("/r").Dir("/r/.git");
  WorktreeMetadata m = FindWorktreeMetadata(*plain.Build(), "/r");
  EXPECT_FALSE(m.verified());
  EXPECT_EQ(m.dot_git, "");  // a .git directory is skipped, not rejected
}

// Issue 26, class 5: worktree metadata the command could have written is
// not trusted. `WorktreeSkip` is the skipped entry for `dot_git`, if any.
std::string WorktreeSkip(const ir::LaunchPlan& plan, const std::string& dot_git) {
  for (const ir::Skipped& s : plan.skipped) {
    if (s.what == "worktree metadata" && s.path == dot_git) return s.reason;
  }
  return "";
}

bool HasMetadataRoot(const ir::LaunchPlan& plan) {
  for (const ir::Root& r : plan.roots) {
    if (r.source == ir::RootSource::kWorktreeGitDir ||
        r.source == ir::RootSource::kWorktreeCommonDir) {
      return true;
    }
  }
  return false;
}

// A workspace that forges its own `.git`, an admin dir inside itself and a
// common dir above it: a workspace below a directory named `worktrees`
// makes its grandparent writable. /x holds HEAD, objects/ and refs/ here,
// so only the writable-root rule stands in the way.
FactsBuilder WorktreesAbove() {
  FactsBuilder f;
  f.Dir("/x").Dir("/x/worktrees").Dir("/x/worktrees/proj").Dir("/x/worktrees/proj/../..", "/x");
  f.File("/x/worktrees/proj/.git")
      .Content("/x/worktrees/proj/.git", "gitdir: .\n")
      .Dir("/x/worktrees/proj/.", "/x/worktrees/proj")
      .File("/x/worktrees/proj/commondir")
      .Content("/x/worktrees/proj/commondir", "../..\n")
      .File("/x/worktrees/proj/gitdir")
      .Content("/x/worktrees/proj/gitdir", "/x/worktrees/proj/.git\n");
  CommonDir(f, "/x");
  f.Cwd("/x/worktrees/proj");
  return f;
}

TEST(Worktree, WorktreesDirectoryAboveTheWorkspaceIsNotTrusted) {
  FactsBuilder f = WorktreesAbove();
  auto r = cwsc::testing::CompileText("", f, "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(HasMetadataRoot(r->plan));
  EXPECT_EQ(WorktreeSkip(r->plan, "/x/worktrees/proj/.git"),
            "the git dir /x/worktrees/proj lies inside the writable root /x/worktrees/proj; the "
            "sandboxed command could have forged its metadata");
  // Without HEAD, objects/ and refs/ the grandparent is no git directory.
  FactsBuilder bare = WorktreesAbove();
  bare.Missing("/x/HEAD");
  WorktreeMetadata m = FindWorktreeMetadata(*bare.Build(), "/x/worktrees/proj");
  EXPECT_FALSE(m.verified());
  EXPECT_EQ(m.rejected, "the common dir /x is not a git directory (no HEAD, objects/ or refs/)");
}

// A forged gitdir inside the workspace: the `.git` file, the admin dir and
// the common dir are all the command's own work.
TEST(Worktree, ForgedGitDirInsideTheWorkspaceIsNotTrusted) {
  FactsBuilder f;
  f.Dir("/w").Dir("/w/.meta").Dir("/w/.meta/worktrees").Dir("/w/.meta/worktrees/x");
  f.File("/w/.git")
      .Content("/w/.git", "gitdir: /w/.meta/worktrees/x\n")
      .File("/w/.meta/worktrees/x/commondir")
      .Content("/w/.meta/worktrees/x/commondir", "../..\n")
      .Dir("/w/.meta/worktrees/x/../..", "/w/.meta")
      .File("/w/.meta/worktrees/x/gitdir")
      .Content("/w/.meta/worktrees/x/gitdir", "/w/.git\n");
  CommonDir(f, "/w/.meta");
  f.Cwd("/w");
  auto r = cwsc::testing::CompileText("", f, "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(HasMetadataRoot(r->plan));
  EXPECT_EQ(WorktreeSkip(r->plan, "/w/.git"),
            "the git dir /w/.meta/worktrees/x lies inside the writable root /w; the sandboxed "
            "command could have forged its metadata");
}

// The admin dir is exactly <common>/worktrees/<name>, and its commondir
// names that common dir: deeper, or a commondir pointing elsewhere, is not.
TEST(Worktree, CommondirPointingElsewhereIsRejected) {
  FactsBuilder deeper = Worktree("/x/feature-worktree/.git");
  deeper.Dir("/x/main-repo/.git/worktrees/feature/sub")
      .Content("/x/feature-worktree/.git", "gitdir: /x/main-repo/.git/worktrees/feature/sub\n")
      .File("/x/main-repo/.git/worktrees/feature/sub/commondir")
      .Content("/x/main-repo/.git/worktrees/feature/sub/commondir", "../../..\n")
      .Dir("/x/main-repo/.git/worktrees/feature/sub/../../..", "/x/main-repo/.git")
      .File("/x/main-repo/.git/worktrees/feature/sub/gitdir")
      .Content("/x/main-repo/.git/worktrees/feature/sub/gitdir", "/x/feature-worktree/.git\n");
  EXPECT_EQ(
      FindWorktreeMetadata(*deeper.Build(), "/x/feature-worktree").rejected,
      "the git dir /x/main-repo/.git/worktrees/feature/sub is not <common dir>/worktrees/<name>");
  // A second real repository the commondir points at instead.
  FactsBuilder elsewhere = Worktree("/x/feature-worktree/.git");
  elsewhere.Dir("/x/other-repo").Dir("/x/other-repo/.git").Dir("/x/other-repo/.git/worktrees");
  CommonDir(elsewhere, "/x/other-repo/.git");
  elsewhere.Content("/x/main-repo/.git/worktrees/feature/commondir", "/x/other-repo/.git\n");
  EXPECT_EQ(FindWorktreeMetadata(*elsewhere.Build(), "/x/feature-worktree").rejected,
            "the git dir is not under <common dir>/worktrees");
}

// A legit `git worktree add` layout outside the plan's writable roots is
// still accepted (PlanAddsMetadataRootsAsWritable shows its binds); one
// inside a writable root gives no extra root (it is writable already).
TEST(Worktree, LegitLayoutInsideAWritableRootAddsNothing) {
  FactsBuilder f = Worktree("/x/feature-worktree/.git");
  f.Cwd("/x/feature-worktree");
  auto r = cwsc::testing::CompileText("sandbox_writable_roots = [\"/x\"]\n", f, "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(HasMetadataRoot(r->plan));
  EXPECT_EQ(WorktreeSkip(r->plan, "/x/feature-worktree/.git"),
            "the git dir /x/main-repo/.git/worktrees/feature lies inside the writable root /x; "
            "the sandboxed command could have forged its metadata");
}

}  // namespace
}  // namespace cwsc::compiler
