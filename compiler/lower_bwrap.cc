// The bwrap lowering: the mount list in argv order (docs/behavior.md B-41 -
// B-43), made by the resolver (compiler/resolver.h) once the roots, the deny
// list and the wrapper are known: the base view, the kernel masks, device
// roots, writable binds, protected descendants, the read-only view of a
// working directory under /tmp, extra read-only roots, then the deny masks
// and the pins that hold them.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/launcher.h"
#include "compiler/resolver.h"
#include "compiler/spec_paths.h"
#include "compiler/worktree.h"
#include "ir/constants.h"
#include "ir/status_macros.h"

namespace cwsc::compiler::resolve_internal {
namespace {

using Role = ir::MountRole;

constexpr size_t kMountWarnThreshold = 50;
constexpr char kDenyPinWhy[] = "pins the way to a denied path (a mount point cannot be renamed)";

}  // namespace

// LauncherCanReach: for a launcher plan, a bind whose source the launcher's
// user cannot reach is dropped, and the plan says so.
bool Resolver::LauncherCanReach(const std::string& source, SkipKind kind, const std::string& what,
                                const Origin& origin) {
  if (!launcher_user_) return true;
  std::string why = UnreachableReason(facts_, source, *launcher_user_);
  if (why.empty()) return true;
  AddSkipped(kind, what, source, why, origin);
  return false;
}

// BuildMounts lists the bwrap mounts in argv order: the base view, device
// roots, writable binds, protected descendants, the read-only view of a
// working directory under /tmp, extra read-only roots, then deny masks.
absl::Status Resolver::BuildMounts() {
  // Room for every mount a large policy makes: a bind and two per
  // protected name per root, one per denied path, a few dozen others.
  size_t protected_count = 0;
  for (const ir::Root& r : plan_.roots) protected_count += r.protected_paths.size();
  Mounts().reserve(32 + plan_.roots.size() + 2 * protected_count + plan_.denied_read.size());
  Origin base = Origin::Default("bwrap base view");
  AddMount(Role::kBase, MountOp::kReadOnlyBind, "/", "/", "read-only root view", base);
  AddMount(Role::kBase, MountOp::kDev, "", "/dev", "private /dev", base);
  AddMount(Role::kBase, MountOp::kProc, "", "/proc", "private /proc", base);
  AddKernelMasks();
  AddMount(Role::kBase, MountOp::kTmpfs, "", "/tmp", "private /tmp", base);
  CWSC_RETURN_IF_ERROR(AddDeviceRoots());
  AddWritableBinds();
  AddProtectedMounts();
  if (plan_.policy.type == PolicyType::kReadOnly) AddReadOnlyTmpCwd();
  CWSC_RETURN_IF_ERROR(AddReadOnlyRoots());
  // Deny masks (docs/behavior.md B-43); for a launcher plan computed for the launcher's user.
  std::vector<ir::Mount> masks =
      DenyMasks(facts_, plan_.denied_read, launcher_user_ ? &*launcher_user_ : nullptr);
  AddDenyPins(masks);
  for (ir::Mount& m : masks) Mounts().push_back(std::move(m));
  if (Mounts().size() > kMountWarnThreshold) {
    plan_.warnings.push_back(ir::Warning{
        "many-mounts",
        absl::StrCat(Mounts().size(), " mount operations; every launch pays for each one"),
        Origin::Default("mount count")});
  }
  return absl::OkStatus();
}

// AddDenyPins: a mask below a writable root is bound at a fixed path, so a
// command that renamed an unmasked ancestor (`mv ~/.config ~/c`) would
// find the secret under the new name, and the next run nothing to mask.
// Each directory between the root and the mask is bound onto itself, with
// the access it already has: a mount point cannot be renamed or removed
// (EBUSY) inside the sandbox (docs/decisions.md, "Deny targets that
// cannot be moved"). Directories inside a read-only mount need no pin.
void Resolver::AddDenyPins(const std::vector<ir::Mount>& masks) {
  absl::flat_hash_set<std::string> fixed;  // mount points already there, and pins made
  for (const ir::Mount& m : Mounts()) {
    if (m.dest != "/") fixed.insert(std::string(m.dest.str()));
  }
  for (const ir::Mount& mask : masks) {
    const ir::Root* root = WritableRootAbove(mask.dest.str());
    if (root == nullptr) continue;
    const std::string& dest = mask.dest.str();
    for (size_t at = root->canonical.size() + 1; at < dest.size(); ++at) {
      at = dest.find('/', at);
      if (at == std::string::npos) break;
      std::string dir = dest.substr(0, at);
      if (InsideReadOnlyMount(dir, root->canonical.str())) break;
      const PathInfo& info = facts_.Path(dir);
      if (info.type != FileType::kDirectory || info.is_symlink) break;
      if (!fixed.insert(dir).second) continue;
      AddMount(Role::kDenyPin, MountOp::kWritableBind, dir, dir, kDenyPinWhy, mask.origin);
    }
  }
}

// WritableRootAbove: the deepest root bound writable strictly above `path`.
const ir::Root* Resolver::WritableRootAbove(absl::string_view path) const {
  const ir::Root* best = nullptr;
  for (size_t i = 0; i < sorted_writable_.size(); ++i) {
    const ir::Root* r = sorted_writable_[i];
    if (!writable_mounted_[i] || absl::string_view(r->canonical) == path ||
        !PathStartsWith(path, r->canonical.str())) {
      continue;
    }
    if (best == nullptr || r->canonical.size() > best->canonical.size()) best = r;
  }
  return best;
}

// InsideReadOnlyMount: `dir` (below `root`) is or lies below a mount the
// plan made read-only or private since the root's bind.
bool Resolver::InsideReadOnlyMount(absl::string_view dir, absl::string_view root) const {
  for (const ir::Mount& m : Mounts()) {
    absl::string_view d = m.dest;
    if (m.op == MountOp::kWritableBind || d == root) continue;
    if (d != "/" && PathStartsWith(dir, d) && PathStartsWith(d, root)) {
      return true;
    }
  }
  return false;
}

// AddDeviceRoots: bwrap_dev_roots that are devices, bound as themselves.
absl::Status Resolver::AddDeviceRoots() {
  if (!in_.spec.bwrap_dev_roots) return absl::OkStatus();
  for (const auto& d : in_.spec.bwrap_dev_roots->value) {
    CWSC_ASSIGN_OR_RETURN(std::string p, ExpandSettingPath(d, vars_, /*lexical=*/false));
    const PathInfo& info = facts_.Path(p);
    if ((info.type == FileType::kCharDevice || info.type == FileType::kBlockDevice) &&
        LauncherCanReach(info.canonical, SkipKind::kSetting, "bwrap_dev_roots", d.origin)) {
      AddMount(Role::kDevice, MountOp::kDeviceBind, info.canonical, info.canonical, "device root",
               d.origin);
    } else {
      AddSkipped(SkipKind::kSetting, "bwrap_dev_roots", p,
                 info.type == FileType::kMissing ? "missing" : "not a character or block device",
                 d.origin);
    }
  }
  return absl::OkStatus();
}

// AddWritableBinds: the roots bound writable, canonical, sorted by
// component, deduplicated; fills sorted_writable_ and writable_mounted_.
void Resolver::AddWritableBinds() {
  // PathLess order by sort keys, all written into one buffer.
  struct Keyed {
    size_t at, size;
    ir::Root* root;
  };
  size_t room = 0, count = 0;
  for (const ir::Root& r : plan_.roots) {
    if (r.writable_bind) room += r.canonical.size() + 1, ++count;
  }
  std::string keys;
  keys.reserve(room);
  std::vector<Keyed> by_key;
  by_key.reserve(count);
  for (ir::Root& r : plan_.roots) {
    if (!r.writable_bind) continue;
    size_t at = keys.size();
    AppendPathSortKey(r.canonical, &keys);
    by_key.push_back(Keyed{at, keys.size() - at, &r});
  }
  const char* base = keys.data();
  std::stable_sort(by_key.begin(), by_key.end(), [base](const Keyed& a, const Keyed& b) {
    return absl::string_view(base + a.at, a.size) < absl::string_view(base + b.at, b.size);
  });
  sorted_writable_.clear();
  sorted_writable_.reserve(by_key.size());
  // Whether each root got its bind: writable roots have distinct canonical
  // paths (DecideBind), so this is "its canonical path is bound".
  writable_mounted_.assign(by_key.size(), false);
  for (size_t i = 0; i < by_key.size(); ++i) {
    ir::Root* r = by_key[i].root;
    sorted_writable_.push_back(r);
    if (!LauncherCanReach(r->canonical, SkipKind::kWritableRoot, "writable root", r->origin))
      continue;
    AddMount(Role::kRootBind, MountOp::kWritableBind, r->canonical, r->canonical,
             WritableRootWhy(r->source),
             r->origin);  // one copy of the path, shared
    writable_mounted_[i] = true;
  }
}

// WritableRootWhy: the reason of a root's writable bind, made once per source.
const ir::SharedString& Resolver::WritableRootWhy(ir::RootSource source) {
  ir::SharedString& why = writable_root_whys_[static_cast<size_t>(source)];
  if (why.empty()) why = absl::StrCat("writable root (", ir::RootSourceName(source), ")");
  return why;
}

// AddProtectedMounts: protected descendants, canonical, sorted,
// deduplicated. A missing name gets an empty read-only directory (tmpfs,
// then remount-read-only).
void Resolver::AddProtectedMounts() {
  struct Prot {
    absl::string_view path;        // into plan_.roots, or into `made`
    const ir::SharedString* text;  // a placeholder's shared path (`path` is its text)
    const Origin* origin;          // of an element of plan_.roots
    bool placeholder;
  };
  size_t protected_count = 0;
  for (const ir::Root* r : sorted_writable_) protected_count += r->protected_paths.size();
  std::vector<Prot> prot;
  prot.reserve(protected_count);
  std::deque<ir::SharedString> made;  // placeholder paths spelled from a root's canonical form
  // Root by root in bind order (AddWritableBinds), which is often already
  // the order of the mounts: then no sort is needed (checked below).
  for (size_t w = 0; w < sorted_writable_.size(); ++w) {
    ir::Root& r = *sorted_writable_[w];
    const bool mounted = writable_mounted_[w];
    for (ir::Protected& p : r.protected_paths) {
      if (!p.skip_reason.empty()) continue;
      if (p.placeholder && !mounted) {
        p.skip_reason = "its root is not mounted";  // bwrap could not create it
        continue;
      }
      p.applied = true;
      absl::string_view path = p.canonical;
      const ir::SharedString* text = nullptr;
      if (p.placeholder) {
        // JoinPath(r.canonical, name): often p.path itself (the root was
        // listed canonical), made only when it is not.
        absl::string_view name = Basename(p.path);
        absl::string_view spelled = p.path;
        absl::string_view canonical = r.canonical;
        bool same = spelled.size() == canonical.size() + 1 + name.size() &&
                    absl::StartsWith(spelled, canonical) && spelled[canonical.size()] == '/';
        text = same ? &p.path : &made.emplace_back(JoinPath(canonical, name));
        path = *text;
      }
      prot.push_back(Prot{path, text, &p.origin, p.placeholder});
    }
  }
  // Duplicate roots share their protected paths; mark those applied too.
  for (ir::Root& r : plan_.roots) {
    for (ir::Protected& p : r.protected_paths) {
      if (r.skip == RootSkip::kDuplicate && p.skip_reason.empty()) p.applied = true;
    }
  }
  // PathLess order. When the bind order did not give it (or a path came
  // twice), sorted through indices and sort keys: a key compares with one
  // memcmp, and equal paths (a worktree's .git inside two roots) end up
  // side by side, the first listed first.
  std::vector<uint32_t> order(prot.size());
  for (uint32_t i = 0; i < prot.size(); ++i) order[i] = i;
  bool in_order = true;
  for (size_t i = 1; i < prot.size() && in_order; ++i) {
    in_order = PathLess(prot[i - 1].path, prot[i].path);
  }
  if (!in_order) {
    std::string keys;
    size_t room = 0;
    for (const Prot& p : prot) room += p.path.size() + 1;
    keys.reserve(room);
    std::vector<std::pair<size_t, size_t>> at(prot.size());  // a key's place in `keys`
    for (uint32_t i = 0; i < prot.size(); ++i) {
      at[i].first = keys.size();
      AppendPathSortKey(prot[i].path, &keys);
      at[i].second = keys.size() - at[i].first;
    }
    const char* base = keys.data();
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      absl::string_view x(base + at[a].first, at[a].second), y(base + at[b].first, at[b].second);
      return x < y || (x == y && a < b);
    });
  }
  // One copy of each reason, shared by every mount it explains.
  const ir::SharedString placeholder_why =
      "protected name does not exist: an empty placeholder takes it";
  const ir::SharedString read_only_why = "the placeholder is read-only";
  const ir::SharedString protected_why = "protected descendant stays read-only";
  const Prot* last = nullptr;
  for (uint32_t i : order) {
    const Prot& p = prot[i];
    if (last != nullptr && last->path == p.path) continue;  // once per path
    last = &p;
    if (p.placeholder) {  // both mounts share the placeholder's path
      AddMount(Role::kPlaceholder, MountOp::kTmpfs, {}, *p.text, placeholder_why, *p.origin);
      AddMount(Role::kPlaceholder, MountOp::kRemountReadOnly, {}, *p.text, read_only_why,
               *p.origin);
      continue;
    }
    std::string path(p.path);
    if (!LauncherCanReach(path, SkipKind::kWritableRoot, "protected descendant", *p.origin))
      continue;
    ir::SharedString shared(std::move(path));
    AddMount(Role::kProtected, MountOp::kReadOnlyBind, shared, shared, protected_why, *p.origin);
  }
}

// AddReadOnlyTmpCwd: read-only mode with a working directory under /tmp:
// the tmpfs would hide it (bwrap: "Can't chdir"); show it read-only
// instead, with a linked worktree's metadata under /tmp, or git cannot
// even read its repository (git status) in the read-only view.
void Resolver::AddReadOnlyTmpCwd() {
  std::string canon = facts_.Path(in_.cwd).canonical;
  if (!canon.empty() && PathStartsWith(canon, "/tmp")) {
    AddMount(Role::kTmpView, MountOp::kReadOnlyBind, canon, canon,
             "working directory under /tmp stays visible (read-only) over the private /tmp",
             Origin::Fact(absl::StrCat("working directory ", in_.cwd, " is under /tmp")));
  }
  WorktreeMetadata wt = FindWorktreeMetadata(facts_, canon.empty() ? in_.cwd : canon);
  if (!wt.verified()) return;
  std::vector<std::string> shown;
  for (const std::string& p : {wt.common_dir, wt.git_dir}) {
    bool covered = !canon.empty() && PathStartsWith(p, canon) && PathStartsWith(canon, "/tmp");
    for (const std::string& q : shown) covered = covered || PathStartsWith(p, q);
    if (!PathStartsWith(p, "/tmp") || covered) continue;
    AddMount(Role::kTmpView, MountOp::kReadOnlyBind, p, p,
             "git worktree metadata under /tmp stays visible (read-only) over the private /tmp",
             Origin::Fact(absl::StrCat("git worktree ", wt.dot_git)));
    shown.push_back(p);
  }
}

// AddReadOnlyRoots: bwrap_ro_roots, canonicalized, not lexically
// normalized (docs/behavior.md B-41).
absl::Status Resolver::AddReadOnlyRoots() {
  if (!in_.spec.bwrap_ro_roots) return absl::OkStatus();
  for (const auto& r : in_.spec.bwrap_ro_roots->value) {
    CWSC_ASSIGN_OR_RETURN(std::string p, ExpandSettingPath(r, vars_, /*lexical=*/false));
    const PathInfo& info = facts_.Path(p);
    std::string planted = PlantedSymlink(p);
    if (!planted.empty() && info.type == FileType::kDirectory) {
      AddSkipped(SkipKind::kSetting, "bwrap_ro_roots", p, PlantedReason(planted), r.origin);
    } else if (info.type != FileType::kDirectory) {
      AddSkipped(SkipKind::kSetting, "bwrap_ro_roots", p,
                 info.type == FileType::kMissing ? "missing" : "not a directory", r.origin);
    } else if (info.canonical == "/") {
      AddSkipped(SkipKind::kSetting, "bwrap_ro_roots", p, "canonicalizes to /", r.origin);
    } else if (LauncherCanReach(info.canonical, SkipKind::kSetting, "bwrap_ro_roots", r.origin)) {
      AddMount(Role::kReadOnlyRoot, MountOp::kReadOnlyBind, info.canonical, info.canonical,
               "extra read-only root", r.origin);
    }
  }
  return absl::OkStatus();
}

// AddKernelMasks hides the kernel interfaces a container runtime hides
// (the OCI default masked and read-only /proc and /sys paths) that exist
// on this host: bwrap cannot mount over a path its /proc lacks. Only for
// a command that runs as uid 0: for any other uid the kernel's own checks
// refuse these writes (sysctls, sysrq: owner root) and reads (kcore,
// timer_list, sched_debug: 0400 root), and each mount costs every launch
// about 0.1 ms (docs/decisions.md).
void Resolver::AddKernelMasks() {
  uint32_t uid = launcher_user_ ? launcher_user_->uid : facts_.Uid();
  if (uid != 0) return;
  Origin o = Origin::Default("kernel interfaces stay out of reach (OCI default masks)");
  for (const char* p : ir::kKernelReadOnly) {
    if (facts_.Path(p).type == FileType::kMissing) continue;
    AddMount(Role::kKernelReadOnly, MountOp::kReadOnlyBind, p, p,
             "kernel interface stays read-only", o);
  }
  for (const char* p : ir::kKernelMaskedFiles) {
    if (facts_.Path(p).type != FileType::kRegular) continue;
    AddMount(Role::kKernelMask, MountOp::kReadOnlyBind, "/dev/null", p, "kernel interface masked",
             o);
  }
  for (const char* p : ir::kKernelMaskedDirs) {
    if (facts_.Path(p).type != FileType::kDirectory) continue;
    AddMount(Role::kKernelMask, MountOp::kTmpfs, "", p, "kernel interface masked", o);
    AddMount(Role::kKernelMask, MountOp::kRemountReadOnly, "", p, "the mask is read-only", o);
  }
}

}  // namespace cwsc::compiler::resolve_internal
