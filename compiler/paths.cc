#include "compiler/paths.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace cwsc::compiler {

std::vector<std::string> PathComponents(absl::string_view path) {
  std::vector<std::string> out;
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    out.emplace_back(part);
  }
  return out;
}

std::string LexicalNormalize(absl::string_view path) {
  bool absolute = absl::StartsWith(path, "/");
  std::vector<std::string> parts;
  for (std::string& part : PathComponents(path)) {
    if (part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!absolute) {
        parts.push_back(part);
      }
      continue;
    }
    parts.push_back(std::move(part));
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += "/";
    out += parts[i];
  }
  if (out.empty()) out = ".";
  return out;
}

bool PathStartsWith(absl::string_view path, absl::string_view prefix) {
  if (absl::StartsWith(path, "/") != absl::StartsWith(prefix, "/")) return false;
  std::vector<std::string> p = PathComponents(path);
  std::vector<std::string> q = PathComponents(prefix);
  if (q.size() > p.size()) return false;
  for (size_t i = 0; i < q.size(); ++i) {
    if (p[i] != q[i]) return false;
  }
  return true;
}

std::string JoinPath(absl::string_view base, absl::string_view rel) {
  if (rel.empty()) return std::string(base);
  if (absl::StartsWith(rel, "/")) return std::string(rel);
  if (absl::EndsWith(base, "/")) return absl::StrCat(base, rel);
  return absl::StrCat(base, "/", rel);
}

std::string ParentPath(absl::string_view path) {
  std::vector<std::string> parts = PathComponents(path);
  if (parts.size() <= 1) return "/";
  parts.pop_back();
  std::string out;
  for (const std::string& p : parts) absl::StrAppend(&out, "/", p);
  return out;
}

bool PathLess(const std::string& a, const std::string& b) {
  bool a_abs = absl::StartsWith(a, "/");
  bool b_abs = absl::StartsWith(b, "/");
  if (a_abs != b_abs) return a_abs;  // Rust: RootDir sorts before Normal components
  std::vector<std::string> p = PathComponents(a);
  std::vector<std::string> q = PathComponents(b);
  return std::lexicographical_compare(p.begin(), p.end(), q.begin(), q.end());
}

absl::StatusOr<std::string> ExpandPath(absl::string_view raw, const PathVars& vars, bool lexical) {
  std::string out;
  if (raw == "~" || absl::StartsWith(raw, "~/")) {
    if (vars.home.empty()) return absl::InvalidArgumentError("'~' used but HOME is unknown");
    out = absl::StrCat(vars.home, raw.substr(1));
  } else if (absl::StartsWith(raw, "$")) {
    absl::string_view rest = raw.substr(1);
    std::string name;
    size_t used = 0;
    if (absl::StartsWith(rest, "{")) {
      size_t close = rest.find('}');
      if (close == absl::string_view::npos) {
        return absl::InvalidArgumentError("unterminated '${' in path");
      }
      name = std::string(rest.substr(1, close - 1));
      used = close + 1;
    } else {
      while (used < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[used])) ||
                                    rest[used] == '_')) {
        ++used;
      }
      name = std::string(rest.substr(0, used));
    }
    absl::string_view tail = rest.substr(used);
    if (!tail.empty() && !absl::StartsWith(tail, "/")) {
      return absl::InvalidArgumentError(absl::StrCat("unknown variable '$", name, tail.substr(0, 1),
                                                     "...'"));
    }
    const std::string* value = nullptr;
    if (name == "HOME") value = &vars.home;
    if (name == "WORKSPACE") value = &vars.workspace;
    if (name == "CWD") value = &vars.cwd;
    if (name == "TMPDIR") value = &vars.tmpdir;
    if (value == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown variable '$", name, "' (known: $HOME, $WORKSPACE, $CWD, $TMPDIR)"));
    }
    if (value->empty()) {
      return absl::InvalidArgumentError(absl::StrCat("variable '$", name, "' is not set"));
    }
    out = absl::StrCat(*value, tail);
  } else {
    out = std::string(raw);
  }
  if (!absl::StartsWith(out, "/")) {
    return absl::InvalidArgumentError(
        absl::StrCat("path '", out, "' is relative; use an absolute path, ~ or a variable"));
  }
  return lexical ? LexicalNormalize(out) : out;
}

}  // namespace cwsc::compiler
