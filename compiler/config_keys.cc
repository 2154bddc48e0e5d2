// How the TOML frontend reads each key of the config-key table
// (compiler/config_key_table.h), by the row's type, and the warnings for
// unknown keys that look like sandbox settings.
#include "compiler/config_keys.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "compiler/edit_distance.h"
#include "compiler/key_lookalikes.h"
#include "compiler/modes.h"

namespace cwsc::compiler::toml_read {
namespace {

// Store puts a read value into the row's field (the table's static_assert
// holds each field to its type).
template <typename T>
void Store(PolicySpec& spec, const ConfigKey& k, std::optional<Setting<T>> v) {
  if (!v) return;
  auto* member = std::get_if<std::optional<Setting<T>> PolicySpec::*>(&k.field);
  if (member != nullptr) spec.** member = std::move(*v);
}

}  // namespace

void ReadKey(Reader& r, PolicySpec& spec, const ConfigKey& k, const std::string& key,
             const toml::node& n) {
  if ((r.layer() == Layer::kUser || r.in_profile()) && !k.AllowedIn(Layer::kUser)) {
    r.Error(n, absl::StrCat("'", std::string(k.name),
                            "' is only honored from a trusted managed config; it cannot be "
                            "set in a user config or profile"));
    return;
  }
  switch (k.type) {
    case KeyType::kString:
    case KeyType::kSecret:
      Store(spec, k, r.String(key, n));
      return;
    case KeyType::kBool:
      Store(spec, k, r.Bool(key, n));
      return;
    case KeyType::kPaths:
      Store(spec, k, r.Paths(key, n));
      return;
    case KeyType::kArgv:
      Store(spec, k, r.Argv(key, n));
      return;
    case KeyType::kSandboxMode: {
      auto v = r.String(key, n);
      if (!v) return;
      std::optional<SandboxMode> mode = ParseSandboxMode(v->value);
      if (!mode) {
        r.Error(n, InvalidSandboxModeMessage(v->value));
        return;
      }
      Store(spec, k, std::optional<Setting<SandboxMode>>({*std::move(mode), v->origin}));
      return;
    }
    case KeyType::kSandboxBackend: {
      auto v = r.String(key, n);
      if (!v) return;
      Store(
          spec, k,
          std::optional<Setting<SandboxBackend>>({{ParseBackend(v->value), v->value}, v->origin}));
      return;
    }
    case KeyType::kLinuxBackend: {
      auto v = r.String(key, n);
      if (!v) return;
      std::optional<LinuxBackend> b = ParseLinuxBackend(v->value);
      if (!b) {
        r.Error(n, absl::StrCat("'", key, "' must be \"auto\", \"bwrap\" or \"landlock\", not '",
                                v->value, "'"));
        return;
      }
      Store(spec, k, std::optional<Setting<LinuxBackend>>({*b, v->origin}));
      return;
    }
    case KeyType::kOpenSandboxApi: {
      auto v = r.String(key, n);
      if (!v) return;
      std::optional<ir::Contract> api = ParseContract(v->value);
      if (!api) {
        r.Error(n, absl::StrCat("'", key,
                                "' must be \"codewhale\", \"execd\" or "
                                "\"lifecycle\", not '",
                                v->value, "'"));
        return;
      }
      Store(spec, k, std::optional<Setting<ir::Contract>>({*api, v->origin}));
      return;
    }
    case KeyType::kNames: {
      auto v = r.Paths(key, n);
      if (!v) return;
      for (const auto& name : v->value) {
        if (name.value.find('/') != std::string::npos || name.value == "." || name.value == "..") {
          // The entry's own position is not kept by Paths(); report on the list.
          r.Error(n, absl::StrCat("'", key, "' entries are single names like \".git\", not '",
                                  name.value, "'"));
          return;
        }
      }
      Store(spec, k, std::move(v));
      return;
    }
    case KeyType::kPort: {
      const auto* i = n.as_integer();
      if (i == nullptr || i->get() < 1 || i->get() > 65535) {
        r.Error(n, absl::StrCat("'", key, "' must be a port number from 1 to 65535"));
        return;
      }
      Store(spec, k,
            std::optional<Setting<int>>(
                Setting<int>{static_cast<int>(i->get()), r.OriginOf(key, n)}));
      return;
    }
  }
}

namespace {

// NearMiss returns the known key an unknown one is probably a misspelling of
// (at most 2 edits, case ignored, and a third of the key's length), or "".
std::string NearMiss(const std::string& key) {
  // Every known name and alias ("sandboxMode"), lower-cased once.
  static const std::vector<std::pair<std::string, std::string_view>>* const kLowered = [] {
    auto* v = new std::vector<std::pair<std::string, std::string_view>>;
    for (const ConfigKey& k : ConfigKeys()) {
      for (std::string_view name : {k.name, k.alias}) {
        v->emplace_back(absl::AsciiStrToLower(std::string(name)), name);
      }
    }
    return v;
  }();
  std::string lower = absl::AsciiStrToLower(key);
  std::string best;
  size_t best_d = 3;
  for (const auto& [lowered, name] : *kLowered) {
    size_t d = EditDistance(lower, lowered, best_d);
    if (d < best_d && d * 3 <= lowered.size()) {
      best_d = d;
      best = name;
    }
  }
  return best;
}

}  // namespace

// Keys that look like sandbox settings but sit in a table Codewhale ignores.
bool IsSandboxKeyName(const std::string& key) { return FindConfigKey(key) != nullptr; }

const ConfigKey* HandlerFor(const std::string& key) { return FindConfigKey(key); }

// UnknownKeyWarning is the warning for an unknown key `key` (shown as
// `shown`) that looks like a sandbox setting, or "" for an unrelated key:
// another agent's key or a guess (compiler/key_lookalikes.h), else a near
// miss of a known key. A table is measured by its name only (a misspelled
// table name is no key).
std::string UnknownKeyWarning(const std::string& shown, const std::string& key, bool table) {
  const LookAlike* l = LookAlikeFor(key, /*whole_only=*/true);
  if (l != nullptr) {
    return absl::StrCat("unknown key '", shown, "' is ignored (a ", l->from, " key); set '", l->use,
                        "' instead", l->how.empty() ? "" : ": ", l->how);
  }
  std::string near = table ? "" : NearMiss(key);
  if (near.empty() && (l = LookAlikeFor(key)) != nullptr) near = std::string(l->use);
  if (near.empty()) return "";
  return absl::StrCat("unknown key '", shown, "' is ignored; did you mean '", near, "'?");
}

}  // namespace cwsc::compiler::toml_read
