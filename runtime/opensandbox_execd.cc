// execd's contract (docs/opensandbox.md "execd"): POST /command with the
// shell command, read back as a server-sent event stream; an interrupt or a
// timeout interrupts the remote command by its id.
#include <chrono>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/opensandbox.h"
#include "ir/display.h"
#include "runtime/execd_stream.h"
#include "runtime/opensandbox.h"
#include "runtime/opensandbox_contracts.h"

namespace cwsc::runtime {

ExecdStreamResult ReadExecdStream(const std::vector<std::string_view>& chunks,
                                  std::size_t max_event_bytes, const OutputSink& out,
                                  const OutputSink& err) {
  ExecdStream stream(out, err, max_event_bytes);
  ExecdStreamResult r;
  r.ok = true;
  for (std::string_view chunk : chunks) {
    if (!stream.Feed(chunk)) {
      r.ok = false;
      break;
    }
    if (stream.done()) break;  // cwsc stops reading at the end of the command
  }
  if (r.ok) r.ok = stream.Finish();
  r.error = stream.error();
  r.command_id = stream.command_id();
  r.complete = stream.complete();
  r.exit_code = stream.exit_code();
  return r;
}

namespace remote {
namespace {

using Clock = std::chrono::steady_clock;

void InterruptCommand(const RemoteRun& run, const Io& io, const std::string& execd_url,
                      const std::string& id, const std::vector<RemoteHeader>& auth) {
  if (id.empty()) {
    io.err("cwsc: the remote command had not reported its id; it could not be interrupted\n");
    return;
  }
  HttpOptions o = BaseOptions(run, run.request_timeout_ms);
  o.cancel = nullptr;  // the interrupt itself must go out
  absl::StatusOr<HttpResponse> r =
      HttpSend(ToHttp(backends::ExecdInterrupt(execd_url, id, auth)), o);
  if (!r.ok() || !Is2xx(r->status)) {
    std::string why =
        r.ok() ? ExecdErrorText(r->status, r->body) : std::string(r.status().message());
    // The id and the reason come from the server: values, shown escaped.
    ir::Text line;
    line << "cwsc: could not interrupt remote command "
         << Redact(absl::StrCat(id, ": ", why), run.api_key) << "\n";
    io.err(line.str());
  }
}

}  // namespace

absl::StatusOr<RemoteOutcome> RunExecd(const RemoteRun& run, const Io& io,
                                       const std::string& execd_url,
                                       const std::vector<RemoteHeader>& auth,
                                       const std::string& auth_origin) {
  const ir::LaunchPlan& plan = *run.plan;
  RemoteRequest req = backends::ExecdCommand(execd_url, backends::ShellCommand(run.program),
                                             backends::RemoteEnv(plan), plan.remote()->remote_cwd,
                                             run.timeout_ms, auth);
  ExecdStream stream(io.out, io.err, run.max_event_bytes);
  std::string sink_error;
  HttpOptions o =
      BaseOptions(run, run.timeout_ms ? static_cast<long>(*run.timeout_ms) + run.grace_ms : 0);
  // The command has ended (execution_complete, or its exit code: execd sends
  // nothing after a failure and closes the connection about 1 s later): stop
  // reading.
  bool finished = false;
  o.sink = [&](std::string_view chunk) {
    if (!stream.Feed(chunk)) {
      sink_error = stream.error();
      return false;
    }
    finished = stream.done();
    return !finished;
  };
  o.sink_error = &sink_error;
  o.response_timeout_ms = run.request_timeout_ms;  // the stream must at least start
  auto start = Clock::now();
  absl::StatusOr<HttpResponse> resp = HttpSend(ToHttp(req), o);
  RemoteOutcome outcome;
  if (!resp.ok() && !sink_error.empty()) return absl::DataLossError(sink_error);
  if (!resp.ok() && finished) resp = HttpResponse{200, "", {}};  // we stopped reading
  if (!resp.ok()) {
    bool cancelled = absl::IsCancelled(resp.status());
    bool deadline =
        absl::IsDeadlineExceeded(resp.status()) && run.timeout_ms && !stream.command_id().empty();
    if (cancelled || deadline) {
      InterruptCommand(run, io, execd_url, stream.command_id(), auth);
      outcome.interrupted = cancelled;
      outcome.timed_out = !cancelled;
      outcome.exit_code = cancelled ? kExitInterrupt : kExitTimeout;
      return outcome;
    }
    return absl::UnavailableError(absl::StrCat("execd command failed: ", resp.status().message()));
  }
  if (!Is2xx(resp->status)) {
    std::string hint = resp->status == 401 ? absl::StrCat(" (", auth_origin, ")") : "";
    return absl::UnavailableError(
        absl::StrCat("execd returned ", ExecdErrorText(resp->status, resp->body), hint));
  }
  if (!stream.Finish()) return absl::DataLossError(stream.error());
  if (!stream.complete() && !stream.exit_code()) {
    return absl::DataLossError(
        "execd event stream ended before execution_complete (connection closed early)");
  }
  outcome.exit_code = stream.exit_code().value_or(0);
  auto elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  if (run.timeout_ms && outcome.exit_code != 0 && elapsed_ms >= *run.timeout_ms) {
    outcome.timed_out = true;  // the server ended it at `timeout`
    outcome.exit_code = kExitTimeout;
  }
  return outcome;
}

}  // namespace remote
}  // namespace cwsc::runtime
