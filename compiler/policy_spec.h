// PolicySpec records what a policy layer *asked for*, in any syntax (Codewhale
// TOML config keys, the .cwsp DSL). Every setting keeps the Origin of the text
// that set it. Layers (user < env < managed, project tightening) are merged
// by compiler/layers.h; compiler/resolve.h turns the merged spec, the
// permission mode and the host facts into a LaunchPlan.
#ifndef CWSC_COMPILER_POLICY_SPEC_H_
#define CWSC_COMPILER_POLICY_SPEC_H_

#include <optional>
#include <string>
#include <vector>

#include "ir/origin.h"
#include "ir/plan.h"

namespace cwsc::compiler {

// Setting is a value with the origin that set it.
template <typename T>
struct Setting {
  T value{};
  ir::Origin origin;
  bool operator==(const Setting&) const = default;
};

// PathList is a list setting whose entries each carry their own origin.
using PathList = std::vector<Setting<std::string>>;

// Layer names where a spec came from; it decides which keys are allowed.
enum class Layer { kUser, kEnv, kManaged, kProject };

// LinuxBackend is the sandbox_linux_backend setting (docs/config.md).
enum class LinuxBackend { kAuto, kBwrap, kLandlock };

// SandboxMode is a sandbox_mode value, parsed once by the frontend that read
// it (compiler/modes.h): the policy it names, and the text as written, which
// messages quote ("ignoring sandbox_mode 'Read-Only'").
struct SandboxMode {
  ir::PolicyType type = ir::PolicyType::kWorkspaceWrite;
  std::string text;
  bool operator==(const SandboxMode&) const = default;
};

// BackendKind is what a sandbox_backend value selects (docs/behavior.md B-71).
enum class BackendKind { kNone, kOpenSandbox, kUnsupported };

// SandboxBackend is a sandbox_backend value, parsed once (compiler/modes.h),
// with the text as written: an unsupported backend's refusal quotes it.
struct SandboxBackend {
  BackendKind kind = BackendKind::kNone;
  std::string text;
  bool operator==(const SandboxBackend&) const = default;
};

struct PolicySpec {
  // Codewhale keys (docs/behavior.md B-1).
  std::optional<Setting<SandboxMode>> sandbox_mode;
  std::optional<Setting<bool>> prefer_bwrap;
  std::optional<Setting<PathList>> bwrap_ro_roots;
  std::optional<Setting<PathList>> bwrap_dev_roots;
  std::optional<Setting<SandboxBackend>> sandbox_backend;
  std::optional<Setting<std::string>> sandbox_url;
  // The key value is kept only for the runtime; plans record the origin alone.
  std::optional<Setting<std::string>> sandbox_api_key;
  std::optional<Setting<bool>> sandbox_network_access;
  std::optional<Setting<std::string>> managed_config_path;
  std::optional<Setting<std::string>> requirements_path;  // allowed_sandbox_modes file
  std::optional<Setting<bool>> sandbox_read_denylist_defaults;
  std::optional<Setting<PathList>> sandbox_denied_read_paths;
  std::optional<Setting<PathList>> sandbox_read_denylist_exempt;
  std::optional<Setting<std::vector<std::string>>> tool_launcher;

  // cwsc extensions (docs/config.md): extra writable roots, tmp exclusions,
  // extra protected names under each writable root.
  std::optional<Setting<PathList>> sandbox_writable_roots;
  std::optional<Setting<bool>> sandbox_exclude_tmpdir;
  std::optional<Setting<bool>> sandbox_exclude_slash_tmp;
  std::optional<Setting<PathList>> sandbox_protected_names;
  // true: a policy that asks for a sandbox is refused when no local wrapper
  // works, instead of running the command unconfined with a warning.
  std::optional<Setting<bool>> sandbox_require;
  // auto (bwrap, Landlock when bwrap cannot make namespaces), bwrap,
  // landlock (docs/config.md); parsed by the frontends (compiler/modes.h).
  std::optional<Setting<LinuxBackend>> sandbox_linux_backend;

  // cwsc extensions for the native OpenSandbox API (docs/opensandbox.md).
  std::optional<Setting<ir::Contract>> sandbox_opensandbox_api;  // codewhale|execd|lifecycle
  std::optional<Setting<std::string>> sandbox_execd_url;         // execd base URL
  std::optional<Setting<std::string>> sandbox_image;             // lifecycle image URI
  std::optional<Setting<int>> sandbox_execd_port;                // lifecycle execd port
  std::optional<Setting<bool>> sandbox_keep;                     // keep the sandbox
  std::optional<Setting<std::string>> sandbox_remote_cwd;        // remote working directory

  // DSL only (docs/dsl.md): where the OpenSandbox API key comes from. A policy
  // names an environment variable or a file; it never holds the key itself.
  std::optional<Setting<std::string>> sandbox_api_key_env;
  std::optional<Setting<std::string>> sandbox_api_key_file;
  // DSL only: the policy's expectations, carried into the plan unchanged.
  std::vector<ir::Expectation> expectations;

  bool operator==(const PolicySpec&) const = default;
};

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_POLICY_SPEC_H_
