// Cross-target agreement: the same policy, compiled for a Linux host and a
// macOS host with the same layout (examples/facts/linux-workspace.yaml and
// macos-workspace.yaml), must give the same access on both, as read back
// from the emitted artifacts: the bwrap mount interpreter on one side, the
// SBPL evaluator on the other. Every intended difference is listed in
// kDifferences with its reason, and each listed difference must still occur.
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/bwrap.h"
#include "backends/seatbelt.h"
#include "backends/verify/bwrap_interp.h"
#include "backends/verify/sbpl_eval.h"
#include "compiler/compile.h"
#include "compiler/facts/host_facts.h"
#include "compiler/modes.h"
#include "compiler/resolve.h"
#include "gtest/gtest.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::backends {
namespace {

using ::cwsc::testing::SourceRoot;

using ir::PolicyType;

// Verdict is what the confined process can do to the host's content at a path.
struct Verdict {
  bool read = false;
  bool write = false;
  bool operator==(const Verdict&) const = default;
};
std::string Show(const Verdict& v) { return absl::StrCat(v.read ? "r" : "-", v.write ? "w" : "-"); }

constexpr Verdict kNone{false, false};
constexpr Verdict kRead{true, false};
constexpr Verdict kReadWrite{true, true};

// Probe is one logical location, spelled as each host's kernel resolves it.
struct Probe {
  const char* name;
  const char* linux_path;
  const char* mac_path;
};

const Probe kProbes[] = {
    {"workspace file", "/home/dev/proj/src/main.rs", "/Users/dev/proj/src/main.rs"},
    {"workspace root", "/home/dev/proj", "/Users/dev/proj"},
    {"protected .codewhale", "/home/dev/proj/.codewhale/config.toml",
     "/Users/dev/proj/.codewhale/config.toml"},
    {"git metadata", "/home/dev/proj/.git/config", "/Users/dev/proj/.git/config"},
    {"deny-listed dir ~/.ssh", "/home/dev/.ssh/id_ed25519", "/Users/dev/.ssh/id_ed25519"},
    {"deny-listed file ~/.netrc", "/home/dev/.netrc", "/Users/dev/.netrc"},
    {"deny-listed /etc/ssh", "/etc/ssh/ssh_host_ed25519_key",
     "/private/etc/ssh/ssh_host_ed25519_key"},
    {"deny-listed, missing ~/.aws", "/home/dev/.aws/credentials", "/Users/dev/.aws/credentials"},
    {"/tmp", "/tmp/build.log", "/private/tmp/build.log"},
    {"TMPDIR", "/var/tmp/dev/cc1.s", "/private/var/folders/xy/abc123/T/cc1.s"},
    {"system binary", "/usr/bin/env", "/usr/bin/env"},
    {"system config", "/etc/hosts", "/private/etc/hosts"},
    {"home file", "/home/dev/notes.txt", "/Users/dev/notes.txt"},
    {"outside any root", "/opt/data/x", "/opt/data/x"},
    {"user cache", "/home/dev/.cache/clang/x", "/private/var/folders/xy/abc123/C/clang/x"},
    {"cargo registry", "/home/dev/.cargo/registry/index/x", "/Users/dev/.cargo/registry/index/x"},
    {"cargo bin", "/home/dev/.cargo/bin/cargo", "/Users/dev/.cargo/bin/cargo"},
    {"npm cache", "/home/dev/.npm/_cacache/x", "/Users/dev/.npm/_cacache/x"},
    {"extra writable root ~/.cache/build", "/home/dev/.cache/build/o.o",
     "/Users/dev/.cache/build/o.o"},
    {"deny-listed by config, missing", "/home/dev/.config/private-notes/a",
     "/Users/dev/.config/private-notes/a"},
};

// Difference is an intended disagreement, with the reason it is accepted.
struct Difference {
  const char* probe;
  bool (*applies)(const ir::LaunchPlan& mac_plan);
  Verdict bwrap;
  Verdict seatbelt;
  const char* reason;
};

bool WorkspaceWrite(const ir::LaunchPlan& p) {
  return p.policy.type == PolicyType::kWorkspaceWrite;
}
bool Always(const ir::LaunchPlan&) { return true; }
bool NoSlashTmpRoot(const ir::LaunchPlan& p) {
  for (const ir::Root& r : p.roots) {
    if (r.path == "/private/tmp" || r.canonical == "/private/tmp") return false;
  }
  return true;
}

bool DeniesPrivateNotes(const ir::LaunchPlan& p) {
  for (const ir::DeniedPath& d : p.denied_read) {
    if (d.path == "/Users/dev/.config/private-notes") return true;
  }
  return false;
}

const Difference kDifferences[] = {
    {"user cache", WorkspaceWrite, kRead, kReadWrite,
     "Seatbelt opens the Darwin user cache directory for writing (docs/behavior.md B-62); "
     "bwrap has no cache rule, ~/.cache stays read-only"},
    {"cargo registry", WorkspaceWrite, kRead, kReadWrite,
     "Seatbelt opens CARGO_HOME/registry and /git for writing (docs/behavior.md B-62); bwrap does "
     "not"},
    {"npm cache", WorkspaceWrite, kRead, kReadWrite,
     "Seatbelt opens the npm cache for writing (docs/behavior.md B-62); bwrap does not"},
    {"deny-listed, missing ~/.aws", Always, kRead, kNone,
     "bwrap can only mask paths that exist at launch (docs/behavior.md B-43); Seatbelt denies the "
     "path itself, "
     "so a file created later is still unreadable"},
    {"deny-listed by config, missing", DeniesPrivateNotes, kRead, kNone,
     "as above, for a sandbox_denied_read_paths entry that does not exist yet"},
    {"/tmp", NoSlashTmpRoot, kNone, kRead,
     "when /tmp is not a writable root, bwrap mounts a private, empty /tmp (--tmpfs /tmp); "
     "Seatbelt shows the host's /tmp read-only"},
};

// Case is one compile: an example config (or none) with a permission mode,
// on the pair examples/facts/{linux,macos}-<facts>.yaml.
struct Case {
  std::string config;  // examples/<config>.toml; "" = no config file
  std::string facts;
  std::string mode;
  std::optional<bool> network;  // sandbox_network_access (cases without a config)
};

ir::LaunchPlan Compile(const Case& c, const std::string& platform) {
  const std::string cwd = platform == "linux" ? "/home/dev/proj" : "/Users/dev/proj";
  absl::StatusOr<std::unique_ptr<compiler::HostFacts>> facts = compiler::LoadRecordedFacts(
      absl::StrCat(SourceRoot(), "/examples/facts/", platform, "-", c.facts, ".yaml"));
  EXPECT_TRUE(facts.ok()) << facts.status();
  if (!facts.ok()) return {};
  if (!c.config.empty()) {
    compiler::CompileOptions o;
    o.config_path = absl::StrCat(SourceRoot(), "/examples/", c.config, ".toml");
    o.mode = c.mode;
    o.cwd = cwd;
    absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(o, facts->get());
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->plan : ir::LaunchPlan{};
  }
  compiler::ResolveInput in;
  in.mode = *compiler::ParsePermissionMode(c.mode);
  in.mode_origin = ir::Origin::Cli(absl::StrCat("--mode ", c.mode));
  in.cwd = cwd;
  if (c.network) {
    in.spec.sandbox_network_access = compiler::Setting<bool>{
        *c.network, ir::Origin::Config("sandbox_network_access", "t.toml", 1, 1)};
    if (c.mode == "plan" && *c.network) {
      // Read-only with network: full access narrowed to read-only (Plan has no network).
      in.mode = ir::PermissionMode::kFullAccess;
      in.spec.sandbox_mode = compiler::Setting<compiler::SandboxMode>{
          {ir::PolicyType::kReadOnly, "read-only"},
          ir::Origin::Config("sandbox_mode", "t.toml", 2, 1)};
    }
  }
  absl::StatusOr<ir::LaunchPlan> plan = compiler::ResolvePlan(in, **facts);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *plan : ir::LaunchPlan{};
}

Verdict BwrapVerdict(const BwrapView& view, const std::string& path) {
  switch (view.Find(path).access) {
    case Access::kWritable:
    case Access::kDevice:
      return kReadWrite;
    case Access::kReadOnly:
      return kRead;
    default:
      return kNone;
  }
}

TEST(Agreement, BwrapAndSeatbeltAgreeExceptListedDifferences) {
  const Case cases[] = {
      {"workspace", "workspace", "plan", {}},
      {"workspace", "workspace", "ask", {}},
      {"workspace", "workspace", "auto-review", {}},
      {"readonly", "readonly", "ask", {}},
      {"locked-down", "locked-down", "plan", {}},
      {"locked-down", "locked-down", "ask", {}},
      {"", "workspace", "plan", true},
      {"", "workspace", "ask", false},
  };
  std::set<std::string> differences_seen;
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat("config ", c.config, ", facts ", c.facts, ", mode ", c.mode));
    ir::LaunchPlan lp = Compile(c, "linux");
    ir::LaunchPlan mp = Compile(c, "macos");
    ASSERT_EQ(lp.kind(), ir::PlanKind::kLinuxBwrap);
    ASSERT_EQ(mp.kind(), ir::PlanKind::kMacosSeatbelt);
    ASSERT_EQ(lp.policy.type, mp.policy.type);
    absl::StatusOr<EmittedArgv> bargv = EmitBwrapArgv(lp, {"true"});
    absl::StatusOr<EmittedArgv> sargv = EmitSeatbeltArgv(mp, {"true"});
    ASSERT_TRUE(bargv.ok() && sargv.ok());
    absl::StatusOr<BwrapView> bwrap = InterpretBwrapArgv(Texts(*bargv));
    ASSERT_TRUE(bwrap.ok()) << bwrap.status();
    absl::StatusOr<SandboxExecCall> call = ParseSandboxExecArgv(Texts(*sargv));
    ASSERT_TRUE(call.ok()) << call.status();
    absl::StatusOr<SbplProfile> sbpl = SbplProfile::Parse(call->profile, call->params);
    ASSERT_TRUE(sbpl.ok()) << sbpl.status();
    const bool ww = mp.policy.type == PolicyType::kWorkspaceWrite;

    for (const Probe& p : kProbes) {
      Verdict b = BwrapVerdict(*bwrap, p.linux_path);
      Verdict s{sbpl->CanRead(p.mac_path), sbpl->CanWrite(p.mac_path)};
      const Difference* diff = nullptr;
      for (const Difference& d : kDifferences) {
        if (std::string(d.probe) == p.name && d.applies(mp)) diff = &d;
      }
      if (diff != nullptr) {
        differences_seen.insert(diff->probe);
        EXPECT_TRUE(b == diff->bwrap && s == diff->seatbelt)
            << p.name << ": bwrap " << Show(b) << ", seatbelt " << Show(s)
            << "; the listed difference is bwrap " << Show(diff->bwrap) << ", seatbelt "
            << Show(diff->seatbelt) << " (" << diff->reason << ")";
      } else {
        EXPECT_EQ(Show(b), Show(s)) << p.name << " (" << p.linux_path << " / " << p.mac_path << ")";
      }
    }

    // Anchors, so that agreement cannot come from both sides being wrong alike.
    EXPECT_EQ(Show(BwrapVerdict(*bwrap, "/home/dev/proj/src/main.rs")), ww ? "rw" : "r-");
    EXPECT_EQ(Show(BwrapVerdict(*bwrap, "/home/dev/.ssh/id_ed25519")), "--");
    EXPECT_FALSE(sbpl->CanWrite("/Users/dev/proj/.codewhale/config.toml"));

    // Network: the public internet over IPv4 agrees; the listed differences
    // are loopback and IPv6 in the read-only + network variant (docs/behavior.md B-64): bwrap
    // shares the host's network namespace whole, Seatbelt opens IPv4 only and
    // keeps loopback closed except the proxy port.
    const bool bwrap_net = !bwrap->network_isolated;
    EXPECT_EQ(bwrap_net, mp.policy.network_access);
    EXPECT_EQ(sbpl->CanConnect(SbplNet::kIPv4, "93.184.216.34", 443), bwrap_net);
    const bool ro_net = !ww && mp.policy.network_access;
    EXPECT_EQ(sbpl->CanConnect(SbplNet::kIPv4, "127.0.0.1", 8080), bwrap_net && !ro_net);
    EXPECT_EQ(sbpl->CanConnect(SbplNet::kIPv6, "2001:db8::1", 443), bwrap_net && !ro_net);
  }
  // Every listed difference still happens; a stale entry fails here.
  EXPECT_EQ(differences_seen.size(), std::size(kDifferences));
}

}  // namespace
}  // namespace cwsc::backends
