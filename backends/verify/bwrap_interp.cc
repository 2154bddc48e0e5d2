#include "backends/verify/bwrap_interp.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/bwrap_flags.h"
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
  if (!m.fd) out.host_path = m.source == "/" ? (rel.empty() ? "/" : rel) : m.source + rel;
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

namespace {

// Normalize resolves "." and ".." of an absolute path lexically.
std::string Normalize(const std::string& path) {
  std::vector<absl::string_view> parts;
  size_t at = 0;
  for (absl::string_view c = NextComponent(path, &at); !c.empty(); c = NextComponent(path, &at)) {
    if (c == ".") continue;
    if (c == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(c);
  }
  std::string out;
  for (absl::string_view c : parts) absl::StrAppend(&out, "/", c);
  return out.empty() ? "/" : out;
}

// Parent of an absolute path ("/" for a top-level one).
std::string Parent(const std::string& path) {
  std::string n = Normalize(path);
  size_t slash = n.rfind('/');
  return slash == 0 ? "/" : n.substr(0, slash);
}

// Interp reads one argv into a view, flag by flag.
class Interp {
 public:
  Interp(const std::vector<std::string>& argv, UnknownFlags unknown, BwrapView* v)
      : argv_(argv), unknown_(unknown), v_(v) {}

  // Flag reads the flag at `*i` and moves past it and its arguments.
  absl::Status Flag(size_t* i) {
    const std::string& f = argv_[*i];
    const BwrapFlag* t = FindBwrapFlag(f);
    if (t == nullptr) return Unknown(i);
    if (*i + static_cast<size_t>(t->args) >= argv_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(f, " needs ", t->args, " argument(s)"));
    }
    const std::string& a1 = t->args > 0 ? argv_[*i + 1] : f;
    const std::string& a2 = t->args > 1 ? argv_[*i + 2] : a1;
    absl::Status s = Apply(*t, *i, a1, a2);
    *i += 1 + static_cast<size_t>(t->args);
    return s;
  }

  bool unshare_net = false, share_net = false;

 private:
  absl::Status Apply(const BwrapFlag& t, size_t at, const std::string& a1, const std::string& a2) {
    std::string flag(t.name);
    switch (t.kind) {
      case BwrapFlagKind::kBind:
      case BwrapFlagKind::kBindFd:
      case BwrapFlagKind::kDataMount:
        if (!absl::StartsWith(a2, "/")) {
          return absl::InvalidArgumentError(absl::StrCat(flag, " destination is not absolute"));
        }
        v_->layers.push_back(
            {std::string(t.layer_op), a1, a2, at, flag, t.kind == BwrapFlagKind::kBindFd});
        return absl::OkStatus();
      case BwrapFlagKind::kNewMount:
      case BwrapFlagKind::kRemountRo:
        v_->layers.push_back({std::string(t.layer_op), "", a1, at, flag});
        return absl::OkStatus();
      case BwrapFlagKind::kSymlink:
        v_->symlinks.push_back({a1, a2, at, v_->layers.size()});
        return absl::OkStatus();
      case BwrapFlagKind::kChdir:
        v_->chdir = a1;
        return absl::OkStatus();
      case BwrapFlagKind::kNetwork:
        (flag == "--share-net" ? share_net : unshare_net) = true;
        return absl::OkStatus();
      case BwrapFlagKind::kNoSandbox:
        return absl::InvalidArgumentError(
            absl::StrCat(flag, ": bwrap prints and exits; it starts no sandbox"));
      case BwrapFlagKind::kMoreArgs:
        return absl::InvalidArgumentError(
            absl::StrCat(flag, " ", a1, ": bwrap reads more arguments from descriptor ", a1,
                         ", which the command line does not show"));
      case BwrapFlagKind::kOption:
        Option(flag, a1);
        return absl::OkStatus();
    }
    return absl::OkStatus();
  }

  // Option records the options the runtime's checks ask about.
  void Option(const std::string& f, const std::string& a1) {
    if (f == "--die-with-parent") v_->die_with_parent = true;
    if (f == "--unshare-user") v_->unshare_user = true;
    if (f == "--disable-userns") v_->nested_userns_disabled = true;
    if (f == "--new-session") v_->new_session = true;
    if (f == "--seccomp") v_->seccomp_fd = a1;
    if (f == "--cap-drop" && a1 == "ALL") v_->caps_dropped = true;
    if (f == "--cap-add") v_->caps_dropped = false;  // a capability given back
  }

  // Unknown refuses a flag the table lacks, or skips it with the arguments
  // up to the next flag (its arity is unknown).
  absl::Status Unknown(size_t* i) {
    const std::string& f = argv_[*i];
    if (unknown_ == UnknownFlags::kRefuse) {
      return absl::InvalidArgumentError(absl::StrCat("unknown bwrap flag '", f, "'"));
    }
    SkippedFlag sk{f, 0, *i};
    for (++*i; *i < argv_.size() && !absl::StartsWith(argv_[*i], "--"); ++*i) ++sk.args;
    v_->skipped.push_back(std::move(sk));
    return absl::OkStatus();
  }

  const std::vector<std::string>& argv_;
  UnknownFlags unknown_;
  BwrapView* v_;
};

}  // namespace

std::string BwrapView::Resolve(const std::string& path) const {
  std::string p = path, rel;
  for (int hops = 0; hops < 40; ++hops) {  // as the kernel's limit, against loops
    bool moved = false;
    for (auto s = symlinks.rbegin(); s != symlinks.rend() && !moved; ++s) {
      if (!Under(p, s->dest, &rel)) continue;
      bool hidden = false;
      for (size_t l = s->layers_before; l < layers.size() && !hidden; ++l) {
        std::string ignored;
        hidden = Under(s->dest, layers[l].dest, &ignored);
      }
      if (hidden) continue;
      std::string target = absl::StartsWith(s->target, "/")
                               ? s->target
                               : absl::StrCat(Parent(s->dest), "/", s->target);
      p = Normalize(target + rel);
      moved = true;
    }
    if (!moved) break;
  }
  return p;
}

absl::StatusOr<BwrapView> InterpretBwrapArgv(const std::vector<std::string>& argv,
                                             UnknownFlags unknown) {
  BwrapView v;
  size_t i = 0;
  while (i < argv.size() && argv[i] != ir::kBwrapPath && !absl::EndsWith(argv[i], "/bwrap") &&
         argv[i] != "bwrap") {
    v.prefix.push_back(argv[i]);
    ++i;
  }
  if (i == argv.size()) return absl::InvalidArgumentError("no bwrap in the argv");
  ++i;
  bool saw_end = false;
  Interp interp(argv, unknown, &v);
  while (i < argv.size()) {
    if (argv[i] == "--") {
      saw_end = true;
      ++i;
      break;
    }
    if (absl::Status s = interp.Flag(&i); !s.ok()) return s;
  }
  if (!saw_end) return absl::InvalidArgumentError("the bwrap argv has no '--'");
  v.network_isolated = interp.unshare_net && !interp.share_net;
  v.program.assign(argv.begin() + static_cast<long>(i), argv.end());
  v.IndexLayers();
  return v;
}

}  // namespace cwsc::backends
