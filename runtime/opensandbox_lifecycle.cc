// The lifecycle API (docs/opensandbox.md "lifecycle"): create a sandbox from
// the plan's image, wait until it runs, run the command through its execd,
// delete it (unless sandbox_keep).
#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/opensandbox.h"
#include "ir/display.h"
#include "runtime/opensandbox.h"
#include "runtime/opensandbox_contracts.h"

namespace cwsc::runtime::remote {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

absl::StatusOr<Json> LifecycleCall(const RemoteRun& run, const RemoteRequest& req, bool expect_body,
                                   long* http_status = nullptr) {
  absl::StatusOr<HttpResponse> r = HttpSend(ToHttp(req), BaseOptions(run, run.request_timeout_ms));
  if (http_status != nullptr) *http_status = r.ok() ? r->status : 0;
  if (!r.ok()) {
    if (absl::IsCancelled(r.status())) return r.status();
    return absl::UnavailableError(
        absl::StrCat("OpenSandbox lifecycle API (", req.step, ") failed: ", r.status().message()));
  }
  if (!Is2xx(r->status)) {
    return absl::UnavailableError(absl::StrCat("OpenSandbox lifecycle API (", req.step,
                                               ") returned HTTP ", r->status, ": ",
                                               BodyExcerpt(r->body)));
  }
  if (!expect_body) return Json();
  Json j = Json::parse(r->body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::DataLossError(
        absl::StrCat("OpenSandbox lifecycle API (", req.step, "): response is not a JSON object"));
  }
  return j;
}

absl::Status Missing(const RemoteRequest& req, const char* what) {
  return absl::DataLossError(
      absl::StrCat("OpenSandbox lifecycle API (", req.step, "): response has no ", what));
}

// SleepInterruptible waits `ms`, returning false early on interrupt.
bool SleepInterruptible(const RemoteRun& run, long ms) {
  auto until = Clock::now() + std::chrono::milliseconds(ms);
  while (Clock::now() < until) {
    if (Interrupted(run)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<long>(ms, 20)));
  }
  return !Interrupted(run);
}

absl::StatusOr<RemoteOutcome> LifecycleInSandbox(const RemoteRun& run, const Io& io,
                                                 const std::string& id) {
  const ir::Remote& rm = *run.plan->remote();
  RemoteOutcome interrupted;
  interrupted.interrupted = true;
  interrupted.exit_code = kExitInterrupt;
  // Wait until Running (bounded).
  auto deadline = Clock::now() + std::chrono::milliseconds(run.start_timeout_ms);
  std::string state;
  while (true) {
    RemoteRequest get = backends::LifecycleGet(rm.url, id, run.api_key);
    absl::StatusOr<Json> s = LifecycleCall(run, get, true);
    if (absl::IsCancelled(s.status())) return interrupted;
    if (!s.ok()) return s.status();
    if (!s->contains("status") || !(*s)["status"].is_object() ||
        !(*s)["status"].contains("state") || !(*s)["status"]["state"].is_string()) {
      return Missing(get, "status.state");
    }
    const Json& st = (*s)["status"];
    state = st["state"].get<std::string>();
    if (state == "Running") break;
    if (state == "Failed" || state == "Terminated" || state == "Stopping") {
      std::string why;
      for (const char* f : {"reason", "message"}) {
        if (st.contains(f) && st[f].is_string())
          absl::StrAppend(&why, ": ", st[f].get<std::string>());
      }
      return absl::FailedPreconditionError(
          absl::StrCat("OpenSandbox sandbox ", id, " is ", state, why));
    }
    if (Clock::now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("OpenSandbox sandbox ", id, " did not reach Running within ",
                       run.start_timeout_ms, " ms (last state ", state, ")"));
    }
    if (!SleepInterruptible(run, run.poll_interval_ms)) return interrupted;
  }
  // Find execd.
  RemoteRequest ep = backends::LifecycleEndpoint(rm.url, id, rm.execd_port, run.api_key);
  absl::StatusOr<Json> e = LifecycleCall(run, ep, true);
  if (absl::IsCancelled(e.status())) return interrupted;
  if (!e.ok()) return e.status();
  if (!e->contains("endpoint") || !(*e)["endpoint"].is_string() ||
      (*e)["endpoint"].get<std::string>().empty()) {
    return Missing(ep, "endpoint");
  }
  std::string url = (*e)["endpoint"].get<std::string>();
  if (url.find("://") == std::string::npos) {
    std::string scheme = rm.url.substr(0, rm.url.find("://"));
    url = scheme + "://" + url;
  }
  std::vector<RemoteHeader> auth;
  if (e->contains("headers")) {
    if (!(*e)["headers"].is_object()) return Missing(ep, "valid headers object");
    for (const auto& [k, v] : (*e)["headers"].items()) {
      if (!v.is_string()) return Missing(ep, "string header values");
      auth.push_back({k, v.get<std::string>(), true});
    }
  }
  return RunExecd(run, io, url, auth, "the headers returned with the endpoint were refused");
}

}  // namespace

absl::StatusOr<RemoteOutcome> RunLifecycle(const RemoteRun& run, const Io& io) {
  const ir::Remote& rm = *run.plan->remote();
  if (rm.image.empty()) {
    return absl::FailedPreconditionError("the lifecycle API needs sandbox_image");
  }
  RemoteRequest create = backends::LifecycleCreate(*run.plan, run.timeout_ms, run.api_key);
  long create_status = 0;
  absl::StatusOr<Json> c = LifecycleCall(run, create, true, &create_status);
  if (absl::IsCancelled(c.status())) {
    RemoteOutcome o;
    o.interrupted = true;
    o.exit_code = kExitInterrupt;
    return o;
  }
  if (!c.ok() && create_status == 400 && !run.plan->policy.network_access) {
    // A server without an egress sidecar refuses any networkPolicy. The
    // policy's blocked network is never traded for an open one.
    return absl::FailedPreconditionError(absl::StrCat(
        c.status().message(),
        " (the policy blocks the network: cwsc sent networkPolicy defaultAction deny, which a "
        "server without an egress sidecar refuses; the command was not run)"));
  }
  if (!c.ok()) return c.status();
  if (!c->contains("id") || !(*c)["id"].is_string() || (*c)["id"].get<std::string>().empty()) {
    return Missing(create, "sandbox id");
  }
  const std::string id = (*c)["id"].get<std::string>();
  absl::StatusOr<RemoteOutcome> result = LifecycleInSandbox(run, io, id);
  bool deleted = false;
  if (rm.keep) {
    // The id comes from the server: a value, shown escaped.
    ir::Text line;
    line << "cwsc: keeping OpenSandbox sandbox " << id << " (sandbox_keep)\n";
    io.err(line.str());
  } else {
    RemoteRun cleanup = run;
    cleanup.interrupt = nullptr;  // delete even after an interrupt
    absl::StatusOr<Json> d =
        LifecycleCall(cleanup, backends::LifecycleDelete(rm.url, id, run.api_key), false);
    deleted = d.ok();
    if (!d.ok()) {
      ir::Text line;
      line << "cwsc: warning: could not delete OpenSandbox sandbox "
           << Redact(absl::StrCat(id, ": ", d.status().message()), run.api_key) << "\n";
      io.err(line.str());
    }
  }
  if (!result.ok()) return result.status();
  result->sandbox_id = id;
  result->sandbox_deleted = deleted;
  return result;
}

}  // namespace cwsc::runtime::remote
