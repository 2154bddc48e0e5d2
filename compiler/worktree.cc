#include "compiler/worktree.h"

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/paths.h"

namespace cwsc::compiler {
namespace {

std::string FirstLineTrimmed(const std::string& content) {
  std::string line = content.substr(0, content.find('\n'));
  return std::string(absl::StripAsciiWhitespace(line));
}

// Resolve makes `value` absolute against `base` and canonicalizes it.
std::string Resolve(HostFacts& facts, absl::string_view base, const std::string& value) {
  std::string p = absl::StartsWith(value, "/") ? value : JoinPath(base, value);
  return facts.Path(p).canonical;
}

}  // namespace

WorktreeMetadata FindWorktreeMetadata(HostFacts& facts, const std::string& root,
                                      NoWorktreeAbove* memo) {
  WorktreeMetadata out;
  const PathInfo& root_info = facts.Path(root);
  // `dir` views the start directory and, while it is spelled plainly, is
  // cut to its parent in place; `owned` holds a parent spelled anew.
  std::string owned;
  absl::string_view dir = root_info.canonical.empty() ? root : root_info.canonical;
  bool plain = IsPlainPath(dir);    // the parent of a plain path is plain
  std::vector<std::string> walked;  // for `memo`, when no .git file turns up
  bool walked_start = false;
  // JoinPath(dir, ".git"), spelled on the stack when it fits (the usual
  // case: no allocation per root), else in `long_dot_git`.
  char short_dot_git[256];
  std::string long_dot_git;
  auto dot_git_of = [&](absl::string_view d) -> absl::string_view {
    const bool slash = d.empty() || d.back() != '/';
    const size_t n = d.size() + (slash ? 1 : 0) + 4;
    char* w = short_dot_git;
    if (n > sizeof short_dot_git) {
      long_dot_git.resize(n);
      w = long_dot_git.data();
    }
    if (!d.empty()) std::memcpy(w, d.data(), d.size());
    if (slash) w[d.size()] = '/';
    std::memcpy(w + n - 4, ".git", 4);
    return absl::string_view(w, n);
  };
  while (true) {
    if (memo != nullptr && memo->contains(dir)) break;
    // The directory asked about is not remembered (ten thousand sibling
    // roots would fill the memo); its ancestors, which roots share, are.
    if (memo != nullptr && !walked_start) {
      walked_start = true;
    } else if (memo != nullptr) {
      walked.emplace_back(dir);
    }
    absl::string_view dot_git = dot_git_of(dir);
    const PathInfo& info = facts.Path(dot_git);
    if (info.type == FileType::kRegular) {
      out.dot_git = std::string(dot_git);
      if (info.is_symlink) {
        // A `.git` symlink to another worktree's `.git` file would carry a
        // valid back-pointer: never follow one (docs/decisions.md).
        out.rejected = "the .git file is a symlink; a sandboxed command could have planted it";
        return out;
      }
      break;
    }
    if (dir == "/") break;
    if (plain) {  // the usual case: the parent is a prefix
      size_t slash = dir.rfind('/');
      dir = dir.substr(0, slash == 0 ? 1 : slash);
    } else {
      owned = ParentPath(dir);
      dir = owned;
      plain = IsPlainPath(dir);
    }
  }
  if (out.dot_git.empty()) {
    if (memo != nullptr) {
      for (std::string& w : walked) memo->insert(std::move(w));
    }
    return out;
  }
  auto content = facts.ReadFile(out.dot_git);
  if (!content) {
    out.rejected = "the .git file cannot be read";
    return out;
  }
  std::string value;
  bool found = false;
  for (absl::string_view line : absl::StrSplit(*content, '\n')) {
    if (absl::StartsWith(line, "gitdir:")) {
      value = std::string(absl::StripAsciiWhitespace(line.substr(7)));
      found = true;
      break;
    }
  }
  if (!found || value.empty()) {
    out.rejected = "the .git file has no 'gitdir:' line";
    return out;
  }
  std::string git_dir = Resolve(facts, dir, value);
  if (git_dir.empty()) {
    out.rejected = absl::StrCat("gitdir '", value, "' does not resolve");
    return out;
  }
  std::string git_file = facts.Path(out.dot_git).canonical;
  auto commondir = facts.ReadFile(JoinPath(git_dir, "commondir"));
  std::string common_value = commondir ? FirstLineTrimmed(*commondir) : "";
  if (common_value.empty()) {
    out.rejected = "the git dir has no commondir file";
    return out;
  }
  std::string common_dir = Resolve(facts, git_dir, common_value);
  if (common_dir.empty()) {
    out.rejected = "commondir does not resolve";
    return out;
  }
  const std::string worktrees = JoinPath(common_dir, "worktrees");
  if (!PathStartsWith(git_dir, worktrees)) {
    out.rejected = "the git dir is not under <common dir>/worktrees";
    return out;
  }
  // Exactly <common>/worktrees/<name>, as `git worktree add` makes it: a
  // deeper admin dir would let a commondir name any ancestor with a
  // `worktrees` directory below it (issue 26).
  if (ParentPath(git_dir) != worktrees) {
    out.rejected = absl::StrCat("the git dir ", git_dir, " is not <common dir>/worktrees/<name>");
    return out;
  }
  // A real common git directory: HEAD, objects/ and refs/, as git itself
  // checks before it takes a directory for a repository.
  if (facts.Path(JoinPath(common_dir, "HEAD")).type != FileType::kRegular ||
      facts.Path(JoinPath(common_dir, "objects")).type != FileType::kDirectory ||
      facts.Path(JoinPath(common_dir, "refs")).type != FileType::kDirectory) {
    out.rejected = absl::StrCat("the common dir ", common_dir,
                                " is not a git directory (no HEAD, objects/ or refs/)");
    return out;
  }
  auto back = facts.ReadFile(JoinPath(git_dir, "gitdir"));
  std::string back_value = back ? FirstLineTrimmed(*back) : "";
  if (back_value.empty()) {
    out.rejected = "the git dir has no gitdir back-pointer";
    return out;
  }
  std::string back_path = Resolve(facts, git_dir, back_value);
  if (back_path.empty() || back_path != git_file) {
    out.rejected = absl::StrCat("the back-pointer names '", back_value, "', not this worktree");
    return out;
  }
  out.git_dir = git_dir;
  out.common_dir = common_dir;
  return out;
}

}  // namespace cwsc::compiler
