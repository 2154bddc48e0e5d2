#include "compiler/config_toml.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/config_keys.h"
#include "compiler/facts/config_secrets.h"
#include "compiler/key_lookalikes.h"
#include "compiler/overlay.h"
#include "compiler/toml_checked.h"
#include "compiler/toml_lists.h"

namespace cwsc::compiler {
namespace {

using ir::Diagnostic;
using toml_read::HandlerFor;
using toml_read::IsSandboxKeyName;
using toml_read::Reader;
using toml_read::ReadKey;
using toml_read::UnknownKeyWarning;

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
    std::optional<SandboxMode> mode = ParseSandboxMode(s->get());
    if (!mode) return at(item, InvalidSandboxModeMessage(s->get()));
    if (std::find(out.allowed.begin(), out.allowed.end(), mode->type) == out.allowed.end()) {
      out.allowed.push_back(mode->type);
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
    const ConfigKey* handler = HandlerFor(key);
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
            const ConfigKey* h = HandlerFor(skey);
            std::string where = absl::StrCat("profiles.", pname, ".", skey);
            if (h == nullptr) {
              std::string warning = UnknownKeyWarning(where, skey, snode.is_table());
              if (!warning.empty()) r.Warn(snode, warning);
              note_nested(where, snode);
              continue;
            }
            if (!h->AllowedIn(Layer::kUser)) {
              r.set_in_profile(true);
              ReadKey(r, out.spec, *h, where, snode);  // always an error in a profile
              r.set_in_profile(false);
              continue;
            }
            if (!selected) {
              r.Note(snode,
                     absl::StrCat("ignoring '", where, "': profile '", pname,
                                  "' is not selected (profile = \"", pname, "\" selects it)"));
              continue;
            }
            auto [it, inserted] = pseen.emplace(std::string(h->name), skey);
            if (!inserted) {
              r.Error(snode,
                      absl::StrCat("'", skey, "' repeats '", it->second, "' (the same setting)"));
              continue;
            }
            ReadKey(r, profile_spec, *h, where, snode);
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
    auto [it, inserted] = seen.emplace(std::string(handler->name), key);
    if (!inserted) {
      r.Error(node, absl::StrCat("'", key, "' repeats '", it->second, "' (the same setting)"));
      continue;
    }
    ReadKey(r, out.spec, *handler, std::string(handler->name), node);
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