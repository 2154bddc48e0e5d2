#include "compiler/paths.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

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

namespace {

// Plain reports whether `path` is absolute and already normal: no empty,
// "." or ".." component and no trailing separator (but "/" itself).
bool Plain(absl::string_view path) {
  if (path.empty() || path[0] != '/') return false;
  if (path.size() == 1) return true;
  if (path.back() == '/') return false;
  size_t i = 1;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == absl::string_view::npos) j = path.size();
    absl::string_view part = path.substr(i, j - i);
    if (part.empty() || part == "." || part == "..") return false;
    i = j + 1;
  }
  return true;
}

}  // namespace

bool IsPlainPath(absl::string_view path) { return Plain(path); }

std::string LexicalNormalize(absl::string_view path) {
  if (Plain(path)) return std::string(path);
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

namespace {

// NextComponent returns the component of `path` at or after *pos (skipping
// separators) and moves *pos past it; an empty view means no more components.
// Walking the string keeps the comparisons below free of allocations: they
// run O(n log n) times when thousands of roots or denied paths are sorted.
absl::string_view NextComponent(absl::string_view path, size_t* pos) {
  size_t i = *pos;
  while (i < path.size() && path[i] == '/') ++i;
  size_t j = i;
  while (j < path.size() && path[j] != '/') ++j;
  *pos = j;
  return path.substr(i, j - i);
}

}  // namespace

bool PathStartsWith(absl::string_view path, absl::string_view prefix) {
  if (absl::StartsWith(path, "/") != absl::StartsWith(prefix, "/")) return false;
  size_t i = 0, j = 0;
  for (;;) {
    absl::string_view q = NextComponent(prefix, &j);
    if (q.empty()) return true;
    if (NextComponent(path, &i) != q) return false;
  }
}

std::string JoinPath(absl::string_view base, absl::string_view rel) {
  if (rel.empty()) return std::string(base);
  if (absl::StartsWith(rel, "/")) return std::string(rel);
  if (absl::EndsWith(base, "/")) return absl::StrCat(base, rel);
  return absl::StrCat(base, "/", rel);
}

std::string ParentPath(absl::string_view path) {
  if (Plain(path)) {
    size_t slash = path.rfind('/');
    return slash == 0 ? "/" : std::string(path.substr(0, slash));
  }
  std::vector<std::string> parts = PathComponents(path);
  if (parts.size() <= 1) return "/";
  parts.pop_back();
  std::string out;
  for (const std::string& p : parts) absl::StrAppend(&out, "/", p);
  return out;
}

bool PathLess(absl::string_view a, absl::string_view b) {
  bool a_abs = absl::StartsWith(a, "/");
  bool b_abs = absl::StartsWith(b, "/");
  if (a_abs != b_abs) return a_abs;  // Rust: RootDir sorts before Normal components
  // The common prefix holds the same components on both sides; `start` is
  // where the component holding the first difference begins. Two different
  // bytes inside that component decide at once; a separator or an end there
  // (one component a prefix of the other, or extra slashes) is settled by
  // comparing components from `start` on.
  size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  for (uint64_t x, y; i + 8 <= n; i += 8) {  // a word at a time over the common prefix
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) break;
  }
  while (i < n && a[i] == b[i]) ++i;
  if (i < n && a[i] != '/' && b[i] != '/') {
    return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  }
  size_t slash = i == 0 ? absl::string_view::npos : a.rfind('/', i - 1);
  size_t start = slash == absl::string_view::npos ? 0 : slash + 1;
  size_t x = start, y = start;
  for (;;) {
    absl::string_view p = NextComponent(a, &x);
    absl::string_view q = NextComponent(b, &y);
    if (p.empty() || q.empty()) return p.empty() && !q.empty();
    if (p != q) return p < q;
  }
}

std::string PathSortKey(absl::string_view path) {
  std::string key(1, absl::StartsWith(path, "/") ? '\0' : '\1');
  key.reserve(path.size() + 1);
  size_t at = 0;
  bool first = true;
  for (absl::string_view c = NextComponent(path, &at); !c.empty(); c = NextComponent(path, &at)) {
    if (!first) key.push_back('\0');
    key.append(c.data(), c.size());
    first = false;
  }
  return key;
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
      while (used < rest.size() &&
             (std::isalnum(static_cast<unsigned char>(rest[used])) || rest[used] == '_')) {
        ++used;
      }
      name = std::string(rest.substr(0, used));
    }
    absl::string_view tail = rest.substr(used);
    if (!tail.empty() && !absl::StartsWith(tail, "/")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown variable '$", name, tail.substr(0, 1), "...'"));
    }
    const std::string* value = nullptr;
    if (name == "HOME") value = &vars.home;
    if (name == "WORKSPACE") value = &vars.workspace;
    if (name == "CWD") value = &vars.cwd;
    if (name == "TMPDIR") value = &vars.tmpdir;
    if (value == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown variable '$", name, "' (known: $HOME, $WORKSPACE, $CWD, $TMPDIR)"));
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
  if (!lexical || Plain(out)) return out;
  return LexicalNormalize(out);
}

}  // namespace cwsc::compiler
