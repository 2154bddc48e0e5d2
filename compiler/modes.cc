#include "compiler/modes.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace cwsc::compiler {

std::optional<ir::PermissionMode> ParsePermissionMode(absl::string_view mode) {
  std::string m = absl::AsciiStrToLower(absl::StripAsciiWhitespace(mode));
  if (m == "plan") return ir::PermissionMode::kPlan;
  if (m == "ask" || m == "suggest") return ir::PermissionMode::kAsk;
  if (m == "auto-review" || m == "auto") return ir::PermissionMode::kAutoReview;
  if (m == "full-access" || m == "bypass" || m == "yolo") return ir::PermissionMode::kFullAccess;
  return std::nullopt;
}

std::string UnknownPermissionModeMessage(absl::string_view mode) {
  return absl::StrCat("unknown permission mode '", mode,
                      "': expected plan, ask, auto-review or full-access (aliases: suggest, auto, "
                      "bypass, yolo)");
}

std::optional<SandboxMode> ParseSandboxMode(const std::string& value) {
  std::string v = absl::AsciiStrToLower(absl::StripAsciiWhitespace(value));
  for (ir::PolicyType t : {ir::PolicyType::kReadOnly, ir::PolicyType::kWorkspaceWrite,
                           ir::PolicyType::kDangerFullAccess, ir::PolicyType::kExternalSandbox}) {
    if (v == ir::PolicyTypeName(t)) return SandboxMode{t, value};
  }
  return std::nullopt;
}

BackendKind ParseBackend(const std::string& value) {
  std::string v = absl::AsciiStrToLower(absl::StripAsciiWhitespace(value));
  if (v.empty() || v == "none") return BackendKind::kNone;
  if (v == "opensandbox" || v == "open-sandbox" || v == "open_sandbox") {
    return BackendKind::kOpenSandbox;
  }
  return BackendKind::kUnsupported;
}

std::optional<LinuxBackend> ParseLinuxBackend(const std::string& value) {
  std::string v = absl::AsciiStrToLower(absl::StripAsciiWhitespace(value));
  if (v == "auto") return LinuxBackend::kAuto;
  if (v == "bwrap") return LinuxBackend::kBwrap;
  if (v == "landlock") return LinuxBackend::kLandlock;
  return std::nullopt;
}

std::optional<ir::Contract> ParseContract(const std::string& value) {
  std::string v = absl::AsciiStrToLower(absl::StripAsciiWhitespace(value));
  if (v == "codewhale") return ir::Contract::kCodewhale;
  if (v == "execd") return ir::Contract::kExecd;
  if (v == "lifecycle") return ir::Contract::kLifecycle;
  return std::nullopt;
}

std::string InvalidSandboxModeMessage(const std::string& value) {
  return absl::StrCat("Invalid sandbox_mode '", value,
                      "': expected read-only, workspace-write, danger-full-access, or "
                      "external-sandbox.");
}

}  // namespace cwsc::compiler
