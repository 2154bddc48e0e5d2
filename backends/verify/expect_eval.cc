#include "backends/verify/expect_eval.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cwsc::backends {
namespace {

// Covers reports whether `dest` is `path` or an ancestor of it; `at` is set
// when they are the same path. Both are absolute; repeated and trailing
// slashes are ignored.
bool Covers(const std::string& dest, const std::string& path, bool* at) {
  auto components = [](const std::string& p) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < p.size()) {
      while (i < p.size() && p[i] == '/') ++i;
      size_t j = p.find('/', i);
      if (j == std::string::npos) j = p.size();
      if (j > i) out.push_back(p.substr(i, j - i));
      i = j;
    }
    return out;
  };
  std::vector<std::string> d = components(dest), p = components(path);
  if (d.size() > p.size()) return false;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i] != p[i]) return false;
  }
  *at = d.size() == p.size();
  return true;
}

bool Visible(Access a) {
  return a == Access::kReadOnly || a == Access::kWritable || a == Access::kDevice;
}

// A documentation address (RFC 5737): any internet destination.
constexpr char kProbeAddress[] = "192.0.2.1";
constexpr int kProbePort = 443;

}  // namespace

const char* AccessKindName(AccessKind kind) {
  switch (kind) {
    case AccessKind::kRead:
      return "read";
    case AccessKind::kWrite:
      return "write";
    case AccessKind::kExec:
      return "exec";
    case AccessKind::kNetwork:
      return "network";
    case AccessKind::kCreate:
      return "create";
  }
  return "read";
}

absl::StatusOr<BwrapChecker> BwrapChecker::FromArgv(std::vector<std::string> argv,
                                                    UnknownFlags unknown) {
  absl::StatusOr<BwrapView> v = InterpretBwrapArgv(argv, unknown);
  if (!v.ok()) return v.status();
  BwrapChecker c;
  c.argv_ = std::move(argv);
  c.view_ = *std::move(v);
  return c;
}

std::string BwrapChecker::LayerText(int layer) const {
  const MountLayer& m = view_.layers[static_cast<size_t>(layer)];
  const std::string& flag = m.flag.empty() ? m.op : m.flag;
  if (!m.source.empty()) return absl::StrCat(flag, " ", m.source, " ", m.dest);
  return absl::StrCat(flag, " ", m.dest);
}

Verdict BwrapChecker::Decide(AccessKind kind, const std::string& asked) const {
  Verdict v;
  const std::string path = view_.Resolve(asked);  // through the argv's symlinks
  if (kind == AccessKind::kNetwork) {
    v.allowed = !view_.network_isolated;
    // The flag that decided: the last of --unshare-all/--unshare-net/--share-net.
    for (size_t i = 0; i < argv_.size() && argv_[i] != "--"; ++i) {
      const std::string& a = argv_[i];
      if (a == (v.allowed ? "--share-net" : "--unshare-all") ||
          (!v.allowed && a == "--unshare-net")) {
        v.arg = static_cast<int>(i);
        v.rule = a;
      }
    }
    if (v.rule.empty()) v.rule = "no --unshare-net or --unshare-all: the host network";
    v.detail = v.allowed ? "network shared" : "network isolated";
    return v;
  }
  if (kind == AccessKind::kCreate) {
    Verdict v = Decide(AccessKind::kWrite, absl::StrCat(path, "/", kCreateProbeName));
    return v;
  }
  Lookup l = view_.Find(path);
  v.detail = AccessName(l.access);
  v.allowed = kind == AccessKind::kWrite
                  ? (l.access == Access::kWritable || l.access == Access::kDevice)
                  : Visible(l.access);
  if (l.layer < 0) {
    v.rule = "no mount covers the path";
    return v;
  }
  v.layer = l.layer;
  const MountLayer& m = view_.layers[static_cast<size_t>(l.layer)];
  if (m.op == "--bind" && l.access == Access::kReadOnly) {
    // A --remount-ro above the bind made it read-only: that layer decides.
    for (int i = static_cast<int>(view_.layers.size()) - 1; i > l.layer; --i) {
      const MountLayer& r = view_.layers[static_cast<size_t>(i)];
      bool at = false;
      if (r.op == "--remount-ro" && Covers(r.dest, path, &at)) {
        v.layer = i;
        break;
      }
    }
  }
  v.arg = static_cast<int>(view_.layers[static_cast<size_t>(v.layer)].arg);
  v.rule = LayerText(v.layer);
  return v;
}

std::vector<ChainLink> BwrapChecker::Chain(const std::string& asked) const {
  std::vector<ChainLink> out;
  const std::string path = view_.Resolve(asked);
  for (int i = static_cast<int>(view_.layers.size()) - 1; i >= 0; --i) {
    const MountLayer& m = view_.layers[static_cast<size_t>(i)];
    bool at = false;
    if (!Covers(m.dest, path, &at)) continue;
    ChainLink c;
    c.layer = i;
    c.arg = static_cast<int>(m.arg);
    c.rule = LayerText(i);
    if (m.op == "--tmpfs" || m.op == "--dev" || m.op == "--proc") {
      c.effect = at ? "private" : "hidden";
    } else if (m.op == "--ro-bind" && m.source == "/dev/null") {
      c.effect = "hidden";
    } else if (m.op == "--remount-ro") {
      c.effect = "read-only (remounts what lies below)";
    } else if (m.op == "--bind") {
      c.effect = "writable";
    } else if (m.op == "--dev-bind") {
      c.effect = "device";
    } else {
      c.effect = "read-only";
    }
    out.push_back(std::move(c));
  }
  return out;
}

absl::StatusOr<SbplChecker> SbplChecker::FromProfile(const std::string& text,
                                                     const SbplParams& params,
                                                     const std::string& name) {
  absl::StatusOr<SbplProfile> p = SbplProfile::Parse(text, params, name);
  if (!p.ok()) return p.status();
  return SbplChecker(*std::move(p), params);
}

absl::StatusOr<SbplChecker> SbplChecker::FromSandboxExecArgv(const std::vector<std::string>& argv) {
  absl::StatusOr<SandboxExecCall> call = ParseSandboxExecArgv(argv);
  if (!call.ok()) return call.status();
  return FromProfile(call->profile, call->params);
}

Verdict SbplChecker::Decide(AccessKind kind, const std::string& path) const {
  std::vector<SbplRequest> requests;
  SbplRequest r;
  switch (kind) {
    case AccessKind::kRead:
      r.operation = "file-read-data";
      r.path = path;
      requests.push_back(r);
      break;
    case AccessKind::kWrite:
      r.path = path;
      r.vnode_type = "REGULAR-FILE";
      r.operation = "file-write-data";
      requests.push_back(r);
      r.operation = "file-write-create";
      requests.push_back(r);
      break;
    case AccessKind::kExec:
      r.path = path;
      r.vnode_type = "REGULAR-FILE";
      r.operation = "process-exec";
      requests.push_back(r);
      r.operation = "file-read-data";
      requests.push_back(r);
      break;
    case AccessKind::kCreate:
      r.path = absl::StrCat(path, "/", kCreateProbeName);
      r.vnode_type = "REGULAR-FILE";
      r.operation = "file-write-create";
      requests.push_back(r);
      break;
    case AccessKind::kNetwork: {
      r.operation = "network-outbound";
      r.net = SbplNet::kIPv4;
      r.address = kProbeAddress;
      r.port = kProbePort;
      size_t colon = path.rfind(':');
      if (!path.empty() && colon != std::string::npos) {  // "HOST:PORT"
        std::string host = path.substr(0, colon);
        r.port = std::atoi(path.c_str() + colon + 1);
        if (host == "localhost") host = "127.0.0.1";
        if (host.size() > 2 && host.front() == '[') {
          r.net = SbplNet::kIPv6;
          host = host.substr(1, host.size() - 2);
        }
        r.address = host;
      }
      requests.push_back(r);
      break;
    }
  }
  // Every request must be allowed; the first refused one decides, else the
  // rule that allowed the first.
  Verdict v;
  for (size_t i = 0; i < requests.size(); ++i) {
    SbplDecision d = profile_.Decide(requests[i]);
    if (i == 0 || !d.allowed) {
      v.allowed = d.allowed;
      v.line = d.line;
      v.rule = d.rule < 0 ? "no rule matches (denied)" : d.rule_text;
      v.detail = requests[i].operation;
      if (kind == AccessKind::kNetwork) {
        v.detail = absl::StrCat("network-outbound ",
                                requests[i].net == SbplNet::kIPv6
                                    ? absl::StrCat("[", requests[i].address, "]")
                                    : requests[i].address,
                                ":", requests[i].port);
      }
    }
    if (!d.allowed) break;
  }
  return v;
}

std::vector<std::string> ParamsIn(const std::string& rule_text) {
  std::vector<std::string> out;
  const std::string key = "(param \"";
  size_t at = 0;
  while ((at = rule_text.find(key, at)) != std::string::npos) {
    at += key.size();
    size_t end = rule_text.find('"', at);
    if (end == std::string::npos) break;
    out.push_back(rule_text.substr(at, end - at));
    at = end;
  }
  return out;
}

}  // namespace cwsc::backends
