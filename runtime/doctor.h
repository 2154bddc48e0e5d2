// Doctor answers "which wrapper works here, and if none, why": the bwrap
// binary, its preference, its probe with bwrap's own message, the host
// causes it recognizes (AppArmor userns restriction, user namespaces
// disabled, unprivileged container) with the scoped fix for each, the
// no-new-privs state, the selected backend and the effective policy per
// permission mode. docs/runtime.md documents the JSON shape.
//
//   auto facts = runtime::MakeLiveFacts();
//   absl::StatusOr<DoctorReport> r = RunDoctor("/dev/null", facts.get(), ReadHostSignals());
//   std::cout << DoctorToJson(*r);
#ifndef CWSC_RUNTIME_DOCTOR_H_
#define CWSC_RUNTIME_DOCTOR_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/facts/host_facts.h"
#include "ir/constants.h"
#include "ir/display.h"
#include "runtime/hardening.h"

namespace cwsc::runtime {

// HostSignals are the host settings that commonly break bubblewrap.
struct HostSignals {
  std::optional<std::string>
      apparmor_restrict_userns;                    // kernel.apparmor_restrict_unprivileged_userns
  std::optional<std::string> max_user_namespaces;  // user.max_user_namespaces
  std::optional<std::string>
      unprivileged_userns_clone;  // kernel.unprivileged_userns_clone (Debian)
  std::string uid_map;            // /proc/self/uid_map, whitespace-collapsed
  bool dockerenv = false;         // /.dockerenv exists
  bool containerenv = false;      // /run/.containerenv exists
  std::string container_env;      // $container (systemd convention)
  bool bwrap_setuid = false;      // /usr/bin/bwrap has the setuid bit
  uint32_t uid = 0;
};

// ReadHostSignals reads them from /proc and the filesystem.
HostSignals ReadHostSignals();

// InContainer: any container marker, or a uid map that is not the full
// identity map of the initial user namespace.
bool InContainer(const HostSignals& s);

// Cause is one recognized reason the wrapper does not work, with its fix.
struct Cause {
  std::string code;    // stable: "bwrap-missing", "apparmor-userns-restricted", ...
  std::string detail;  // what was found
  std::string fix;     // the scoped fix
  bool operator==(const Cause&) const = default;
};

// DiagnoseWrapper lists the causes for a wrapper that does not work:
// `info` is /usr/bin/bwrap's PathInfo and `probe` its probe result.
std::vector<Cause> DiagnoseWrapper(const compiler::PathInfo& info,
                                   const compiler::ProbeResult& probe, const HostSignals& host);

// ModePolicy is the effective policy of one permission mode.
struct ModePolicy {
  std::string mode;
  std::string policy;        // "read-only", ... ("" when refused or failed)
  std::string sandbox_kind;  // plan kind
  bool network = false;
  std::string posture;
  std::string refusal;  // refusal reason or compile error
};

struct DoctorReport {
  std::string platform;
  // sandbox: as Codewhale reports it (kind null when unavailable).
  bool sandbox_available = false;
  std::string sandbox_kind;  // "linux-bwrap" or "" (null)
  // wrapper: /usr/bin/bwrap and its probe.
  std::string wrapper_path = ir::kBwrapPath;
  std::string wrapper_type;  // compiler::FileTypeName
  bool wrapper_executable = false;
  bool wrapper_preferred = true;
  std::string preference_origin;
  compiler::ProbeResult probe;
  std::string reason;  // why not available ("" when available)
  std::vector<Cause> causes;
  // tool_launcher (docs/launcher.md): the configured argv (empty: none), why
  // the ask-mode launcher plan is refused ("" when it runs), its warnings.
  std::vector<std::string> tool_launcher;
  std::string launcher_refusal;
  std::vector<std::pair<std::string, std::string>> launcher_warnings;  // code, message
  // hardening
  std::optional<bool> no_new_privs_active;  // this process, now
  NoNewPrivsDecision no_new_privs_at_run;   // what `cwsc run` would decide
  // What an ask-mode command gets here: its plan kind and why (the
  // local-wrapper skip or the refusal; "" when it is confined).
  std::string command_kind;
  std::string command_why;
  bool command_unconfined = false;  // kind none although the policy asks for a sandbox
  // sandbox_require after layering: on, and where it was set ("" = default off).
  bool require_sandbox = false;
  std::string require_origin;
  // backend
  std::string backend;  // "local" or the remote backend name
  std::vector<ModePolicy> modes;
  HostSignals host;
};

// RunDoctor compiles `config` (an empty file is fine) for each permission
// mode against `facts` and gathers the report.
absl::StatusOr<DoctorReport> RunDoctor(const std::string& config, compiler::HostFacts* facts,
                                       const HostSignals& host);

std::string DoctorToJson(const DoctorReport& r);
// DoctorToText is the report for people; every value in it is escaped (ir::Text).
ir::Text DoctorToText(const DoctorReport& r);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_DOCTOR_H_
