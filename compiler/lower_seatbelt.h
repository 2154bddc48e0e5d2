// LowerSeatbelt resolves the macOS host facts the Seatbelt backend needs and
// records them in `plan->seatbelt()` (docs/behavior.md B-61): the -D parameters in
// order (WRITABLE_ROOT_i and WRITABLE_ROOT_i_RO_j from plan->roots, then
// DARWIN_USER_CACHE_DIR, CARGO_HOME_REGISTRY / CARGO_HOME_GIT / CARGO_HOME,
// NPM_CACHE_DIR, then DENY_READ_k from plan->denied_read), and for a
// read-only policy with network the loopback proxy ports (docs/behavior.md B-64). It also adds
// the child markers CODEWHALE_SANDBOX=seatbelt / DEEPSEEK_SANDBOX=seatbelt.
//
//   ir::LaunchPlan plan = ...;   // roots, denied_read, policy already resolved
//   absl::Status s = LowerSeatbelt(facts, spec, &plan);
//
// The resolver calls it when the platform is macOS, the policy sandboxes and
// the Seatbelt probe passed (SeatbeltWrapper(facts).probe_ok).
#ifndef CWSC_COMPILER_LOWER_SEATBELT_H_
#define CWSC_COMPILER_LOWER_SEATBELT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "compiler/facts/host_facts.h"
#include "compiler/policy_spec.h"
#include "ir/plan.h"

namespace cwsc::compiler {

// SeatbeltWrapper answers the availability probe of docs/behavior.md B-60 from the
// facts: /usr/bin/sandbox-exec exists and the probe profile ran with exit 0.
ir::Wrapper SeatbeltWrapper(HostFacts& facts);

absl::Status LowerSeatbelt(HostFacts& facts, const PolicySpec& spec, ir::LaunchPlan* plan);

// ProxyPortResult is the outcome of inspecting the proxy variables.
struct ProxyPortResult {
  std::vector<int> ports;              // sorted, unique loopback proxy ports
  bool proxy_vars_set = false;         // at least one proxy variable has a non-blank value
  std::vector<std::string> consulted;  // variables with a non-blank value, in check order
};

// LoopbackProxyPorts applies the port inference of docs/behavior.md B-64 to
// HTTP_PROXY, HTTPS_PROXY, ALL_PROXY (each also in lower case).
ProxyPortResult LoopbackProxyPorts(HostFacts& facts);

// LoopbackProxyPort parses one proxy value: the port when its host is
// localhost / 127.0.0.1 / ::1 (explicit, else 443 for https, 1080 for
// socks4/4a/5/5h, else 80); nullopt for another host or an unparsable value.
std::optional<int> LoopbackProxyPort(absl::string_view value);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_LOWER_SEATBELT_H_
