// SbplProfile is an evaluator for the subset of Apple's Sandbox Profile
// Language (SBPL) that the Seatbelt backend emits. It reads the emitted
// profile text (not the plan) with the `-DKEY=VALUE` parameters and answers
// "may the confined process read / write path P, connect to H:P?". The last
// matching rule wins; `(deny default)` is a rule that matches everything.
//
//   absl::StatusOr<SbplProfile> p = SbplProfile::Parse(text, {{"WRITABLE_ROOT_0", "/w"}});
//   p->CanWrite("/w/src/main.rs");        // true
//   p->CanConnect(SbplNet::kIPv6, "::1", 8080);
//
// Supported forms: (version 1), (allow|deny OPERATION... FILTER...) with the
// filters subpath, literal, path, regex #"...", (param "K") as a path value,
// require-all, require-any, require-not, extension, vnode-type, target,
// global-name, and (remote ip|ip4|ip6 "host:port") / (remote unix-socket
// (path-literal "p")). Several filters in one rule match when any matches.
// Anything else (an unknown operation, filter or form, an undefined param, a
// bad string escape, unbalanced parentheses) makes Parse fail: a profile that
// cannot be fully understood is never evaluated.
#ifndef CWSC_BACKENDS_VERIFY_SBPL_EVAL_H_
#define CWSC_BACKENDS_VERIFY_SBPL_EVAL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cwsc::backends {

// SbplNet is the address family of a network request.
enum class SbplNet { kNone, kIPv4, kIPv6, kUnix };

// SbplRequest is one operation attempted by the confined process.
struct SbplRequest {
  std::string operation;   // concrete operation: "file-read-data", "file-write-create", ...
  std::string path;        // file operations: the resolved absolute path
  std::string vnode_type;  // "REGULAR-FILE", "DIRECTORY", "CHARACTER-DEVICE"; "" = unknown
  std::vector<std::string> extensions;  // sandbox extensions the process holds
  bool same_sandbox = false;            // signal / process-info target
  std::string global_name;              // mach-lookup service name
  SbplNet net = SbplNet::kNone;         // network-outbound: destination family
  std::string address;                  // IPv4/IPv6 literal (kIPv4/kIPv6)
  int port = 0;                         // destination port (kIPv4/kIPv6)
  std::string socket_path;              // unix socket path (kUnix)
};

// SbplDecision is the verdict for one request.
struct SbplDecision {
  bool allowed = false;
  int rule = -1;          // index of the deciding rule (0-based), -1 when none matched
  int line = 0;           // 1-based line of the deciding rule in the profile text
  std::string rule_text;  // the deciding rule as written
};

// SbplParams binds (param "KEY") references; sandbox-exec's -DKEY=VALUE.
using SbplParams = std::map<std::string, std::string>;

class SbplProfile {
 public:
  // Parse reads a whole profile. `name` labels errors ("name:line:col: ...").
  static absl::StatusOr<SbplProfile> Parse(absl::string_view text, const SbplParams& params,
                                           absl::string_view name = "profile");

  // Decide evaluates one request: the last rule that matches decides.
  SbplDecision Decide(const SbplRequest& request) const;

  // CanRead: file-read-data on `path`.
  bool CanRead(absl::string_view path) const;
  // CanWrite: file-write-data and file-write-create on `path` (a regular file
  // there, or a new one) are both allowed.
  bool CanWrite(absl::string_view path) const;
  // CanConnect: network-outbound to an IP destination.
  bool CanConnect(SbplNet family, absl::string_view address, int port) const;
  // CanConnectUnix: network-outbound to a unix-domain socket.
  bool CanConnectUnix(absl::string_view socket_path) const;

  int rule_count() const;

  struct Impl;
  SbplProfile(const SbplProfile&) = default;
  SbplProfile& operator=(const SbplProfile&) = default;
  SbplProfile(SbplProfile&&) = default;
  SbplProfile& operator=(SbplProfile&&) = default;
  ~SbplProfile();

 private:
  explicit SbplProfile(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

// SandboxExecCall is an emitted `sandbox-exec` argv taken apart again.
struct SandboxExecCall {
  std::string wrapper;                // argv[0]
  std::string profile;                // the -p value
  SbplParams params;                  // every -DKEY=VALUE
  std::vector<std::string> param_order;  // keys in argv order
  std::vector<std::string> program;   // everything after "--"
};

// ParseSandboxExecArgv splits `/usr/bin/sandbox-exec -p P -DK=V ... -- prog...`.
// Rejects a missing -p, a -D element without '=', a repeated key or a missing "--".
absl::StatusOr<SandboxExecCall> ParseSandboxExecArgv(const std::vector<std::string>& argv);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_VERIFY_SBPL_EVAL_H_
