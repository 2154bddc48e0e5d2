// Git worktree metadata verification (docs/behavior.md B-21): for a writable root
// inside a linked worktree, find its git dir and common dir, and accept them
// only when the worktree's `.git` file, `commondir` and the `gitdir`
// back-pointer all agree. Everything is read through HostFacts.
#ifndef CWSC_COMPILER_WORKTREE_H_
#define CWSC_COMPILER_WORKTREE_H_

#include <string>

#include "compiler/facts/host_facts.h"

namespace cwsc::compiler {

struct WorktreeMetadata {
  std::string git_dir;     // canonical; empty when not verified
  std::string common_dir;  // canonical; empty when not verified
  std::string dot_git;     // the `.git` file found (empty when none)
  std::string rejected;    // why a found `.git` file was not accepted
  bool verified() const { return !git_dir.empty(); }
};

WorktreeMetadata FindWorktreeMetadata(HostFacts& facts, const std::string& root);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_WORKTREE_H_
