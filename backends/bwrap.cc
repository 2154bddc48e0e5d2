#include "backends/bwrap.h"

#include "absl/strings/str_cat.h"

namespace cwsc::backends {

absl::StatusOr<EmittedArgv> EmitBwrapArgv(const ir::LaunchPlan& plan,
                                          const std::vector<std::string>& program) {
  if (plan.kind != ir::PlanKind::kLinuxBwrap && plan.kind != ir::PlanKind::kLauncherBwrap) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the plan does not use bubblewrap (kind ", ir::PlanKindName(plan.kind), ")"));
  }
  EmittedArgv out;
  // The managed file and line that set tool_launcher (older plans: a default).
  ir::Origin launcher = plan.launcher_origin.detail.empty() ? ir::Origin::Default("tool_launcher")
                                                             : plan.launcher_origin;
  for (const std::string& a : plan.launcher) out.push_back({a, launcher});
  ir::Origin wrapper = ir::Origin::Default("bwrap wrapper (reference §8.4)");
  out.push_back({plan.wrapper.path.empty() ? "/usr/bin/bwrap" : plan.wrapper.path, wrapper});
  out.push_back({"--unshare-all", ir::Origin::Default("isolate every namespace")});
  if (plan.share_net) out.push_back({"--share-net", plan.policy.network_origin});
  out.push_back({"--die-with-parent", ir::Origin::Default("end the sandbox with its parent")});
  for (const ir::Mount& m : plan.mounts) {
    out.push_back({ir::MountOpFlag(m.op), m.origin});
    if (m.op == ir::MountOp::kRoBind || m.op == ir::MountOp::kBind ||
        m.op == ir::MountOp::kDevBind) {
      out.push_back({m.source, m.origin});
    }
    out.push_back({m.dest, m.origin});
  }
  ir::Origin cwd = ir::Origin::Fact(absl::StrCat("working directory ", plan.cwd));
  out.push_back({"--chdir", cwd});
  out.push_back({plan.cwd, cwd});
  ir::Origin prog = ir::Origin::Cli("program");
  out.push_back({"--", prog});
  for (const std::string& a : program) out.push_back({a, prog});
  return out;
}

}  // namespace cwsc::backends
