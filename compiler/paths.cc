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
  const size_t n = path.size();
  if (n == 0 || path[0] != '/') return false;
  if (n == 1) return true;
  if (path[n - 1] == '/') return false;
  // Each '/' starts a component (the last byte is no '/', so one follows),
  // which must not be empty, "." or ".."; memchr finds the separators.
  const char* s = path.data();
  const char* end = s + n;
  for (const char* p = s; p != nullptr;
       p = static_cast<const char*>(std::memchr(p + 1, '/', static_cast<size_t>(end - p - 1)))) {
    char a = p[1];
    if (a == '/') return false;
    if (a != '.') continue;
    if (p + 2 == end || p[2] == '/') return false;                   // "."
    if (p[2] == '.' && (p + 3 == end || p[3] == '/')) return false;  // ".."
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
  if (rel[0] == '/') return std::string(rel);
  const bool slash = base.empty() || base.back() != '/';
  std::string out;  // sized once: no StrCat
  out.resize(base.size() + (slash ? 1 : 0) + rel.size());
  char* w = out.data();
  if (!base.empty()) std::memcpy(w, base.data(), base.size());
  w += base.size();
  if (slash) *w++ = '/';
  std::memcpy(w, rel.data(), rel.size());
  return out;
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

void AppendPathSortKey(absl::string_view path, std::string* out) {
  // Written through a pointer into room made once, then cut to length;
  // memchr finds each separator and a component is copied whole.
  size_t at = out->size();
  out->resize(at + path.size() + 1);
  char* w = out->data() + at;
  *w++ = absl::StartsWith(path, "/") ? '\0' : '\1';
  // Components separated by one 0 byte: separators before the first
  // component, repeated ones and a trailing one add nothing.
  const char* s = path.data();
  const char* end = s + path.size();
  bool first = true;
  while (s != end) {
    if (*s == '/') {
      ++s;
      continue;
    }
    const char* slash = static_cast<const char*>(std::memchr(s, '/', static_cast<size_t>(end - s)));
    const char* stop = slash == nullptr ? end : slash;
    if (!first) *w++ = '\0';
    std::memcpy(w, s, static_cast<size_t>(stop - s));
    w += stop - s;
    first = false;
    s = stop;
  }
  out->resize(static_cast<size_t>(w - out->data()));
}

std::string PathSortKey(absl::string_view path) {
  std::string key;
  AppendPathSortKey(path, &key);
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
