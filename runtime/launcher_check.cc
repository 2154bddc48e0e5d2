#include "runtime/launcher_check.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "compiler/launcher.h"
#include "compiler/layers.h"
#include "ir/constants.h"

namespace cwsc::runtime {

using compiler::FileType;
using compiler::HostFacts;
using compiler::Identity;
using compiler::LauncherUser;
using compiler::PathInfo;
using compiler::PolicySpec;
using compiler::ProbeResult;
using compiler::Setting;
using ir::Origin;

absl::Status RecheckLauncher(const ir::LaunchPlan& plan, HostFacts& facts) {
  const ir::Bwrap* bwrap = plan.bwrap();
  if (bwrap == nullptr || bwrap->launcher.empty()) {
    return absl::FailedPreconditionError("the launcher plan has no launcher");
  }
  const std::vector<std::string>& launcher = bwrap->launcher;
  const std::string& first = launcher[0];
  const PathInfo& l = facts.Path(first);
  if (first.empty() || first[0] != '/' || l.type != FileType::kRegular || (l.mode & 0111) == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("the launcher ", first, " is not an executable file on this host"));
  }
  LauncherUser who = facts.LauncherUserOf(launcher);
  if (!who.ok) {
    return absl::FailedPreconditionError(
        absl::StrCat("the launcher probe failed: `", absl::StrJoin(launcher, " "),
                     " /usr/bin/id -u` did not report the launcher's user: ",
                     who.message.empty() ? std::string("no reason given") : who.message));
  }
  std::vector<ir::Mount> masks;
  for (const ir::Mount& m : plan.mounts()) {
    if (m.role == ir::MountRole::kDenyMask) masks.push_back(m);
  }
  ProbeResult probe = facts.LauncherProbe(launcher, compiler::LauncherProbeBwrapArgv(masks));
  if (!probe.ok) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the launcher probe failed: a wrapped /bin/true with the deny masks did not run as the "
        "launcher's user (",
        compiler::UserText(Identity{who.uid, who.gids}),
        "): ", probe.message.empty() ? std::string("no reason given") : probe.message));
  }
  return absl::OkStatus();
}

absl::Status CheckHostLauncher(const ir::LaunchPlan& plan, HostFacts& facts) {
  if (plan.refusal() || plan.remote()) {
    return absl::OkStatus();
  }
  // Only the environment and the default path: a plan carries no user config.
  PolicySpec env;
  if (auto v = facts.Env(ir::kManagedConfigEnv)) {
    env.managed_config_path = Setting<std::string>{*v, Origin::Env(ir::kManagedConfigEnv)};
  } else if (auto w = facts.Env(ir::kManagedConfigEnvLegacy)) {
    env.managed_config_path = Setting<std::string>{*w, Origin::Env(ir::kManagedConfigEnvLegacy)};
  }
  absl::StatusOr<compiler::ManagedLayer> managed = compiler::ReadManagedLayer(facts, env, nullptr);
  if (!managed.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("this host's managed config cannot be read, so its tool_launcher is unknown: ",
                     absl::StripSuffix(managed.status().message(), "\n")));
  }
  if (!managed->spec.tool_launcher) return absl::OkStatus();
  const std::vector<std::string>& pinned = managed->spec.tool_launcher->value;
  const std::vector<std::string> none;
  const std::vector<std::string>& launcher = plan.bwrap() ? plan.bwrap()->launcher : none;
  if (!launcher.empty() && launcher == pinned) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "this host's managed config ", managed->path, " pins tool_launcher [",
      absl::StrJoin(pinned, " "), "], and the plan (kind ", ir::PlanKindName(plan.kind()),
      launcher.empty() ? std::string()
                       : absl::StrCat(", launcher [", absl::StrJoin(launcher, " "), "]"),
      ") does not run through it; compile the plan on this host"));
}

}  // namespace cwsc::runtime
