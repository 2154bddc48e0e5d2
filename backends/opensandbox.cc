#include "backends/opensandbox.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/argv_format.h"
#include "ir/display.h"

namespace cwsc::backends {
namespace {

using OJson = nlohmann::ordered_json;

OJson EnvObject(const EnvList& env) {
  OJson o = OJson::object();
  for (const auto& [k, v] : env) o[k] = v;  // a later entry replaces an earlier one
  return o;
}

std::string Dump(const OJson& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<RemoteHeader> JsonHeaders() { return {{"Content-Type", "application/json"}}; }

std::vector<RemoteHeader> LifecycleAuth(const std::optional<std::string>& key) {
  if (!key) return {};
  return {{"OPEN-SANDBOX-API-KEY", *key, true}};
}

}  // namespace

const std::vector<std::string>& DefaultEntrypoint() {
  static const std::vector<std::string> kEntrypoint = {"tail", "-f", "/dev/null"};
  return kEntrypoint;
}

std::string ShellCommand(const std::vector<std::string>& program) {
  std::string out;
  for (const std::string& word : program) {
    if (!out.empty()) out += ' ';
    out += ShellQuote(word);
  }
  return out;
}

EnvList RemoteEnv(const ir::LaunchPlan& plan) {
  EnvList env;
  for (const ir::EnvVar& v : plan.env_set) env.emplace_back(v.name, v.value);
  return env;
}

std::string TrimUrl(const std::string& url) {
  std::string out = url;
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out;
}

RemoteRequest CodewhaleRun(const std::string& base_url, const std::string& cmd, const EnvList& env,
                           const std::optional<std::string>& key) {
  RemoteRequest r{"run", "POST", TrimUrl(base_url) + "/v1/sandbox/run", JsonHeaders(), ""};
  if (key) r.headers.push_back({"Authorization", "Bearer " + *key, true});
  OJson body;
  body["cmd"] = cmd;
  body["env"] = EnvObject(env);
  r.body = Dump(body);
  return r;
}

std::vector<RemoteHeader> ExecdAuth(const std::optional<std::string>& token) {
  if (!token) return {};
  return {{"X-EXECD-ACCESS-TOKEN", *token, true}};
}

RemoteRequest ExecdCommand(const std::string& execd_url, const std::string& cmd, const EnvList& env,
                           const std::string& cwd, std::optional<int64_t> timeout_ms,
                           const std::vector<RemoteHeader>& auth) {
  RemoteRequest r{"run command", "POST", TrimUrl(execd_url) + "/command", JsonHeaders(), ""};
  r.headers.push_back({"Accept", "text/event-stream"});
  for (const RemoteHeader& h : auth) r.headers.push_back(h);
  OJson body;
  body["command"] = cmd;
  if (!cwd.empty()) body["cwd"] = cwd;
  body["background"] = false;
  if (timeout_ms) body["timeout"] = *timeout_ms;
  body["envs"] = EnvObject(env);
  r.body = Dump(body);
  return r;
}

RemoteRequest ExecdInterrupt(const std::string& execd_url, const std::string& command_id,
                             const std::vector<RemoteHeader>& auth) {
  std::string id;
  static const char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : command_id) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.' || c == '~';
    if (plain || (command_id.front() == '{' && (c == '{' || c == '}'))) {
      id += static_cast<char>(c);
    } else {
      id += '%';
      id += kHex[c >> 4];
      id += kHex[c & 15];
    }
  }
  RemoteRequest r{"interrupt command", "DELETE", TrimUrl(execd_url) + "/command?id=" + id, auth,
                  ""};
  return r;
}

int64_t SandboxTtlSeconds(std::optional<int64_t> timeout_ms) {
  if (!timeout_ms) return 3600;
  int64_t seconds = (*timeout_ms + 999) / 1000 + 300;  // the command plus startup margin
  return seconds < 60 ? 60 : seconds;
}

RemoteRequest LifecycleCreate(const ir::LaunchPlan& plan, std::optional<int64_t> timeout_ms,
                              const std::optional<std::string>& key) {
  const std::string base = TrimUrl(plan.remote() ? plan.remote()->url : "");
  RemoteRequest r{"create sandbox", "POST", base + "/v1/sandboxes", JsonHeaders(), ""};
  for (const RemoteHeader& h : LifecycleAuth(key)) r.headers.push_back(h);
  OJson body;
  body["image"] = OJson{{"uri", plan.remote() ? plan.remote()->image : ""}};
  body["entrypoint"] = DefaultEntrypoint();
  body["resourceLimits"] = OJson{{"cpu", "500m"}, {"memory", "512Mi"}};
  body["timeout"] = SandboxTtlSeconds(timeout_ms);
  body["metadata"] = OJson{{"created-by", "cwsc"}};
  // A blocked network is an explicit deny (an omitted or empty policy means
  // allow-all). An allowed one sends no networkPolicy: a server without an
  // egress sidecar refuses any request that carries one.
  if (!plan.policy.network_access) {
    body["networkPolicy"] = OJson{{"defaultAction", "deny"}, {"egress", OJson::array()}};
  }
  r.body = Dump(body);
  return r;
}

RemoteRequest LifecycleGet(const std::string& base_url, const std::string& id,
                           const std::optional<std::string>& key) {
  return RemoteRequest{"poll sandbox", "GET", TrimUrl(base_url) + "/v1/sandboxes/" + id,
                       LifecycleAuth(key), ""};
}

RemoteRequest LifecycleEndpoint(const std::string& base_url, const std::string& id, int port,
                                const std::optional<std::string>& key) {
  return RemoteRequest{"find execd endpoint", "GET",
                       absl::StrCat(TrimUrl(base_url), "/v1/sandboxes/", id, "/endpoints/", port),
                       LifecycleAuth(key), ""};
}

RemoteRequest LifecycleDelete(const std::string& base_url, const std::string& id,
                              const std::optional<std::string>& key) {
  return RemoteRequest{"delete sandbox", "DELETE", TrimUrl(base_url) + "/v1/sandboxes/" + id,
                       LifecycleAuth(key), ""};
}

std::vector<RemoteRequest> ReviewRequests(const ir::LaunchPlan& plan,
                                          const std::vector<std::string>& program,
                                          std::optional<int64_t> timeout_ms) {
  std::vector<RemoteRequest> out;
  if (!plan.remote()) return out;
  const ir::Remote& rm = *plan.remote();
  std::optional<std::string> key;
  if (rm.api_key.kind != ir::ApiKeySource::Kind::kNone) {
    key = "<redacted: " + rm.api_key.Describe() + ">";
  }
  const std::string cmd = ShellCommand(program);
  const EnvList env = RemoteEnv(plan);
  if (rm.contract == ir::Contract::kExecd) {
    out.push_back(ExecdCommand(rm.url, cmd, env, rm.remote_cwd, timeout_ms, ExecdAuth(key)));
    out.push_back(ExecdInterrupt(rm.url, "{commandId}", ExecdAuth(key)));
    out.back().step = "interrupt command (only on timeout or SIGINT)";
  } else if (rm.contract == ir::Contract::kLifecycle) {
    const std::string id = "{sandboxId}";
    out.push_back(LifecycleCreate(plan, timeout_ms, key));
    out.push_back(LifecycleGet(rm.url, id, key));
    out.back().step = "poll sandbox (until status.state is Running)";
    out.push_back(LifecycleEndpoint(rm.url, id, rm.execd_port, key));
    std::vector<RemoteHeader> endpoint_headers = {
        {"{endpoint.headers}", "<values returned with the endpoint>", true}};
    out.push_back(
        ExecdCommand("{endpoint}", cmd, env, rm.remote_cwd, timeout_ms, endpoint_headers));
    out.push_back(ExecdInterrupt("{endpoint}", "{commandId}", endpoint_headers));
    out.back().step = "interrupt command (only on timeout or SIGINT)";
    if (!rm.keep) out.push_back(LifecycleDelete(rm.url, id, key));
  } else {
    out.push_back(CodewhaleRun(rm.url, cmd, env, key));
  }
  return out;
}

namespace {

// Preamble and FormatReviewText are text for review: every value in them
// (a URL, a config file's path, a header, the request body) is added to an
// ir::Text, which shows it escaped.
ir::Text Preamble(const ir::LaunchPlan& plan) {
  ir::Text out;
  const ir::Remote& rm = *plan.remote();
  out << "# OpenSandbox contract: " << ir::ContractName(rm.contract) << "\n";
  out << "# API key: ";
  if (rm.api_key.kind == ir::ApiKeySource::Kind::kNone) {
    out << "none (no auth header)";
  } else {
    out << "from " << rm.api_key.Describe() << " (redacted)";
  }
  out << "\n";
  if (rm.contract == ir::Contract::kCodewhale) {
    out << "# total timeout: " << kCodewhaleTimeoutMs / 1000 << " s\n";
  }
  if (rm.contract == ir::Contract::kLifecycle) {
    out << "# network: "
        << (plan.policy.network_access
                ? "allowed (no networkPolicy sent: the service's default)"
                : "networkPolicy.defaultAction deny (enforced by the service's egress "
                  "sidecar, not verified by cwsc)")
        << "\n";
  }
  for (const std::string& n : rm.not_enforced) {
    out << "# not enforced by this backend: " << n << "\n";
  }
  return out;
}

}  // namespace

std::string FormatReviewText(const ir::LaunchPlan& plan, const std::vector<RemoteRequest>& reqs) {
  if (!plan.remote()) return "";
  ir::Text out = Preamble(plan);
  int n = 0;
  for (const RemoteRequest& r : reqs) {
    out << "\n# " << ++n << ". " << r.step << "\n" << r.method << " " << r.url << "\n";
    for (const RemoteHeader& h : r.headers) out << h.name << ": " << h.value << "\n";
    if (!r.body.empty()) {
      // Pretty JSON: its line breaks are its own (a newline in a string is `\n`).
      out << "\n";
      std::string body =
          OJson::parse(r.body).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
      for (absl::string_view line : absl::StrSplit(body, '\n')) {
        out << ir::TerminalSafeJson(std::string_view(line.data(), line.size())) << "\n";
      }
    }
  }
  return out.str();
}

std::string FormatReviewJson(const ir::LaunchPlan& plan, const std::vector<RemoteRequest>& reqs) {
  if (!plan.remote()) return "";
  const ir::Remote& rm = *plan.remote();
  OJson j;
  j["contract"] = ir::ContractName(rm.contract);
  j["api_key_source"] = rm.api_key.Describe();
  j["not_enforced"] = rm.not_enforced;
  j["requests"] = OJson::array();
  for (const RemoteRequest& r : reqs) {
    OJson h = OJson::object();
    for (const RemoteHeader& hd : r.headers) h[hd.name] = hd.value;
    OJson one{{"step", r.step}, {"method", r.method}, {"url", r.url}, {"headers", h}};
    one["body"] = r.body.empty() ? OJson() : OJson::parse(r.body);
    j["requests"].push_back(one);
  }
  // A path in not_enforced or a value may hold bytes that are not UTF-8: shown as U+FFFD.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

absl::Status CheckRemoteProgram(const std::vector<std::string>& program) {
  for (const std::string& token : program) {
    if (!IsValidUtf8(token)) {
      return absl::InvalidArgumentError(
          "a program argument is not valid UTF-8; OpenSandbox requests carry the command in "
          "JSON, which cannot hold it");
    }
  }
  return absl::OkStatus();
}

}  // namespace cwsc::backends
