#include "compiler/lower_seatbelt.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "ir/constants.h"

namespace cwsc::compiler {
namespace {

using ir::Origin;

constexpr const char* kSandboxExec = ir::kSandboxExecPath;

std::string Join(const std::string& base, absl::string_view rel) {
  std::string out = base;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  if (out != "/") out += '/';
  out.append(rel.data(), rel.size());
  return out;
}

// CanonicalOrRaw is realpath when it resolves, else the path as given
// (docs/behavior.md B-61: "canonicalised when possible else raw").
std::string CanonicalOrRaw(HostFacts& facts, const std::string& path) {
  const PathInfo& info = facts.Path(absl::string_view(path.data(), path.size()));
  return info.canonical.empty() ? path : info.canonical;
}

// NonBlankEnv returns the variable when it is set to something other than blanks.
std::optional<std::string> NonBlankEnv(HostFacts& facts, absl::string_view name) {
  std::optional<std::string> v = facts.Env(name);
  if (!v.has_value()) return std::nullopt;
  if (absl::StripAsciiWhitespace(*v).empty()) return std::nullopt;
  return v;
}

struct Lowering {
  HostFacts& facts;
  ir::LaunchPlan* plan;
  ir::Seatbelt sb;

  // Path checks one profile path: a value that is not absolute cannot be a
  // Seatbelt path, so it (and its rules) is skipped.
  std::optional<ir::SeatbeltPath> Path(const std::string& value, const Origin& origin,
                                       const std::string& what) {
    if (value.empty() || value[0] != '/') {
      plan->skipped.push_back({what, value, "not an absolute path; Seatbelt needs one", origin,
                               ir::SkipKind::kSeatbeltPath});
      return std::nullopt;
    }
    return ir::SeatbeltPath{value, origin};
  }

  // Home is $HOME (the environment, as the reference reads it), if set.
  std::optional<std::string> Home() { return facts.Env("HOME"); }

  void Roots() {
    if (plan->policy.type != ir::PolicyType::kWorkspaceWrite) return;
    for (const ir::Root& root : plan->roots) {
      std::string value = root.canonical.empty() ? root.path.str() : root.canonical.str();
      std::optional<ir::SeatbeltPath> r = Path(value, root.origin, "Seatbelt writable root");
      if (!r) continue;
      ir::SeatbeltRoot out{*r, {}};
      for (const ir::Protected& p : root.protected_paths) {
        // The plan lists the existing protected paths; Seatbelt excludes
        // every one, canonical when it resolves. Placeholders for missing
        // names are a bwrap mount (docs/decisions.md); the Seatbelt profile
        // stays Codewhale's.
        if (p.placeholder) continue;
        std::string v = p.canonical.empty() ? CanonicalOrRaw(facts, p.path) : p.canonical;
        if (auto ro = Path(v, p.origin, "Seatbelt protected path")) out.read_only.push_back(*ro);
      }
      sb.writable_roots.push_back(std::move(out));
    }
  }

  void DarwinCache() {
    std::optional<std::string> dir = facts.DarwinUserCacheDir();
    if (dir.has_value() && !dir->empty()) {
      sb.darwin_cache = Path(CanonicalOrRaw(facts, *dir), Origin::Fact("darwin_user_cache_dir"),
                             "DARWIN_USER_CACHE_DIR");
      return;
    }
    if (std::optional<std::string> home = Home()) {
      sb.darwin_cache =
          Path(Join(*home, "Library/Caches"), Origin::Env("HOME"), "DARWIN_USER_CACHE_DIR");
    }
  }

  void Cargo() {
    std::optional<std::string> home;
    Origin origin;
    if (std::optional<std::string> v = NonBlankEnv(facts, "CARGO_HOME")) {
      home = *v;
      origin = Origin::Env("CARGO_HOME");
    } else if (std::optional<std::string> h = Home()) {
      home = Join(*h, ".cargo");
      origin = Origin::Env("HOME");
    }
    if (!home.has_value()) return;
    sb.cargo_home = Path(CanonicalOrRaw(facts, *home), origin, "CARGO_HOME");
  }

  void Npm() {
    std::optional<std::string> dir;
    Origin origin;
    if (std::optional<std::string> v = NonBlankEnv(facts, "NPM_CONFIG_CACHE")) {
      dir = *v;
      origin = Origin::Env("NPM_CONFIG_CACHE");
    } else if (std::optional<std::string> h = Home()) {
      dir = Join(*h, ".npm");
      origin = Origin::Env("HOME");
    }
    if (!dir.has_value()) return;
    sb.npm_cache = Path(CanonicalOrRaw(facts, *dir), origin, "NPM_CACHE_DIR");
  }

  void Denied() {
    for (const ir::DeniedPath& d : plan->denied_read) {
      if (auto p = Path(d.path, d.origin, "Seatbelt read deny rule")) sb.denied_read.push_back(*p);
    }
  }

  void Network() {
    const ir::Policy& policy = plan->policy;
    if (policy.type != ir::PolicyType::kReadOnly || !policy.network_access) return;
    ProxyPortResult r = LoopbackProxyPorts(facts);
    sb.loopback_proxy_ports = r.ports;
    if (r.proxy_vars_set && r.ports.empty()) {
      sb.network_dropped_for_proxy = true;
      std::string vars;
      for (const std::string& v : r.consulted) vars += (vars.empty() ? "" : ", ") + v;
      plan->warnings.push_back(
          {"seatbelt-network-dropped",
           absl::StrCat("read-only + network: proxy variables are set (", vars,
                        ") but none names a loopback proxy port; network is denied (fail closed)"),
           Origin::Env(r.consulted.empty() ? "HTTP_PROXY" : r.consulted.front())});
    }
  }

  void Markers() {
    for (const char* name : {"CODEWHALE_SANDBOX", "DEEPSEEK_SANDBOX"}) {
      bool present = false;
      for (const ir::EnvVar& e : plan->env_set) present = present || e.name == name;
      if (!present) {
        plan->env_set.push_back(
            {name, "seatbelt", Origin::Default("Seatbelt marker (docs/behavior.md B-31)")});
      }
    }
  }
};

bool IsSchemeChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
}

}  // namespace

ir::Wrapper SeatbeltWrapper(HostFacts& facts) {
  ir::Wrapper w;
  w.path = kSandboxExec;
  const PathInfo& info = facts.Path(kSandboxExec);
  w.executable = info.type == FileType::kRegular && (info.mode & 0111) != 0;
  if (info.type == FileType::kMissing) {
    w.probe_message = "/usr/bin/sandbox-exec does not exist";
    return w;
  }
  ProbeResult probe = facts.SeatbeltProbe();
  w.probe_ok = probe.ran && probe.ok && probe.exit_code == 0;
  if (!w.probe_ok) {
    w.probe_message = probe.message.empty()
                          ? absl::StrCat("sandbox-exec probe failed (exit ", probe.exit_code, ")")
                          : probe.message;
  }
  return w;
}

std::optional<int> LoopbackProxyPort(absl::string_view value) {
  std::string v(absl::StripAsciiWhitespace(value));
  if (v.empty()) return std::nullopt;
  if (v.find("://") == std::string::npos) v = "http://" + v;
  size_t sep = v.find("://");
  std::string scheme = absl::AsciiStrToLower(v.substr(0, sep));
  if (scheme.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(scheme[0])) ||
      !std::all_of(scheme.begin(), scheme.end(), IsSchemeChar)) {
    return std::nullopt;
  }
  std::string rest = v.substr(sep + 3);
  std::string authority = rest.substr(0, rest.find_first_of("/?#"));
  size_t at = authority.rfind('@');
  if (at != std::string::npos) authority = authority.substr(at + 1);
  std::string host;
  std::string port;
  bool has_port = false;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos) return std::nullopt;
    host = authority.substr(1, close - 1);
    std::string after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return std::nullopt;
      has_port = true;
      port = after.substr(1);
    }
  } else {
    size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string::npos) {
      if (authority.find(':', colon + 1) != std::string::npos) return std::nullopt;
      has_port = true;
      port = authority.substr(colon + 1);
    }
  }
  host = absl::AsciiStrToLower(host);
  if (host.empty()) return std::nullopt;
  if (host != "localhost" && host != "127.0.0.1" && host != "::1") return std::nullopt;
  if (has_port && !port.empty()) {
    int n = 0;
    if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
        !absl::SimpleAtoi(port, &n) || n < 1 || n > 65535) {
      return std::nullopt;
    }
    return n;
  }
  if (scheme == "https") return 443;
  if (scheme == "socks4" || scheme == "socks4a" || scheme == "socks5" || scheme == "socks5h") {
    return 1080;
  }
  return 80;
}

ProxyPortResult LoopbackProxyPorts(HostFacts& facts) {
  ProxyPortResult r;
  std::set<int> ports;
  for (const char* key :
       {"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"}) {
    std::optional<std::string> v = NonBlankEnv(facts, key);
    if (!v.has_value()) continue;
    r.proxy_vars_set = true;
    r.consulted.push_back(key);
    if (std::optional<int> p = LoopbackProxyPort(*v)) ports.insert(*p);
  }
  r.ports.assign(ports.begin(), ports.end());
  return r;
}

absl::Status LowerSeatbelt(HostFacts& facts, const PolicySpec& spec, ir::LaunchPlan* plan) {
  (void)spec;  // every input the backend needs is already in the plan or the facts
  Lowering l{facts, plan, {}};
  l.Roots();
  l.DarwinCache();
  l.Cargo();
  l.Npm();
  l.Denied();
  l.Network();
  l.Markers();
  if (plan->wrapper.path.empty()) plan->wrapper.path = kSandboxExec;
  plan->launch = std::move(l.sb);
  return absl::OkStatus();
}

}  // namespace cwsc::compiler
