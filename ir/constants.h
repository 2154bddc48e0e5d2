// The host paths and names every layer agrees on: the wrapper programs, the
// probe programs and the environment variables cwsc reads or sets. One
// spelling each, so a plan, a probe and an exec-time check cannot disagree.
#ifndef CWSC_IR_CONSTANTS_H_
#define CWSC_IR_CONSTANTS_H_

namespace cwsc::ir {

// The wrapper programs (docs/behavior.md B-40, B-60).
inline constexpr char kBwrapPath[] = "/usr/bin/bwrap";
inline constexpr char kSandboxExecPath[] = "/usr/bin/sandbox-exec";

// The programs the probes run: a wrapped no-op (Linux, macOS) and the
// launcher user's `id`.
inline constexpr char kTruePath[] = "/bin/true";
inline constexpr char kMacTruePath[] = "/usr/bin/true";
inline constexpr char kIdPath[] = "/usr/bin/id";

// The marker variables set inside every local sandbox, with their value for
// a bwrap sandbox (docs/behavior.md B-31).
inline constexpr char kSandboxMarker[] = "CODEWHALE_SANDBOX";
inline constexpr char kSandboxMarkerLegacy[] = "DEEPSEEK_SANDBOX";
inline constexpr char kBwrapMarkerValue[] = "bwrap";

// The variable naming the managed config, and its older spelling.
inline constexpr char kManagedConfigEnv[] = "CODEWHALE_MANAGED_CONFIG_PATH";
inline constexpr char kManagedConfigEnvLegacy[] = "DEEPSEEK_MANAGED_CONFIG_PATH";

}  // namespace cwsc::ir

#endif  // CWSC_IR_CONSTANTS_H_
