// The OpenSandbox backend: the HTTP requests of the three remote contracts
// (docs/opensandbox.md), built purely from a LaunchPlan, the program and the
// command settings. The runtime sends exactly these requests; `cwsc compile
// --target opensandbox` prints them for review with the key redacted.
//
//   std::vector<RemoteRequest> r = ReviewRequests(plan, {"make", "test"}, std::nullopt);
//   std::cout << FormatReviewText(plan, r);
//
// Contracts: "codewhale" (POST {url}/v1/sandbox/run, docs/behavior.md B-70),
// "execd" (POST {execd}/command, event stream), "lifecycle" (create a
// sandbox, wait until Running, find execd, run, delete).
#ifndef CWSC_BACKENDS_OPENSANDBOX_H_
#define CWSC_BACKENDS_OPENSANDBOX_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ir/plan.h"

namespace cwsc::backends {

// RemoteHeader is one request header; `secret` marks a credential value.
struct RemoteHeader {
  std::string name;
  std::string value;
  bool secret = false;
  bool operator==(const RemoteHeader&) const = default;
};

struct RemoteRequest {
  std::string step;    // "run", "create sandbox", "poll sandbox", ...
  std::string method;  // GET, POST, DELETE
  std::string url;
  std::vector<RemoteHeader> headers;
  std::string body;  // compact JSON; empty when the request has no body
  bool operator==(const RemoteRequest&) const = default;
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

// kCodewhaleTimeoutMs is Codewhale's total request timeout (docs/behavior.md B-70).
inline constexpr long kCodewhaleTimeoutMs = 30000;
// DefaultEntrypoint keeps a lifecycle sandbox alive for execd.
const std::vector<std::string>& DefaultEntrypoint();

// ShellCommand joins argv into one POSIX sh command line: every word that is
// not made only of safe characters is single-quoted (' becomes '\'').
std::string ShellCommand(const std::vector<std::string>& program);

// RemoteEnv is the env sent with a command: the plan's env_set (markers,
// overrides) in order, a later entry replacing an earlier one.
EnvList RemoteEnv(const ir::LaunchPlan& plan);

// TrimUrl drops trailing '/' characters.
std::string TrimUrl(const std::string& url);

// Each builder takes the credential to put in its auth header (the key at run
// time, a redaction text for review); nullopt = no auth header.
RemoteRequest CodewhaleRun(const std::string& base_url, const std::string& cmd, const EnvList& env,
                           const std::optional<std::string>& key);
RemoteRequest ExecdCommand(const std::string& execd_url, const std::string& cmd, const EnvList& env,
                           const std::string& cwd, std::optional<int64_t> timeout_ms,
                           const std::vector<RemoteHeader>& auth);
RemoteRequest ExecdInterrupt(const std::string& execd_url, const std::string& command_id,
                             const std::vector<RemoteHeader>& auth);
// ExecdAuth is the header list for the execd contract (X-EXECD-ACCESS-TOKEN).
std::vector<RemoteHeader> ExecdAuth(const std::optional<std::string>& token);

RemoteRequest LifecycleCreate(const ir::LaunchPlan& plan, std::optional<int64_t> timeout_ms,
                              const std::optional<std::string>& key);
RemoteRequest LifecycleGet(const std::string& base_url, const std::string& id,
                           const std::optional<std::string>& key);
RemoteRequest LifecycleEndpoint(const std::string& base_url, const std::string& id, int port,
                                const std::optional<std::string>& key);
RemoteRequest LifecycleDelete(const std::string& base_url, const std::string& id,
                              const std::optional<std::string>& key);

// SandboxTtlSeconds is the lifecycle `timeout` (seconds, >= 60) for a run.
int64_t SandboxTtlSeconds(std::optional<int64_t> timeout_ms);

// ReviewRequests is the whole request sequence of a plan for review; secret
// header values read "<redacted: SOURCE>", placeholders stand for values
// only known at run time ({sandboxId}, {endpoint}, {commandId}).
std::vector<RemoteRequest> ReviewRequests(const ir::LaunchPlan& plan,
                                          const std::vector<std::string>& program,
                                          std::optional<int64_t> timeout_ms);

// FormatReviewText renders requests as HTTP-like text blocks (pretty JSON
// bodies) after a header naming the contract and what is not enforced; it is
// text for people, built as an ir::Text, so every value in it is escaped.
std::string FormatReviewText(const ir::LaunchPlan& plan, const std::vector<RemoteRequest>& reqs);
// FormatReviewJson renders them as one JSON document.
std::string FormatReviewJson(const ir::LaunchPlan& plan, const std::vector<RemoteRequest>& reqs);

// CheckRemoteProgram fails when a program token is not valid UTF-8: every
// OpenSandbox request carries the command in JSON, which cannot hold such
// bytes, and a replaced byte would run a different command.
absl::Status CheckRemoteProgram(const std::vector<std::string>& program);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_OPENSANDBOX_H_
