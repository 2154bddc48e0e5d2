// Process hardening of cwsc itself (docs/behavior.md B-80): PR_SET_DUMPABLE=0,
// PR_SET_NO_NEW_PRIVS=1 (decided by the startup posture and the
// CODEWHALE_NO_NEW_PRIVS tri-state) and RLIMIT_CORE=0. Each step is
// best-effort: a failure is reported, never fatal. This is not a sandbox.
//
//   NoNewPrivsDecision d = DecideNoNewPrivs(getenv("CODEWHALE_NO_NEW_PRIVS"),
//                                           "workspace-write", false);
//   HardeningReport r = HardenProcess(d);
//   for (const std::string& w : r.Warnings()) fprintf(stderr, "cwsc: warning: %s\n", ...);
#ifndef CWSC_RUNTIME_HARDENING_H_
#define CWSC_RUNTIME_HARDENING_H_

#include <optional>
#include <string>
#include <vector>

#include "ir/plan.h"

namespace cwsc::runtime {

// NoNewPrivsDecision says whether PR_SET_NO_NEW_PRIVS is applied and why.
struct NoNewPrivsDecision {
  bool apply = true;
  std::string reason;  // one line, e.g. "skipped via CODEWHALE_NO_NEW_PRIVS=0"
};

// IsFalseyNoNewPrivs: trimmed, lowercased value in {"", 0, false, no, off, disabled}.
bool IsFalseyNoNewPrivs(const std::string& value);

// DecideNoNewPrivs applies docs/behavior.md B-80 / B-2:
//  - `env_override` (CODEWHALE_NO_NEW_PRIVS) set: falsey skips, anything else applies;
//  - else skip iff `startup_mode` (trimmed, ASCII case-folded) is
//    "danger-full-access"; every other, unknown or missing mode applies;
//  - cwsc addition: a launcher plan (`launcher_plan`) skips the flag unless the
//    override forces it, because the launcher (sudo, ...) must switch user and
//    a setuid program cannot under no-new-privs; bwrap sets the flag for the
//    command itself.
NoNewPrivsDecision DecideNoNewPrivs(const std::optional<std::string>& env_override,
                                    const std::optional<std::string>& startup_mode,
                                    bool launcher_plan);

struct HardeningStep {
  bool ok = false;
  bool skipped = false;
  std::string error;  // strerror text when !ok
};

struct HardeningReport {
  HardeningStep dumpable;      // PR_SET_DUMPABLE 0
  HardeningStep no_new_privs;  // PR_SET_NO_NEW_PRIVS 1
  std::string no_new_privs_reason;
  HardeningStep core_limit;  // RLIMIT_CORE {0,0}
  // Warnings lists one line per failed step.
  std::vector<std::string> Warnings() const;
};

// HardenProcess applies the three steps to the calling process.
HardeningReport HardenProcess(const NoNewPrivsDecision& no_new_privs);

// HardenLaunch applies B-80 to cwsc before `cwsc run` or `cwsc exec` spawns
// anything: CODEWHALE_SANDBOX_MODE, when set, is the startup mode over
// `startup_mode`, and CODEWHALE_NO_NEW_PRIVS decides over both. It returns
// the warnings of the steps that failed (HardeningReport::Warnings).
std::vector<std::string> HardenLaunch(std::optional<std::string> startup_mode, bool launcher_plan);

// PlanStartupMode is the startup posture of a plan read back for `cwsc exec`:
// "danger-full-access" when a sandbox_mode key decided a danger-full-access
// policy, else none.
std::optional<std::string> PlanStartupMode(const ir::LaunchPlan& plan);

// NoNewPrivsActive reads PR_GET_NO_NEW_PRIVS; nullopt when it cannot be read.
std::optional<bool> NoNewPrivsActive();

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_HARDENING_H_
