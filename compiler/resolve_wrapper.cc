// Which wrapper runs the command (docs/behavior.md B-30): the remote
// backend, a launcher, bwrap, Landlock or Seatbelt, or none; a refused plan
// (Refuse), and the refusal sandbox_require asks for when none works.
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "compiler/deny_list.h"
#include "compiler/launcher.h"
#include "compiler/lower_landlock.h"
#include "compiler/lower_remote.h"
#include "compiler/lower_seatbelt.h"
#include "compiler/resolver.h"
#include "ir/constants.h"
#include "ir/status_macros.h"

namespace cwsc::compiler::resolve_internal {

bool Resolver::RemoteRequested() const {
  return in_.spec.sandbox_backend && in_.spec.sandbox_backend->value.kind != BackendKind::kNone;
}

absl::Status Resolver::SelectRemote() {
  // The deny list is listed in the plan as what the remote side does not enforce.
  CWSC_ASSIGN_OR_RETURN(plan_.denied_read,
                        BuildDenyList(facts_, in_.spec, ir::PlatformName(plan_.platform), vars_));
  LowerRemote(in_.spec, &plan_);  // compiler/lower_remote.h
  if (const ir::Refusal* r = plan_.refusal()) Refuse(r->reason, r->origin);
  return absl::OkStatus();
}

void Resolver::Refuse(std::string reason, Origin origin) {
  ir::Refuse(&plan_, ir::Refusal{std::move(reason), std::move(origin)});
}

void Resolver::SelectWrapper() {
  const ir::Policy& pol = plan_.policy;
  if (Launcher()) {  // compiler/launcher.h decides launcher plans
    launcher_user_ = LowerLauncher(
        facts_, LauncherInput{&in_.spec, in_.launcher_trusted, in_.launcher_trust_refusal}, &plan_);
    if (const ir::Refusal* r = plan_.refusal()) Refuse(r->reason, r->origin);
    return;
  }
  if (!pol.ShouldSandbox()) {
    plan_.launch = ir::Unconfined{};
    AddSkipped(SkipKind::kLocalWrapper, "local wrapper", "",
               absl::StrCat("policy ", ir::PolicyTypeName(pol.type), " does not request a sandbox"),
               pol.origin);
    return;
  }
  if (plan_.platform == ir::Platform::kLinux) {
    plan_.wrapper.path = ir::kBwrapPath;
    plan_.wrapper.preferred = true;
    plan_.wrapper.preferred_origin = Origin::Default("prefer_bwrap is on by default");
    if (in_.spec.prefer_bwrap) {
      plan_.wrapper.preferred = in_.spec.prefer_bwrap->value;
      plan_.wrapper.preferred_origin = in_.spec.prefer_bwrap->origin;
    }
    const PathInfo& info = facts_.Path(ir::kBwrapPath);
    plan_.wrapper.executable = info.type == FileType::kRegular && (info.mode & 0111) != 0;
    if (Backend() == LinuxBackend::kLandlock) {
      SelectLandlock(LinuxBackendOrigin(), "");
      return;
    }
    if (!plan_.wrapper.preferred) {
      plan_.launch = ir::Unconfined{};
      AddSkipped(SkipKind::kLocalWrapper, "local wrapper", ir::kBwrapPath, "prefer_bwrap = false",
                 plan_.wrapper.preferred_origin);
      return;
    }
    if (!plan_.wrapper.executable) {
      plan_.launch = ir::Unconfined{};
      AddSkipped(SkipKind::kLocalWrapper, "local wrapper", ir::kBwrapPath,
                 info.type == FileType::kMissing ? "missing" : "not a regular executable file",
                 Origin::Fact(ir::kBwrapPath));
      return;
    }
    ProbeResult probe = facts_.BwrapProbe();
    plan_.wrapper.probe_ok = probe.ok;
    plan_.wrapper.probe_message = probe.message;
    if (!probe.ok && Backend() == LinuxBackend::kAuto && facts_.LandlockAbi() >= 1 &&
        LandlockNamespaceFailure(probe.message)) {
      SelectLandlock(Origin::Fact("bwrap probe"), probe.message);
      return;
    }
    if (!probe.ok) {
      plan_.launch = ir::Unconfined{};
      AddSkipped(SkipKind::kLocalWrapper, "local wrapper", ir::kBwrapPath,
                 absl::StrCat("probe failed: ", probe.message), Origin::Fact("bwrap probe"));
      return;
    }
    plan_.launch = ir::Bwrap{};
    Origin marker = Origin::Default("bwrap child marker");
    plan_.env_set.push_back({"CODEWHALE_SANDBOX", "bwrap", marker});
    plan_.env_set.push_back({"DEEPSEEK_SANDBOX", "bwrap", marker});
    return;
  }
  if (plan_.platform == ir::Platform::kMacos) {
    // docs/behavior.md B-60 / B-30: Seatbelt iff its probe passed (prefer_bwrap ignored).
    plan_.wrapper = SeatbeltWrapper(facts_);
    if (!plan_.wrapper.probe_ok) {
      plan_.launch = ir::Unconfined{};
      AddSkipped(SkipKind::kLocalWrapper, "local wrapper", ir::kSandboxExecPath,
                 absl::StrCat("probe failed: ", plan_.wrapper.probe_message),
                 Origin::Fact("seatbelt probe"));
      return;
    }
    plan_.launch = ir::Seatbelt{};
    return;
  }
  plan_.launch = ir::Unconfined{};
  AddSkipped(
      SkipKind::kLocalWrapper, "local wrapper", "",
      absl::StrCat("no local wrapper is wired for platform ", ir::PlatformName(plan_.platform)),
      Origin::Fact("platform"));
}

// SelectLandlock makes the plan linux-landlock when the host offers
// Landlock; `bwrap_failure` is the bwrap probe's message when Landlock is
// the fallback ("" when it was asked for).
void Resolver::SelectLandlock(const Origin& why, const std::string& bwrap_failure) {
  int abi = facts_.LandlockAbi();
  if (abi < 1) {
    plan_.launch = ir::Unconfined{};
    AddSkipped(SkipKind::kLocalWrapper, "local wrapper", "landlock",
               "this kernel offers no Landlock (ABI 0)", why);
    return;
  }
  plan_.launch = ir::LandlockLaunch{};
  if (!bwrap_failure.empty()) {
    plan_.warnings.push_back(ir::Warning{
        "landlock-fallback",
        absl::StrCat("bubblewrap cannot make its namespaces here (", bwrap_failure,
                     "), so the plan confines the command with Landlock ABI ", abi,
                     " and seccomp instead; what that cannot hold is in the plan's skipped "
                     "list (cwsc explain)"),
        why});
  }
  Origin marker = Origin::Default("landlock child marker");
  plan_.env_set.push_back({"CODEWHALE_SANDBOX", "landlock", marker});
  plan_.env_set.push_back({"DEEPSEEK_SANDBOX", "landlock", marker});
}

// RefuseUnconfinedIfRequired: with sandbox_require = true (or
// --require-sandbox), a policy that asks for a sandbox is refused when no
// local wrapper works, instead of running unconfined (docs/config.md).
void Resolver::RefuseUnconfinedIfRequired() {
  if (!std::holds_alternative<ir::Unconfined>(plan_.launch) || !plan_.policy.ShouldSandbox()) {
    return;
  }
  if (!in_.spec.sandbox_require || !in_.spec.sandbox_require->value) return;
  const ir::Origin& origin = in_.spec.sandbox_require->origin;
  bool cli = origin.kind == Origin::Kind::kCli;
  std::string cause = "no local wrapper works";
  std::string fix = "make the wrapper work (`cwsc doctor` names the cause and its fix)";
  for (const ir::Skipped& s : plan_.skipped) {
    if (s.kind != SkipKind::kLocalWrapper) continue;
    cause = s.path.empty() ? s.reason : absl::StrCat(s.path, ": ", s.reason);
    if (s.reason == "prefer_bwrap = false") fix = "set prefer_bwrap = true";
  }
  Refuse(absl::StrCat("the policy is ", ir::PolicyTypeName(plan_.policy.type),
                      " but no sandbox wrapper works here (", cause, "), and ",
                      cli ? "--require-sandbox" : "sandbox_require = true",
                      " forbids running the command unconfined; ", fix, ", or ",
                      cli ? "leave out --require-sandbox" : "set sandbox_require = false",
                      " to run it unconfined with a warning"),
         origin);
}

}  // namespace cwsc::compiler::resolve_internal
