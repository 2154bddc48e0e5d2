#include "compiler/resolve.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "compiler/deny_list.h"
#include "compiler/launcher.h"
#include "compiler/lower_landlock.h"
#include "compiler/lower_seatbelt.h"
#include "compiler/lower_seccomp.h"
#include "compiler/modes.h"
#include "compiler/resolve_policy.h"
#include "compiler/resolver.h"
#include "ir/status_macros.h"

namespace cwsc::compiler {

const char* const kChildEnvAllowList[] = {"PATH",
                                          "HOME",
                                          "USER",
                                          "USERNAME",
                                          "LOGNAME",
                                          "LANG",
                                          "LANGUAGE",
                                          "LC_*",
                                          "TERM",
                                          "COLORTERM",
                                          "NO_COLOR",
                                          "FORCE_COLOR",
                                          "SHELL",
                                          "TMPDIR",
                                          "TMP",
                                          "TEMP",
                                          "__CF_USER_TEXT_ENCODING",
                                          "HTTP_PROXY",
                                          "HTTPS_PROXY",
                                          "NO_PROXY",
                                          "ALL_PROXY",
                                          "FTP_PROXY",
                                          "PYTHONIOENCODING",
                                          "PYTHONUTF8",
                                          "CARGO_HOME",
                                          "RUSTUP_HOME",
                                          "RUSTUP_TOOLCHAIN",
                                          "DOTNET_*",
                                          nullptr};

namespace resolve_internal {

absl::StatusOr<LaunchPlan> Resolver::Run() {
  std::optional<ir::Platform> platform = ir::PlatformFromName(facts_.Platform());
  if (!platform) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown platform '", facts_.Platform(), "' (linux, macos or windows)"));
  }
  plan_.platform = *platform;
  plan_.permission_mode = in_.mode;
  plan_.mode_origin = in_.mode_origin;
  plan_.cwd = in_.cwd;
  std::string home = facts_.Env("HOME").value_or("");
  if (home.empty()) home = facts_.User().home;
  vars_.home = home;
  plan_.home = home;
  while (plan_.home.size() > 1 && plan_.home.back() == '/') plan_.home.pop_back();
  vars_.workspace = in_.cwd;
  vars_.cwd = in_.cwd;
  vars_.tmpdir = facts_.Env("TMPDIR").value_or("");

  plan_.policy = PolicyFor(in_);
  if (in_.spec.sandbox_mode) {
    // sandbox_mode only narrows (docs/behavior.md B-11): say so when it changed nothing.
    PolicyType configured = in_.spec.sandbox_mode->value.type;
    if (configured != plan_.policy.type) {
      AddSkipped(
          SkipKind::kSetting, "sandbox_mode", "",
          absl::StrCat("'", ir::PolicyTypeName(configured), "' can only narrow the policy of the ",
                       ir::PermissionModeName(in_.mode), " mode, which stays ",
                       ir::PolicyTypeName(plan_.policy.type)),
          in_.spec.sandbox_mode->origin);
    }
  }
  if (in_.spec.sandbox_network_access && in_.spec.sandbox_network_access->value &&
      plan_.policy.type == PolicyType::kReadOnly && !plan_.policy.network_access) {
    AddSkipped(SkipKind::kNetworkAccess, "network access", "",
               absl::StrCat("read-only with network exists only in full-access mode; the ",
                            ir::PermissionModeName(in_.mode), " mode has no network"),
               in_.spec.sandbox_network_access->origin);
  }
  CWSC_RETURN_IF_ERROR(ApplyEscalation(in_, &plan_.policy));
  if (!in_.requirements.Allows(plan_.policy.type)) {
    Refuse(absl::StrCat("the policy ", ir::PolicyTypeName(plan_.policy.type),
                        " is not allowed by requirements (", in_.requirements.Describe(), ")"),
           in_.requirements.origin);
    plan_.posture_label = PostureLabel(plan_, NoNewPrivs());
    return std::move(plan_);
  }
  if (plan_.policy.type == PolicyType::kWorkspaceWrite &&
      plan_.policy.origin.kind != Origin::Kind::kCli) {
    plan_.policy.writable_roots.push_back(in_.cwd);  // the workspace
  }
  CWSC_RETURN_IF_ERROR(AddConfiguredRoots());
  for (const char* const* e = kChildEnvAllowList; *e != nullptr; ++e) plan_.env_allow.push_back(*e);

  // The remote backend is decided before any local wrapper or launcher.
  if (RemoteRequested()) {
    CWSC_RETURN_IF_ERROR(SelectRemote());
    plan_.posture_label = PostureLabel(plan_, NoNewPrivs());
    return std::move(plan_);
  }
  // Launcher plans (compiler/launcher.h): private /tmp, built-in deny list forced on.
  if (Launcher()) {
    plan_.policy.exclude_slash_tmp = true;
    plan_.policy.exclude_tmpdir = true;
  }
  std::optional<PolicySpec> forced;  // a launcher's copy; otherwise the spec itself
  if (Launcher()) forced = ForcedDenySpec(in_.spec, &plan_);
  CWSC_ASSIGN_OR_RETURN(plan_.denied_read, BuildDenyList(facts_, forced ? *forced : in_.spec,
                                                         ir::PlatformName(plan_.platform), vars_));
  ComputeRoots();
  SelectWrapper();
  RefuseUnconfinedIfRequired();
  if (const ir::Bwrap* b = plan_.bwrap(); b && !b->launcher.empty()) {
    AddSkipped(SkipKind::kSyscallFilter, "syscall filter", "",
               "the launcher closes inherited descriptors, so bwrap cannot read a seccomp "
               "program; --new-session keeps the command off the terminal instead",
               in_.spec.tool_launcher->origin);
  }
  if (ir::Bwrap* bwrap = plan_.bwrap()) {
    CWSC_RETURN_IF_ERROR(BuildMounts());
    if (bwrap->launcher.empty()) bwrap->syscall_filter = LowerSyscallFilter(plan_.policy);
  }
  if (plan_.landlock()) {
    LowerLandlock(facts_, in_.spec, facts_.LandlockAbi(), &plan_);
  }
  if (plan_.seatbelt()) {
    CWSC_RETURN_IF_ERROR(LowerSeatbelt(facts_, in_.spec, &plan_));
  }
  plan_.posture_label = PostureLabel(plan_, NoNewPrivs());
  return std::move(plan_);
}

// NoNewPrivs: whether cwsc run sets PR_SET_NO_NEW_PRIVS at startup
// (docs/behavior.md B-80): CODEWHALE_NO_NEW_PRIVS decides when set (falsey skips),
// else only a startup sandbox_mode of danger-full-access skips it.
bool Resolver::NoNewPrivs() {
  if (auto v = facts_.Env("CODEWHALE_NO_NEW_PRIVS")) {
    std::string f = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*v));
    return !(f.empty() || f == "0" || f == "false" || f == "no" || f == "off" || f == "disabled");
  }
  std::optional<std::string> mode = facts_.Env("CODEWHALE_SANDBOX_MODE");
  if (!mode && in_.spec.sandbox_mode) mode = ir::PolicyTypeName(in_.spec.sandbox_mode->value.type);
  return !mode || absl::AsciiStrToLower(absl::StripAsciiWhitespace(*mode)) != "danger-full-access";
}

}  // namespace resolve_internal

namespace {

using ir::LaunchPlan;
using ir::PolicyType;

}  // namespace

std::string PostureLabel(const LaunchPlan& plan, std::optional<bool> no_new_privs) {
  const ir::Policy& p = plan.policy;
  const char* net = p.network_access ? "network allowed" : "network blocked";
  if (plan.remote()) {
    const char* tag =
        p.type == PolicyType::kDangerFullAccess ? "full-access" : ir::PolicyTypeName(p.type);
    return absl::StrCat(tag,
                        " policy (external execution backend configured; filesystem/network "
                        "isolation unverified by Codewhale)");
  }
  std::string label;
  switch (p.type) {
    case PolicyType::kDangerFullAccess:
      label = "full access (sandbox disabled)";
      break;
    case PolicyType::kReadOnly:
      label = "read-only (shell writes are blocked; ordinary approval does not change this)";
      break;
    case PolicyType::kExternalSandbox:
      label = absl::StrCat("external sandbox (host-managed; ", net, ")");
      break;
    case PolicyType::kWorkspaceWrite:
      label =
          absl::StrCat("workspace-write (writes inside the workspace",
                       p.writable_roots.size() > 1 ? " and approved roots" : "", "; ", net, ")");
      break;
  }
  if (p.type == PolicyType::kDangerFullAccess && no_new_privs) {
    // docs/behavior.md B-22: full access says what sudo/setuid can do.
    label += *no_new_privs
                 ? "; sudo/setuid still blocked by the no-new-privs kernel flag set at startup"
                 : "; sudo/setuid allowed (no-new-privs relaxed at startup)";
  }
  if (!p.ShouldSandbox()) return label;
  if (plan.bwrap() || plan.seatbelt()) return label + " (local OS sandbox applied)";
  if (plan.landlock()) {
    return label + " (Landlock and seccomp applied, without namespaces)";
  }
  return label + " (policy only; no execution sandbox available)";
}

absl::StatusOr<LaunchPlan> ResolvePlan(const ResolveInput& in, HostFacts& facts) {
  return resolve_internal::Resolver(in, facts).Run();
}

}  // namespace cwsc::compiler
