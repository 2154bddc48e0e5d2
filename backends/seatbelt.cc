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
  static const Origin* o =
      new Origin(Origin::Default("Seatbelt base policy (docs/behavior.md B-62)"));
  return *o;
}

// The base policy of docs/behavior.md B-62, line by line.
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

std::string Param(const std::string& key) { return absl::StrCat("(param \"", key, "\")"); }

// The parameter names this backend gives the plan's paths.
std::string RootKey(size_t i) { return absl::StrCat("WRITABLE_ROOT_", i); }
std::string ReadOnlyKey(size_t i, size_t j) { return absl::StrCat(RootKey(i), "_RO_", j); }
std::string DenyKey(size_t k) { return absl::StrCat("DENY_READ_", k); }

// Under is `rel` inside `dir` (a trailing '/' of `dir` is not doubled).
std::string Under(const std::string& dir, const char* rel) {
  std::string out = dir;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  if (out != "/") out += '/';
  return out + rel;
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
  return p.type == ir::PolicyType::kDangerFullAccess || p.type == ir::PolicyType::kExternalSandbox;
}

absl::Status EmitNetwork(const ir::LaunchPlan& plan, Lines* out) {
  const ir::Policy& policy = plan.policy;
  const ir::Seatbelt& sb = *plan.seatbelt();
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

namespace {

// The profile's sections, in the order EmitSeatbeltProfile writes them.

// EmitBase: Codewhale's profile text starts with a newline (its base policy
// is a raw string opening on one); the layout matches it byte for byte.
void EmitBase(Lines* out) {
  out->Blank();
  for (const char* line : kBasePolicy) out->Add(line, BaseOrigin());
  const Origin read_origin = Origin::Default("full filesystem read (docs/behavior.md B-62)");
  out->Blank();
  out->Add("; Full filesystem read access", read_origin);
  out->Add("(allow file-read*)", read_origin);
}

// RootEntry is the filter of one writable root: its subpath less the
// read-only paths under it.
std::string RootEntry(size_t i, const ir::SeatbeltRoot& r) {
  std::vector<std::string> parts = {absl::StrCat("(subpath ", Param(RootKey(i)), ")")};
  for (size_t j = 0; j < r.read_only.size(); ++j) {
    parts.push_back(absl::StrCat("(require-not (subpath ", Param(ReadOnlyKey(i, j)), "))"));
  }
  return absl::StrJoin(parts, " ");
}

// EmitWritePolicy (docs/behavior.md B-63): every path for the full-disk tiers,
// else each writable root, also under the app-sandbox read-write extension.
void EmitWritePolicy(const ir::Policy& policy, const ir::Seatbelt& sb, Lines* out) {
  if (FullDiskWrite(policy)) {
    out->Blank();
    out->Add("; Write access policy", policy.origin);
    out->Add("(allow file-write* (regex #\"^/\"))", policy.origin);
    return;
  }
  if (policy.type != ir::PolicyType::kWorkspaceWrite || sb.writable_roots.empty()) return;
  out->Blank();
  out->Add("; Write access policy", policy.origin);
  out->Add("(allow file-write*", policy.origin);
  std::vector<std::pair<std::string, Origin>> entries;
  for (size_t i = 0; i < sb.writable_roots.size(); ++i) {
    const ir::SeatbeltRoot& r = sb.writable_roots[i];
    std::string filter = RootEntry(i, r);
    bool alone = r.read_only.empty();
    entries.emplace_back(alone ? filter : absl::StrCat("(require-all ", filter, ")"),
                         r.root.origin);
    entries.emplace_back(
        absl::StrCat("(require-all (extension \"com.apple.app-sandbox.read-write\") ", filter, ")"),
        r.root.origin);
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    out->Add(absl::StrCat("  ", entries[i].first, i + 1 == entries.size() ? ")" : ""),
             entries[i].second);
  }
}

// EmitLaunchServices: AppleEvents and LaunchServices for the full-disk tiers.
void EmitLaunchServices(const ir::Policy& policy, Lines* out) {
  if (!FullDiskWrite(policy)) return;
  const Origin& o = policy.origin;
  out->Blank();
  out->Add("; AppleEvents + LaunchServices (trusted full-access tier only)", o);
  out->Add("(allow appleevent-send)", o);
  out->Add("(allow lsopen)", o);
  out->Add("(allow mach-lookup", o);
  out->Add("  (global-name \"com.apple.coreservices.launchservicesd\")", o);
  out->Add("  (global-name \"com.apple.coreservices.appleevents\"))", o);
  out->Blank();  // as Codewhale's block, which ends with its own newline
}

// EmitCacheDirs: the Darwin user cache, the common macOS directories, the
// Cargo home and the npm cache (written only when the policy writes).
void EmitCacheDirs(const ir::Seatbelt& sb, bool read_only, Lines* out) {
  if (const std::optional<ir::SeatbeltPath>& p = sb.darwin_cache) {
    out->Blank();
    out->Add("; Darwin user cache directory", p->origin);
    out->Add("(allow file-read* (subpath (param \"DARWIN_USER_CACHE_DIR\")))", p->origin);
    if (!read_only) {
      out->Add("(allow file-write* (subpath (param \"DARWIN_USER_CACHE_DIR\")))", p->origin);
    }
  }
  const Origin dirs_origin = Origin::Default("common macOS directories (docs/behavior.md B-62)");
  out->Blank();
  out->Add("; Common macOS directories", dirs_origin);
  for (const char* d : kCommonDirs) {
    out->Add(absl::StrCat("(allow file-read* (subpath \"", d, "\"))"), dirs_origin);
  }
  if (const std::optional<ir::SeatbeltPath>& cargo = sb.cargo_home) {
    out->Blank();
    out->Add("; Cargo home (~/.cargo) — registry/index/git caches", cargo->origin);
    out->Add("(allow file-read* (subpath (param \"CARGO_HOME\")))", cargo->origin);
    if (!read_only) {
      out->Add("(allow file-write* (subpath (param \"CARGO_HOME_REGISTRY\")))", cargo->origin);
      out->Add("(allow file-write* (subpath (param \"CARGO_HOME_GIT\")))", cargo->origin);
    }
  }
  if (const std::optional<ir::SeatbeltPath>& p = sb.npm_cache) {
    out->Blank();
    out->Add("; npm cache (~/.npm) — npx package downloads", p->origin);
    out->Add("(allow file-read* (subpath (param \"NPM_CACHE_DIR\")))", p->origin);
    if (!read_only) out->Add("(allow file-write* (subpath (param \"NPM_CACHE_DIR\")))", p->origin);
  }
}

// EmitDenyList comes last: the last matching rule wins (docs/behavior.md B-65).
void EmitDenyList(const ir::Seatbelt& sb, Lines* out) {
  if (sb.denied_read.empty()) return;
  out->Blank();
  out->Add("; Read deny list (last, so these rules win over every allow above)",
           sb.denied_read.front().origin);
  for (size_t k = 0; k < sb.denied_read.size(); ++k) {
    out->Add(absl::StrCat("(deny file-read* (subpath ", Param(DenyKey(k)), "))"),
             sb.denied_read[k].origin);
  }
}

}  // namespace

absl::StatusOr<EmittedArgv> EmitSeatbeltProfile(const ir::LaunchPlan& plan) {
  if (plan.seatbelt() == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("plan kind ", ir::PlanKindName(plan.kind()), " has no Seatbelt profile"));
  }
  const ir::Seatbelt& sb = *plan.seatbelt();
  Lines out;
  EmitBase(&out);
  EmitWritePolicy(plan.policy, sb, &out);
  absl::Status net = EmitNetwork(plan, &out);
  if (!net.ok()) return net;
  EmitLaunchServices(plan.policy, &out);
  EmitCacheDirs(sb, plan.policy.type == ir::PolicyType::kReadOnly, &out);
  EmitDenyList(sb, &out);
  return out.Take();
}

std::vector<SeatbeltParam> SeatbeltParams(const ir::Seatbelt& sb) {
  std::vector<SeatbeltParam> out;
  for (size_t i = 0; i < sb.writable_roots.size(); ++i) {
    const ir::SeatbeltRoot& r = sb.writable_roots[i];
    out.push_back({RootKey(i), r.root.path, r.root.origin});
    for (size_t j = 0; j < r.read_only.size(); ++j) {
      out.push_back({ReadOnlyKey(i, j), r.read_only[j].path, r.read_only[j].origin});
    }
  }
  if (sb.darwin_cache) {
    out.push_back({"DARWIN_USER_CACHE_DIR", sb.darwin_cache->path, sb.darwin_cache->origin});
  }
  if (sb.cargo_home) {
    const ir::SeatbeltPath& c = *sb.cargo_home;
    out.push_back({"CARGO_HOME_REGISTRY", Under(c.path, "registry"), c.origin});
    out.push_back({"CARGO_HOME_GIT", Under(c.path, "git"), c.origin});
    out.push_back({"CARGO_HOME", c.path, c.origin});
  }
  if (sb.npm_cache) out.push_back({"NPM_CACHE_DIR", sb.npm_cache->path, sb.npm_cache->origin});
  for (size_t k = 0; k < sb.denied_read.size(); ++k) {
    out.push_back({DenyKey(k), sb.denied_read[k].path, sb.denied_read[k].origin});
  }
  return out;
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
  const Origin wrapper_origin = Origin::Default("sandbox-exec (docs/behavior.md B-61)");
  EmittedArgv argv;
  argv.push_back({plan.wrapper.path.empty() ? std::string(kSandboxExecPath) : plan.wrapper.path,
                  wrapper_origin});
  argv.push_back({"-p", wrapper_origin});
  argv.push_back(
      {SeatbeltProfileText(*lines), Origin::Default("Seatbelt profile (docs/behavior.md B-62)")});
  for (const SeatbeltParam& p : SeatbeltParams(*plan.seatbelt())) {
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
