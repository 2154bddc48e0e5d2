#include "runtime/hardening.h"

#include <sys/prctl.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace cwsc::runtime {
namespace {

std::string Fold(const std::string& s) {
  std::string t(absl::StripAsciiWhitespace(absl::string_view(s.data(), s.size())));
  return absl::AsciiStrToLower(t);
}

HardeningStep Step(int rc) {
  HardeningStep s;
  s.ok = rc == 0;
  if (!s.ok) s.error = std::strerror(errno);
  return s;
}

}  // namespace

bool IsFalseyNoNewPrivs(const std::string& value) {
  std::string v = Fold(value);
  return v.empty() || v == "0" || v == "false" || v == "no" || v == "off" || v == "disabled";
}

NoNewPrivsDecision DecideNoNewPrivs(const std::optional<std::string>& env_override,
                                    const std::optional<std::string>& startup_mode,
                                    bool launcher_plan) {
  if (env_override.has_value()) {
    if (IsFalseyNoNewPrivs(*env_override)) {
      return {false, absl::StrCat("skipped via CODEWHALE_NO_NEW_PRIVS=", *env_override)};
    }
    return {true, absl::StrCat("forced via CODEWHALE_NO_NEW_PRIVS=", *env_override)};
  }
  if (startup_mode.has_value() && Fold(*startup_mode) == "danger-full-access") {
    return {false, "startup sandbox mode resolved to danger-full-access (#5723)"};
  }
  if (launcher_plan) {
    return {false,
            "skipped for a launcher plan: the launcher must switch user (bwrap still sets "
            "no-new-privs for the command)"};
  }
  return {true, startup_mode.has_value()
                    ? absl::StrCat("startup sandbox mode '", *startup_mode, "' keeps the flag")
                    : std::string("no startup sandbox mode: the flag stays on (fail closed)")};
}

HardeningReport HardenProcess(const NoNewPrivsDecision& no_new_privs) {
  HardeningReport r;
  r.dumpable = Step(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0));
  r.no_new_privs_reason = no_new_privs.reason;
  if (no_new_privs.apply) {
    r.no_new_privs = Step(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
  } else {
    r.no_new_privs.ok = true;
    r.no_new_privs.skipped = true;
  }
  rlimit zero{0, 0};
  r.core_limit = Step(setrlimit(RLIMIT_CORE, &zero));
  return r;
}

std::vector<std::string> HardenLaunch(std::optional<std::string> startup_mode, bool launcher_plan) {
  if (const char* mode = std::getenv("CODEWHALE_SANDBOX_MODE")) startup_mode = mode;
  const char* nnp = std::getenv("CODEWHALE_NO_NEW_PRIVS");
  NoNewPrivsDecision d = DecideNoNewPrivs(nnp ? std::optional<std::string>(nnp) : std::nullopt,
                                          startup_mode, launcher_plan);
  return HardenProcess(d).Warnings();
}

std::optional<std::string> PlanStartupMode(const ir::LaunchPlan& plan) {
  if (plan.policy.type == ir::PolicyType::kDangerFullAccess &&
      absl::StrContains(plan.policy.origin.detail.str(), "sandbox_mode")) {
    return "danger-full-access";
  }
  return std::nullopt;
}

std::vector<std::string> HardeningReport::Warnings() const {
  std::vector<std::string> out;
  if (!dumpable.ok) out.push_back("hardening: PR_SET_DUMPABLE=0 failed: " + dumpable.error);
  if (!no_new_privs.ok) {
    out.push_back("hardening: PR_SET_NO_NEW_PRIVS=1 failed: " + no_new_privs.error);
  }
  if (!core_limit.ok) out.push_back("hardening: RLIMIT_CORE=0 failed: " + core_limit.error);
  return out;
}

std::optional<bool> NoNewPrivsActive() {
  int v = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
  if (v < 0) return std::nullopt;
  return v == 1;
}

}  // namespace cwsc::runtime
