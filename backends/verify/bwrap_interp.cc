#include "backends/verify/bwrap_interp.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/constants.h"

namespace cwsc::backends {
namespace {

// NextComponent moves `*at` past the slashes and returns the component
// that follows (empty at the end of `p`).
absl::string_view NextComponent(absl::string_view p, size_t* at) {
  while (*at < p.size() && p[*at] == '/') ++*at;
  size_t end = p.find('/', *at);
  if (end == absl::string_view::npos) end = p.size();
  absl::string_view c = p.substr(*at, end - *at);
  *at = end;
  return c;
}

// Under reports whether `dest` is `path` or one of its ancestors, comparing
// component by component without allocating (this runs for every layer of
// every lookup); sets `rel` to the rest of `path`.
bool Under(const std::string& path, const std::string& dest, std::string* rel) {
  // Quick exit, the common case: the first difference lies inside a
  // component (neither byte is a separator), so the components differ there.
  size_t n = std::min(path.size(), dest.size());
  size_t k = 0;
  while (k < n && path[k] == dest[k]) ++k;
  if (k < n && path[k] != '/' && dest[k] != '/') return false;
  size_t i = 0, j = 0;
  for (;;) {
    absl::string_view d = NextComponent(dest, &j);
    if (d.empty()) break;
    if (NextComponent(path, &i) != d) return false;
  }
  rel->clear();
  for (absl::string_view c = NextComponent(path, &i); !c.empty(); c = NextComponent(path, &i)) {
    absl::StrAppend(rel, "/", c);
  }
  return true;
}

// DestKey is `dest` as by_dest keys it: components joined by one '/', "/"
// for the root (Under compares the same way: extra slashes do not count).
std::string DestKey(const std::string& dest) {
  std::string key;
  key.reserve(dest.size() + 1);
  size_t at = 0;
  for (absl::string_view c = NextComponent(dest, &at); !c.empty(); c = NextComponent(dest, &at)) {
    key.push_back('/');
    key.append(c.data(), c.size());
  }
  if (key.empty()) key = "/";
  return key;
}

// Decide is the lookup's result once layer `i` (covering `path`, with `rel`
// the rest of the path below its destination) decides.
Lookup Decide(const MountLayer& m, int i, bool read_only, const std::string& rel) {
  Lookup out;
  out.layer = i;
  if (m.op == "--tmpfs" || m.op == "--dev" || m.op == "--proc") {
    out.access = rel.empty() ? Access::kPrivate : Access::kHidden;
    return out;
  }
  if (m.op == "--ro-bind" && m.source == "/dev/null") {
    out.access = Access::kHidden;  // a masked file, or a path below it
    return out;
  }
  out.host_path = m.source == "/" ? (rel.empty() ? "/" : rel) : m.source + rel;
  if (m.op == "--dev-bind") {
    out.access = Access::kDevice;
  } else {
    out.access = m.op == "--bind" && !read_only ? Access::kWritable : Access::kReadOnly;
  }
  return out;
}

}  // namespace

const char* AccessName(Access a) {
  switch (a) {
    case Access::kNone:
      return "none";
    case Access::kReadOnly:
      return "read-only";
    case Access::kWritable:
      return "writable";
    case Access::kHidden:
      return "hidden";
    case Access::kPrivate:
      return "private";
    case Access::kDevice:
      return "device";
  }
  return "none";
}

Lookup BwrapView::FindByScan(const std::string& path) const {
  bool read_only = false;  // a --remount-ro above the deciding layer
  std::string rel;
  for (int i = static_cast<int>(layers.size()) - 1; i >= 0; --i) {
    const MountLayer& m = layers[static_cast<size_t>(i)];
    if (!Under(path, m.dest, &rel)) continue;
    if (m.op == "--remount-ro") {
      read_only = true;
      continue;
    }
    return Decide(m, i, read_only, rel);
  }
  return Lookup{};
}

void BwrapView::IndexLayers() {
  by_dest.clear();
  by_dest.reserve(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    by_dest[DestKey(layers[i].dest)].push_back(static_cast<int>(i));
  }
  indexed_layers = layers.size();
}

Lookup BwrapView::Find(const std::string& path) const {
  if (indexed_layers != layers.size()) return FindByScan(path);
  // Every ancestor of `path` (and the path) is a key to look up: the
  // deciding layer is the topmost non-remount layer among them, and a
  // --remount-ro above it makes a bind read-only.
  int decide = -1, remount = -1;
  size_t decide_end = 0;  // where the rest of the path below the deciding layer starts
  std::string key = "/";
  size_t at = 0;
  for (;;) {
    if (auto it = by_dest.find(key); it != by_dest.end()) {
      for (int i : it->second) {
        if (layers[static_cast<size_t>(i)].op == "--remount-ro") {
          remount = std::max(remount, i);
        } else if (i > decide) {
          decide = i;
          decide_end = at;
        }
      }
    }
    absl::string_view c = NextComponent(path, &at);
    if (c.empty()) break;
    if (key.size() > 1) key.push_back('/');
    key.append(c.data(), c.size());
  }
  if (decide < 0) return Lookup{};
  std::string rel;
  for (absl::string_view c = NextComponent(path, &decide_end); !c.empty();
       c = NextComponent(path, &decide_end)) {
    absl::StrAppend(&rel, "/", c);
  }
  return Decide(layers[static_cast<size_t>(decide)], decide, remount > decide, rel);
}

absl::StatusOr<BwrapView> InterpretBwrapArgv(const std::vector<std::string>& argv) {
  BwrapView v;
  size_t i = 0;
  while (i < argv.size() && argv[i] != ir::kBwrapPath && !absl::EndsWith(argv[i], "/bwrap") &&
         argv[i] != "bwrap") {
    v.prefix.push_back(argv[i]);
    ++i;
  }
  if (i == argv.size()) return absl::InvalidArgumentError("no bwrap in the argv");
  ++i;
  bool unshare_net = false, share_net = false, saw_end = false;
  auto need = [&](size_t n, const std::string& flag) -> absl::Status {
    if (i + n >= argv.size()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " needs ", n, " argument(s)"));
    }
    return absl::OkStatus();
  };
  while (i < argv.size()) {
    const std::string& f = argv[i];
    if (f == "--") {
      saw_end = true;
      ++i;
      break;
    }
    if (f == "--unshare-all" || f == "--unshare-net") {
      unshare_net = true;
      ++i;
    } else if (f == "--share-net") {
      share_net = true;
      ++i;
    } else if (f == "--die-with-parent") {
      v.die_with_parent = true;
      ++i;
    } else if (f == "--unshare-user") {
      v.unshare_user = true;
      ++i;
    } else if (f == "--disable-userns") {
      v.nested_userns_disabled = true;
      ++i;
    } else if (f == "--new-session") {
      v.new_session = true;
      ++i;
    } else if (f == "--cap-drop") {
      if (auto s = need(1, f); !s.ok()) return s;
      if (argv[i + 1] == "ALL") v.caps_dropped = true;
      i += 2;
    } else if (f == "--seccomp") {
      if (auto s = need(1, f); !s.ok()) return s;
      v.seccomp_fd = argv[i + 1];
      i += 2;
    } else if (f == "--remount-ro") {
      if (auto s = need(1, f); !s.ok()) return s;
      v.layers.push_back({f, "", argv[i + 1], i});
      i += 2;
    } else if (f == "--ro-bind" || f == "--bind" || f == "--dev-bind") {
      if (auto s = need(2, f); !s.ok()) return s;
      if (!absl::StartsWith(argv[i + 2], "/")) {
        return absl::InvalidArgumentError(absl::StrCat(f, " destination is not absolute"));
      }
      v.layers.push_back({f, argv[i + 1], argv[i + 2], i});
      i += 3;
    } else if (f == "--tmpfs" || f == "--dev" || f == "--proc") {
      if (auto s = need(1, f); !s.ok()) return s;
      v.layers.push_back({f, "", argv[i + 1], i});
      i += 2;
    } else if (f == "--chdir") {
      if (auto s = need(1, f); !s.ok()) return s;
      v.chdir = argv[i + 1];
      i += 2;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown bwrap flag '", f, "'"));
    }
  }
  if (!saw_end) return absl::InvalidArgumentError("the bwrap argv has no '--'");
  v.network_isolated = unshare_net && !share_net;
  v.program.assign(argv.begin() + static_cast<long>(i), argv.end());
  v.IndexLayers();
  return v;
}

}  // namespace cwsc::backends
