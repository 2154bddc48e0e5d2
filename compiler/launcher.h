// Launcher plans: running every sandboxed command as another Linux user
// (docs/behavior.md B-4, B-46; docs/launcher.md). A trusted managed config sets
// `tool_launcher = ["/usr/bin/sudo", "-n", "-u", "agent", "--"]`; the plan
// becomes `<launcher...> /usr/bin/bwrap ... -- <program> <args>` or a refusal.
//
//   LauncherTrust t = CheckLauncherTrust(facts, managed, merged.managed_config_path);
//   // ... ResolveInput.launcher_trusted = t.trusted; launcher_trust_refusal = t.refusal
//   // resolve_wrapper.cc then calls LowerLauncher() instead of selecting a local wrapper.
//
// Everything here asks the host through HostFacts, so launcher plans compile
// from recorded facts (the `launcher_probe` record) as well as live.
#ifndef CWSC_COMPILER_LAUNCHER_H_
#define CWSC_COMPILER_LAUNCHER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/facts/host_facts.h"
#include "compiler/layers.h"
#include "compiler/policy_spec.h"
#include "ir/plan.h"

namespace cwsc::compiler {

// Identity is a uid and every group it has (primary included), for the
// mode-bit checks below. No ACL is read: group write bits count for every
// user, as a POSIX ACL's mask over entries that may name them (docs/launcher.md).
struct Identity {
  uint32_t uid = 0;
  std::vector<uint32_t> gids;
  bool InGroup(uint32_t gid) const;
};

// UserText names an identity in messages: "uid 1000, groups 1000 27".
std::string UserText(const Identity& who);

// EngineIdentity is the engine's own user (uid, primary and supplementary groups).
Identity EngineIdentity(const UserInfo& user);

// LauncherTrust is the verdict of the managed-file trust rules (docs/behavior.md B-4).
struct LauncherTrust {
  bool trusted = false;
  std::string refusal;                // names the file and the rule it broke
  std::vector<ir::Warning> warnings;  // e.g. the managed file is not root-owned
};

// CheckLauncherTrust applies the rules to the managed layer that set
// tool_launcher: Linux only; the file named by CODEWHALE_MANAGED_CONFIG_PATH
// or the default managed path (not one a user config points at); no
// symlink on the way; neither the file nor any directory above it can be
// changed by the engine's user; the file sets sandbox_mode itself, to
// workspace-write or read-only. `pointer` is the merged user+env
// managed_config_path setting (named in the refusal when it is the cause).
LauncherTrust CheckLauncherTrust(HostFacts& facts, const ManagedLayer& managed,
                                 const std::optional<Setting<std::string>>& pointer);

// WhyChangeable says why `who` (called `label` in the text, e.g. "the
// engine's user") can change `path` (the entry itself or a directory above
// it), or "" when it cannot: root, owner, or a write bit of the class that
// applies (a sticky directory protects entries `who` does not own).
std::string WhyChangeable(HostFacts& facts, const std::string& path, const Identity& who,
                          const std::string& label);

// CanSearch applies the mode-bit class that applies to `who` (x bit).
bool CanSearch(const PathInfo& dir, const Identity& who);

// FirstUnsearchable is the highest proper ancestor directory of `path` that
// `who` cannot search, or nullopt when every existing ancestor is searchable.
std::optional<std::string> FirstUnsearchable(HostFacts& facts, const std::string& path,
                                             const Identity& who);

// DenyMasks turns the deny list into bwrap masks (docs/behavior.md B-43). With a launcher
// user, a path below a directory that user cannot search is masked at the
// highest such directory (once). Without one it is exactly docs/behavior.md B-43.
std::vector<ir::Mount> DenyMasks(HostFacts& facts, const std::vector<ir::DeniedPath>& denied,
                                 const Identity* launcher_user);

// UnreachableReason says why the launcher's user cannot reach `source`
// (a directory above it it cannot search), or "" when it can.
std::string UnreachableReason(HostFacts& facts, const std::string& source, const Identity& user);

// LauncherProbeBwrapArgv is the docs/behavior.md B-40 probe argv with `masks` before --chdir.
std::vector<std::string> LauncherProbeBwrapArgv(const std::vector<ir::Mount>& masks);

// LintLauncher returns the launcher warnings: a first program that is not
// an absolute path, sudo without -n, a launcher program or /usr/bin/bwrap
// that `user` can change, a launcher program that is a script.
std::vector<ir::Warning> LintLauncher(HostFacts& facts, const std::vector<std::string>& launcher,
                                      const ir::Origin& origin, const Identity* user);

// LauncherInput is what LowerLauncher needs from the resolver.
struct LauncherInput {
  const PolicySpec* spec = nullptr;  // merged layers; spec->tool_launcher is set
  bool trusted = false;
  std::string trust_refusal;
};

// LowerLauncher decides a launcher plan once roots and the deny list are in
// `plan`: a refusal (untrusted, non-sandboxed policy, prefer_bwrap = false,
// bwrap missing, failed probe), or kind launcher+bwrap with the launcher,
// markers, network stance and lint. Returns the launcher's user when the
// probe passed (masks and binds are then computed for it).
std::optional<Identity> LowerLauncher(HostFacts& facts, const LauncherInput& in,
                                      ir::LaunchPlan* plan);

// LauncherRefusesTmp is the reason a launcher plan never binds the host
// /tmp or TMPDIR.
inline constexpr char kLauncherPrivateTmp[] =
    "a launcher plan keeps /tmp private (the host /tmp and TMPDIR are never bound)";

// ForcedDenySpec returns `spec` with the built-in deny list on and no
// exemptions (a launcher does not apply deny-list exceptions), adding a
// Skipped entry to `plan` for each setting left out.
PolicySpec ForcedDenySpec(const PolicySpec& spec, ir::LaunchPlan* plan);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_LAUNCHER_H_
