// Internal to the resolver (compiler/resolve.h): Resolver holds the state of
// one ResolvePlan call. Its steps live in the files named for them:
//   resolve.cc           the order of the steps (Run)
//   resolve_roots.cc     writable roots (docs/behavior.md B-20), worktree
//                        metadata (B-21), protected names
//   resolve_wrapper.cc   the remote backend, the local wrapper (B-30),
//                        Landlock, the refusals
//   lower_bwrap.cc       the bwrap lowering: the mount list (docs/behavior.md
//                        B-41 - B-43)
//   resolve_symlinks.cc  symlinks a sandboxed command could have planted
// Included only by those files.
#ifndef CWSC_COMPILER_RESOLVER_H_
#define CWSC_COMPILER_RESOLVER_H_

#include <array>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/facts/host_facts.h"
#include "compiler/launcher.h"
#include "compiler/paths.h"
#include "compiler/resolve_input.h"
#include "compiler/worktree.h"
#include "ir/plan.h"

namespace cwsc::compiler::resolve_internal {

using ir::LaunchPlan;
using ir::Mount;
using ir::MountOp;
using ir::Origin;
using ir::PlanKind;
using ir::PolicyType;
using ir::RootSkip;
using ir::SkipKind;

class Resolver {
 public:
  Resolver(const ResolveInput& in, HostFacts& facts) : in_(in), facts_(facts) {}

  absl::StatusOr<LaunchPlan> Run();

 private:
  // resolve.cc: whether `cwsc run` sets no-new-privs (the posture label says)
  bool NoNewPrivs();

  // resolve_wrapper.cc: the remote backend, the local wrapper, refusals
  bool RemoteRequested() const;
  absl::Status SelectRemote();
  void Refuse(std::string reason, Origin origin);
  void SelectWrapper();
  void SelectLandlock(const Origin& why, const std::string& bwrap_failure);
  void RefuseUnconfinedIfRequired();

  // resolve_roots.cc: writable roots, worktree metadata, protected names
  absl::Status AddConfiguredRoots();
  std::vector<std::string> ProtectedNames() const;
  bool UserProtects(const std::string& name) const;
  const Origin& ProtectedOrigin(const std::string& name);
  void ComputeRoots();
  std::vector<ir::Root> ListedRoots();
  void AddWorktreeRoots(std::vector<ir::Root>& roots);
  std::vector<std::string> WritableCandidates(const std::vector<ir::Root>& roots, size_t n);
  void ProtectWorktree(const WorktreeMetadata& wt);
  void AddTmpRoots(std::vector<ir::Root>& roots);
  void DecideBind(ir::Root& r, const PathInfo& info, absl::flat_hash_set<absl::string_view>& bound);
  void AddProtected(ir::Root& r, const std::string& name);
  void AddPlaceholder(ir::Root& r, const std::string& name, std::string p);
  void AddProtectedGit(ir::Root& r);
  bool IsHostTmp(const std::string& canonical);
  Origin ExcludeOrigin(bool slash_tmp) const;

  // lower_bwrap.cc: the bwrap mount list
  bool LauncherCanReach(const std::string& source, SkipKind kind, const std::string& what,
                        const Origin& origin);
  absl::Status BuildMounts();
  void AddDenyPins(const std::vector<ir::Mount>& masks);
  const ir::Root* WritableRootAbove(absl::string_view path) const;
  bool InsideReadOnlyMount(absl::string_view dir, absl::string_view root) const;
  absl::Status AddDeviceRoots();
  void AddWritableBinds();
  const ir::SharedString& WritableRootWhy(ir::RootSource source);
  void AddProtectedMounts();
  void AddReadOnlyTmpCwd();
  absl::Status AddReadOnlyRoots();
  void AddKernelMasks();

  // resolve_symlinks.cc: symlinks a sandboxed command could have planted
  std::string PlantedSymlink(absl::string_view spelled, const PathInfo* known = nullptr);
  absl::string_view SpelledRoot(const ir::Root& r);
  std::string PlantedReason(const std::string& link);
  static bool WritableBy(const PathInfo& dir, const Identity& who);

  // Small helpers every step uses.
  bool Launcher() const { return in_.spec.tool_launcher.has_value(); }

  // RunIdentity is the user the command runs as: the launcher's user when
  // a launcher switches to one, else the engine's.
  Identity RunIdentity() {
    return launcher_user_ ? *launcher_user_ : EngineIdentity(facts_.User());
  }

  // Backend: sandbox_linux_backend after layering (auto when unset); docs/config.md.
  LinuxBackend Backend() const {
    return in_.spec.sandbox_linux_backend ? in_.spec.sandbox_linux_backend->value
                                          : LinuxBackend::kAuto;
  }

  Origin LinuxBackendOrigin() const {
    return in_.spec.sandbox_linux_backend ? in_.spec.sandbox_linux_backend->origin
                                          : Origin::Default("sandbox_linux_backend auto");
  }

  // AddMount: the paths, the reason and the origin are shared strings, so
  // a mount made from a root's or a placeholder's path copies no text.
  // Braces, not emplace_back's parentheses: clang 14 has no parenthesized
  // aggregate initialization.
  void AddMount(ir::MountRole role, MountOp op, ir::SharedString src, ir::SharedString dest,
                const ir::SharedString& why, const Origin& origin) {
    Mounts().push_back(Mount{op, std::move(src), std::move(dest), why, origin, role});
  }

  // Mounts: the bwrap launch's mounts, for BuildMounts and what it calls
  // (only a bwrap launch has them).
  std::vector<Mount>& Mounts() { return plan_.bwrap()->mounts; }
  const std::vector<Mount>& Mounts() const { return plan_.bwrap()->mounts; }

  void AddSkipped(ir::SkipKind kind, std::string what, std::string path, std::string reason,
                  Origin origin) {
    plan_.skipped.push_back(
        ir::Skipped{std::move(what), std::move(path), std::move(reason), std::move(origin), kind});
  }

  static void SkipRoot(ir::Root& r, RootSkip skip, std::string reason) {
    r.skip = skip;
    r.skip_reason = std::move(reason);
  }

  static ir::Root NewRoot(const std::string& path, ir::RootSource source, Origin origin) {
    ir::Root r;
    r.path = path;
    r.source = source;
    r.origin = std::move(origin);
    return r;
  }

  static absl::string_view Basename(absl::string_view path) {
    size_t slash = path.rfind('/');
    return slash == absl::string_view::npos ? path : path.substr(slash + 1);
  }

  const ResolveInput& in_;
  HostFacts& facts_;
  // Canonical writable candidates (ComputeRoots), viewed in the facts' answers.
  std::vector<absl::string_view> writable_;
  std::string spelled_tmpdir_;  // SpelledRoot's answer for a TMPDIR root
  LaunchPlan plan_;
  PathVars vars_;
  std::vector<Origin> configured_origins_;
  std::vector<std::string> protected_git_;  // main .git dirs of protected worktrees
  std::deque<std::pair<std::string, Origin>> protected_origins_;  // ProtectedOrigin's
  std::vector<ir::Root*> sorted_writable_;  // roots bound writable, in bind order
  std::vector<bool> writable_mounted_;      // by sorted_writable_: its bind was added
  static_assert(static_cast<size_t>(ir::RootSource::kTmpdir) == 5, "one reason per source");
  std::array<ir::SharedString, 6> writable_root_whys_;  // by ir::RootSource
  std::optional<Identity> launcher_user_;               // set when a launcher probe passed
};

}  // namespace cwsc::compiler::resolve_internal

#endif  // CWSC_COMPILER_RESOLVER_H_
