// Seatbelt goldens: every permission mode × network × deny-list combination
// (plus the proxy variants of read-only + network and the forced full-access
// tier) compiled on the recorded macOS host examples/facts/macos-workspace.yaml.
// Each case writes tests/golden/seatbelt/<case>.sb (the profile, exactly as
// `cwsc compile --format sbpl` prints it) and <case>.params (the -D elements).
// Beside each golden, the evaluator checks the emitted argv against what the
// plan's policy says. Regenerate with CWSC_UPDATE_GOLDENS=1 and review the diff.
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/seatbelt.h"
#include "backends/verify/sbpl_eval.h"
#include "compiler/facts/host_facts.h"
#include "compiler/lower_seatbelt.h"
#include "compiler/modes.h"
#include "compiler/resolve.h"
#include "gtest/gtest.h"
#include "tests/runtime/proc_helpers.h"
#include "tests/testing/golden.h"

namespace cwsc::backends {
namespace {

using ::cwsc::testing::SourceRoot;

using ir::PolicyType;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// CheckGolden checks `actual` against tests/golden/seatbelt/<name>.
void CheckGolden(const std::string& name, const std::string& actual) {
  testing::CheckGolden(absl::StrCat(SourceRoot(), "/tests/golden/seatbelt/", name), actual);
}

struct GoldenCase {
  std::string name;
  std::string mode;
  bool network;
  bool custom_deny;   // defaults off + two user paths (else the built-in defaults)
  std::string proxy;  // HTTP_PROXY value, "" = unset
  // Route a non-sandboxing policy through Seatbelt (test-only, docs/behavior.md B-30).
  bool force = false;
};

std::vector<GoldenCase> Cases() {
  std::vector<GoldenCase> cases;
  for (const char* mode : {"plan", "ask", "auto-review", "full-access"}) {
    for (bool net : {false, true}) {
      for (bool custom : {false, true}) {
        cases.push_back(
            {absl::StrCat(mode, net ? "-net" : "-nonet", custom ? "-customdeny" : "-defaultdeny"),
             mode, net, custom, ""});
      }
    }
  }
  cases.push_back({"plan-net-loopback-proxy", "plan", true, false, "http://127.0.0.1:3128"});
  cases.push_back({"plan-net-remote-proxy-dropped", "plan", true, false, "http://proxy.corp:8080"});
  cases.push_back({"forced-full-access", "full-access", true, true, "", /*force=*/true});
  return cases;
}

ir::Origin Cfg(const char* key) { return ir::Origin::Config(key, "config.toml", 1, 1); }

absl::StatusOr<ir::LaunchPlan> Compile(const GoldenCase& c) {
  std::string yaml = ReadFile(absl::StrCat(SourceRoot(), "/examples/facts/macos-workspace.yaml"));
  if (!c.proxy.empty()) {
    yaml = absl::StrReplaceAll(yaml,
                               {{"  HTTP_PROXY: null", absl::StrCat("  HTTP_PROXY: ", c.proxy)}});
  }
  absl::StatusOr<std::unique_ptr<compiler::HostFacts>> facts =
      compiler::ParseRecordedFacts(yaml, "macos-workspace.yaml");
  if (!facts.ok()) return facts.status();
  compiler::ResolveInput in;
  in.mode = *compiler::ParsePermissionMode(c.mode);
  in.mode_origin = ir::Origin::Cli(absl::StrCat("--mode ", c.mode));
  in.cwd = "/Users/dev/proj";
  in.spec.sandbox_network_access =
      compiler::Setting<bool>{c.network, Cfg("sandbox_network_access")};
  if (c.mode == "plan" && c.network) {
    // Read-only with network exists only as full access narrowed to read-only
    // (Plan itself never has network); the "plan-net" cases are that policy.
    in.mode = ir::PermissionMode::kFullAccess;
    in.spec.sandbox_mode = compiler::Setting<compiler::SandboxMode>{
        {ir::PolicyType::kReadOnly, "read-only"}, Cfg("sandbox_mode")};
  }
  if (c.custom_deny) {
    in.spec.sandbox_read_denylist_defaults =
        compiler::Setting<bool>{false, Cfg("sandbox_read_denylist_defaults")};
    compiler::PathList paths = {{"~/private-notes", Cfg("sandbox_denied_read_paths")},
                                {"$WORKSPACE/secrets", Cfg("sandbox_denied_read_paths")}};
    in.spec.sandbox_denied_read_paths =
        compiler::Setting<compiler::PathList>{paths, Cfg("sandbox_denied_read_paths")};
  }
  absl::StatusOr<ir::LaunchPlan> plan = compiler::ResolvePlan(in, **facts);
  if (!plan.ok() || !c.force) return plan;
  // Forced Seatbelt (a test-only forced wrapper, docs/behavior.md B-30): full network and
  // full-disk write, so the trusted-automation tier appears.
  plan->launch = ir::Seatbelt{};
  plan->wrapper.path = "/usr/bin/sandbox-exec";
  absl::Status s = compiler::LowerSeatbelt(**facts, in.spec, &*plan);
  if (!s.ok()) return s;
  return plan;
}

// CheckSemantics evaluates the emitted argv against what the plan's policy grants.
void CheckSemantics(const ir::LaunchPlan& plan, const SbplProfile& p) {
  const ir::Policy& pol = plan.policy;
  const bool full_write =
      pol.type == PolicyType::kDangerFullAccess || pol.type == PolicyType::kExternalSandbox;
  for (const ir::Root& r : plan.roots) {
    const std::string root = r.canonical.empty() ? r.path.str() : r.canonical.str();
    EXPECT_EQ(p.CanWrite(root + "/golden-probe"), pol.type == PolicyType::kWorkspaceWrite) << root;
    for (const ir::Protected& prot : r.protected_paths) {
      EXPECT_EQ(p.CanWrite(prot.canonical + "/config.toml"), full_write) << prot.canonical;
      EXPECT_TRUE(p.CanRead(prot.canonical + "/config.toml")) << prot.canonical;
    }
  }
  EXPECT_EQ(p.CanWrite("/Users/dev/proj/src/main.rs"), pol.type != PolicyType::kReadOnly);
  EXPECT_TRUE(p.CanRead("/Users/dev/proj/src/main.rs"));
  EXPECT_TRUE(p.CanRead("/usr/bin/env"));
  EXPECT_EQ(p.CanWrite("/usr/bin/env"), full_write);
  EXPECT_EQ(p.CanWrite("/Users/dev/notes.txt"), full_write);
  EXPECT_EQ(p.CanWrite("/private/var/folders/xy/abc123/C/x"), pol.type != PolicyType::kReadOnly);
  for (const ir::DeniedPath& d : plan.denied_read) {
    EXPECT_FALSE(p.CanRead(d.path)) << d.path;
    EXPECT_FALSE(p.CanRead(d.path + "/x")) << d.path;
  }
  const bool net = pol.type == PolicyType::kDangerFullAccess || pol.network_access;
  const bool ro_net = pol.type == PolicyType::kReadOnly && net;
  const bool dropped = plan.seatbelt()->network_dropped_for_proxy;
  EXPECT_EQ(p.CanConnect(SbplNet::kIPv4, "93.184.216.34", 443), net && !dropped);
  EXPECT_EQ(p.CanConnect(SbplNet::kIPv6, "2001:db8::1", 443), net && !ro_net);
  EXPECT_EQ(p.CanConnect(SbplNet::kIPv4, "127.0.0.1", 5432), net && !ro_net);
  for (int port : plan.seatbelt()->loopback_proxy_ports) {
    EXPECT_TRUE(p.CanConnect(SbplNet::kIPv4, "127.0.0.1", port));
  }
  EXPECT_EQ(p.CanConnectUnix(kMdnsResponderSocket), net && !dropped);
}

TEST(SeatbeltGolden, EveryModeNetworkAndDenyListCombination) {
  int seatbelt_cases = 0;
  for (const GoldenCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<ir::LaunchPlan> plan = Compile(c);
    ASSERT_TRUE(plan.ok()) << plan.status();
    if (plan->kind() != ir::PlanKind::kMacosSeatbelt) {
      // full-access does not sandbox: no profile, no marker (docs/behavior.md B-30).
      EXPECT_EQ(c.mode, "full-access");
      EXPECT_FALSE(plan->seatbelt() != nullptr);
      std::string why;
      for (const ir::Skipped& s : plan->skipped) {
        if (s.kind == ir::SkipKind::kLocalWrapper) why = s.reason;
      }
      CheckGolden(c.name + ".params",
                  absl::StrCat("# plan kind ", ir::PlanKindName(plan->kind()), ": ", why, "\n"));
      continue;
    }
    ++seatbelt_cases;
    absl::StatusOr<EmittedArgv> argv = EmitSeatbeltArgv(*plan, {});
    ASSERT_TRUE(argv.ok()) << argv.status();
    absl::StatusOr<SandboxExecCall> call = ParseSandboxExecArgv(Texts(*argv));
    ASSERT_TRUE(call.ok()) << call.status();
    std::string params = absl::StrCat("# plan kind ", ir::PlanKindName(plan->kind()),
                                      "; policy: ", plan->posture_label, "\n");
    for (const std::string& key : call->param_order) {
      absl::StrAppend(&params, "-D", key, "=", call->params.at(key), "\n");
    }
    CheckGolden(c.name + ".sb", call->profile);
    CheckGolden(c.name + ".params", params);
    absl::StatusOr<SbplProfile> profile = SbplProfile::Parse(call->profile, call->params, c.name);
    ASSERT_TRUE(profile.ok()) << profile.status();
    CheckSemantics(*plan, *profile);
  }
  EXPECT_EQ(seatbelt_cases, 15);
}

}  // namespace
}  // namespace cwsc::backends
