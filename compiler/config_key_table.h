// The config-key table: every setting a Codewhale config.toml may hold, once.
// Each row gives the key, its camelCase alias, its value type, the layers
// that may set it, its environment override, the .cwsp statement that sets
// the same PolicySpec field, a one-line meaning and the field itself. Every
// consumer reads it: the TOML reader (config_keys.cc: names, aliases, how a
// value is read and checked, which layer may set it), the unknown-key
// warnings and their "did you mean" (config_keys.cc), the look-alike table
// (key_lookalikes.cc, checked against it at compile time), layering
// (overlay.cc: the merge rule follows the type; layers.cc: the environment
// overrides), the policy size limit (compile.cc) and docs/config.md
// (tests/compiler/config_key_table_test.cc compares the two).
#ifndef CWSC_COMPILER_CONFIG_KEY_TABLE_H_
#define CWSC_COMPILER_CONFIG_KEY_TABLE_H_

#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "compiler/policy_spec.h"

namespace cwsc::compiler {

// KeyType is how a key's value is read and checked (compiler/config_keys.cc).
enum class KeyType {
  kString,          // a string
  kSecret,          // a string never shown; the environment only says it is set
  kBool,            // true or false
  kPaths,           // a list of paths
  kNames,           // a list of single names (".git")
  kArgv,            // a list of non-empty strings (an argv prefix)
  kPort,            // an integer from 1 to 65535
  kSandboxMode,     // read-only, workspace-write, danger-full-access, external-sandbox
  kSandboxBackend,  // none or opensandbox (any other text: a refused plan)
  kLinuxBackend,    // auto, bwrap, landlock: a LinuxBackend
  kOpenSandboxApi,  // codewhale, execd, lifecycle: an ir::Contract
};

// Merge is how a higher layer's value replaces the one below (overlay.cc).
enum class Merge {
  kScalar,  // a set value wins
  kList,    // a non-empty list wins
  kApiKey,  // the key's sources move together: a layer naming any replaces all
};

constexpr Merge MergeOf(KeyType t) {
  if (t == KeyType::kPaths || t == KeyType::kNames) return Merge::kList;
  if (t == KeyType::kSecret) return Merge::kApiKey;
  return Merge::kScalar;
}

constexpr unsigned LayerBit(Layer l) { return 1u << static_cast<unsigned>(l); }
// The layers of a file (the user config and the managed overlay); the
// project overlay takes sandbox_mode only (docs/behavior.md B-5).
inline constexpr unsigned kFileLayers = LayerBit(Layer::kUser) | LayerBit(Layer::kManaged);
inline constexpr unsigned kFileAndEnv = kFileLayers | LayerBit(Layer::kEnv);

// EnvNames: the variable that overrides a key (docs/behavior.md B-2) and its
// legacy name, read when the primary is unset.
struct EnvNames {
  std::string_view name;           // "" when the key has no override
  std::string_view legacy;         // DEEPSEEK_*
  bool legacy_deprecated = false;  // the legacy name alone warns
};
constexpr EnvNames EnvOverride(std::string_view name, std::string_view legacy,
                               bool legacy_deprecated = false) {
  return {name, legacy, legacy_deprecated};
}

// SpecField is the PolicySpec member a key sets.
using SpecField = std::variant<
    std::optional<Setting<std::string>> PolicySpec::*, std::optional<Setting<bool>> PolicySpec::*,
    std::optional<Setting<PathList>> PolicySpec::*,
    std::optional<Setting<std::vector<std::string>>> PolicySpec::*,
    std::optional<Setting<int>> PolicySpec::*, std::optional<Setting<LinuxBackend>> PolicySpec::*,
    std::optional<Setting<ir::Contract>> PolicySpec::*,
    std::optional<Setting<SandboxMode>> PolicySpec::*,
    std::optional<Setting<SandboxBackend>> PolicySpec::*>;

struct ConfigKey {
  std::string_view name;
  std::string_view alias;  // camelCase
  KeyType type;
  unsigned layers;           // LayerBit()s of the layers that may set it
  EnvNames env;              // its environment override, if any
  std::string_view dsl;      // a .cwsp statement setting the same field, or ""
  std::string_view example;  // a valid TOML value (the tests set each key with it)
  std::string_view doc;      // one line
  SpecField field;

  constexpr bool AllowedIn(Layer l) const { return (layers & LayerBit(l)) != 0; }
};

// The table, in the order the TOML reader has always listed its keys.
// clang-format off
inline constexpr ConfigKey kConfigKeys[] = {
    {"sandbox_mode", "sandboxMode", KeyType::kSandboxMode, kFileAndEnv | LayerBit(Layer::kProject),
     EnvOverride("CODEWHALE_SANDBOX_MODE", "DEEPSEEK_SANDBOX_MODE"), "mode read-only;",
     "\"read-only\"", "narrows the policy the permission mode picks", &PolicySpec::sandbox_mode},
    {"prefer_bwrap", "preferBwrap", KeyType::kBool, kFileAndEnv,
     EnvOverride("CODEWHALE_PREFER_BWRAP", "DEEPSEEK_PREFER_BWRAP", true),
     "wrapper bwrap prefer off;", "false", "false opts out of bubblewrap on Linux",
     &PolicySpec::prefer_bwrap},
    {"bwrap_ro_roots", "bwrapRoRoots", KeyType::kPaths, kFileLayers, {}, "read_only \"/opt\";",
     "[\"/opt\"]", "extra directories bound read-only", &PolicySpec::bwrap_ro_roots},
    {"bwrap_dev_roots", "bwrapDevRoots", KeyType::kPaths, kFileLayers, {}, "device \"/dev/kvm\";",
     "[\"/dev/kvm\"]", "devices bound read-write", &PolicySpec::bwrap_dev_roots},
    {"sandbox_backend", "sandboxBackend", KeyType::kSandboxBackend, kFileAndEnv,
     EnvOverride("CODEWHALE_SANDBOX_BACKEND", "DEEPSEEK_SANDBOX_BACKEND"),
     "backend opensandbox;", "\"opensandbox\"", "none (local) or opensandbox (remote)",
     &PolicySpec::sandbox_backend},
    {"sandbox_url", "sandboxUrl", KeyType::kString, kFileAndEnv,
     EnvOverride("CODEWHALE_SANDBOX_URL", "DEEPSEEK_SANDBOX_URL"),
     "backend opensandbox { url \"http://h:1\"; }", "\"http://h:1\"", "the OpenSandbox base URL",
     &PolicySpec::sandbox_url},
    {"sandbox_api_key", "sandboxApiKey", KeyType::kSecret, kFileAndEnv,
     EnvOverride("CODEWHALE_SANDBOX_API_KEY", "DEEPSEEK_SANDBOX_API_KEY"), "", "\"k\"",
     "the OpenSandbox key, never printed", &PolicySpec::sandbox_api_key},
    {"sandbox_network_access", "sandboxNetworkAccess", KeyType::kBool, kFileLayers, {},
     "network on;", "true", "the network of a sandboxed policy",
     &PolicySpec::sandbox_network_access},
    {"managed_config_path", "managedConfigPath", KeyType::kString, kFileAndEnv,
     EnvOverride("CODEWHALE_MANAGED_CONFIG_PATH", "DEEPSEEK_MANAGED_CONFIG_PATH"),
     "managed_config \"/etc/m.toml\";", "\"/etc/m.toml\"", "where the managed overlay lives",
     &PolicySpec::managed_config_path},
    {"requirements_path", "requirementsPath", KeyType::kString, kFileAndEnv,
     EnvOverride("CODEWHALE_REQUIREMENTS_PATH", "DEEPSEEK_REQUIREMENTS_PATH"), "",
     "\"/etc/r.toml\"", "the administrator's requirements file", &PolicySpec::requirements_path},
    {"sandbox_read_denylist_defaults", "sandboxReadDenylistDefaults", KeyType::kBool,
     kFileLayers, {}, "deny_defaults off;", "false", "apply the built-in credential deny list",
     &PolicySpec::sandbox_read_denylist_defaults},
    {"sandbox_denied_read_paths", "sandboxDeniedReadPaths", KeyType::kPaths, kFileLayers, {},
     "deny read \"~/x\";", "[\"~/x\"]", "extra denied subtrees",
     &PolicySpec::sandbox_denied_read_paths},
    {"sandbox_read_denylist_exempt", "sandboxReadDenylistExempt", KeyType::kPaths, kFileLayers,
     {}, "exempt read \"~/.npmrc\";", "[\"~/.npmrc\"]", "built-in deny rules dropped",
     &PolicySpec::sandbox_read_denylist_exempt},
    {"tool_launcher", "toolLauncher", KeyType::kArgv, LayerBit(Layer::kManaged), {},
     "launcher [\"sudo\"];", "[\"sudo\"]", "argv prefix that runs tools as another user",
     &PolicySpec::tool_launcher},
    {"sandbox_writable_roots", "sandboxWritableRoots", KeyType::kPaths, kFileLayers, {},
     "writable \"/srv\";", "[\"/srv\"]", "extra writable roots",
     &PolicySpec::sandbox_writable_roots},
    {"sandbox_exclude_tmpdir", "sandboxExcludeTmpdir", KeyType::kBool, kFileLayers, {},
     "tmpdir private;", "true", "do not bind $TMPDIR", &PolicySpec::sandbox_exclude_tmpdir},
    {"sandbox_exclude_slash_tmp", "sandboxExcludeSlashTmp", KeyType::kBool, kFileLayers, {},
     "slash_tmp private;", "true", "do not bind the host /tmp",
     &PolicySpec::sandbox_exclude_slash_tmp},
    {"sandbox_require", "sandboxRequire", KeyType::kBool, kFileLayers, {}, "require_sandbox on;",
     "true", "refuse rather than run unconfined", &PolicySpec::sandbox_require},
    {"sandbox_linux_backend", "sandboxLinuxBackend", KeyType::kLinuxBackend, kFileLayers, {},
     "linux_backend landlock;", "\"landlock\"", "the local wrapper on Linux",
     &PolicySpec::sandbox_linux_backend},
    {"sandbox_protected_names", "sandboxProtectedNames", KeyType::kNames, kFileLayers, {},
     "protect \".git\";", "[\".git\"]", "more names kept read-only under each writable root",
     &PolicySpec::sandbox_protected_names},
    // Native OpenSandbox API settings (docs/opensandbox.md).
    {"sandbox_opensandbox_api", "sandboxOpensandboxApi", KeyType::kOpenSandboxApi, kFileLayers,
     {}, "backend opensandbox { api execd; }", "\"execd\"", "the OpenSandbox contract",
     &PolicySpec::sandbox_opensandbox_api},
    {"sandbox_execd_url", "sandboxExecdUrl", KeyType::kString, kFileLayers, {},
     "backend opensandbox { execd_url \"http://h:2\"; }", "\"http://h:2\"",
     "the execd base URL", &PolicySpec::sandbox_execd_url},
    {"sandbox_image", "sandboxImage", KeyType::kString, kFileLayers, {},
     "backend opensandbox { image \"debian:12\"; }", "\"debian:12\"",
     "the image of a lifecycle sandbox", &PolicySpec::sandbox_image},
    {"sandbox_execd_port", "sandboxExecdPort", KeyType::kPort, kFileLayers, {},
     "backend opensandbox { execd_port 9000; }", "9000", "execd's port in a lifecycle sandbox",
     &PolicySpec::sandbox_execd_port},
    {"sandbox_keep", "sandboxKeep", KeyType::kBool, kFileLayers, {},
     "backend opensandbox { keep on; }", "true", "keep the lifecycle sandbox",
     &PolicySpec::sandbox_keep},
    {"sandbox_remote_cwd", "sandboxRemoteCwd", KeyType::kString, kFileLayers, {},
     "backend opensandbox { remote_cwd \"/w\"; }", "\"/w\"", "the remote working directory",
     &PolicySpec::sandbox_remote_cwd},
};
// clang-format on

// ConfigKeys is the table.
constexpr std::span<const ConfigKey> ConfigKeys() { return kConfigKeys; }

// FindConfigKey is the row of a key's name or alias, or nullptr.
const ConfigKey* FindConfigKey(std::string_view name_or_alias);

// IsConfigKeyName: `name` is a row's name (not an alias).
constexpr bool IsConfigKeyName(std::string_view name) {
  for (const ConfigKey& k : kConfigKeys) {
    if (k.name == name) return true;
  }
  return false;
}

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_CONFIG_KEY_TABLE_H_
