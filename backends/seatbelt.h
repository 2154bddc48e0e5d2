// The Seatbelt backend: a macOS `sandbox-exec` invocation from a LaunchPlan
// (docs/behavior.md B-60). EmitSeatbeltProfile renders the SBPL profile one line at a
// time, each line with the Origin that produced it; EmitSeatbeltArgv wraps it
// as `/usr/bin/sandbox-exec -p PROFILE -DKEY=VALUE ... -- PROGRAM...`.
//
//   absl::StatusOr<EmittedArgv> lines = EmitSeatbeltProfile(plan);
//   std::string sbpl = SeatbeltProfileText(*lines);   // the golden-review form
//
// No path ever appears in the profile text: every host path (writable roots,
// protected subpaths, caches, deny-list entries) is passed as a -D parameter
// and referenced as (param "KEY"), so no byte of a path can change the
// profile's structure. The profile depends only on the plan's shape (policy,
// parameter keys, proxy ports), never on the path strings. Pure: no
// environment, clock or filesystem; see docs/seatbelt.md for every rule.
#ifndef CWSC_BACKENDS_SEATBELT_H_
#define CWSC_BACKENDS_SEATBELT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/emitted.h"
#include "ir/plan.h"
#include "ir/constants.h"

namespace cwsc::backends {

using ir::kSandboxExecPath;
// The system DNS resolver's socket (mDNSResponder), reached by getaddrinfo.
inline constexpr char kMdnsResponderSocket[] = "/private/var/run/mDNSResponder";

// SeatbeltParam is one `-DKEY=VALUE` parameter of the profile.
struct SeatbeltParam {
  std::string key;
  std::string value;
  ir::Origin origin;
  bool operator==(const SeatbeltParam&) const = default;
};

// SeatbeltParams names the plan's Seatbelt paths, in -D order:
// WRITABLE_ROOT_i (each followed by its WRITABLE_ROOT_i_RO_j),
// DARWIN_USER_CACHE_DIR, CARGO_HOME_REGISTRY, CARGO_HOME_GIT, CARGO_HOME,
// NPM_CACHE_DIR, DENY_READ_k.
std::vector<SeatbeltParam> SeatbeltParams(const ir::Seatbelt& sb);

// EmitSeatbeltProfile renders the profile of a plan that has a `seatbelt`
// section. Each element is one line (without its newline). Fails with
// kFailedPrecondition ("plan kind K has no Seatbelt profile") when the plan
// has no seatbelt section, and with kInternal for a proxy port outside
// 1-65535.
absl::StatusOr<EmittedArgv> EmitSeatbeltProfile(const ir::LaunchPlan& plan);

// SeatbeltProfileText joins the lines with '\n' and ends with a newline.
std::string SeatbeltProfileText(const EmittedArgv& lines);

// EmitSeatbeltArgv is the full sandbox-exec argv: wrapper, "-p", the profile
// text, one "-DKEY=VALUE" element per parameter in plan order, "--" and
// `program` (empty: the argv ends at "--" for the caller to append to).
absl::StatusOr<EmittedArgv> EmitSeatbeltArgv(const ir::LaunchPlan& plan,
                                             const std::vector<std::string>& program);

// SeatbeltDetectDenial is the attribution rule of docs/behavior.md B-66: non-zero
// exit and stderr containing "Operation not permitted", "sandbox-exec",
// "deny(" or "Sandbox: ".
bool SeatbeltDetectDenial(int exit_code, const std::string& stderr_text);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_SEATBELT_H_
