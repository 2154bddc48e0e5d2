// The config-key table's lookups, and the checks that hold the table to
// PolicySpec: each row names a field of its type, no two rows share one.
#include "compiler/config_key_table.h"

#include <type_traits>

namespace cwsc::compiler {
namespace {

// FieldFits: a row's field holds the value its type reads.
constexpr bool FieldFits(const ConfigKey& k) {
  switch (k.type) {
    case KeyType::kString:
    case KeyType::kSecret:
      return std::holds_alternative<std::optional<Setting<std::string>> PolicySpec::*>(k.field);
    case KeyType::kSandboxMode:
      return std::holds_alternative<std::optional<Setting<SandboxMode>> PolicySpec::*>(k.field);
    case KeyType::kSandboxBackend:
      return std::holds_alternative<std::optional<Setting<SandboxBackend>> PolicySpec::*>(k.field);
    case KeyType::kLinuxBackend:
      return std::holds_alternative<std::optional<Setting<LinuxBackend>> PolicySpec::*>(k.field);
    case KeyType::kOpenSandboxApi:
      return std::holds_alternative<std::optional<Setting<ir::Contract>> PolicySpec::*>(k.field);
    case KeyType::kBool:
      return std::holds_alternative<std::optional<Setting<bool>> PolicySpec::*>(k.field);
    case KeyType::kPaths:
    case KeyType::kNames:
      return std::holds_alternative<std::optional<Setting<PathList>> PolicySpec::*>(k.field);
    case KeyType::kArgv:
      return std::holds_alternative<std::optional<Setting<std::vector<std::string>>> PolicySpec::*>(
          k.field);
    case KeyType::kPort:
      return std::holds_alternative<std::optional<Setting<int>> PolicySpec::*>(k.field);
  }
  return false;
}

constexpr bool TableIsSound() {
  for (size_t i = 0; i < std::size(kConfigKeys); ++i) {
    const ConfigKey& k = kConfigKeys[i];
    if (!FieldFits(k) || k.name.empty() || k.alias.empty() || k.doc.empty()) return false;
    // An environment override is exactly the env layer's permission.
    if (k.env.name.empty() == k.AllowedIn(Layer::kEnv)) return false;
    for (size_t j = i + 1; j < std::size(kConfigKeys); ++j) {
      const ConfigKey& o = kConfigKeys[j];
      if (k.field == o.field || k.name == o.name || k.alias == o.alias) return false;
    }
  }
  return true;
}
static_assert(TableIsSound(),
              "a config key's field does not fit its type, is shared, or its env override "
              "disagrees with its layers");

}  // namespace

const ConfigKey* FindConfigKey(std::string_view name_or_alias) {
  for (const ConfigKey& k : kConfigKeys) {
    if (name_or_alias == k.name || name_or_alias == k.alias) return &k;
  }
  return nullptr;
}

}  // namespace cwsc::compiler
