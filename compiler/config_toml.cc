#include "compiler/config_toml.h"

#include <algorithm>
#include <functional>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/toml_checked.h"

namespace cwsc::compiler {
namespace {

using ir::Diagnostic;

ir::Origin::Kind OriginKind(Layer layer) {
  switch (layer) {
    case Layer::kManaged: return ir::Origin::Kind::kManaged;
    case Layer::kProject: return ir::Origin::Kind::kProject;
    default: return ir::Origin::Kind::kConfig;
  }
}

class Reader {
 public:
  Reader(const std::string& text, const std::string& file, Layer layer)
      : text_(text), file_(file), layer_(layer) {}

  ir::Origin OriginOf(const std::string& key, const toml::node& n) const {
    const auto& b = n.source().begin;
    return ir::Origin{OriginKind(layer_), key, file_, static_cast<int>(b.line),
                      static_cast<int>(b.column)};
  }

  void Error(const toml::node& n, const std::string& message) {
    const auto& b = n.source().begin;
    diags_.Add(Diagnostic{Diagnostic::Severity::kError, file_, static_cast<int>(b.line),
                          static_cast<int>(b.column), message,
                          ir::SourceLineAt(text_, static_cast<int>(b.line))});
  }
  void Note(const toml::node& n, const std::string& message) {
    const auto& b = n.source().begin;
    notes_.push_back(Diagnostic{Diagnostic::Severity::kNote, file_, static_cast<int>(b.line),
                                static_cast<int>(b.column), message, ""});
  }

  std::optional<Setting<std::string>> String(const std::string& key, const toml::node& n) {
    if (const auto* s = n.as_string()) return Setting<std::string>{s->get(), OriginOf(key, n)};
    Error(n, absl::StrCat("'", key, "' must be a string, not ", TypeName(n)));
    return std::nullopt;
  }
  std::optional<Setting<bool>> Bool(const std::string& key, const toml::node& n) {
    if (const auto* b = n.as_boolean()) return Setting<bool>{b->get(), OriginOf(key, n)};
    Error(n, absl::StrCat("'", key, "' must be a boolean (true or false), not ", TypeName(n)));
    return std::nullopt;
  }
  std::optional<Setting<PathList>> Paths(const std::string& key, const toml::node& n) {
    const auto* arr = n.as_array();
    if (arr == nullptr) {
      Error(n, absl::StrCat("'", key, "' must be a list of path strings, not ", TypeName(n)));
      return std::nullopt;
    }
    Setting<PathList> out{{}, OriginOf(key, n)};
    bool ok = true;
    for (const toml::node& item : *arr) {
      const auto* s = item.as_string();
      if (s == nullptr) {
        Error(item, absl::StrCat("'", key, "' entries must be path strings, not ", TypeName(item)));
        ok = false;
        continue;
      }
      if (s->get().empty()) {
        Error(item, absl::StrCat("'", key, "' entries must not be empty"));
        ok = false;
        continue;
      }
      if (s->get().find('\0') != std::string::npos) {
        Error(item, absl::StrCat("'", key, "' entries must not contain NUL bytes"));
        ok = false;
        continue;
      }
      out.value.push_back(Setting<std::string>{s->get(), OriginOf(key, item)});
    }
    if (!ok) return std::nullopt;
    return out;
  }
  std::optional<Setting<std::vector<std::string>>> Argv(const std::string& key,
                                                        const toml::node& n) {
    auto paths = Paths(key, n);
    if (!paths) return std::nullopt;
    Setting<std::vector<std::string>> out{{}, paths->origin};
    for (const auto& p : paths->value) out.value.push_back(p.value);
    if (out.value.empty()) {
      Error(n, absl::StrCat("'", key, "' must not be empty"));
      return std::nullopt;
    }
    return out;
  }

  static std::string TypeName(const toml::node& n) {
    switch (n.type()) {
      case toml::node_type::string: return "a string";
      case toml::node_type::integer: return "an integer";
      case toml::node_type::floating_point: return "a float";
      case toml::node_type::boolean: return "a boolean";
      case toml::node_type::array: return "a list";
      case toml::node_type::table: return "a table";
      default: return "a date/time";
    }
  }

  ir::Diagnostics& diags() { return diags_; }
  std::vector<Diagnostic>& notes() { return notes_; }
  Layer layer() const { return layer_; }
  const std::string& file() const { return file_; }

 private:
  const std::string& text_;
  const std::string& file_;
  Layer layer_;
  ir::Diagnostics diags_;
  std::vector<Diagnostic> notes_;
};

// KeyHandler stores one key's value into the spec.
struct KeyHandler {
  const char* name;
  const char* alias;  // camelCase alias or nullptr
  std::function<void(Reader&, PolicySpec&, const std::string&, const toml::node&)> read;
};

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
      {"sandbox_read_denylist_defaults", "sandboxReadDenylistDefaults",
       Store(&PolicySpec::sandbox_read_denylist_defaults, &Reader::Bool)},
      {"sandbox_denied_read_paths", "sandboxDeniedReadPaths",
       Store(&PolicySpec::sandbox_denied_read_paths, &Reader::Paths)},
      {"sandbox_read_denylist_exempt", "sandboxReadDenylistExempt",
       Store(&PolicySpec::sandbox_read_denylist_exempt, &Reader::Paths)},
      {"tool_launcher", "toolLauncher",
       [](Reader& r, PolicySpec& spec, const std::string& key, const toml::node& n) {
         if (r.layer() == Layer::kUser) {
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
           r.Error(n, absl::StrCat("'", key, "' must be \"codewhale\", \"execd\" or "
                                   "\"lifecycle\", not '", v->value, "'"));
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

// Keys that look like sandbox settings but sit in a table Codewhale ignores.
bool IsSandboxKeyName(const std::string& key) {
  for (const KeyHandler& h : Handlers()) {
    if (key == h.name || (h.alias && key == h.alias)) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> NormalizeSandboxMode(const std::string& value) {
  std::string v = absl::AsciiStrToLower(absl::StripAsciiWhitespace(value));
  if (v == "read-only" || v == "workspace-write" || v == "danger-full-access" ||
      v == "external-sandbox") {
    return v;
  }
  return std::nullopt;
}

std::string InvalidSandboxModeMessage(const std::string& value) {
  return absl::StrCat("Invalid sandbox_mode '", value,
                      "': expected read-only, workspace-write, danger-full-access, or "
                      "external-sandbox.");
}

absl::StatusOr<ConfigLayer> ReadTomlConfig(const std::string& text, const std::string& file,
                                           Layer layer) {
  toml::table table;
  try {
    table = toml::parse(std::string_view(text), std::string_view(file));
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    int line = static_cast<int>(b.line), col = static_cast<int>(b.column);
    return ir::ErrorAt(file, line, col, absl::StrCat("malformed TOML: ", std::string(e.description())),
                       ir::SourceLineAt(text, line));
  } catch (const TomlCheckFailed& e) {
    // toml++ met a document its parser does not expect (compiler/toml_checked.h).
    int line = static_cast<int>(e.line), col = static_cast<int>(e.column);
    std::string what = "unexpected input";
    if (line > 0) {
      std::string src = ir::SourceLineAt(text, line);
      size_t at = static_cast<size_t>(col > 0 ? col - 1 : 0);
      unsigned char c = at < src.size() ? static_cast<unsigned char>(src[at]) : 0;
      // Columns count code points: name the character only on a plain ASCII prefix.
      for (size_t i = 0; i < at && i < src.size(); ++i) {
        if (static_cast<unsigned char>(src[i]) >= 0x80) c = 0;
      }
      what = c > 0x20 && c < 0x7f ? absl::StrCat("unexpected character '", std::string(1, c), "'")
                                  : "unexpected character";
    }
    return ir::ErrorAt(file, line, col, absl::StrCat("malformed TOML: ", what),
                       ir::SourceLineAt(text, line));
  }
  Reader r(text, file, layer);
  ConfigLayer out;
  // toml++ keeps keys sorted; walk them in source order so errors and
  // "repeats" messages follow the file.
  std::vector<std::pair<std::string, const toml::node*>> entries;
  for (const auto& [k, node] : table) entries.emplace_back(std::string(k.str()), &node);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const auto& pa = a.second->source().begin;
    const auto& pb = b.second->source().begin;
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  std::map<std::string, std::string> seen;  // canonical key -> spelling used
  for (const auto& [key, node_ptr] : entries) {
    const toml::node& node = *node_ptr;
    const KeyHandler* handler = nullptr;
    for (const KeyHandler& h : Handlers()) {
      if (key == h.name || (h.alias && key == h.alias)) handler = &h;
    }
    if (handler == nullptr) {
      if (const auto* sub = node.as_table()) {
        for (const auto& [sk, snode] : *sub) {
          std::string skey(sk.str());
          if (IsSandboxKeyName(skey)) {
            r.Note(snode, absl::StrCat("ignoring '", key, ".", skey, "': sandbox keys are read only "
                                       "at the top level of the config"));
          }
        }
      }
      continue;  // unrelated Codewhale keys are ignored silently
    }
    auto [it, inserted] = seen.emplace(handler->name, key);
    if (!inserted) {
      r.Error(node, absl::StrCat("'", key, "' repeats '", it->second, "' (the same setting)"));
      continue;
    }
    handler->read(r, out.spec, handler->name, node);
  }
  if (r.diags().HasErrors()) return r.diags().ToStatus();
  out.notes = std::move(r.notes());
  return out;
}

}  // namespace cwsc::compiler
