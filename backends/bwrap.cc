#include "backends/bwrap.h"

#include "absl/strings/str_cat.h"
#include "backends/bwrap_flags.h"
#include "backends/seccomp_filter.h"
#include "ir/constants.h"

namespace cwsc::backends {

const char* MountOpFlag(ir::MountOp op) {
  for (const BwrapFlag& f : BwrapFlags()) {
    if (f.mount_op == op) return f.name.data();  // the table's literals end in NUL
  }
  return "--ro-bind";
}

absl::StatusOr<EmittedArgv> EmitBwrapArgv(const ir::LaunchPlan& plan,
                                          const std::vector<std::string>& program,
                                          const std::vector<int>& source_fds) {
  const ir::Bwrap* bwrap = plan.bwrap();
  if (bwrap == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("the plan does not use bubblewrap (kind ",
                                                      ir::PlanKindName(plan.kind()), ")"));
  }
  if (!source_fds.empty() && source_fds.size() != bwrap->mounts.size()) {
    return absl::InvalidArgumentError("one bind descriptor per mount expected");
  }
  EmittedArgv out;
  // The managed file and line that set tool_launcher (older plans: a default).
  ir::Origin launcher = bwrap->launcher_origin.detail.empty() ? ir::Origin::Default("tool_launcher")
                                                              : bwrap->launcher_origin;
  for (const std::string& a : bwrap->launcher) out.push_back({a, launcher});
  ir::Origin wrapper = ir::Origin::Default("bwrap wrapper (docs/behavior.md B-42)");
  out.push_back(
      {plan.wrapper.path.empty() ? std::string(ir::kBwrapPath) : plan.wrapper.path, wrapper});
  out.push_back({"--unshare-all", ir::Origin::Default("isolate every namespace")});
  if (plan.policy.network_access) out.push_back({"--share-net", plan.policy.network_origin});
  // Hardening (docs/decisions.md): a user namespace always (fail closed
  // instead of running as host root when none can be made), no nested ones,
  // and no capabilities even for a command started as root.
  ir::Origin userns = ir::Origin::Default("a user namespace is required, even as root");
  out.push_back({"--unshare-user", userns});
  out.push_back({"--disable-userns", ir::Origin::Default("no nested user namespaces")});
  ir::Origin caps = ir::Origin::Default("the command holds no capabilities, even as root");
  out.push_back({"--cap-drop", caps});
  out.push_back({"ALL", caps});
  out.push_back({"--die-with-parent", ir::Origin::Default("end the sandbox with its parent")});
  if (!bwrap->launcher.empty()) {
    // The launcher closes inherited descriptors, so no seccomp program can
    // reach bwrap: a new session keeps the command off the terminal instead.
    out.push_back({"--new-session",
                   ir::Origin::Default("launcher plans: no terminal injection without seccomp")});
  }
  for (size_t i = 0; i < bwrap->mounts.size(); ++i) {
    const ir::Mount& m = bwrap->mounts[i];
    int fd = source_fds.empty() ? -1 : source_fds[i];
    bool by_fd =
        fd >= 0 && (m.op == ir::MountOp::kReadOnlyBind || m.op == ir::MountOp::kWritableBind);
    if (by_fd) {
      out.push_back({m.op == ir::MountOp::kReadOnlyBind ? "--ro-bind-fd" : "--bind-fd", m.origin});
      out.push_back({std::to_string(fd), m.origin});
    } else {
      out.push_back({MountOpFlag(m.op), m.origin});
      if (ir::MountOpHasSource(m.op)) out.push_back({m.source, m.origin});
    }
    out.push_back({m.dest, m.origin});
  }
  if (plan.syscall_filter()) {
    ir::Origin filter = ir::Origin::Default(absl::StrCat(
        "syscall filter (", plan.syscall_filter()->rules.size(),
        " rules; `cwsc compile --target seccomp` lists them) read from fd ", kSeccompFd));
    out.push_back({"--seccomp", filter});
    out.push_back({std::to_string(kSeccompFd), filter});
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
