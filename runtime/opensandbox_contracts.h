// The parts the OpenSandbox contracts share, and one entry point per
// contract: Codewhale's /v1/sandbox/run shim (runtime/opensandbox_codewhale.cc),
// execd's POST /command event stream (runtime/opensandbox_execd.cc) and the
// lifecycle API (runtime/opensandbox_lifecycle.cc). RunRemote
// (runtime/opensandbox.cc) checks the run and picks one. Internal to the
// runtime: callers use runtime/opensandbox.h.
#ifndef CWSC_RUNTIME_OPENSANDBOX_CONTRACTS_H_
#define CWSC_RUNTIME_OPENSANDBOX_CONTRACTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/opensandbox.h"
#include "runtime/http_client.h"
#include "runtime/opensandbox.h"

namespace cwsc::runtime::remote {

using backends::RemoteHeader;
using backends::RemoteRequest;

// Exit codes of a remote run that did not finish by itself.
inline constexpr int kExitTimeout = 124;
inline constexpr int kExitInterrupt = 130;

// Io is the run's output sinks, defaulting to our stdout and stderr.
struct Io {
  OutputSink out, err;
  explicit Io(const RemoteRun& run);
};

// Interrupted: the run's interrupt flag is set.
bool Interrupted(const RemoteRun& run);
HttpRequest ToHttp(const RemoteRequest& r);
// BaseOptions are the run's HTTP bounds with a total timeout of `total_ms`.
HttpOptions BaseOptions(const RemoteRun& run, long total_ms);
// BodyExcerpt is a bounded, printable excerpt of a response body for messages.
std::string BodyExcerpt(const std::string& body);
bool Is2xx(long status);

// The contracts (docs/opensandbox.md, "The contracts on the wire").
absl::StatusOr<RemoteOutcome> RunCodewhale(const RemoteRun& run, const Io& io);
// RunExecd runs the command through execd at `execd_url` with the `auth`
// headers; `auth_origin` says where they come from (for a refused token).
absl::StatusOr<RemoteOutcome> RunExecd(const RemoteRun& run, const Io& io,
                                       const std::string& execd_url,
                                       const std::vector<RemoteHeader>& auth,
                                       const std::string& auth_origin);
absl::StatusOr<RemoteOutcome> RunLifecycle(const RemoteRun& run, const Io& io);

}  // namespace cwsc::runtime::remote

#endif  // CWSC_RUNTIME_OPENSANDBOX_CONTRACTS_H_
