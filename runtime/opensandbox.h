// RunRemote runs one command on an OpenSandbox-compatible service through the
// contract the plan names (docs/opensandbox.md): Codewhale's
// /v1/sandbox/run shim, execd's POST /command event stream, or the lifecycle
// API (create a sandbox, run through its execd, delete it). stdout/stderr go
// to the sinks as they arrive; the exit code, a timeout or an interrupt come
// back in RemoteOutcome. Errors never contain the API key.
//
//   RemoteRun run;
//   run.plan = &plan;  run.api_key = key;  run.program = {"make", "test"};
//   absl::StatusOr<RemoteOutcome> r = RunRemote(run);
//
// ReadApiKey also understands "file PATH" (a .cwsp policy's api_key file).
#ifndef CWSC_RUNTIME_OPENSANDBOX_H_
#define CWSC_RUNTIME_OPENSANDBOX_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/plan.h"
#include "runtime/execute.h"

namespace cwsc::runtime {

using OutputSink = std::function<void(std::string_view)>;

struct RemoteRun {
  const ir::LaunchPlan* plan = nullptr;    // kind opensandbox, remote set
  std::optional<std::string> api_key;      // the secret, read at run time
  std::vector<std::string> program;        // argv; sent as a shell-quoted command
  std::optional<int64_t> timeout_ms;       // command timeout (--timeout)
  const std::atomic<bool>* interrupt = nullptr;  // set by SIGINT/SIGTERM
  OutputSink out;                          // default: write(1)
  OutputSink err;                          // default: write(2)

  // Bounds (docs/opensandbox.md lists the defaults).
  long connect_timeout_ms = 10000;
  long codewhale_timeout_ms = 30000;       // the shim's total bound (docs/behavior.md B-70)
  long request_timeout_ms = 30000;         // each lifecycle / interrupt request
  std::size_t max_body_bytes = 64u << 20;  // a buffered response
  std::size_t max_event_bytes = 16u << 20; // one execd event
  long start_timeout_ms = 120000;          // lifecycle: until Running
  long poll_interval_ms = 500;             // lifecycle: between polls
  long grace_ms = 5000;                    // execd: after `timeout` before we cancel
};

struct RemoteOutcome {
  int exit_code = 0;         // the command's code; 124 on timeout, 130 on interrupt
  bool timed_out = false;
  bool interrupted = false;
  std::string sandbox_id;    // lifecycle: the sandbox used
  bool sandbox_deleted = false;
};

absl::StatusOr<RemoteOutcome> RunRemote(const RemoteRun& run);

// ExecuteRemote is `cwsc run` / `cwsc exec` for an opensandbox plan
// (runtime/opensandbox_exec.cc): it reads the key the plan names, turns
// SIGINT/SIGTERM into an interrupt, streams to fds 1 and 2, and prints
// failures as "cwsc: ..." lines. Exit codes as ExecutePlan's.
ExecOutcome ExecuteRemote(const ir::LaunchPlan& plan, const ExecRequest& request);

// ReadApiKey reads the key a plan's `api_key` source names at run time: an
// env source reads the variable, a file source the key file, a config source
// re-reads the layer's file (its origin). kNone = no key.
absl::StatusOr<std::optional<std::string>> ReadApiKey(const ir::ApiKeySource& source);

// ExecdErrorText describes an execd error response for messages ("HTTP 400
// (INVALID_REQUEST_BODY): ..."), from either of its shapes: {"error": "..."}
// (401) or {"code": "...", "message": "..."}; another body is quoted as is
// (bounded, control characters replaced).
std::string ExecdErrorText(long status, const std::string& body);

// The readers of what a service sends back, for tests and fuzzing.
// ReadCodewhaleBody reads a 2xx /v1/sandbox/run body: stdout and stderr go to
// the sinks, the exit code is returned; DataLoss when the body is malformed.
absl::StatusOr<int> ReadCodewhaleBody(const std::string& body, const OutputSink& out,
                                      const OutputSink& err);
// ReadExecdStream feeds `chunks` (as they would arrive) through execd's event
// stream reader and ends the stream.
struct ExecdStreamResult {
  bool ok = false;            // false: malformed; `error` says why
  std::string error;
  std::string command_id;     // from the init event
  bool complete = false;      // execution_complete seen
  std::optional<int> exit_code;
};
ExecdStreamResult ReadExecdStream(const std::vector<std::string_view>& chunks,
                                  std::size_t max_event_bytes, const OutputSink& out,
                                  const OutputSink& err);

// Redact replaces every occurrence of `secret` in `text` with "[redacted]".
std::string Redact(std::string text, const std::optional<std::string>& secret);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_OPENSANDBOX_H_
