// Policy resolution: posture mapping, narrowing, env parsing, project overlay,
// backend selection, escalation, wrapper selection, roots and labels
// (docs/behavior.md B-90).
#include "compiler/resolve.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "absl/strings/match.h"
#include "compiler/layers.h"
#include "compiler/modes.h"
#include "compiler/paths.h"
#include "tests/compiler/shares_network.h"
#include "tests/compiler/test_facts.h"

namespace cwsc::compiler {
namespace {

using cwsc::testing::CompileText;
using cwsc::testing::FactsBuilder;
using ir::PlanKind;
using ir::PolicyType;

ir::LaunchPlan Plan(const std::string& config, const FactsBuilder& f, const std::string& mode) {
  auto r = CompileText(config, f, mode);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->plan : ir::LaunchPlan{};
}

bool HasMount(const ir::LaunchPlan& p, ir::MountOp op, const std::string& dest) {
  for (const auto& m : p.mounts()) {
    if (m.op == op && m.dest == dest) return true;
  }
  return false;
}

// Case 24: posture → default policy.
TEST(Posture, DefaultPolicyPerMode) {
  FactsBuilder f;
  ir::LaunchPlan plan = Plan("", f, "plan");
  EXPECT_EQ(plan.policy.type, PolicyType::kReadOnly);
  EXPECT_FALSE(plan.policy.network_access);
  EXPECT_TRUE(plan.roots.empty());
  ir::LaunchPlan ask = Plan("", f, "ask");
  EXPECT_EQ(ask.policy.type, PolicyType::kWorkspaceWrite);
  EXPECT_TRUE(ask.policy.network_access);
  EXPECT_EQ(ask.policy.writable_roots, std::vector<ir::SharedString>{"/home/dev/ws"});
  EXPECT_EQ(Plan("", f, "yolo").policy.type, PolicyType::kDangerFullAccess);
  EXPECT_EQ(Plan("", f, "auto").permission_mode, ir::PermissionMode::kAutoReview);
  EXPECT_EQ(Plan("", f, "suggest").permission_mode, ir::PermissionMode::kAsk);
  EXPECT_EQ(Plan("", f, "bypass").permission_mode, ir::PermissionMode::kFullAccess);
}

// Case 25: full access narrowed by sandbox_mode.
TEST(Posture, FullAccessNarrowedBySandboxMode) {
  FactsBuilder f;
  EXPECT_EQ(Plan("", f, "full-access").policy.type, PolicyType::kDangerFullAccess);
  ir::LaunchPlan ww = Plan("sandbox_mode = \"workspace-write\"", f, "full-access");
  EXPECT_EQ(ww.policy.type, PolicyType::kWorkspaceWrite);
  EXPECT_EQ(ww.policy.writable_roots, std::vector<ir::SharedString>{"/home/dev/ws"});
  EXPECT_TRUE(ww.policy.network_access);
  EXPECT_EQ(ww.policy.origin.detail, "sandbox_mode");
  EXPECT_EQ(Plan("sandbox_mode = \"read-only\"", f, "full-access").policy.type,
            PolicyType::kReadOnly);
  ir::LaunchPlan ext = Plan("sandbox_mode = \"external-sandbox\"", f, "full-access");
  EXPECT_EQ(ext.policy.type, PolicyType::kExternalSandbox);
  EXPECT_TRUE(ext.policy.network_access);
  EXPECT_EQ(ext.kind(), PlanKind::kNone);
}

// Case 26: configured danger-full-access never loosens Ask/Auto-Review/Plan.
TEST(Posture, DangerFullAccessNeverLoosens) {
  FactsBuilder f;
  EXPECT_EQ(Plan("sandbox_mode = \"danger-full-access\"", f, "ask").policy.type,
            PolicyType::kWorkspaceWrite);
  EXPECT_EQ(Plan("sandbox_mode = \"danger-full-access\"", f, "auto-review").policy.type,
            PolicyType::kWorkspaceWrite);
  EXPECT_EQ(Plan("sandbox_mode = \"danger-full-access\"", f, "plan").policy.type,
            PolicyType::kReadOnly);
  EXPECT_EQ(Plan("sandbox_mode = \"workspace-write\"", f, "ask").policy.origin.kind,
            ir::Origin::Kind::kMode);  // a no-op under Ask
}

// docs/decisions.md (item 7): values are normalized in the narrowing step too.
TEST(Posture, NarrowingUsesNormalizedValues) {
  FactsBuilder f;
  EXPECT_EQ(Plan("sandbox_mode = \" Read-Only \"", f, "ask").policy.type, PolicyType::kReadOnly);
  EXPECT_EQ(Plan("sandbox_mode = \"WORKSPACE-WRITE\"", f, "full-access").policy.type,
            PolicyType::kWorkspaceWrite);
}

TEST(Posture, UnknownModeIsAnError) {
  FactsBuilder f;
  auto r = CompileText("", f, "sometimes");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "error: unknown permission mode 'sometimes': expected plan, ask, auto-review or "
            "full-access (aliases: suggest, auto, bypass, yolo)\n");
}

// Network: sandbox_network_access sets it for sandboxed policies.
TEST(Posture, NetworkAccessKey) {
  FactsBuilder f;
  ir::LaunchPlan off = Plan("sandbox_network_access = false", f, "ask");
  EXPECT_FALSE(off.policy.network_access);
  EXPECT_FALSE(testing::SharesNetwork(off));
  ir::LaunchPlan ro_net =
      Plan("sandbox_mode = \"read-only\"\nsandbox_network_access = true", f, "full-access");
  EXPECT_TRUE(ro_net.policy.network_access);
  EXPECT_TRUE(testing::SharesNetwork(ro_net));
  EXPECT_EQ(ro_net.policy.network_origin.detail, "sandbox_network_access");
}

// Case 41 and docs/behavior.md B-2: env overrides and their parsing.
TEST(EnvOverrides, PreferBwrapParsing) {
  auto prefer = [](const std::string& v) -> std::optional<bool> {
    FactsBuilder f;
    f.Env("CODEWHALE_PREFER_BWRAP", v);
    auto facts = f.Build();
    auto spec = EnvOverrides(*facts, nullptr);
    if (!spec->prefer_bwrap) return std::nullopt;
    return spec->prefer_bwrap->value;
  };
  EXPECT_EQ(prefer("1"), true);
  EXPECT_EQ(prefer("TRUE"), true);
  EXPECT_EQ(prefer(" true "), true);
  EXPECT_EQ(prefer("yes"), false);
  EXPECT_EQ(prefer("on"), false);
  EXPECT_EQ(prefer("0"), false);
  EXPECT_EQ(prefer(""), std::nullopt);
  EXPECT_EQ(prefer("   "), std::nullopt);
}

TEST(EnvOverrides, PrimaryBeatsLegacyAndLegacyWarns) {
  FactsBuilder f;
  f.Env("DEEPSEEK_PREFER_BWRAP", "0");
  auto facts = f.Build();
  std::vector<ir::Diagnostic> notes;
  auto spec = EnvOverrides(*facts, &notes);
  ASSERT_TRUE(spec->prefer_bwrap);
  EXPECT_FALSE(spec->prefer_bwrap->value);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].Render(),
            "warning: DEEPSEEK_PREFER_BWRAP is deprecated and will be removed in 0.10.0; use "
            "CODEWHALE_PREFER_BWRAP\n");
  FactsBuilder g;
  g.Env("DEEPSEEK_SANDBOX_MODE", "read-only").Env("CODEWHALE_SANDBOX_MODE", "workspace-write");
  auto gf = g.Build();
  EXPECT_EQ(EnvOverrides(*gf, nullptr)->sandbox_mode->value.type, PolicyType::kWorkspaceWrite);
}

TEST(EnvOverrides, SandboxModeFromEnvNarrowsAndEmptyIsAnError) {
  FactsBuilder f;
  f.Env("CODEWHALE_SANDBOX_MODE", "read-only");
  ir::LaunchPlan p = Plan("sandbox_mode = \"workspace-write\"", f, "ask");
  EXPECT_EQ(p.policy.type, PolicyType::kReadOnly);
  EXPECT_EQ(p.policy.origin.Describe(), "env CODEWHALE_SANDBOX_MODE");
  FactsBuilder g;
  g.Env("CODEWHALE_SANDBOX_MODE", "");
  auto r = CompileText("", g);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "env CODEWHALE_SANDBOX_MODE: error: Invalid sandbox_mode '': expected read-only, "
            "workspace-write, danger-full-access, or external-sandbox.\n");
}

TEST(EnvOverrides, PreferBwrapFalseFromEnvOptsOut) {
  FactsBuilder f;
  f.Env("CODEWHALE_PREFER_BWRAP", "false");
  ir::LaunchPlan p = Plan("prefer_bwrap = true", f, "ask");
  EXPECT_EQ(p.kind(), PlanKind::kNone);
  EXPECT_EQ(p.wrapper.preferred_origin.Describe(), "env CODEWHALE_PREFER_BWRAP");
}

// Managed overlay beats env and user.
TEST(Layers, ManagedOverlayWins) {
  FactsBuilder f;
  f.Env("CODEWHALE_MANAGED_CONFIG_PATH", "/etc/cw/managed.toml")
      .File("/etc/cw/managed.toml", "", "0644", 0)
      .Content("/etc/cw/managed.toml",
               "sandbox_mode = \"read-only\"\nbwrap_ro_roots = [\"/opt\"]\n")
      .Dir("/opt");
  f.Env("CODEWHALE_SANDBOX_MODE", "workspace-write");
  ir::LaunchPlan p = Plan("bwrap_ro_roots = [\"/srv\"]", f, "ask");
  EXPECT_EQ(p.policy.type, PolicyType::kReadOnly);
  EXPECT_EQ(p.policy.origin.kind, ir::Origin::Kind::kManaged);
  EXPECT_EQ(p.policy.origin.file, "/etc/cw/managed.toml");
  EXPECT_TRUE(HasMount(p, ir::MountOp::kReadOnlyBind, "/opt"));
}

// Case 28: project overlay ranks.
TEST(Layers, ProjectModeRanks) {
  using ir::PolicyType;
  constexpr PolicyType kRo = PolicyType::kReadOnly, kWs = PolicyType::kWorkspaceWrite,
                       kFull = PolicyType::kDangerFullAccess, kExt = PolicyType::kExternalSandbox;
  EXPECT_TRUE(ProjectModeAllowed(std::nullopt, kRo));
  EXPECT_FALSE(ProjectModeAllowed(std::nullopt, kWs));
  EXPECT_FALSE(ProjectModeAllowed(std::nullopt, kFull));
  EXPECT_TRUE(ProjectModeAllowed(kWs, kWs));
  EXPECT_TRUE(ProjectModeAllowed(kWs, kRo));
  EXPECT_FALSE(ProjectModeAllowed(kWs, kFull));
  EXPECT_TRUE(ProjectModeAllowed(kFull, kFull));
  EXPECT_TRUE(ProjectModeAllowed(kFull, kWs));
  EXPECT_TRUE(ProjectModeAllowed(kFull, kRo));
  EXPECT_TRUE(ProjectModeAllowed(kExt, kExt));
  EXPECT_FALSE(ProjectModeAllowed(kFull, kExt));
  EXPECT_FALSE(ProjectModeAllowed(std::nullopt, kExt));
}

// sandbox_mode is parsed once, trimmed and ASCII-lowercased, into the policy
// it names; the text as written stays for the messages that quote it.
TEST(Layers, SandboxModeIsParsedOnce) {
  std::optional<compiler::SandboxMode> m = compiler::ParseSandboxMode(" Workspace-Write ");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->type, ir::PolicyType::kWorkspaceWrite);
  EXPECT_EQ(m->text, " Workspace-Write ");
  EXPECT_EQ(compiler::ParseSandboxMode("READ-ONLY")->type, ir::PolicyType::kReadOnly);
  EXPECT_EQ(compiler::ParseSandboxMode("danger-full-access")->type,
            ir::PolicyType::kDangerFullAccess);
  EXPECT_EQ(compiler::ParseSandboxMode("external-sandbox")->type, ir::PolicyType::kExternalSandbox);
  EXPECT_FALSE(compiler::ParseSandboxMode("sometimes"));
  EXPECT_FALSE(compiler::ParseSandboxMode("read only"));
  EXPECT_FALSE(compiler::ParseSandboxMode(""));
}

TEST(Layers, ProjectConfigTightensAndIsIgnoredWhenSymlinked) {
  FactsBuilder f;
  f.Dir("/home/dev/ws/.codewhale")
      .File("/home/dev/ws/.codewhale/config.toml")
      .Content("/home/dev/ws/.codewhale/config.toml", "sandbox_mode = \"read-only\"\n");
  auto r = CompileText("", f, "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->plan.policy.type, PolicyType::kReadOnly);
  EXPECT_EQ(r->plan.policy.origin.kind, ir::Origin::Kind::kProject);

  FactsBuilder g;
  g.Dir("/home/dev/ws/.codewhale")
      .File("/home/dev/ws/.codewhale/config.toml", "/home/dev/elsewhere.toml")
      .Content("/home/dev/ws/.codewhale/config.toml", "sandbox_mode = \"read-only\"\n");
  auto s = CompileText("", g, "ask");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->plan.policy.type, PolicyType::kWorkspaceWrite);
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_EQ(s->notes[0].Render(),
            "/home/dev/ws/.codewhale/config.toml: warning: ignoring the project config: it is a "
            "symlink\n");

  FactsBuilder h;
  h.Dir("/home/dev/ws/.codewhale")
      .File("/home/dev/ws/.codewhale/config.toml")
      .Content("/home/dev/ws/.codewhale/config.toml", "sandbox_mode = \"workspace-write\"\n");
  auto t = CompileText("", h, "full-access");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->plan.policy.type, PolicyType::kDangerFullAccess);
  EXPECT_EQ(t->notes[0].Render(),
            "/home/dev/ws/.codewhale/config.toml: warning: ignoring sandbox_mode "
            "'workspace-write': project config can only tighten the user's sandbox mode.\n");
}

TEST(Layers, ToolLauncherInProjectConfigStopsTheLaunch) {
  FactsBuilder f;
  f.Dir("/home/dev/ws/.codewhale")
      .File("/home/dev/ws/.codewhale/config.toml")
      .Content("/home/dev/ws/.codewhale/config.toml", "tool_launcher = [\"/usr/bin/sudo\"]\n");
  auto r = CompileText("", f, "ask");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "/home/dev/ws/.codewhale/config.toml:1:17: error: 'tool_launcher' in a project config "
            "stops an interactive launch; only a trusted managed config may set it\n"
            "  tool_launcher = [\"/usr/bin/sudo\"]\n"
            "                  ^\n");
}

// Case 42 and docs/decisions.md (item 2): unsupported backends refuse.
TEST(Backend, UnsupportedBackendRefuses) {
  FactsBuilder f;
  ir::LaunchPlan p = Plan("sandbox_backend = \"docker\"", f, "ask");
  EXPECT_EQ(p.kind(), PlanKind::kRefused);
  ASSERT_TRUE(p.refusal());
  EXPECT_NE(p.refusal()->reason.find("unsupported sandbox_backend 'docker'"), std::string::npos);
  EXPECT_EQ(p.refusal()->origin.line, 1);
  EXPECT_TRUE(p.mounts().empty());
  EXPECT_EQ(Plan("sandbox_backend = \" None \"", f, "ask").kind(), PlanKind::kLinuxBwrap);
  EXPECT_EQ(Plan("sandbox_backend = \"\"", f, "ask").kind(), PlanKind::kLinuxBwrap);
  FactsBuilder g;
  g.Env("CODEWHALE_SANDBOX_BACKEND", "firecracker");
  EXPECT_EQ(Plan("", g, "ask").kind(), PlanKind::kRefused);
}

// Case 27: escalation (docs/behavior.md B-12).
TEST(Escalation, Rules) {
  FactsBuilder f;
  auto esc = [&](const std::string& mode, const std::string& config, const std::string& target) {
    testing::ConfigFile file(config);
    auto facts = f.Build();
    CompileOptions o;
    o.config_path = file.path();
    o.mode = mode;
    o.escalate = target;
    return CompileConfig(o, facts.get());
  };
  auto ro_ww = esc("ask", "sandbox_mode = \"read-only\"", "workspace-write");
  ASSERT_TRUE(ro_ww.ok()) << ro_ww.status();
  EXPECT_EQ(ro_ww->plan.policy.type, PolicyType::kWorkspaceWrite);
  EXPECT_FALSE(ro_ww->plan.policy.network_access);  // SandboxPolicy::default()
  auto ww_ww = esc("ask", "", "workspace-write");
  EXPECT_EQ(ww_ww.status().message(),
            "--escalate: 'workspace-write' is not strictly wider than this call's current "
            "'workspace-write' posture");
  auto dfa = esc("ask", "", "danger-full-access");
  ASSERT_TRUE(dfa.ok());
  EXPECT_EQ(dfa->plan.kind(), PlanKind::kNone);
  EXPECT_EQ(esc("ask", "", "read-only").status().message(),
            "--escalate: invalid value 'read-only': expected workspace-write or "
            "danger-full-access, or the mode full-access");
  // A permission mode with a fixed posture names it too: full-access (and its
  // aliases) is danger-full-access; plan is read-only, never wider.
  for (auto [mode, shown] :
       {std::pair{"full-access", "full-access"}, {"Bypass", "bypass"}, {"yolo", "yolo"}}) {
    auto m = esc("ask", "sandbox_mode = \"read-only\"", mode);
    ASSERT_TRUE(m.ok()) << mode << m.status();
    EXPECT_EQ(m->plan.policy.type, PolicyType::kDangerFullAccess) << mode;
    EXPECT_EQ(m->plan.policy.origin.Describe(),
              ir::Origin::Cli(std::string("--escalate ") + shown).Describe());
  }
  EXPECT_EQ(esc("ask", "", "plan").status().message(),
            "--escalate: invalid value 'plan': the mode plan is read-only, never wider; expected "
            "workspace-write or danger-full-access, or the mode full-access");
  EXPECT_EQ(esc("ask", "", "auto").status().message(),
            "--escalate: invalid value 'auto': the mode auto-review has no posture of its own; "
            "expected workspace-write or danger-full-access, or the mode full-access");
  EXPECT_EQ(esc("auto-review", "", "danger-full-access").status().message(),
            "--escalate: sandbox escalation requires a one-shot user approval, but the current "
            "'auto-review' posture cannot provide it (escalation is only possible in ask mode)");
}

// Case 14 and docs/behavior.md B-30: wrapper selection from facts.
TEST(Wrapper, Selection) {
  FactsBuilder ok;
  ir::LaunchPlan p = Plan("", ok, "ask");
  EXPECT_EQ(p.kind(), PlanKind::kLinuxBwrap);
  ASSERT_EQ(p.env_set.size(), 2u);
  EXPECT_EQ(p.env_set[0].name + "=" + p.env_set[0].value, "CODEWHALE_SANDBOX=bwrap");
  EXPECT_EQ(p.env_set[1].name + "=" + p.env_set[1].value, "DEEPSEEK_SANDBOX=bwrap");

  ir::LaunchPlan off = Plan("prefer_bwrap = false", ok, "ask");
  EXPECT_EQ(off.kind(), PlanKind::kNone);
  EXPECT_TRUE(off.env_set.empty());  // no marker on fallback
  EXPECT_TRUE(off.mounts().empty());

  FactsBuilder failed;
  failed.Probe(false, "bwrap: setting up uid map: Permission denied");
  ir::LaunchPlan f = Plan("", failed, "ask");
  EXPECT_EQ(f.kind(), PlanKind::kNone);
  EXPECT_EQ(f.wrapper.probe_message, "bwrap: setting up uid map: Permission denied");
  EXPECT_EQ(f.skipped.back().reason, "probe failed: bwrap: setting up uid map: Permission denied");

  FactsBuilder noexec;
  noexec.File("/usr/bin/bwrap", "", "0644");
  EXPECT_EQ(Plan("", noexec, "ask").skipped.back().reason, "not a regular executable file");
  FactsBuilder dir;  // case 9: a directory is not an executable file
  dir.Dir("/usr/bin/bwrap", "", "0755", 0);
  EXPECT_EQ(Plan("", dir, "ask").skipped.back().reason, "not a regular executable file");
  FactsBuilder missing;
  missing.Missing("/usr/bin/bwrap");
  EXPECT_EQ(Plan("", missing, "ask").skipped.back().reason, "missing");

  FactsBuilder mac;
  mac.Platform("windows");
  EXPECT_EQ(Plan("", mac, "ask").kind(), PlanKind::kNone);
}

// Case 13: full access and external-sandbox never reach the builder.
TEST(Wrapper, NonSandboxPoliciesAreUnwrapped) {
  FactsBuilder f;
  ir::LaunchPlan p = Plan("", f, "full-access");
  EXPECT_EQ(p.kind(), PlanKind::kNone);
  EXPECT_TRUE(p.mounts().empty());
  EXPECT_EQ(p.posture_label,
            "full access (sandbox disabled); sudo/setuid still blocked by the no-new-privs kernel "
            "flag set at startup");
}

// docs/behavior.md B-20 / B-41: roots in order; what bwrap keeps.
TEST(Roots, OrderAndFiltering) {
  FactsBuilder f;
  f.Dir("/")
      .Dir("/home/dev/ws/.codewhale")
      .Dir("/srv/e")
      .Missing("/srv/missing")
      .File("/srv/file")
      .Dir("/opt", "", "0755", 0)  // root's: the user cannot plant a symlink there
      .Dir("/opt/tmpdir-link", "/var/tmp/real")
      .Dir("/var/tmp/real")
      .Env("TMPDIR", "/opt/tmpdir-link");
  ir::LaunchPlan p = Plan(
      "sandbox_writable_roots = [\"/srv/e\", \"/srv/missing\", \"/srv/file\", \"/\"]", f, "ask");
  std::vector<std::string> paths;
  std::vector<std::string> verdicts;
  for (const auto& r : p.roots) {
    paths.push_back(r.path);
    verdicts.push_back(r.writable_bind ? "mounted" : r.skip_reason);
  }
  EXPECT_EQ(paths, (std::vector<std::string>{"/home/dev/ws", "/srv/e", "/srv/missing", "/srv/file",
                                             "/", "/home/dev/ws", "/tmp", "/var/tmp/real"}));
  EXPECT_EQ(verdicts,
            (std::vector<std::string>{"mounted", "mounted", "missing", "not a directory",
                                      "canonicalizes to /", "duplicate", "mounted", "mounted"}));
  EXPECT_EQ(p.posture_label,
            "workspace-write (writes inside the workspace and approved roots; network allowed) "
            "(local OS sandbox applied)");
}

// A writable root's bind shares one copy of its canonical path with the
// root, and a placeholder's two mounts share the placeholder's path (a
// large policy makes five mounts a root: copies of the text would be most
// of its allocations; docs/performance.md). The texts are still right, and
// a root listed through a symlink gets placeholders under its canonical path.
TEST(Roots, MountsShareTheirRootsPaths) {
  FactsBuilder f;
  f.Dir("/").Dir("/srv/e").Dir("/srv/link", "/srv/real").Dir("/srv/real");
  ir::LaunchPlan p = Plan("sandbox_writable_roots = [\"/srv/e\", \"/srv/link\"]", f, "ask");
  size_t binds = 0, placeholders = 0;
  for (const ir::Root& r : p.roots) {
    if (!r.writable_bind) continue;
    for (size_t i = 0; i < p.mounts().size(); ++i) {
      const ir::Mount& m = p.mounts()[i];
      if (m.op == ir::MountOp::kWritableBind && m.dest == r.canonical) {
        ++binds;
        EXPECT_TRUE(m.source.Shares(r.canonical)) << r.canonical;
        EXPECT_TRUE(m.dest.Shares(r.canonical)) << r.canonical;
      }
    }
    for (const ir::Protected& q : r.protected_paths) {
      if (!q.placeholder || !q.applied) continue;
      std::vector<const ir::Mount*> at;
      for (const ir::Mount& m : p.mounts()) {
        if (m.dest == r.canonical + "/" + q.path.str().substr(q.path.rfind('/') + 1))
          at.push_back(&m);
      }
      ASSERT_EQ(at.size(), 2u) << q.path;
      EXPECT_EQ(at[0]->op, ir::MountOp::kTmpfs);
      EXPECT_EQ(at[1]->op, ir::MountOp::kRemountReadOnly);
      EXPECT_TRUE(at[0]->dest.Shares(at[1]->dest)) << q.path;
      // Spelled canonically: the placeholder's own path is the mounts' text.
      if (q.path == at[0]->dest) {
        EXPECT_TRUE(at[0]->dest.Shares(q.path)) << q.path;
      }
      ++placeholders;
    }
  }
  EXPECT_EQ(binds, 4u);         // the workspace, /srv/e, /srv/real, /tmp
  EXPECT_EQ(placeholders, 8u);  // .codewhale and .deepseek in each
  EXPECT_TRUE(HasMount(p, ir::MountOp::kTmpfs, "/srv/real/.codewhale"));
  EXPECT_FALSE(HasMount(p, ir::MountOp::kTmpfs, "/srv/link/.codewhale"));
}

// Protected descendants are mounted in PathLess order of their paths,
// each once, whatever the order of the roots: the resolver skips its sort
// when the bind order already gives that order, so both ways are checked on
// random nested roots with names that sort before and after "." ("-x",
// ".a", "a b", "z") and protected names listed in any order.
TEST(Roots, ProtectedMountsArePathOrderedWhateverTheRootOrder) {
  const std::vector<std::string> names = {"-x", ".a", "a b", "z", "m"};
  std::mt19937 rng(7);
  int unsorted_bind_orders = 0;
  for (int round = 0; round < 60; ++round) {
    FactsBuilder f;
    std::vector<std::string> roots;
    for (int i = 0; i < 6; ++i) {
      std::string p = "/srv";
      int depth = 1 + static_cast<int>(rng() % 3);
      for (int d = 0; d < depth; ++d) p += "/" + names[rng() % names.size()];
      roots.push_back(p);
    }
    std::set<std::string> dirs;
    for (const std::string& r : roots) {
      for (size_t at = 1; at != std::string::npos; at = r.find('/', at + 1)) {
        dirs.insert(r.substr(0, at == 0 ? 1 : at));
      }
      dirs.insert(r);
    }
    for (const std::string& d : dirs) f.Dir(d);
    std::vector<std::string> protect = {"z-last", "a-first"};
    for (const std::string& r : roots) {
      if (rng() % 2) f.Dir(r + "/.codewhale");
      if (rng() % 2) f.File(r + "/z-last");
      if (rng() % 2) f.File(r + "/a-first");
    }
    std::string list;
    for (const std::string& r : roots) list += (list.empty() ? "\"" : ", \"") + r + "\"";
    ir::LaunchPlan p = Plan("sandbox_writable_roots = [" + list +
                                "]\nsandbox_protected_names = [\"z-last\", \"a-first\"]\n",
                            f, "ask");
    std::vector<std::string> dests;  // a placeholder's tmpfs and remount count once
    for (const ir::Mount& m : p.mounts()) {
      bool prot = absl::StartsWith(m.why.str(), "protected descendant") ||
                  absl::StartsWith(m.why.str(), "protected name does not exist");
      if (prot) dests.push_back(m.dest);
    }
    size_t applied = 0;
    std::set<std::string> unique;
    for (const ir::Root& r : p.roots) {
      for (const ir::Protected& q : r.protected_paths) {
        if (q.applied && r.writable_bind) unique.insert(q.placeholder ? q.path.str() : q.canonical);
      }
    }
    applied = unique.size();
    ASSERT_EQ(dests.size(), applied) << list;
    for (size_t i = 1; i < dests.size(); ++i) {
      EXPECT_TRUE(PathLess(dests[i - 1], dests[i]))
          << dests[i - 1] << " before " << dests[i] << " for roots " << list;
    }
    // Whether the roots' own (bind) order left the protected paths unsorted.
    std::vector<std::string> bound;
    for (const ir::Root& r : p.roots) {
      if (r.writable_bind) bound.push_back(r.canonical);
    }
    std::sort(bound.begin(), bound.end(), PathLess);
    std::vector<std::string> by_root;
    for (const std::string& b : bound) {
      for (const ir::Root& r : p.roots) {
        if (r.canonical != b || !r.writable_bind) continue;
        for (const ir::Protected& q : r.protected_paths) {
          if (q.applied) by_root.push_back(q.placeholder ? q.path.str() : q.canonical);
        }
      }
    }
    if (!std::is_sorted(by_root.begin(), by_root.end(), PathLess)) ++unsorted_bind_orders;
  }
  EXPECT_GT(unsorted_bind_orders, 5);  // the sort itself was needed, too
}

// Case 23: labels.
TEST(Labels, PostureLabels) {
  FactsBuilder f;
  EXPECT_EQ(Plan("", f, "plan").posture_label,
            "read-only (shell writes are blocked; ordinary approval does not change this) (local "
            "OS sandbox applied)");
  EXPECT_EQ(Plan("", f, "ask").posture_label,
            "workspace-write (writes inside the workspace; network allowed) (local OS sandbox "
            "applied)");
  FactsBuilder none;
  none.Missing("/usr/bin/bwrap");
  EXPECT_EQ(Plan("", none, "plan").posture_label,
            "read-only (shell writes are blocked; ordinary approval does not change this) (policy "
            "only; no execution sandbox available)");
  EXPECT_EQ(Plan("", none, "full-access").posture_label,
            "full access (sandbox disabled); sudo/setuid still blocked by the no-new-privs kernel "
            "flag set at startup");
  EXPECT_EQ(
      Plan("sandbox_mode = \"danger-full-access\"", none, "full-access").posture_label,
      "full access (sandbox disabled); sudo/setuid allowed (no-new-privs relaxed at startup)");
  none.Env("CODEWHALE_NO_NEW_PRIVS", "1");
  EXPECT_EQ(Plan("sandbox_mode = \" Danger-Full-Access\"", none, "full-access").posture_label,
            "full access (sandbox disabled); sudo/setuid still blocked by the no-new-privs kernel "
            "flag set at startup");
  none.Env("CODEWHALE_NO_NEW_PRIVS", " Off ");
  EXPECT_EQ(
      Plan("", none, "full-access").posture_label,
      "full access (sandbox disabled); sudo/setuid allowed (no-new-privs relaxed at startup)");
  EXPECT_EQ(
      Plan("sandbox_mode = \"external-sandbox\"\nsandbox_network_access = false", f, "full-access")
          .posture_label,
      "external sandbox (host-managed; network allowed)");
}

// The read-only view of a working directory under /tmp (never bwrap's "Can't chdir").
TEST(Roots, ReadOnlyWorkspaceUnderTmpStaysVisible) {
  FactsBuilder f;
  f.Cwd("/tmp/proj").Dir("/tmp/proj");
  ir::LaunchPlan p = Plan("", f, "plan");
  ASSERT_EQ(p.kind(), PlanKind::kLinuxBwrap);
  bool found = false;
  for (size_t i = 0; i < p.mounts().size(); ++i) {
    if (p.mounts()[i].op == ir::MountOp::kReadOnlyBind && p.mounts()[i].dest == "/tmp/proj") {
      found = true;
      EXPECT_GT(i, 3u);  // after --tmpfs /tmp
    }
    EXPECT_NE(p.mounts()[i].op, ir::MountOp::kWritableBind);
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace cwsc::compiler

namespace cwsc::compiler {
namespace {

// Every layered field of a higher layer reaches the merged spec; the
// expectations stay the base policy's own.
TEST(Layers, EveryFieldOfTheTopLayerWins) {
  ir::Origin o = ir::Origin::Default("top");
  auto s = [&](std::string v) { return Setting<std::string>{std::move(v), o}; };
  auto b = [&](bool v) { return Setting<bool>{v, o}; };
  auto l = [&](std::string v) { return Setting<PathList>{{Setting<std::string>{v, o}}, o}; };
  PolicySpec top;
  top.sandbox_mode = Setting<SandboxMode>{{ir::PolicyType::kReadOnly, "read-only"}, o};
  top.prefer_bwrap = b(false);
  top.bwrap_ro_roots = l("/ro");
  top.bwrap_dev_roots = l("/dev/x");
  top.sandbox_backend = Setting<SandboxBackend>{{BackendKind::kOpenSandbox, "opensandbox"}, o};
  top.sandbox_url = s("http://u");
  top.sandbox_network_access = b(true);
  top.managed_config_path = s("/m.toml");
  top.requirements_path = s("/r.toml");
  top.sandbox_read_denylist_defaults = b(false);
  top.sandbox_denied_read_paths = l("/deny");
  top.sandbox_read_denylist_exempt = l("/exempt");
  top.tool_launcher = Setting<std::vector<std::string>>{{"/usr/bin/sudo"}, o};
  top.sandbox_writable_roots = l("/w");
  top.sandbox_exclude_tmpdir = b(true);
  top.sandbox_exclude_slash_tmp = b(true);
  top.sandbox_protected_names = l(".p");
  top.sandbox_opensandbox_api = Setting<ir::Contract>{ir::Contract::kExecd, o};
  top.sandbox_linux_backend = Setting<LinuxBackend>{LinuxBackend::kLandlock, o};
  top.sandbox_execd_url = s("http://e");
  top.sandbox_image = s("img");
  top.sandbox_execd_port = Setting<int>{7, o};
  top.sandbox_keep = b(true);
  top.sandbox_remote_cwd = s("/r");
  top.sandbox_api_key_env = s("KEY");
  PolicySpec merged;
  merged.expectations.push_back({ir::Expectation::Kind::kNetwork, "", false, {}, o});
  Overlay(merged, top);
  PolicySpec want = top;
  want.expectations = merged.expectations;
  EXPECT_EQ(merged, want);
}

// The API key has one source: a layer naming any source replaces all below.
TEST(Layers, ApiKeySourceIsReplacedAsAWhole) {
  PolicySpec user;
  user.sandbox_api_key_env = Setting<std::string>{"USER_KEY_VAR", ir::Origin::Default("u")};
  PolicySpec managed;
  managed.sandbox_api_key_file = Setting<std::string>{"/etc/cw/key", ir::Origin::Default("m")};
  PolicySpec merged = user;
  Overlay(merged, managed);
  EXPECT_FALSE(merged.sandbox_api_key_env);
  ASSERT_TRUE(merged.sandbox_api_key_file);
  EXPECT_EQ(merged.sandbox_api_key_file->value, "/etc/cw/key");
  PolicySpec unrelated;
  unrelated.prefer_bwrap = Setting<bool>{true, ir::Origin::Default("p")};
  Overlay(merged, unrelated);
  EXPECT_TRUE(merged.sandbox_api_key_file);  // a layer without a key source keeps it
}

}  // namespace
}  // namespace cwsc::compiler

namespace cwsc::compiler {
namespace {

// The size cap on a policy (docs/config.md): a list over 50,000 entries is an
// error at the list, before anything is resolved.
TEST(PolicySize, ListsAreCapped) {
  FactsBuilder f;
  auto compile = [&](size_t n) {
    std::string list;
    for (size_t i = 0; i < n; ++i) list += (i ? ",\"/r" : "\"/r") + std::to_string(i) + "\"";
    testing::ConfigFile file("\nsandbox_writable_roots = [" + list + "]\n");
    auto facts = f.Build();
    CompileOptions o;
    o.config_path = file.path();
    auto r = CompileConfig(o, facts.get());
    return r.ok() ? std::string("ok")
                  : std::string(r.status().message()).substr(file.path().size());
  };
  EXPECT_EQ(compile(50000), "ok");
  testing::ConfigFile big("# " + std::string(4 * 1024 * 1024, 'x') + "\n");
  CompileOptions o;
  o.config_path = big.path();
  auto facts = f.Build();
  EXPECT_EQ(CompileConfig(o, facts.get()).status().message(),
            big.path() + ": error: the config is larger than 4 MiB\n");
  EXPECT_EQ(compile(50001),
            ":2:26: error: 'sandbox_writable_roots' has 50001 entries; a policy list holds at most "
            "50000\n");
}

}  // namespace
}  // namespace cwsc::compiler
