#include "compiler/config_toml.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/edit_distance.h"
#include "compiler/facts/config_secrets.h"
#include "compiler/key_lookalikes.h"
#include "compiler/overlay.h"
#include "compiler/toml_checked.h"
#include "compiler/toml_lists.h"

namespace cwsc::compiler {
namespace {

using ir::Diagnostic;

ir::Origin::Kind OriginKind(Layer layer) {
  switch (layer) {
    case Layer::kManaged:
      return ir::Origin::Kind::kManaged;
    case Layer::kProject:
      return ir::Origin::Kind::kProject;
    default:
      return ir::Origin::Kind::kConfig;
  }
}

// Pos is a position in the config: toml++'s line and column (code points).
struct Pos {
  int line = 0;
  int col = 0;
  bool operator==(const Pos&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const Pos& p) {
    return H::combine(std::move(h), p.line, p.col);
  }
};

Pos PosOf(const toml::node& n) {
  const auto& b = n.source().begin;
  return Pos{static_cast<int>(b.line), static_cast<int>(b.column)};
}

class Reader {
 public:
  // `text` is the file as read; excerpts come from its redacted form, so a
  // secret value never reaches a message (compiler/facts/config_secrets.h).
  // `fast` holds the lists the scanner read (compiler/toml_lists.h), which
  // toml++ saw empty.
  Reader(const std::string& text, const std::string& file, Layer layer,
         const std::vector<FastList>& fast, size_t* fast_lists_used)
      : text_(text), file_(file), layer_(layer), fast_lists_used_(fast_lists_used) {
    for (const FastList& l : fast) fast_.emplace(Pos{l.line, l.column}, &l);
  }

  // OriginOf: the key and the file names are shared by every origin made
  // here (a list of 10,000 paths makes 10,000 origins).
  ir::Origin OriginOf(const std::string& key, const toml::node& n) {
    const auto& b = n.source().begin;
    return OriginAt(key, Pos{static_cast<int>(b.line), static_cast<int>(b.column)});
  }
  ir::Origin OriginAt(const std::string& key, Pos at) {
    if (shared_key_ != key) shared_key_ = key;
    return ir::Origin{OriginKind(layer_), shared_key_, shared_file_, at.line, at.col};
  }

  void Error(const toml::node& n, const std::string& message) { Error(PosOf(n), message); }
  void Error(Pos at, const std::string& message) {
    diags_.Add(Diagnostic{Diagnostic::Severity::kError, file_, at.line, at.col,
                          ScrubSecrets(text_, message), ir::SourceLineAt(Shown(), at.line)});
  }
  void Warn(const toml::node& n, const std::string& message) {
    Pos at = PosOf(n);
    notes_.push_back(Diagnostic{Diagnostic::Severity::kWarning, file_, at.line, at.col,
                                ScrubSecrets(text_, message), ""});
  }
  void Note(const toml::node& n, const std::string& message) { Note(PosOf(n), message); }
  void Note(Pos at, const std::string& message) {
    notes_.push_back(Diagnostic{Diagnostic::Severity::kNote, file_, at.line, at.col,
                                ScrubSecrets(text_, message), ""});
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
    if (const FastList* fast = arr->empty() ? ListAt(PosOf(n)) : nullptr) {
      // The scanner read this list (compiler/toml_lists.h): printable ASCII strings.
      if (fast_lists_used_ != nullptr) ++*fast_lists_used_;
      out.value.reserve(fast->items.size());
      for (const FastList::Item& item : fast->items) {
        ok = AddPath(key, item.value, Pos{item.line, item.column}, out.value) && ok;
      }
    } else {
      out.value.reserve(arr->size());
      for (const toml::node& item : *arr) {
        const auto* s = item.as_string();
        if (s == nullptr) {
          Error(item,
                absl::StrCat("'", key, "' entries must be path strings, not ", TypeName(item)));
          ok = false;
          continue;
        }
        ok = AddPath(key, s->get(), PosOf(item), out.value) && ok;
      }
    }
    if (!ok) return std::nullopt;
    return out;
  }
  // AddPath checks one entry of a path list and appends it; false on an error.
  bool AddPath(const std::string& key, const std::string& value, Pos at, PathList& out) {
    if (value.empty() && key == "sandbox_denied_read_paths") {
      // docs/behavior.md B-52: an empty denied path is skipped.
      Note(at, absl::StrCat("ignoring an empty entry of '", key, "'"));
      return true;
    }
    if (value.empty()) {
      Error(at, absl::StrCat("'", key, "' entries must not be empty"));
      return false;
    }
    if (value.find('\0') != std::string::npos) {
      Error(at, absl::StrCat("'", key, "' entries must not contain NUL bytes"));
      return false;
    }
    out.push_back(Setting<std::string>{value, OriginAt(key, at)});
    return true;
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
      case toml::node_type::string:
        return "a string";
      case toml::node_type::integer:
        return "an integer";
      case toml::node_type::floating_point:
        return "a float";
      case toml::node_type::boolean:
        return "a boolean";
      case toml::node_type::array:
        return "a list";
      case toml::node_type::table:
        return "a table";
      default:
        return "a date/time";
    }
  }

  ir::Diagnostics& diags() { return diags_; }
  std::vector<Diagnostic>& notes() { return notes_; }
  Layer layer() const { return layer_; }
  bool in_profile() const { return in_profile_; }
  void set_in_profile(bool on) { in_profile_ = on; }
  const std::string& file() const { return file_; }

 private:
  // Shown is the redacted text, made on the first error: a config without
  // errors never pays for a scan of its secrets.
  const std::string& Shown() {
    if (!shown_) shown_ = MaskSecrets(text_);
    return *shown_;
  }

  // ListAt: the list the scanner read at `at`, if any.
  const FastList* ListAt(Pos at) const {
    auto it = fast_.find(at);
    return it == fast_.end() ? nullptr : it->second;
  }

  const std::string& text_;
  absl::flat_hash_map<Pos, const FastList*> fast_;
  std::optional<std::string> shown_;
  const std::string& file_;
  ir::SharedString shared_file_{file_};
  ir::SharedString shared_key_;  // the key of the last origin made
  Layer layer_;
  size_t* fast_lists_used_;
  bool in_profile_ = false;
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

}  // namespace

absl::StatusOr<RequirementsFile> ParseRequirements(const std::string& text,
                                                   const std::string& file) {
  toml::table table;
  std::string shown = MaskSecrets(text);
  try {
    table = toml::parse(std::string_view(text), std::string_view(file));
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    int line = static_cast<int>(b.line), col = static_cast<int>(b.column);
    return ir::ErrorAt(
        file, line, col,
        ScrubSecrets(text, absl::StrCat("malformed TOML: ", std::string(e.description()))),
        ir::SourceLineAt(shown, line));
  }
  RequirementsFile out;
  const toml::node* list = table.get("allowed_sandbox_modes");
  if (list == nullptr) return out;
  auto at = [&](const toml::node& n, const std::string& msg) {
    const auto& b = n.source().begin;
    return ir::ErrorAt(file, static_cast<int>(b.line), static_cast<int>(b.column), msg,
                       ir::SourceLineAt(shown, static_cast<int>(b.line)));
  };
  const auto& lb = list->source().begin;
  out.origin = ir::Origin{ir::Origin::Kind::kManaged, "allowed_sandbox_modes", file,
                          static_cast<int>(lb.line), static_cast<int>(lb.column)};
  const auto* arr = list->as_array();
  if (arr == nullptr) {
    return at(*list, absl::StrCat("'allowed_sandbox_modes' must be a list of strings, not ",
                                  Reader::TypeName(*list)));
  }
  if (arr->empty()) return at(*list, "'allowed_sandbox_modes' must not be empty");
  for (const toml::node& item : *arr) {
    const auto* s = item.as_string();
    if (s == nullptr) {
      return at(item, absl::StrCat("'allowed_sandbox_modes' entries must be strings, not ",
                                   Reader::TypeName(item)));
    }
    auto mode = NormalizeSandboxMode(s->get());
    if (!mode) return at(item, InvalidSandboxModeMessage(s->get()));
    if (std::find(out.allowed.begin(), out.allowed.end(), *mode) == out.allowed.end()) {
      out.allowed.push_back(*mode);
    }
  }
  return out;
}

namespace {

// ParseToml parses `parsed` (the config, or the config with its long string
// lists taken out) with toml++; errors are reported on `text`, the config.
absl::StatusOr<toml::table> ParseToml(const std::string& parsed, const std::string& text,
                                      const std::string& file) {
  toml::table table;
  try {
    table = toml::parse(std::string_view(parsed), std::string_view(file));
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    int line = static_cast<int>(b.line), col = static_cast<int>(b.column);
    // An error inside the key's value could quote it: say only where it is.
    // A repeated key is reported at its value too, but names only the key.
    std::string description(e.description());
    std::string message =
        InSecretValue(text, line, col) && !absl::StrContains(description, "cannot redefine")
            ? std::string(
                  "malformed TOML in the value of 'sandbox_api_key' (the value is not shown)")
            : ScrubSecrets(text, absl::StrCat("malformed TOML: ", description));
    return ir::ErrorAt(file, line, col, message, ir::SourceLineAt(MaskSecrets(text), line));
  } catch (const TomlCheckFailed& e) {
    // toml++ met a document its parser does not expect (compiler/toml_checked.h).
    int line = static_cast<int>(e.line), col = static_cast<int>(e.column);
    std::string what = "unexpected input";
    if (line > 0) {
      std::string src = ir::SourceLineAt(MaskSecrets(text), line);
      size_t at = static_cast<size_t>(col > 0 ? col - 1 : 0);
      unsigned char c = at < src.size() ? static_cast<unsigned char>(src[at]) : 0;
      // Columns count code points: name the character only on a plain ASCII prefix.
      for (size_t i = 0; i < at && i < src.size(); ++i) {
        if (static_cast<unsigned char>(src[i]) >= 0x80) c = 0;
      }
      what = c > 0x20 && c < 0x7f ? absl::StrCat("unexpected character '", std::string(1, c), "'")
                                  : "unexpected character";
    }
    if (InSecretValue(text, line, col)) {
      what = "malformed TOML in the value of 'sandbox_api_key' (the value is not shown)";
      return ir::ErrorAt(file, line, col, what, ir::SourceLineAt(MaskSecrets(text), line));
    }
    return ir::ErrorAt(file, line, col, absl::StrCat("malformed TOML: ", what),
                       ir::SourceLineAt(MaskSecrets(text), line));
  }
  return table;
}

}  // namespace

absl::StatusOr<ConfigLayer> ReadTomlConfig(const std::string& text, const std::string& file,
                                           Layer layer, const TomlReadOptions& options) {
  TakenOut fast = TakeOutStringLists(text, options.fast_list_min);
  absl::StatusOr<toml::table> parsed = ParseToml(fast.lists.empty() ? text : fast.text, text, file);
  if (!parsed.ok() && !fast.lists.empty()) {
    // Whatever toml++ rejects is reported as toml++ finds it in the original.
    fast = TakenOut{};
    parsed = ParseToml(text, text, file);
  }
  if (!parsed.ok()) return parsed.status();
  const toml::table& table = *parsed;
  Reader r(text, file, layer, fast.lists, options.fast_lists_used);
  ConfigLayer out;
  PolicySpec profile_spec;  // the selected profile's keys, over the top-level ones
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
  // The selected profile (docs/behavior.md B-3: user config + selected profile).
  std::string profile;
  const toml::node* profile_node = nullptr;
  if (layer == Layer::kUser) {
    for (const auto& [key, node_ptr] : entries) {
      if (key != "profile") continue;
      profile_node = node_ptr;
      if (const auto* p = node_ptr->as_string()) {
        profile = p->get();
      } else {
        r.Error(*node_ptr,
                absl::StrCat("'profile' must be a string, not ", Reader::TypeName(*node_ptr)));
      }
    }
  }
  // NoteNested notes sandbox keys in any table below the top level, however
  // deep, and in arrays of tables ([[agents]]).
  std::function<void(const std::string&, const toml::node&)> note_nested =
      [&](const std::string& path, const toml::node& node) {
        if (const auto* sub = node.as_table()) {
          for (const auto& [sk, snode] : *sub) {
            std::string skey(sk.str());
            std::string where = absl::StrCat(path, ".", skey);
            if (IsSandboxKeyName(skey)) {
              r.Note(snode, absl::StrCat("ignoring '", where,
                                         "': sandbox keys are read only at "
                                         "the top level of the config"));
            } else {
              note_nested(where, snode);
            }
          }
        } else if (const auto* arr = node.as_array()) {
          size_t i = 0;
          for (const toml::node& item : *arr) {
            if (item.is_table()) note_nested(absl::StrCat(path, "[", i, "]"), item);
            ++i;
          }
        }
      };
  bool profile_found = false;
  for (const auto& [key, node_ptr] : entries) {
    const toml::node& node = *node_ptr;
    const KeyHandler* handler = HandlerFor(key);
    if (handler == nullptr) {
      if (key == "profile" && layer == Layer::kUser) continue;
      if (key == "profiles" && node.is_table() && layer == Layer::kUser) {
        for (const auto& [pk, pnode] : *node.as_table()) {
          std::string pname(pk.str());
          const auto* ptable = pnode.as_table();
          if (ptable == nullptr) {
            if (IsSandboxKeyName(pname)) {
              r.Note(pnode, absl::StrCat("ignoring 'profiles.", pname,
                                         "': sandbox keys are read "
                                         "only at the top level of the config or in a profile"));
            }
            continue;
          }
          bool selected = !profile.empty() && pname == profile;
          profile_found = profile_found || selected;
          std::map<std::string, std::string> pseen;
          for (const auto& [sk, snode] : *ptable) {
            std::string skey(sk.str());
            const KeyHandler* h = HandlerFor(skey);
            std::string where = absl::StrCat("profiles.", pname, ".", skey);
            if (h == nullptr) {
              std::string warning = UnknownKeyWarning(where, skey, snode.is_table());
              if (!warning.empty()) r.Warn(snode, warning);
              note_nested(where, snode);
              continue;
            }
            if (std::string(h->name) == "tool_launcher") {
              r.set_in_profile(true);
              h->read(r, out.spec, where, snode);  // always an error in a profile
              r.set_in_profile(false);
              continue;
            }
            if (!selected) {
              r.Note(snode,
                     absl::StrCat("ignoring '", where, "': profile '", pname,
                                  "' is not selected (profile = \"", pname, "\" selects it)"));
              continue;
            }
            auto [it, inserted] = pseen.emplace(h->name, skey);
            if (!inserted) {
              r.Error(snode,
                      absl::StrCat("'", skey, "' repeats '", it->second, "' (the same setting)"));
              continue;
            }
            h->read(r, profile_spec, where, snode);
          }
        }
        continue;
      }
      if (key == "sandbox_workspace_write" && layer != Layer::kProject) {
        // Codex's table: cwsc reads Codewhale's keys only; say which to use.
        if (const auto* t = node.as_table()) {
          for (const auto& [sk, snode] : *t) {
            std::string skey(sk.str());
            const LookAlike* use = LookAlikeFor(skey, /*whole_only=*/true);
            r.Warn(snode, absl::StrCat(
                              "ignoring Codex's 'sandbox_workspace_write.", skey,
                              "': Codewhale does not read this table",
                              use ? absl::StrCat("; set '", use->use, "' at the top level instead")
                                  : std::string()));
          }
        }
        continue;
      }
      // A key that looks like a sandbox setting warns whatever its value (a
      // misspelled list drops every root or path in it); tables are also
      // searched for sandbox keys placed below the top level.
      std::string warning = UnknownKeyWarning(key, key, node.is_table());
      if (!warning.empty()) r.Warn(node, warning);
      if ((warning.empty() || node.is_table()) && (node.is_table() || node.is_array())) {
        note_nested(key, node);
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
  if (!profile.empty() && !profile_found && profile_node != nullptr) {
    r.Error(*profile_node, absl::StrCat("profile '", profile, "' is not defined (no [profiles.",
                                        profile, "] table)"));
  }
  Overlay(out.spec, profile_spec);
  if (r.diags().HasErrors()) return r.diags().ToStatus();
  out.notes = std::move(r.notes());
  // Tables iterate by key; report in the file's order.
  std::stable_sort(out.notes.begin(), out.notes.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     return a.line != b.line ? a.line < b.line : a.col < b.col;
                   });
  return out;
}

}  // namespace cwsc::compiler
