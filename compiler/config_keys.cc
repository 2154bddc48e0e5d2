// The keys the TOML frontend reads (docs/behavior.md B-1 and the cwsc
// extensions): one handler per key with its camelCase alias, and the
// warnings for unknown keys that look like sandbox settings.
#include "compiler/config_keys.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "compiler/edit_distance.h"
#include "compiler/key_lookalikes.h"
#include "compiler/modes.h"

namespace cwsc::compiler::toml_read {
namespace {

template <typename T, typename F>
auto Store(std::optional<Setting<T>> PolicySpec::*field, F read) {
  return [field, read](Reader& r, PolicySpec& spec, const std::string& key, const toml::node& n) {
    auto v = (r.*read)(key, n);
    if (v) spec.*field = std::move(*v);
  };
}

const std::vector<KeyHandler>& Handlers() {
  static const std::vector<KeyHandler> handlers = {
      {"sandbox_mode", "sandboxMode",
       [](Reader& r, PolicySpec& spec, const std::string& key, const toml::node& n) {
         auto v = r.String(key, n);
         if (!v) return;
         if (!NormalizeSandboxMode(v->value)) {
           r.Error(n, InvalidSandboxModeMessage(v->value));
           return;
         }
         spec.sandbox_mode = *v;
       }},
      {"prefer_bwrap", "preferBwrap", Store(&PolicySpec::prefer_bwrap, &Reader::Bool)},
      {"bwrap_ro_roots", "bwrapRoRoots", Store(&PolicySpec::bwrap_ro_roots, &Reader::Paths)},
      {"bwrap_dev_roots", "bwrapDevRoots", Store(&PolicySpec::bwrap_dev_roots, &Reader::Paths)},
      {"sandbox_backend", "sandboxBackend", Store(&PolicySpec::sandbox_backend, &Reader::String)},
      {"sandbox_url", "sandboxUrl", Store(&PolicySpec::sandbox_url, &Reader::String)},
      {"sandbox_api_key", "sandboxApiKey", Store(&PolicySpec::sandbox_api_key, &Reader::String)},
      {"sandbox_network_access", "sandboxNetworkAccess",
       Store(&PolicySpec::sandbox_network_access, &Reader::Bool)},
      {"managed_config_path", "managedConfigPath",
       Store(&PolicySpec::managed_config_path, &Reader::String)},
      {"requirements_path", "requirementsPath",
       Store(&PolicySpec::requirements_path, &Reader::String)},
      {"sandbox_read_denylist_defaults", "sandboxReadDenylistDefaults",
       Store(&PolicySpec::sandbox_read_denylist_defaults, &Reader::Bool)},
      {"sandbox_denied_read_paths", "sandboxDeniedReadPaths",
       Store(&PolicySpec::sandbox_denied_read_paths, &Reader::Paths)},
      {"sandbox_read_denylist_exempt", "sandboxReadDenylistExempt",
       Store(&PolicySpec::sandbox_read_denylist_exempt, &Reader::Paths)},
      {"tool_launcher", "toolLauncher",
       [](Reader& r, PolicySpec& spec, const std::string& key, const toml::node& n) {
         if (r.layer() == Layer::kUser || r.in_profile()) {
           r.Error(n,
                   "'tool_launcher' is only honored from a trusted managed config; it cannot be "
                   "set in a user config or profile");
           return;
         }
         auto v = r.Argv(key, n);
         if (v) spec.tool_launcher = std::move(*v);
       }},
      {"sandbox_writable_roots", "sandboxWritableRoots",
       Store(&PolicySpec::sandbox_writable_roots, &Reader::Paths)},
      {"sandbox_exclude_tmpdir", "sandboxExcludeTmpdir",
       Store(&PolicySpec::sandbox_exclude_tmpdir, &Reader::Bool)},
      {"sandbox_exclude_slash_tmp", "sandboxExcludeSlashTmp",
       Store(&PolicySpec::sandbox_exclude_slash_tmp, &Reader::Bool)},
      {"sandbox_require", "sandboxRequire", Store(&PolicySpec::sandbox_require, &Reader::Bool)},
      {"sandbox_linux_backend", "sandboxLinuxBackend",
       [](Reader& r, PolicySpec& spec, const std::string& key, const toml::node& n) {
         auto v = r.String(key, n);
         if (!v) return;
         std::string b = absl::AsciiStrToLower(absl::StripAsciiWhitespace(v->value));
         if (b != "auto" && b != "bwrap" && b != "landlock") {
           r.Error(n, absl::StrCat("'", key, "' must be \"auto\", \"bwrap\" or \"landlock\", not '",
                                   v->value, "'"));
           return;
         }
         v->value = b;
         spec.sandbox_linux_backend = std::move(*v);
       }},
      {"sandbox_protected_names", "sandboxProtectedNames",
       [](Reader& r, PolicySpec& spec, const std::string& key, const toml::node& n) {
         auto v = r.Paths(key, n);
         if (!v) return;
         for (const auto& name : v->value) {
           if (name.value.find('/') != std::string::npos || name.value == "." ||
               name.value == "..") {
             // The entry's own position is not kept by Paths(); report on the list.
             r.Error(n, absl::StrCat("'", key, "' entries are single names like \".git\", not '",
                                     name.value, "'"));
             return;
           }
         }
         spec.sandbox_protected_names = std::move(*v);
       }},
      // Native OpenSandbox API settings (docs/opensandbox.md).
      {"sandbox_opensandbox_api", "sandboxOpensandboxApi",
       [](Reader& r, PolicySpec& spec, const std::string& key, const toml::node& n) {
         auto v = r.String(key, n);
         if (!v) return;
         std::string api = absl::AsciiStrToLower(absl::StripAsciiWhitespace(v->value));
         if (api != "codewhale" && api != "execd" && api != "lifecycle") {
           r.Error(n, absl::StrCat("'", key,
                                   "' must be \"codewhale\", \"execd\" or "
                                   "\"lifecycle\", not '",
                                   v->value, "'"));
           return;
         }
         spec.sandbox_opensandbox_api = *v;
       }},
      {"sandbox_execd_url", "sandboxExecdUrl",
       Store(&PolicySpec::sandbox_execd_url, &Reader::String)},
      {"sandbox_image", "sandboxImage", Store(&PolicySpec::sandbox_image, &Reader::String)},
      {"sandbox_execd_port", "sandboxExecdPort",
       [](Reader& r, PolicySpec& spec, const std::string& key, const toml::node& n) {
         const auto* i = n.as_integer();
         if (i == nullptr || i->get() < 1 || i->get() > 65535) {
           r.Error(n, absl::StrCat("'", key, "' must be a port number from 1 to 65535"));
           return;
         }
         spec.sandbox_execd_port = Setting<int>{static_cast<int>(i->get()), r.OriginOf(key, n)};
       }},
      {"sandbox_keep", "sandboxKeep", Store(&PolicySpec::sandbox_keep, &Reader::Bool)},
      {"sandbox_remote_cwd", "sandboxRemoteCwd",
       Store(&PolicySpec::sandbox_remote_cwd, &Reader::String)},
  };
  return handlers;
}

// NearMiss returns the known key an unknown one is probably a misspelling of
// (at most 2 edits, case ignored, and a third of the key's length), or "".
std::string NearMiss(const std::string& key) {
  // Every known name and alias ("sandboxMode"), lower-cased once.
  static const std::vector<std::pair<std::string, const char*>>* const kLowered = [] {
    auto* v = new std::vector<std::pair<std::string, const char*>>;
    for (const KeyHandler& h : Handlers()) {
      for (const char* name : {h.name, h.alias}) {
        if (name != nullptr) v->emplace_back(absl::AsciiStrToLower(name), name);
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
bool IsSandboxKeyName(const std::string& key) {
  for (const KeyHandler& h : Handlers()) {
    if (key == h.name || (h.alias && key == h.alias)) return true;
  }
  return false;
}

const KeyHandler* HandlerFor(const std::string& key) {
  for (const KeyHandler& h : Handlers()) {
    if (key == h.name || (h.alias && key == h.alias)) return &h;
  }
  return nullptr;
}

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
