// ExecutePlan runs a program under a LaunchPlan on this host: it re-checks
// the host facts the plan depends on (docs/runtime.md "Exec-time checks"),
// builds the argv (EmitBwrapArgv for linux-bwrap and launcher+bwrap, the
// program unchanged for none) and the environment (cleared, then the plan's
// allow-list, then its markers), spawns it (runtime/host/spawn.h) and attributes
// a failure to the sandbox when the evidence says so (runtime/attribution.h).
//
//   auto facts = runtime::MakeLiveFacts();
//   ExecRequest req{.program = {"sh", "-c", "make"}, .timeout_seconds = 60};
//   ExecOutcome out = ExecutePlan(plan, req, facts.get());
//   return out.cwsc_exit_code;   // the child's status, or 124/125/126/127
#ifndef CWSC_RUNTIME_EXECUTE_H_
#define CWSC_RUNTIME_EXECUTE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/facts/host_facts.h"
#include "ir/plan.h"

namespace cwsc::runtime {

// Exit codes of `cwsc run` / `cwsc exec` that are not the command's own.
// nothing ran: the policy asks for a sandbox, none works here, and
// sandbox_require / --require-sandbox forbids running unconfined
inline constexpr int kExitNoSandbox = 3;
inline constexpr int kExitTimedOut = 124;    // --timeout fired; the tree was ended
inline constexpr int kExitRefused = 125;     // nothing ran: refused plan, failed re-check, ...
inline constexpr int kExitCannotExec = 126;  // program found but not executable (unwrapped)
inline constexpr int kExitNotFound = 127;    // program not found (unwrapped)

// RefusedForWantOfASandbox: the plan was refused because a sandbox is
// required (sandbox_require = true or --require-sandbox) and no wrapper
// works; run and exec exit kExitNoSandbox for it.
bool RefusedForWantOfASandbox(const ir::LaunchPlan& plan);

struct ExecRequest {
  std::vector<std::string> program;  // PROGRAM ARGS...
  double timeout_seconds = 0;        // 0: none
  double kill_grace_seconds = 2;
  // --require-sandbox: a `none` plan whose policy asks for a sandbox is
  // refused instead of run unconfined.
  bool require_sandbox = false;
};

// PreparedCommand is what will be spawned.
struct PreparedCommand {
  std::string sandbox_kind;  // "none", "linux-bwrap", "launcher+bwrap"
  std::vector<std::string> argv;
  std::vector<std::string> env;       // "NAME=VALUE"
  std::optional<std::string> cwd;     // chdir for unwrapped runs
  std::vector<std::string> warnings;  // printed as "cwsc: warning: ..."
};

// ExecOutcome is the result of a run, also rendered by ResultToJson.
struct ExecOutcome {
  std::string sandbox_kind;
  bool ran = false;   // the command was started
  int exit_code = 0;  // command status (128+N for signal N) when ran
  std::optional<int> signal;
  bool timed_out = false;
  bool sandbox_denied = false;
  std::string denial_message;
  std::string refusal;                    // why nothing ran (refused plan or failed check)
  std::string error;                      // spawn failure text
  int cwsc_exit_code = 0;                 // what cwsc exits with
  std::vector<std::string> not_enforced;  // opensandbox: what the remote side does not enforce
  std::vector<std::string> warnings;      // printed on stderr ("cwsc: warning: ..."); not in JSON
};

// ChildEnv: `parent` (NAME=VALUE strings) filtered by the plan's allow-list
// (ASCII-uppercased name equal to an entry, or starting with the part of an
// entry before its trailing '*'), then the plan's env_set applied in order
// (replacing a variable already present, else appended).
std::vector<std::string> ChildEnv(const ir::LaunchPlan& plan,
                                  const std::vector<std::string>& parent);

// RecheckPlan verifies the facts a local plan depends on still hold here.
// FailedPrecondition's message is the refusal reason (no "cwsc:" prefix).
absl::Status RecheckPlan(const ir::LaunchPlan& plan, compiler::HostFacts* facts);

// PrepareCommand dispatches on plan.kind() and builds argv/env/cwd; refusals
// and kinds that cannot run here are FailedPrecondition (the reason).
absl::StatusOr<PreparedCommand> PrepareCommand(const ir::LaunchPlan& plan,
                                               const std::vector<std::string>& program,
                                               const std::vector<std::string>& parent_env);

// ExecutePlan = PrepareCommand + RecheckPlan + spawn + attribution. It
// prints refusals, warnings and denials to stderr ("cwsc: ..." lines).
ExecOutcome ExecutePlan(const ir::LaunchPlan& plan, const ExecRequest& request,
                        compiler::HostFacts* facts);

// ResultToJson renders an outcome as one JSON object (docs/runtime.md).
std::string ResultToJson(const ExecOutcome& outcome);

// CurrentEnviron returns this process's environment as NAME=VALUE strings.
std::vector<std::string> CurrentEnviron();

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_EXECUTE_H_
