// Internal to the TOML frontend: Reader, which reads the typed values of one
// config's keys (strings, booleans, path lists, argv lists) with the
// position of each, and collects the errors, warnings and notes of the file
// (secrets masked in every excerpt, compiler/facts/config_secrets.h). Used
// by config_toml.cc and config_keys.cc only.
#ifndef CWSC_COMPILER_TOML_READER_H_
#define CWSC_COMPILER_TOML_READER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "compiler/facts/config_secrets.h"
#include "compiler/policy_spec.h"
#include "compiler/toml_checked.h"
#include "compiler/toml_lists.h"
#include "ir/diagnostics.h"

namespace cwsc::compiler::toml_read {

using ir::Diagnostic;

inline ir::Origin::Kind OriginKind(Layer layer) {
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

inline Pos PosOf(const toml::node& n) {
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

}  // namespace cwsc::compiler::toml_read

#endif  // CWSC_COMPILER_TOML_READER_H_
