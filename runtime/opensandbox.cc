#include "runtime/opensandbox.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/opensandbox.h"
#include "compiler/config_toml.h"
#include "runtime/execd_stream.h"
#include "runtime/http_client.h"

namespace cwsc::runtime {
namespace {

using backends::RemoteHeader;
using backends::RemoteRequest;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kExitTimeout = 124;
constexpr int kExitInterrupt = 130;
constexpr std::size_t kMaxBodyInMessage = 2048;

void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

struct Io {
  OutputSink out, err;
  explicit Io(const RemoteRun& run) : out(run.out), err(run.err) {
    if (!out) out = [](std::string_view s) { WriteAll(1, s); };
    if (!err) err = [](std::string_view s) { WriteAll(2, s); };
  }
};

bool Interrupted(const RemoteRun& run) { return run.interrupt != nullptr && run.interrupt->load(); }

HttpRequest ToHttp(const RemoteRequest& r) {
  HttpRequest h{r.method, r.url, {}, r.body};
  for (const RemoteHeader& hd : r.headers) h.headers.emplace_back(hd.name, hd.value);
  return h;
}

HttpOptions BaseOptions(const RemoteRun& run, long total_ms) {
  HttpOptions o;
  o.connect_timeout_ms = run.connect_timeout_ms;
  o.total_timeout_ms = total_ms;
  o.max_body_bytes = run.max_body_bytes;
  o.cancel = run.interrupt;
  return o;
}

// BodyExcerpt is a bounded, printable excerpt of a response body for messages.
std::string BodyExcerpt(const std::string& body) {
  std::string out;
  for (char c : body.substr(0, kMaxBodyInMessage)) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u < 0x20 && c != '\n' && c != '\t') ? '?' : c;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (body.size() > kMaxBodyInMessage) absl::StrAppend(&out, "... (", body.size(), " bytes)");
  return out;
}

bool Is2xx(long status) { return status >= 200 && status < 300; }

// ---- Codewhale's contract (reference §11.1) ---------------------------------

absl::StatusOr<RemoteOutcome> RunCodewhale(const RemoteRun& run, const Io& io) {
  const ir::LaunchPlan& plan = *run.plan;
  RemoteRequest req = backends::CodewhaleRun(plan.remote->url, backends::ShellCommand(run.program),
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
    return absl::UnavailableError(absl::StrCat("OpenSandbox returned HTTP ", resp->status, ": ",
                                               BodyExcerpt(resp->body)));
  }
  absl::StatusOr<int> code = ReadCodewhaleBody(resp->body, io.out, io.err);
  if (!code.ok()) return code.status();
  outcome.exit_code = *code;
  return outcome;
}

}  // namespace

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

// ---- execd ------------------------------------------------------------------

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

namespace {

void InterruptCommand(const RemoteRun& run, const Io& io, const std::string& execd_url,
                      const std::string& id, const std::vector<RemoteHeader>& auth) {
  if (id.empty()) {
    io.err("cwsc: the remote command had not reported its id; it could not be interrupted\n");
    return;
  }
  HttpOptions o = BaseOptions(run, run.request_timeout_ms);
  o.cancel = nullptr;  // the interrupt itself must go out
  absl::StatusOr<HttpResponse> r = HttpSend(ToHttp(backends::ExecdInterrupt(execd_url, id, auth)), o);
  if (!r.ok() || !Is2xx(r->status)) {
    std::string why = r.ok() ? ExecdErrorText(r->status, r->body) : std::string(r.status().message());
    io.err(Redact(absl::StrCat("cwsc: could not interrupt remote command ", id, ": ", why, "\n"),
                  run.api_key));
  }
}

// RunExecd runs the command through execd at `execd_url` with the `auth`
// headers; `auth_origin` says where they come from (for a refused token).
absl::StatusOr<RemoteOutcome> RunExecd(const RemoteRun& run, const Io& io,
                                       const std::string& execd_url,
                                       const std::vector<RemoteHeader>& auth,
                                       const std::string& auth_origin) {
  const ir::LaunchPlan& plan = *run.plan;
  RemoteRequest req = backends::ExecdCommand(execd_url, backends::ShellCommand(run.program),
                                             backends::RemoteEnv(plan), plan.remote->remote_cwd,
                                             run.timeout_ms, auth);
  ExecdStream stream(io.out, io.err, run.max_event_bytes);
  std::string sink_error;
  HttpOptions o = BaseOptions(run, run.timeout_ms ? static_cast<long>(*run.timeout_ms) + run.grace_ms : 0);
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
    bool deadline = absl::IsDeadlineExceeded(resp.status()) && run.timeout_ms &&
                    !stream.command_id().empty();
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

// ---- the lifecycle API ----------------------------------------------------------

absl::StatusOr<Json> LifecycleCall(const RemoteRun& run, const RemoteRequest& req,
                                   bool expect_body, long* http_status = nullptr) {
  absl::StatusOr<HttpResponse> r = HttpSend(ToHttp(req), BaseOptions(run, run.request_timeout_ms));
  if (http_status != nullptr) *http_status = r.ok() ? r->status : 0;
  if (!r.ok()) {
    if (absl::IsCancelled(r.status())) return r.status();
    return absl::UnavailableError(absl::StrCat("OpenSandbox lifecycle API (", req.step,
                                               ") failed: ", r.status().message()));
  }
  if (!Is2xx(r->status)) {
    return absl::UnavailableError(absl::StrCat("OpenSandbox lifecycle API (", req.step,
                                               ") returned HTTP ", r->status, ": ",
                                               BodyExcerpt(r->body)));
  }
  if (!expect_body) return Json();
  Json j = Json::parse(r->body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::DataLossError(absl::StrCat("OpenSandbox lifecycle API (", req.step,
                                            "): response is not a JSON object"));
  }
  return j;
}

absl::Status Missing(const RemoteRequest& req, const char* what) {
  return absl::DataLossError(absl::StrCat("OpenSandbox lifecycle API (", req.step,
                                          "): response has no ", what));
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
  const ir::Remote& rm = *run.plan->remote;
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
        if (st.contains(f) && st[f].is_string()) absl::StrAppend(&why, ": ", st[f].get<std::string>());
      }
      return absl::FailedPreconditionError(
          absl::StrCat("OpenSandbox sandbox ", id, " is ", state, why));
    }
    if (Clock::now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat("OpenSandbox sandbox ", id,
                                                      " did not reach Running within ",
                                                      run.start_timeout_ms, " ms (last state ",
                                                      state, ")"));
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

absl::StatusOr<RemoteOutcome> RunLifecycle(const RemoteRun& run, const Io& io) {
  const ir::Remote& rm = *run.plan->remote;
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
    io.err(absl::StrCat("cwsc: keeping OpenSandbox sandbox ", id, " (sandbox_keep)\n"));
  } else {
    RemoteRun cleanup = run;
    cleanup.interrupt = nullptr;  // delete even after an interrupt
    absl::StatusOr<Json> d =
        LifecycleCall(cleanup, backends::LifecycleDelete(rm.url, id, run.api_key), false);
    deleted = d.ok();
    if (!d.ok()) {
      io.err(Redact(absl::StrCat("cwsc: warning: could not delete OpenSandbox sandbox ", id, ": ",
                                 d.status().message(), "\n"),
                    run.api_key));
    }
  }
  if (!result.ok()) return result.status();
  result->sandbox_id = id;
  result->sandbox_deleted = deleted;
  return result;
}

}  // namespace

std::string ExecdErrorText(long status, const std::string& body) {
  Json j = Json::parse(body, nullptr, false);
  if (j.is_object() && j.size() == 1 && j.contains("error") && j["error"].is_string()) {
    return absl::StrCat("HTTP ", status, ": ", BodyExcerpt(j["error"].get<std::string>()));
  }
  if (j.is_object() && j.contains("message") && j["message"].is_string()) {
    std::string code;
    if (j.contains("code") && j["code"].is_string() && !j["code"].get<std::string>().empty()) {
      code = absl::StrCat(" (", BodyExcerpt(j["code"].get<std::string>()), ")");
    }
    return absl::StrCat("HTTP ", status, code, ": ", BodyExcerpt(j["message"].get<std::string>()));
  }
  return absl::StrCat("HTTP ", status, ": ", BodyExcerpt(body));
}

std::string Redact(std::string text, const std::optional<std::string>& secret) {
  if (!secret || secret->empty()) return text;
  size_t pos = 0;
  while ((pos = text.find(*secret, pos)) != std::string::npos) {
    text.replace(pos, secret->size(), "[redacted]");
    pos += 10;
  }
  return text;
}

absl::StatusOr<RemoteOutcome> RunRemote(const RemoteRun& run) {
  if (run.plan == nullptr || !run.plan->remote || run.plan->kind != ir::PlanKind::kOpenSandbox) {
    return absl::InvalidArgumentError("the plan is not an OpenSandbox plan");
  }
  if (run.program.empty()) return absl::InvalidArgumentError("no program to run");
  if (absl::Status s = backends::CheckRemoteProgram(run.program); !s.ok()) return s;
  Io io(run);
  const ir::Remote& rm = *run.plan->remote;
  absl::StatusOr<RemoteOutcome> r;
  if (rm.contract == ir::Contract::kCodewhale) {
    r = RunCodewhale(run, io);
  } else if (rm.contract == ir::Contract::kExecd) {
    r = RunExecd(run, io, rm.url, backends::ExecdAuth(run.api_key),
                 rm.api_key.kind == ir::ApiKeySource::Kind::kNone
                     ? std::string("no access token was sent: the plan names no key")
                     : absl::StrCat("the key from ", rm.api_key.Describe(), " was refused"));
  } else {
    r = RunLifecycle(run, io);
  }
  if (!r.ok()) {
    return absl::Status(r.status().code(), Redact(std::string(r.status().message()), run.api_key));
  }
  return r;
}

namespace {

absl::StatusOr<std::optional<std::string>> ReadKeyFromEnv(const ir::ApiKeySource& source) {
  const char* v = std::getenv(source.name.c_str());
  if (v == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the plan takes the OpenSandbox API key from ", source.Describe(), ", which is not set"));
  }
  return std::optional<std::string>(v);
}

// ReadKeyFromFile reads a .cwsp policy's `api_key file "PATH"`.
absl::StatusOr<std::optional<std::string>> ReadKeyFromFile(const std::string& path) {
  std::ifstream key_file(path, std::ios::binary);
  if (!key_file) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read the OpenSandbox API key file ", path));
  }
  std::stringstream ks;
  ks << key_file.rdbuf();
  std::string key = ks.str();
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r' || key.back() == ' ')) {
    key.pop_back();
  }
  if (key.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the OpenSandbox API key file ", path, " is empty"));
  }
  return std::optional<std::string>(key);
}

// ReadKeyFromConfig re-reads the config layer that set sandbox_api_key.
absl::StatusOr<std::optional<std::string>> ReadKeyFromConfig(const ir::Origin& origin) {
  const std::string& file = origin.file;
  std::ifstream in(file, std::ios::binary);
  if (file.empty() || !in) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot re-read the OpenSandbox API key: cannot open ", file));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  compiler::Layer layer = origin.kind == ir::Origin::Kind::kManaged   ? compiler::Layer::kManaged
                          : origin.kind == ir::Origin::Kind::kProject ? compiler::Layer::kProject
                                                                      : compiler::Layer::kUser;
  absl::StatusOr<compiler::ConfigLayer> cfg = compiler::ReadTomlConfig(ss.str(), file, layer);
  if (!cfg.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot re-read the OpenSandbox API key from ", file));
  }
  if (!cfg->spec.sandbox_api_key) {
    return absl::FailedPreconditionError(
        absl::StrCat("the plan takes the OpenSandbox API key from ", file,
                     ", which no longer sets sandbox_api_key"));
  }
  return std::optional<std::string>(cfg->spec.sandbox_api_key->value);
}

}  // namespace

absl::StatusOr<std::optional<std::string>> ReadApiKey(const ir::ApiKeySource& source) {
  using Kind = ir::ApiKeySource::Kind;
  switch (source.kind) {
    case Kind::kNone: return std::optional<std::string>();
    case Kind::kEnv: return ReadKeyFromEnv(source);
    case Kind::kFile: return ReadKeyFromFile(source.name);
    case Kind::kConfig: return ReadKeyFromConfig(source.origin);
  }
  return std::optional<std::string>();
}

}  // namespace cwsc::runtime
