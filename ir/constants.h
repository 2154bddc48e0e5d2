// The host paths and names every layer agrees on: the wrapper programs, the
// probe programs and the environment variables cwsc reads or sets. One
// spelling each, so a plan, a probe and an exec-time check cannot disagree.
#ifndef CWSC_IR_CONSTANTS_H_
#define CWSC_IR_CONSTANTS_H_

#include <string_view>

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

// The kernel interfaces a root command's bwrap sandbox keeps out of reach,
// as the OCI runtime defaults do (docs/decisions.md): read-only in place,
// files masked with /dev/null, directories masked with a read-only tmpfs.
// The compiler masks those this host has; the exec-time check refuses a
// plan that leaves one of them in reach.
inline constexpr const char* kKernelReadOnly[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                                                  "/proc/sysrq-trigger"};
inline constexpr const char* kKernelMaskedFiles[] = {"/proc/kcore",         "/proc/keys",
                                                     "/proc/latency_stats", "/proc/timer_list",
                                                     "/proc/timer_stats",   "/proc/sched_debug"};
inline constexpr const char* kKernelMaskedDirs[] = {"/proc/acpi", "/proc/asound", "/proc/scsi",
                                                    "/sys/firmware"};

// IsKernelInterface: `path` is one of the kernel interfaces above.
constexpr bool IsKernelInterface(std::string_view path) {
  for (const char* k : kKernelReadOnly) {
    if (path == k) return true;
  }
  for (const char* k : kKernelMaskedFiles) {
    if (path == k) return true;
  }
  for (const char* k : kKernelMaskedDirs) {
    if (path == k) return true;
  }
  return false;
}

// The config directories protected in every writable root, whether or not
// the policy names them (docs/behavior.md B-20).
inline constexpr const char* kConfigDirNames[] = {".codewhale", ".deepseek"};

}  // namespace cwsc::ir

#endif  // CWSC_IR_CONSTANTS_H_
