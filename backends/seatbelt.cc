#include "backends/seatbelt.h"

#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cwsc::backends {
namespace {

using ir::Origin;

const Origin& BaseOrigin() {
  static const Origin* o = new Origin(Origin::Default("Seatbelt base policy (reference §10.3)"));
  return *o;
}

// The base policy of reference §10.3 item 1, line by line.
constexpr const char* kBasePolicy[] = {
    "(version 1)",
    "(deny default)",
    "",
    "; Core process operations",
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
    "",
    "; User preferences (needed by many CLI tools)",
    "(allow user-preference-read)",
    "",
    "; Consume only filesystem access tokens already granted by macOS",
    "(allow file-read* (extension \"com.apple.app-sandbox.read\"))",
    "(allow file-read* (extension \"com.apple.app-sandbox.read-write\"))",
    "",
    "; Basic I/O to /dev/null",
    "(allow file-write-data",
    "  (require-all",
    "    (path \"/dev/null\")",
    "    (vnode-type CHARACTER-DEVICE)))",
    "",
    "; System information",
    "(allow sysctl-read)",
    "",
    "; IPC primitives",
    "(allow ipc-posix-sem)",
    "(allow ipc-posix-shm-read*)",
    "(allow ipc-posix-shm-write-create)",
    "(allow ipc-posix-shm-write-data)",
    "(allow ipc-posix-shm-write-unlink)",
    "",
    "; Terminal support (essential for shell commands)",
    "(allow pseudo-tty)",
    "(allow file-read* file-write* file-ioctl (literal \"/dev/ptmx\"))",
    "(allow file-read* file-write* file-ioctl (literal \"/dev/tty\"))",
    "(allow file-read* file-write* file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))",
    "",
    "; macOS-specific device access",
    "(allow file-read* (literal \"/dev/urandom\"))",
    "(allow file-read* (literal \"/dev/random\"))",
    "(allow file-ioctl (literal \"/dev/dtracehelper\"))",
    "",
    "; Mach IPC (needed by many system services)",
    "(allow mach-lookup)",
};

constexpr const char* kCommonDirs[] = {"/usr/lib", "/usr/share", "/System/Library",
                                       "/Library/Preferences", "/private/var/db"};

bool ValidKey(const std::string& key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

std::string Param(const std::string& key) { return absl::StrCat("(param \"", key, "\")"); }

// WriteRoot is one WRITABLE_ROOT_i with its WRITABLE_ROOT_i_RO_j keys.
struct WriteRoot {
  std::string key;
  std::vector<std::string> ro_keys;
  Origin origin;
};

// Structure is what the profile needs from the parameter list.
struct Structure {
  std::vector<WriteRoot> roots;
  std::vector<const ir::Param*> denied;  // DENY_READ_k in order
  std::map<std::string, const ir::Param*> named;
};

// Parses "PREFIX<digits>" and returns the number, or -1.
int IndexAfter(absl::string_view key, absl::string_view prefix) {
  if (!absl::StartsWith(key, prefix)) return -1;
  absl::string_view rest = key.substr(prefix.size());
  if (rest.empty() || rest.find_first_not_of("0123456789") != absl::string_view::npos) return -1;
  if (rest.size() > 1 && rest[0] == '0') return -1;
  int n = 0;
  if (!absl::SimpleAtoi(rest, &n)) return -1;
  return n;
}

absl::StatusOr<Structure> ReadStructure(const ir::Seatbelt& sb) {
  Structure s;
  for (const ir::Param& p : sb.params) {
    if (!ValidKey(p.key)) {
      return absl::InternalError(absl::StrCat("Seatbelt parameter key '", p.key,
                                              "' is not [A-Z0-9_]+"));
    }
    if (s.named.count(p.key)) {
      return absl::InternalError(absl::StrCat("Seatbelt parameter ", p.key, " appears twice"));
    }
    s.named[p.key] = &p;
    absl::string_view key = p.key;
    int i = IndexAfter(key, "WRITABLE_ROOT_");
    if (i >= 0) {
      if (i != static_cast<int>(s.roots.size())) {
        return absl::InternalError(absl::StrCat("Seatbelt parameter ", p.key, " out of order"));
      }
      s.roots.push_back({p.key, {}, p.origin});
      continue;
    }
    if (absl::StartsWith(key, "WRITABLE_ROOT_")) {
      size_t ro = key.find("_RO_");
      if (ro == absl::string_view::npos || s.roots.empty() ||
          key.substr(0, ro) != s.roots.back().key ||
          IndexAfter(key.substr(ro), "_RO_") != static_cast<int>(s.roots.back().ro_keys.size())) {
        return absl::InternalError(absl::StrCat("Seatbelt parameter ", p.key, " out of order"));
      }
      s.roots.back().ro_keys.push_back(p.key);
      continue;
    }
    int k = IndexAfter(key, "DENY_READ_");
    if (k >= 0) {
      if (k != static_cast<int>(s.denied.size())) {
        return absl::InternalError(absl::StrCat("Seatbelt parameter ", p.key, " out of order"));
      }
      s.denied.push_back(&p);
      continue;
    }
    static const char* kNamed[] = {"DARWIN_USER_CACHE_DIR", "CARGO_HOME_REGISTRY",
                                   "CARGO_HOME_GIT", "CARGO_HOME", "NPM_CACHE_DIR"};
    bool known = false;
    for (const char* n : kNamed) known = known || p.key == n;
    if (!known) {
      return absl::InternalError(absl::StrCat("unknown Seatbelt parameter ", p.key));
    }
  }
  return s;
}

class Lines {
 public:
  void Add(std::string text, const Origin& origin) { out_.push_back({std::move(text), origin}); }
  void Blank() { out_.push_back({"", BaseOrigin()}); }
  EmittedArgv Take() { return std::move(out_); }

 private:
  EmittedArgv out_;
};

bool HasNetwork(const ir::Policy& p) {
  return p.type == ir::PolicyType::kDangerFullAccess || p.network_access;
}

bool FullDiskWrite(const ir::Policy& p) {
  return p.type == ir::PolicyType::kDangerFullAccess ||
         p.type == ir::PolicyType::kExternalSandbox;
}

absl::Status EmitNetwork(const ir::LaunchPlan& plan, Lines* out) {
  const ir::Policy& policy = plan.policy;
  const ir::Seatbelt& sb = *plan.seatbelt;
  if (!HasNetwork(policy)) return absl::OkStatus();
  const Origin& o = policy.network_origin;
  out->Blank();
  if (policy.type != ir::PolicyType::kReadOnly) {
    out->Add("; Network access", o);
    out->Add("(allow network-outbound)", o);
    out->Add("(allow network-inbound)", o);
    out->Add("(allow system-socket)", o);
    out->Add("(allow network-bind)", o);
    out->Blank();  // Codewhale's network block ends with its own newline
    return absl::OkStatus();
  }
  if (sb.network_dropped_for_proxy) {
    out->Add("; Network: none (proxy variables are set but name no loopback port)", o);
    out->Blank();
    return absl::OkStatus();
  }
  out->Add("; Network: outbound IPv4 and the system DNS resolver only (read-only + network)", o);
  out->Add("(allow system-socket)", o);
  out->Add("(allow network-outbound (remote ip4 \"*:*\"))", o);
  out->Add("(deny network-outbound (remote ip4 \"localhost:*\"))", o);
  out->Add("(deny network-outbound (remote ip6 \"*:*\"))", o);
  for (int port : sb.loopback_proxy_ports) {
    if (port < 1 || port > 65535) {
      return absl::InternalError(absl::StrCat("loopback proxy port ", port, " out of range"));
    }
    out->Add(absl::StrCat("(allow network-outbound (remote ip \"localhost:", port, "\"))"), o);
  }
  out->Add(absl::StrCat("(allow network-outbound (remote unix-socket (path-literal \"",
                        kMdnsResponderSocket, "\")))"),
           o);
  out->Blank();  // the same layout as the full network block
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<EmittedArgv> EmitSeatbeltProfile(const ir::LaunchPlan& plan) {
  if (!plan.seatbelt.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat("plan kind ", ir::PlanKindName(plan.kind), " has no Seatbelt profile"));
  }
  const ir::Seatbelt& sb = *plan.seatbelt;
  const ir::Policy& policy = plan.policy;
  const bool read_only = policy.type == ir::PolicyType::kReadOnly;
  absl::StatusOr<Structure> st = ReadStructure(sb);
  if (!st.ok()) return st.status();

  Lines out;
  // Codewhale's profile text starts with a newline (its base policy is a raw
  // string opening on one); the layout below matches it byte for byte.
  out.Blank();
  for (const char* line : kBasePolicy) out.Add(line, BaseOrigin());

  const Origin read_origin = Origin::Default("full filesystem read (reference §10.3 item 2)");
  out.Blank();
  out.Add("; Full filesystem read access", read_origin);
  out.Add("(allow file-read*)", read_origin);

  // Write policy (reference §10.4).
  if (FullDiskWrite(policy)) {
    out.Blank();
    out.Add("; Write access policy", policy.origin);
    out.Add("(allow file-write* (regex #\"^/\"))", policy.origin);
  } else if (policy.type == ir::PolicyType::kWorkspaceWrite && !st->roots.empty()) {
    out.Blank();
    out.Add("; Write access policy", policy.origin);
    out.Add("(allow file-write*", policy.origin);
    std::vector<std::pair<std::string, Origin>> entries;
    for (const WriteRoot& r : st->roots) {
      std::vector<std::string> parts = {absl::StrCat("(subpath ", Param(r.key), ")")};
      for (const std::string& ro : r.ro_keys) {
        parts.push_back(absl::StrCat("(require-not (subpath ", Param(ro), "))"));
      }
      std::string entry = parts.size() == 1
                              ? parts[0]
                              : absl::StrCat("(require-all ", absl::StrJoin(parts, " "), ")");
      entries.emplace_back(std::move(entry), r.origin);
      entries.emplace_back(
          absl::StrCat("(require-all (extension \"com.apple.app-sandbox.read-write\") ",
                       absl::StrJoin(parts, " "), ")"),
          r.origin);
    }
    for (size_t i = 0; i < entries.size(); ++i) {
      out.Add(absl::StrCat("  ", entries[i].first, i + 1 == entries.size() ? ")" : ""),
              entries[i].second);
    }
  }

  absl::Status net = EmitNetwork(plan, &out);
  if (!net.ok()) return net;

  if (FullDiskWrite(policy)) {
    const Origin& o = policy.origin;
    out.Blank();
    out.Add("; AppleEvents + LaunchServices (trusted full-access tier only)", o);
    out.Add("(allow appleevent-send)", o);
    out.Add("(allow lsopen)", o);
    out.Add("(allow mach-lookup", o);
    out.Add("  (global-name \"com.apple.coreservices.launchservicesd\")", o);
    out.Add("  (global-name \"com.apple.coreservices.appleevents\"))", o);
    out.Blank();  // as Codewhale's block, which ends with its own newline
  }

  auto named = [&](const char* key) -> const ir::Param* {
    auto it = st->named.find(key);
    return it == st->named.end() ? nullptr : it->second;
  };

  if (const ir::Param* p = named("DARWIN_USER_CACHE_DIR")) {
    out.Blank();
    out.Add("; Darwin user cache directory", p->origin);
    out.Add("(allow file-read* (subpath (param \"DARWIN_USER_CACHE_DIR\")))", p->origin);
    if (!read_only) {
      out.Add("(allow file-write* (subpath (param \"DARWIN_USER_CACHE_DIR\")))", p->origin);
    }
  }

  const Origin dirs_origin = Origin::Default("common macOS directories (reference §10.3 item 7)");
  out.Blank();
  out.Add("; Common macOS directories", dirs_origin);
  for (const char* d : kCommonDirs) out.Add(absl::StrCat("(allow file-read* (subpath \"", d, "\"))"), dirs_origin);

  const ir::Param* cargo = named("CARGO_HOME");
  const ir::Param* cargo_reg = named("CARGO_HOME_REGISTRY");
  const ir::Param* cargo_git = named("CARGO_HOME_GIT");
  if ((cargo != nullptr) != (cargo_reg != nullptr) || (cargo != nullptr) != (cargo_git != nullptr)) {
    return absl::InternalError("CARGO_HOME, CARGO_HOME_REGISTRY and CARGO_HOME_GIT go together");
  }
  if (cargo != nullptr) {
    out.Blank();
    out.Add("; Cargo home (~/.cargo) — registry/index/git caches", cargo->origin);
    out.Add("(allow file-read* (subpath (param \"CARGO_HOME\")))", cargo->origin);
    if (!read_only) {
      out.Add("(allow file-write* (subpath (param \"CARGO_HOME_REGISTRY\")))", cargo_reg->origin);
      out.Add("(allow file-write* (subpath (param \"CARGO_HOME_GIT\")))", cargo_git->origin);
    }
  }

  if (const ir::Param* p = named("NPM_CACHE_DIR")) {
    out.Blank();
    out.Add("; npm cache (~/.npm) — npx package downloads", p->origin);
    out.Add("(allow file-read* (subpath (param \"NPM_CACHE_DIR\")))", p->origin);
    if (!read_only) out.Add("(allow file-write* (subpath (param \"NPM_CACHE_DIR\")))", p->origin);
  }

  // Deny list last: the last matching rule wins (reference §10.7).
  if (!st->denied.empty()) {
    out.Blank();
    out.Add("; Read deny list (last, so these rules win over every allow above)",
            st->denied.front()->origin);
    for (const ir::Param* p : st->denied) {
      out.Add(absl::StrCat("(deny file-read* (subpath ", Param(p->key), "))"), p->origin);
    }
  }
  return out.Take();
}

std::string SeatbeltProfileText(const EmittedArgv& lines) {
  // Lines joined by newlines, no newline after the last (as Codewhale's text).
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) text += '\n';
    text += lines[i].text;
  }
  return text;
}

absl::StatusOr<EmittedArgv> EmitSeatbeltArgv(const ir::LaunchPlan& plan,
                                             const std::vector<std::string>& program) {
  absl::StatusOr<EmittedArgv> lines = EmitSeatbeltProfile(plan);
  if (!lines.ok()) return lines.status();
  const Origin wrapper_origin = Origin::Default("sandbox-exec (reference §10.2)");
  EmittedArgv argv;
  argv.push_back({plan.wrapper.path.empty() ? std::string(kSandboxExecPath) : plan.wrapper.path,
                  wrapper_origin});
  argv.push_back({"-p", wrapper_origin});
  argv.push_back({SeatbeltProfileText(*lines), Origin::Default("Seatbelt profile (reference §10.3)")});
  for (const ir::Param& p : plan.seatbelt->params) {
    if (p.value.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("Seatbelt parameter ", p.key, " contains a NUL byte"));
    }
    argv.push_back({absl::StrCat("-D", p.key, "=", p.value), p.origin});
  }
  argv.push_back({"--", wrapper_origin});
  for (const std::string& a : program) argv.push_back({a, Origin::Cli("program")});
  return argv;
}

bool SeatbeltDetectDenial(int exit_code, const std::string& stderr_text) {
  if (exit_code == 0) return false;
  for (const char* p : {"Operation not permitted", "sandbox-exec", "deny(", "Sandbox: "}) {
    if (stderr_text.find(p) != std::string::npos) return true;
  }
  return false;
}

}  // namespace cwsc::backends
