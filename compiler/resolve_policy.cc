#include "compiler/resolve_policy.h"

#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "compiler/modes.h"

namespace cwsc::compiler {
namespace {

using ir::Origin;
using ir::PolicyType;

}  // namespace

// Policy for the permission mode, narrowed by sandbox_mode (docs/behavior.md B-10, B-11;
// values normalized as docs/decisions.md (item 7) says).
ir::Policy PolicyFor(const ResolveInput& in) {
  ir::Policy p;
  Origin mode_origin =
      Origin::Mode(absl::StrCat("permission mode ", ir::PermissionModeName(in.mode)));
  if (in.mode == ir::PermissionMode::kPlan) {
    p.type = PolicyType::kReadOnly;
  } else if (in.mode == ir::PermissionMode::kFullAccess) {
    p.type = PolicyType::kDangerFullAccess;
  } else {
    p.type = PolicyType::kWorkspaceWrite;
  }
  p.origin = mode_origin;
  if (in.spec.sandbox_mode) {
    PolicyType configured = in.spec.sandbox_mode->value.type;
    const Origin& o = in.spec.sandbox_mode->origin;
    if (p.type == PolicyType::kReadOnly || configured == PolicyType::kReadOnly) {
      if (p.type != PolicyType::kReadOnly) p.origin = o;
      p.type = PolicyType::kReadOnly;
    } else if (p.type == PolicyType::kDangerFullAccess &&
               configured == PolicyType::kWorkspaceWrite) {
      p.type = PolicyType::kWorkspaceWrite;
      p.origin = o;
    } else if (p.type == PolicyType::kDangerFullAccess &&
               configured == PolicyType::kExternalSandbox) {
      p.type = PolicyType::kExternalSandbox;
      p.origin = o;
    }
  }
  // Network: the mode-derived workspace policy and external-sandbox have it;
  // read-only does not; sandbox_network_access sets it for sandboxed policies.
  p.network_access = p.type != PolicyType::kReadOnly;
  p.network_origin = p.type == PolicyType::kReadOnly
                         ? Origin::Default("read-only policy has no network")
                         : Origin::Default(absl::StrCat(ir::PolicyTypeName(p.type),
                                                        " policy from the mode has network"));
  if (p.type == PolicyType::kDangerFullAccess) p.network_origin = p.origin;
  // Read-only with network exists only by narrowing full access (docs/behavior.md
  // B-10, B-14): a config never gives Plan (or a narrowed Ask) a network.
  if (in.spec.sandbox_network_access && p.ShouldSandbox() &&
      !(p.type == PolicyType::kReadOnly && in.spec.sandbox_network_access->value &&
        in.mode != ir::PermissionMode::kFullAccess)) {
    p.network_access = in.spec.sandbox_network_access->value;
    p.network_origin = in.spec.sandbox_network_access->origin;
  }
  return p;
}

// Escalation applies an approved per-command escalation (docs/behavior.md B-12).
absl::Status ApplyEscalation(const ResolveInput& in, ir::Policy* p) {
  if (!in.escalate) return absl::OkStatus();
  const std::string given = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*in.escalate));
  constexpr char kExpected[] =
      "expected workspace-write or danger-full-access, or the mode full-access";
  std::string target = given;
  // A permission mode names the posture it fixes: full-access (and its
  // aliases) is danger-full-access; plan (read-only) is never wider; ask and
  // auto-review take the configured policy, so they name none.
  if (std::optional<ir::PermissionMode> mode = ParsePermissionMode(given)) {
    if (*mode == ir::PermissionMode::kFullAccess) {
      target = "danger-full-access";
    } else {
      return absl::InvalidArgumentError(absl::StrCat("--escalate: invalid value '", *in.escalate,
                                                     "': the mode ", ir::PermissionModeName(*mode),
                                                     *mode == ir::PermissionMode::kPlan
                                                         ? " is read-only, never wider; "
                                                         : " has no posture of its own; ",
                                                     kExpected));
    }
  } else if (target != "workspace-write" && target != "danger-full-access") {
    return absl::InvalidArgumentError(
        absl::StrCat("--escalate: invalid value '", *in.escalate, "': ", kExpected));
  }
  if (in.mode != ir::PermissionMode::kAsk) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--escalate: sandbox escalation requires a one-shot user approval, but the current '",
        ir::PermissionModeName(in.mode),
        "' posture cannot provide it (escalation is only possible in ask mode)"));
  }
  Origin o = Origin::Cli(absl::StrCat("--escalate ", given));
  if (target == "workspace-write" && p->type == PolicyType::kReadOnly) {
    *p = ir::Policy{};  // SandboxPolicy::default(): workspace-write, no network
    p->origin = o;
    p->network_origin = Origin::Default("escalated workspace-write policy has no network");
    return absl::OkStatus();
  }
  if (target == "danger-full-access" &&
      (p->type == PolicyType::kReadOnly || p->type == PolicyType::kWorkspaceWrite)) {
    *p = ir::Policy{};
    p->type = PolicyType::kDangerFullAccess;
    p->network_access = true;
    p->origin = o;
    p->network_origin = o;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--escalate: '", target, "' is not strictly wider than this call's current '",
                   ir::PolicyTypeName(p->type), "' posture"));
}

}  // namespace cwsc::compiler
