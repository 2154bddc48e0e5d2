// Git worktree metadata verification (docs/behavior.md B-21): for a writable root
// inside a linked worktree, find its git dir and common dir, and accept them
// only when the worktree's `.git` file, `commondir` and the `gitdir`
// back-pointer all agree. Everything is read through HostFacts.
#ifndef CWSC_COMPILER_WORKTREE_H_
#define CWSC_COMPILER_WORKTREE_H_

#include <string>

#include "absl/container/flat_hash_set.h"
#include "compiler/facts/host_facts.h"

namespace cwsc::compiler {

struct WorktreeMetadata {
  std::string git_dir;     // canonical; empty when not verified
  std::string common_dir;  // canonical; empty when not verified
  std::string dot_git;     // the `.git` file found (empty when none)
  std::string rejected;    // why a found `.git` file was not accepted
  bool verified() const { return !git_dir.empty(); }
};

// NoWorktreeAbove holds directories known to have no `.git` file in them or
// in any ancestor: a policy of many roots under one directory asks about
// the shared ancestors once, not once per root.
using NoWorktreeAbove = absl::flat_hash_set<std::string>;

// FindWorktreeMetadata: `memo` (optional) is read and filled by the search.
WorktreeMetadata FindWorktreeMetadata(HostFacts& facts, const std::string& root,
                                      NoWorktreeAbove* memo = nullptr);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_WORKTREE_H_
