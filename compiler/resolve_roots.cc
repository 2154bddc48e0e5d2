// The writable roots of a workspace-write policy (docs/behavior.md B-20) in
// order, the verified metadata of git worktrees among them (B-21), /tmp and
// TMPDIR, and the protected names under each root, with the bind verdict
// on every root.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "compiler/launcher.h"
#include "compiler/resolver.h"
#include "compiler/spec_paths.h"
#include "compiler/worktree.h"
#include "ir/constants.h"
#include "ir/status_macros.h"

namespace cwsc::compiler::resolve_internal {

absl::Status Resolver::AddConfiguredRoots() {
  if (plan_.policy.type != PolicyType::kWorkspaceWrite) return absl::OkStatus();
  if (in_.spec.sandbox_writable_roots) {
    for (const auto& r : in_.spec.sandbox_writable_roots->value) {
      CWSC_ASSIGN_OR_RETURN(std::string p, ExpandSettingPath(r, vars_));
      plan_.policy.writable_roots.push_back(std::move(p));
      configured_origins_.push_back(r.origin);
    }
  }
  if (in_.spec.sandbox_exclude_tmpdir)
    plan_.policy.exclude_tmpdir = in_.spec.sandbox_exclude_tmpdir->value;
  if (in_.spec.sandbox_exclude_slash_tmp) {
    plan_.policy.exclude_slash_tmp = in_.spec.sandbox_exclude_slash_tmp->value;
  }
  return absl::OkStatus();
}

std::vector<std::string> Resolver::ProtectedNames() const {
  std::vector<std::string> names(std::begin(ir::kConfigDirNames), std::end(ir::kConfigDirNames));
  if (in_.spec.sandbox_protected_names) {
    for (const auto& n : in_.spec.sandbox_protected_names->value) {
      if (std::find(names.begin(), names.end(), n.value) == names.end()) names.push_back(n.value);
    }
  }
  return names;
}

// UserProtects: the policy's sandbox_protected_names lists `name`.
bool Resolver::UserProtects(const std::string& name) const {
  if (!in_.spec.sandbox_protected_names) return false;
  for (const auto& n : in_.spec.sandbox_protected_names->value) {
    if (n.value == name) return true;
  }
  return false;
}

// ProtectedOrigin: where the protection of `name` comes from; made once
// per name (a policy with thousands of roots asks for each root).
const Origin& Resolver::ProtectedOrigin(const std::string& name) {
  for (const auto& [n, o] : protected_origins_) {
    if (n == name) return o;
  }
  Origin o = Origin::Default(absl::StrCat("protected name ", name));
  if (in_.spec.sandbox_protected_names) {
    for (const auto& n : in_.spec.sandbox_protected_names->value) {
      if (n.value == name) {
        o = n.origin;
        break;
      }
    }
  }
  return protected_origins_.emplace_back(name, std::move(o)).second;
}

// ComputeRoots builds the docs/behavior.md B-20 list in order, with the bwrap verdict on each.
void Resolver::ComputeRoots() {
  if (plan_.policy.type != PolicyType::kWorkspaceWrite) return;
  std::vector<ir::Root> roots = ListedRoots();
  const std::vector<std::string> names = ProtectedNames();
  // Each root asks about itself, its .git and its protected names.
  facts_.ExpectPaths(roots.size() * (2 + names.size()));
  AddWorktreeRoots(roots);
  AddTmpRoots(roots);
  // The writable candidates: a symlink inside one of them may have been
  // planted by an earlier sandboxed command (docs/decisions.md).
  writable_.clear();
  writable_.reserve(roots.size());
  std::vector<const PathInfo*> infos;  // each root's answer, asked once
  infos.reserve(roots.size());
  for (const ir::Root& r : roots) {
    const PathInfo& info = facts_.Path(r.path);
    infos.push_back(&info);
    if (info.type == FileType::kDirectory && !info.canonical.empty() && info.canonical != "/") {
      writable_.push_back(info.canonical);
    }
  }
  // Canonical paths already bound writable, viewed in the facts' answers.
  absl::flat_hash_set<absl::string_view> bound;
  bound.reserve(roots.size());
  for (size_t i = 0; i < roots.size(); ++i) {
    ir::Root& r = roots[i];
    DecideBind(r, *infos[i], bound);
    r.protected_paths.reserve(names.size());
    for (const std::string& name : names) AddProtected(r, name);
    AddProtectedGit(r);
    if (!r.writable_bind && r.skip != RootSkip::kDuplicate) {
      AddSkipped(SkipKind::kWritableRoot, "writable root", r.path, r.skip_reason, r.origin);
    }
  }
  plan_.roots = std::move(roots);
}

// ListedRoots: the policy's writable roots (the mode's workspace, then the
// configured ones), then the working directory.
std::vector<ir::Root> Resolver::ListedRoots() {
  const ir::Policy& pol = plan_.policy;
  std::vector<ir::Root> roots;
  // Room for the listed roots, the working directory and the two /tmp
  // roots (a worktree's two metadata roots may grow it).
  roots.reserve(pol.writable_roots.size() + 3);
  size_t workspace_entries = pol.writable_roots.size() - configured_origins_.size();
  for (size_t i = 0; i < pol.writable_roots.size(); ++i) {
    ir::Root& r = roots.emplace_back();
    r.path = pol.writable_roots[i];
    r.source = ir::RootSource::kConfigured;
    r.origin = i < workspace_entries ? Origin::Mode(absl::StrCat("workspace of permission mode ",
                                                                 ir::PermissionModeName(in_.mode)))
                                     : configured_origins_[i - workspace_entries];
  }
  ir::Root cwd;
  std::string canon = facts_.Path(in_.cwd).canonical;
  cwd.path = canon.empty() ? in_.cwd : canon;
  cwd.source = ir::RootSource::kCwd;
  cwd.origin = Origin::Fact(absl::StrCat("working directory ", in_.cwd));
  roots.push_back(std::move(cwd));
  return roots;
}

// AddWorktreeRoots: a root that is a git worktree adds its metadata
// directories, unless '.git' is protected (then they stay read-only).
void Resolver::AddWorktreeRoots(std::vector<ir::Root>& roots) {
  size_t base = roots.size();
  NoWorktreeAbove memo;
  std::optional<std::vector<std::string>> candidates;  // made when first needed
  for (size_t i = 0; i < base; ++i) {
    WorktreeMetadata wt = FindWorktreeMetadata(facts_, roots[i].path, &memo);
    if (wt.verified() && UserProtects(".git")) {
      ProtectWorktree(wt);
    } else if (wt.verified()) {
      if (!candidates) candidates = WritableCandidates(roots, base);
      // Metadata inside a path this run may write could be the command's
      // own forgery (issue 26): it adds no root. A legit layout there is
      // writable already.
      std::string inside;
      for (const std::string& c : *candidates) {
        if (PathStartsWith(wt.git_dir, c)) inside = c;
      }
      if (!inside.empty()) {
        AddSkipped(SkipKind::kWorktreeMetadata, "worktree metadata", wt.dot_git,
                   absl::StrCat("the git dir ", wt.git_dir, " lies inside the writable root ",
                                inside, "; the sandboxed command could have forged its metadata"),
                   Origin::Fact(absl::StrCat("git worktree ", wt.dot_git)));
        continue;
      }
      Origin o = Origin::Fact(absl::StrCat("git worktree ", wt.dot_git));
      roots.push_back(NewRoot(wt.git_dir, ir::RootSource::kWorktreeGitDir, o));
      roots.push_back(NewRoot(wt.common_dir, ir::RootSource::kWorktreeCommonDir, o));
    } else if (!wt.dot_git.empty() && !wt.rejected.empty()) {
      AddSkipped(SkipKind::kWorktreeMetadata, "worktree metadata", wt.dot_git, wt.rejected,
                 Origin::Fact(absl::StrCat("git worktree ", wt.dot_git)));
    }
  }
}

// WritableCandidates: the canonical directories this run may bind
// writable: the first `n` roots (listed ones and the working directory),
// and /tmp and TMPDIR unless the policy excludes them.
std::vector<std::string> Resolver::WritableCandidates(const std::vector<ir::Root>& roots,
                                                      size_t n) {
  std::vector<std::string> out;
  auto add = [&](absl::string_view p) {
    const PathInfo& info = facts_.Path(p);
    if (info.type == FileType::kDirectory && !info.canonical.empty() && info.canonical != "/") {
      out.push_back(info.canonical);
    }
  };
  for (size_t i = 0; i < n; ++i) add(roots[i].path);
  if (!plan_.policy.exclude_slash_tmp) add("/tmp");
  auto tmpdir = facts_.Env("TMPDIR");
  if (!plan_.policy.exclude_tmpdir && tmpdir && !tmpdir->empty()) add(*tmpdir);
  return out;
}

// ProtectWorktree: '.git' is protected: the worktree's metadata (its gitdir
// and the main repository's .git, hooks and config included) stays read-only.
void Resolver::ProtectWorktree(const WorktreeMetadata& wt) {
  if (std::find(protected_git_.begin(), protected_git_.end(), wt.common_dir) !=
      protected_git_.end()) {
    return;  // the same worktree reached from another root
  }
  Origin o = ProtectedOrigin(".git");
  for (const std::string& p : {wt.git_dir, wt.common_dir}) {
    AddSkipped(SkipKind::kWorktreeMetadata, "worktree metadata", p,
               "kept read-only: '.git' is in sandbox_protected_names", o);
  }
  protected_git_.push_back(wt.common_dir);
  std::string worktree = wt.dot_git.substr(0, wt.dot_git.size() - 5);
  plan_.warnings.push_back(
      ir::Warning{"protected-git-worktree",
                  absl::StrCat("'.git' is protected: the git metadata of the worktree ", worktree,
                               " (", wt.common_dir,
                               " and its worktrees entry) stays read-only, so git cannot "
                               "commit there"),
                  o});
}

// AddTmpRoots: the host /tmp and TMPDIR, unless the policy excludes them.
void Resolver::AddTmpRoots(std::vector<ir::Root>& roots) {
  const ir::Policy& pol = plan_.policy;
  if (!pol.exclude_slash_tmp) {
    std::string canon = facts_.Path("/tmp").canonical;
    if (!canon.empty()) {
      roots.push_back(NewRoot(canon, ir::RootSource::kSlashTmp,
                              Origin::Default("workspace-write shares the host /tmp")));
    }
  } else {
    AddSkipped(SkipKind::kWritableRoot, "writable root", "/tmp",
               Launcher() ? kLauncherPrivateTmp : "excluded by the policy", ExcludeOrigin(true));
  }
  auto tmpdir = facts_.Env("TMPDIR");
  if (!tmpdir || tmpdir->empty()) return;
  if (pol.exclude_tmpdir) {
    AddSkipped(SkipKind::kWritableRoot, "writable root", *tmpdir,
               Launcher() ? kLauncherPrivateTmp : "TMPDIR excluded by the policy",
               ExcludeOrigin(false));
    return;
  }
  std::string canon = facts_.Path(*tmpdir).canonical;
  if (!canon.empty()) {
    roots.push_back(NewRoot(canon, ir::RootSource::kTmpdir, Origin::Env("TMPDIR")));
  } else {
    AddSkipped(SkipKind::kWritableRoot, "writable root", *tmpdir, "TMPDIR does not resolve",
               Origin::Env("TMPDIR"));
  }
}

// DecideBind: bind the root writable, or record why not.
// `info` is facts_.Path(r.path).
void Resolver::DecideBind(ir::Root& r, const PathInfo& info,
                          absl::flat_hash_set<absl::string_view>& bound) {
  // Listed canonical (the usual case): one copy of the text for the
  // policy's list, the root, its canonical form and its bind.
  r.canonical = info.canonical == r.path ? r.path : ir::SharedString(info.canonical);
  absl::string_view spelled = SpelledRoot(r);
  std::string planted = PlantedSymlink(spelled, spelled == r.path ? &info : nullptr);
  if (info.type == FileType::kMissing || info.canonical.empty()) {
    SkipRoot(r, RootSkip::kMissing, "missing");
  } else if (info.type != FileType::kDirectory) {
    SkipRoot(r, RootSkip::kNotADirectory, "not a directory");
  } else if (info.canonical == "/") {
    SkipRoot(r, RootSkip::kCanonicalizesToRoot, "canonicalizes to /");
  } else if (!planted.empty()) {
    SkipRoot(r, RootSkip::kPlantedSymlink, PlantedReason(planted));
  } else if (!Launcher()) {
    // One hash: inserted when new, else a duplicate.
    if (bound.insert(info.canonical).second) {
      r.writable_bind = true;
    } else {
      SkipRoot(r, RootSkip::kDuplicate, "duplicate");
    }
  } else if (bound.contains(info.canonical)) {
    SkipRoot(r, RootSkip::kDuplicate, "duplicate");
  } else if (IsHostTmp(info.canonical)) {
    SkipRoot(r, RootSkip::kLauncherPrivateTmp, kLauncherPrivateTmp);
  } else {
    r.writable_bind = true;
    bound.insert(info.canonical);
  }
}

// AddProtected records the protected name `name` under root `r`.
void Resolver::AddProtected(ir::Root& r, const std::string& name) {
  std::string p = JoinPath(r.path, name);
  const PathInfo& pi = facts_.Path(p);
  if (pi.is_symlink) {
    // A symlink at a protected name inside a writable root: following
    // it would protect whatever it names, not the name.
    ir::Protected prot{ir::SharedString(p), pi.canonical, false,
                       "is a symlink; the sandboxed command could have planted it",
                       ProtectedOrigin(name)};
    if (r.writable_bind) {
      plan_.warnings.push_back(
          ir::Warning{"protected-name-symlink",
                      absl::StrCat(p,
                                   " is a symlink: it is not protected, and what it names may be "
                                   "writable; replace it with a directory"),
                      ProtectedOrigin(name)});
    }
    r.protected_paths.push_back(std::move(prot));
    return;
  }
  if (pi.type == FileType::kMissing) {
    AddPlaceholder(r, name, std::move(p));
    return;
  }
  // .codewhale/.deepseek: directories (docs/behavior.md B-20); a name the
  // policy adds protects a regular file (.env) as well.
  bool file_ok = pi.type == FileType::kRegular && UserProtects(name);
  if (pi.type != FileType::kDirectory && !file_ok) return;
  ir::Protected prot{ir::SharedString(std::move(p)), pi.canonical, false, "",
                     ProtectedOrigin(name)};
  if (r.canonical.empty() || !PathStartsWith(pi.canonical, r.canonical)) {
    prot.skip_reason = "resolves outside its root";
  } else if (!r.writable_bind && r.skip != RootSkip::kDuplicate) {
    prot.skip_reason = "its root is not mounted";
  }
  r.protected_paths.push_back(std::move(prot));
}

// AddPlaceholder: a protected name that is not there yet: an empty
// read-only directory takes the name, so the command cannot create it
// (docs/decisions.md). Git metadata roots hold no project config: no
// placeholder there.
void Resolver::AddPlaceholder(ir::Root& r, const std::string& name, std::string p) {
  if (r.source == ir::RootSource::kWorktreeGitDir ||
      r.source == ir::RootSource::kWorktreeCommonDir) {
    return;
  }
  bool config_dir = std::find(std::begin(ir::kConfigDirNames), std::end(ir::kConfigDirNames),
                              name) != std::end(ir::kConfigDirNames);
  if (!config_dir && name != ".git") {
    // A name of the policy's own may be meant as a file (.env): a
    // directory there would be in the way; say it stays creatable.
    if (r.writable_bind) {
      plan_.warnings.push_back(
          ir::Warning{"protected-name-missing",
                      absl::StrCat(p,
                                   " does not exist, so nothing protects it: the sandboxed "
                                   "command could create it; create it first to protect it"),
                      ProtectedOrigin(name)});
    }
    return;
  }
  ir::Protected prot{ir::SharedString(std::move(p)), "", false, "", ProtectedOrigin(name), true};
  if (!r.writable_bind && r.skip != RootSkip::kDuplicate)
    prot.skip_reason = "its root is not mounted";
  r.protected_paths.push_back(std::move(prot));
}

// AddProtectedGit: a protected worktree's main .git inside this root stays
// read-only too.
void Resolver::AddProtectedGit(ir::Root& r) {
  for (const std::string& g : protected_git_) {
    if (!r.writable_bind || !PathStartsWith(g, r.canonical) || g == r.canonical) continue;
    bool listed = false;
    for (const ir::Protected& q : r.protected_paths) listed = listed || q.canonical == g;
    if (!listed)
      r.protected_paths.push_back(ir::Protected{g, g, false, "", ProtectedOrigin(".git")});
  }
}

// IsHostTmp: the canonical host /tmp or TMPDIR (never bound under a launcher).
bool Resolver::IsHostTmp(const std::string& canonical) {
  if (canonical == facts_.Path("/tmp").canonical) return true;
  auto tmpdir = facts_.Env("TMPDIR");
  return tmpdir && !tmpdir->empty() && canonical == facts_.Path(*tmpdir).canonical;
}

Origin Resolver::ExcludeOrigin(bool slash_tmp) const {
  if (Launcher()) return in_.spec.tool_launcher->origin;
  const auto& setting =
      slash_tmp ? in_.spec.sandbox_exclude_slash_tmp : in_.spec.sandbox_exclude_tmpdir;
  if (setting) return setting->origin;
  return Origin::Default(slash_tmp ? "exclude_slash_tmp" : "exclude_tmpdir");
}

}  // namespace cwsc::compiler::resolve_internal
