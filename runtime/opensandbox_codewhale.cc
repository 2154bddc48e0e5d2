// Codewhale's contract (docs/behavior.md B-70, docs/opensandbox.md "codewhale"):
// one POST {url}/v1/sandbox/run with the shell command and the plan's
// environment; the JSON answer carries stdout, stderr and the exit code.
#include <climits>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/opensandbox.h"
#include "runtime/opensandbox.h"
#include "runtime/opensandbox_contracts.h"

namespace cwsc::runtime {

using Json = nlohmann::json;

namespace remote {

absl::StatusOr<RemoteOutcome> RunCodewhale(const RemoteRun& run, const Io& io) {
  const ir::LaunchPlan& plan = *run.plan;
  RemoteRequest req =
      backends::CodewhaleRun(plan.remote()->url, backends::ShellCommand(run.program),
                             backends::RemoteEnv(plan), run.api_key);
  long total = run.codewhale_timeout_ms;
  bool user_bound = run.timeout_ms && *run.timeout_ms < total;
  if (user_bound) total = static_cast<long>(*run.timeout_ms);
  absl::StatusOr<HttpResponse> resp = HttpSend(ToHttp(req), BaseOptions(run, total));
  RemoteOutcome outcome;
  if (!resp.ok()) {
    if (absl::IsCancelled(resp.status())) {
      outcome.interrupted = true;
      outcome.exit_code = kExitInterrupt;
      return outcome;
    }
    if (user_bound && absl::IsDeadlineExceeded(resp.status())) {
      outcome.timed_out = true;
      outcome.exit_code = kExitTimeout;
      return outcome;
    }
    return absl::UnavailableError(
        absl::StrCat("Failed to reach OpenSandbox endpoint: ", resp.status().message()));
  }
  if (!Is2xx(resp->status)) {
    return absl::UnavailableError(
        absl::StrCat("OpenSandbox returned HTTP ", resp->status, ": ", BodyExcerpt(resp->body)));
  }
  absl::StatusOr<int> code = ReadCodewhaleBody(resp->body, io.out, io.err);
  if (!code.ok()) return code.status();
  outcome.exit_code = *code;
  return outcome;
}

}  // namespace remote

absl::StatusOr<int> ReadCodewhaleBody(const std::string& body, const OutputSink& out,
                                      const OutputSink& err) {
  Json j = Json::parse(body, nullptr, false);
  auto bad = [](const std::string& why) {
    return absl::DataLossError(absl::StrCat("Failed to parse OpenSandbox response: ", why));
  };
  if (j.is_discarded()) return bad("body is not valid JSON");
  if (!j.is_object()) return bad("body is not a JSON object");
  for (const char* f : {"stdout", "stderr"}) {
    if (!j.contains(f)) return bad(absl::StrCat("missing field \"", f, "\""));
    if (!j[f].is_string()) return bad(absl::StrCat("field \"", f, "\" is not a string"));
  }
  if (!j.contains("exit_code")) return bad("missing field \"exit_code\"");
  const Json& code = j["exit_code"];
  if (!code.is_number_integer()) return bad("field \"exit_code\" is not an integer");
  if ((code.is_number_unsigned() && code.get<uint64_t>() > INT32_MAX) ||
      (!code.is_number_unsigned() &&
       (code.get<int64_t>() < INT32_MIN || code.get<int64_t>() > INT32_MAX))) {
    return bad("field \"exit_code\" is out of range for a 32-bit integer");
  }
  out(j["stdout"].get_ref<const std::string&>());
  err(j["stderr"].get_ref<const std::string&>());
  return code.get<int>();
}

}  // namespace cwsc::runtime
