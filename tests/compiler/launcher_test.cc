// Launcher plans from recorded host facts (docs/launcher.md): the plan of a
// trusted launcher, fail-closed refusals, masks and binds for another uid,
// lint, the example, the facts round trip. Trust rules: launcher_trust_test.cc.
#include "compiler/launcher.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "backends/bwrap.h"
#include "backends/verify/bwrap_interp.h"
#include "compiler/compile.h"
#include "ir/plan_json.h"
#include "runtime/launcher_check.h"
#include "tests/compiler/launcher_fixture.h"
#include "tests/compiler/shares_network.h"

namespace cwsc::compiler {
namespace {

using ir::LaunchPlan;
using ir::PlanKind;
using launcher_testing::Argv;
using launcher_testing::Compile;
using launcher_testing::HasWarning;
using launcher_testing::Host;
using launcher_testing::kLauncher;
using launcher_testing::kManaged;
using launcher_testing::Options;
using launcher_testing::Plan;
using launcher_testing::Refusal;
using launcher_testing::TempConfig;
using launcher_testing::WarningText;

// ---- the plan of a trusted launcher ----------------------------------------

TEST(LauncherPlan, TrustedManagedFileGivesLauncherBwrapArgv) {
  Host host;
  LaunchPlan p = Plan(host);
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  EXPECT_EQ(p.bwrap()->launcher,
            (std::vector<std::string>{"/usr/bin/sudo", "-n", "-u", "agent", "--"}));
  EXPECT_EQ(Argv(p),
            "/usr/bin/sudo -n -u agent -- /usr/bin/bwrap --unshare-all --unshare-user "
            "--disable-userns --cap-drop ALL --die-with-parent --new-session "
            "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind /home/dev/ws /home/dev/ws "
            "--tmpfs /home/dev/ws/.codewhale --remount-ro /home/dev/ws/.codewhale "
            "--tmpfs /home/dev/ws/.deepseek --remount-ro /home/dev/ws/.deepseek "
            "--chdir /home/dev/ws -- id");
  // Semantics, from the emitted argv: the workspace is writable, /tmp is
  // the private tmpfs, nothing else is writable.
  auto view = backends::InterpretBwrapArgv(backends::Texts(*backends::EmitBwrapArgv(p, {"id"})));
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->prefix, (std::vector<std::string>{"/usr/bin/sudo", "-n", "-u", "agent", "--"}));
  EXPECT_EQ(view->Find("/home/dev/ws/x").access, backends::Access::kWritable);
  EXPECT_EQ(view->Find("/home/dev/other").access, backends::Access::kReadOnly);
  EXPECT_FALSE(testing::SharesNetwork(p));
  EXPECT_EQ(
      p.posture_label,
      "workspace-write (writes inside the workspace; network blocked) (local OS sandbox applied)");
  EXPECT_EQ(WarningText(p, "launcher-user"),
            "commands run as the launcher's user (uid 998, groups 998); masks and binds are "
            "computed for that user");
  EXPECT_EQ(p.env_set.size(), 2u);
  // explain: each launcher token comes from the managed key, file and line.
  auto emitted = backends::EmitBwrapArgv(p, {"id"});
  ASSERT_TRUE(emitted.ok());
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ((*emitted)[i].origin.Describe(),
              "managed tool_launcher at /etc/codewhale/managed_config.toml:3:17");
  }
}

TEST(LauncherPlan, HostTmpAndTmpdirAreNeverBound) {
  Host host;
  host.Env("TMPDIR", "/home/dev/tmp").Dir("/home/dev/tmp", 1000, 1000, "0700");
  LaunchPlan p = Plan(host, {"sandbox_writable_roots = [\"/tmp\"]\n"});
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  for (const auto& m : p.mounts()) {
    EXPECT_NE(m.source, "/tmp") << m.why;
    EXPECT_NE(m.source, "/home/dev/tmp") << m.why;
  }
  int private_tmp = 0;
  for (const auto& s : p.skipped) {
    if (s.reason == kLauncherPrivateTmp) ++private_tmp;
  }
  EXPECT_EQ(private_tmp, 3);  // the configured /tmp root, the host /tmp, TMPDIR
  EXPECT_TRUE(p.policy.exclude_slash_tmp);
  EXPECT_TRUE(p.policy.exclude_tmpdir);
  // Without a launcher the same host binds both.
  Host plain;
  plain.Managed("sandbox_mode = \"workspace-write\"\n")
      .Env("TMPDIR", "/home/dev/tmp")
      .Dir("/home/dev/tmp", 1000, 1000, "0700");
  LaunchPlan q = Plan(plain);
  ASSERT_EQ(q.kind(), PlanKind::kLinuxBwrap);
  EXPECT_NE(Argv(q).find("--bind /tmp /tmp"), std::string::npos);
  EXPECT_NE(Argv(q).find("--bind /home/dev/tmp /home/dev/tmp"), std::string::npos);
}

TEST(LauncherPlan, ManagedNetworkAccessAddsShareNet) {
  Host host;
  host.Managed(
      "sandbox_mode = \"workspace-write\"\nsandbox_network_access = true\n"
      "tool_launcher = " +
      std::string(kLauncher) + "\n");
  LaunchPlan p = Plan(host);
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  EXPECT_TRUE(testing::SharesNetwork(p));
  EXPECT_NE(Argv(p).find("--unshare-all --share-net --unshare-user"), std::string::npos);
}

TEST(LauncherPlan, EnvManagedPathIsTrusted) {
  Host host;
  host.Dir("/srv", 0, 0, "0755")
      .Managed("sandbox_mode = \"read-only\"\ntool_launcher = " + std::string(kLauncher) + "\n",
               "/srv/managed.toml");
  host.Env("CODEWHALE_MANAGED_CONFIG_PATH", "/srv/managed.toml");
  LaunchPlan p = Plan(host);
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  EXPECT_EQ(p.policy.type, ir::PolicyType::kReadOnly);
  EXPECT_EQ(Argv(p).find("--bind "), std::string::npos);
}

TEST(LauncherPlan, StickyWorldWritableAncestorWithRootOwnedChildIsTrusted) {
  Host host;
  host.Dir("/tmp/cfg", 0, 0, "0755")
      .Managed(
          "sandbox_mode = \"workspace-write\"\ntool_launcher = " + std::string(kLauncher) + "\n",
          "/tmp/cfg/managed.toml")
      .Env("CODEWHALE_MANAGED_CONFIG_PATH", "/tmp/cfg/managed.toml");
  EXPECT_EQ(Plan(host).kind(), PlanKind::kLauncherBwrap);
}

TEST(LauncherPlan, ManagedFileNotRootOwnedWarns) {
  Host host;
  host.Dir("/srv", 0, 0, "0755").Dir("/srv/other", 1001, 1001, "0755");
  host.Managed(
          "sandbox_mode = \"workspace-write\"\ntool_launcher = " + std::string(kLauncher) + "\n",
          "/srv/other/managed.toml")
      .Env("CODEWHALE_MANAGED_CONFIG_PATH", "/srv/other/managed.toml");
  LaunchPlan p = Plan(host);
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  EXPECT_EQ(WarningText(p, "managed-not-root-owned"),
            "/srv/other is owned by uid 1001, not root; its owner can change the launcher; keep "
            "the managed file and every directory above it root-owned");
}

// ---- fail closed -----------------------------------------------------------

TEST(LauncherFailClosed, ApprovedEscalationToFullAccessIsRefused) {
  Host host;
  Options o;
  o.escalate = "danger-full-access";
  EXPECT_EQ(
      Refusal(host, o),
      "tool_launcher (/etc/codewhale/managed_config.toml:3:17) runs commands under bubblewrap "
      "or not at all, and the policy is danger-full-access (cli --escalate "
      "danger-full-access), which skips the sandbox");
  // Without a launcher the same escalation runs unwrapped.
  Host plain;
  plain.Managed("sandbox_mode = \"workspace-write\"\n");
  LaunchPlan p = Plan(plain, o);
  EXPECT_EQ(p.kind(), PlanKind::kNone);
  EXPECT_EQ(p.policy.type, ir::PolicyType::kDangerFullAccess);
}

TEST(LauncherFailClosed, EscalationRulesStillApply) {
  Host host;
  host.Managed("sandbox_mode = \"read-only\"\ntool_launcher = " + std::string(kLauncher) + "\n");
  Options o;
  o.escalate = "workspace-write";
  LaunchPlan p = Plan(host, o);  // read-only → workspace-write is strictly wider
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  EXPECT_EQ(p.policy.type, ir::PolicyType::kWorkspaceWrite);
  EXPECT_FALSE(testing::SharesNetwork(p));
  o.mode = "auto-review";
  auto r = Compile(host, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().message()),
            "--escalate: sandbox escalation requires a one-shot user approval, but the current "
            "'auto-review' posture cannot provide it (escalation is only possible in ask mode)");
  Host ww;
  o.mode = "ask";
  auto w = Compile(ww, o);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(std::string(w.status().message()),
            "--escalate: 'workspace-write' is not strictly wider than this call's current "
            "'workspace-write' posture");
}

TEST(LauncherFailClosed, PreferBwrapFalse) {
  Host host;
  host.Managed("sandbox_mode = \"workspace-write\"\nprefer_bwrap = false\ntool_launcher = " +
               std::string(kLauncher) + "\n");
  EXPECT_EQ(
      Refusal(host),
      "tool_launcher (/etc/codewhale/managed_config.toml:3:17) runs commands under bubblewrap "
      "or not at all, and prefer_bwrap = false (managed prefer_bwrap at "
      "/etc/codewhale/managed_config.toml:2:16)");
  Host env;
  env.Env("CODEWHALE_PREFER_BWRAP", "no");
  EXPECT_NE(Refusal(env).find("prefer_bwrap = false (env CODEWHALE_PREFER_BWRAP)"),
            std::string::npos);
}

TEST(LauncherFailClosed, FailedUserProbe) {
  Host host;
  host.LauncherProbe("{ran: true, ok: false, message: \"sudo: a password is required\"}");
  EXPECT_EQ(Refusal(host),
            "the launcher probe failed: `/usr/bin/sudo -n -u agent -- /usr/bin/id -u` did not "
            "report the launcher's user: sudo: a password is required");
}

TEST(LauncherFailClosed, FailedWrappedTrue) {
  Host host;
  host.LauncherProbe(
      "{ran: true, ok: false, uid: 998, gids: [998], message: \"bwrap: No permissions to create "
      "new namespace\"}");
  EXPECT_EQ(Refusal(host),
            "the launcher probe failed: a wrapped /bin/true with the deny masks did not run as the "
            "launcher's user (uid 998, groups 998): bwrap: No permissions to create new namespace");
}

TEST(LauncherFailClosed, MissingBwrap) {
  Host host;
  host.Dir("/usr/bin/bwrap", 0, 0, "0755");  // not a regular file
  EXPECT_EQ(
      Refusal(host),
      "tool_launcher (/etc/codewhale/managed_config.toml:3:17) runs commands under bubblewrap "
      "or not at all, and /usr/bin/bwrap is not a regular executable file");
}

TEST(LauncherFailClosed, OpenSandboxWinsBeforeTheLauncher) {
  Host host;
  host.Managed(
      "sandbox_mode = \"workspace-write\"\nsandbox_backend = \"opensandbox\"\n"
      "tool_launcher = " +
      std::string(kLauncher) + "\n");
  host.LauncherProbe("{ran: true, ok: false, message: \"must not be consulted\"}");
  LaunchPlan p = Plan(host);
  EXPECT_EQ(p.kind(), PlanKind::kOpenSandbox);
  EXPECT_EQ(p.bwrap(), nullptr);
}

// ---- masks and binds for the launcher's user --------------------------------

TEST(LauncherMasks, DeniedPathBelowUnsearchableDirIsMaskedAtTheHighestOne) {
  Host host;
  host.Dir("/home/dev", 1000, 1000, "0700")
      .Dir("/home/dev/.ssh", 1000, 1000, "0700")
      .Dir("/home/dev/.aws", 1000, 1000, "0700")
      .File("/home/dev/.netrc", 1000, 1000, "0600");
  LaunchPlan p = Plan(host);
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  std::vector<std::string> masks;
  for (size_t i = 0; i < p.mounts().size(); ++i) {
    const ir::Mount& m = p.mounts()[i];
    if (m.role == ir::MountRole::kDenyMask)
      masks.push_back(std::string(backends::MountOpFlag(m.op)) + " " + m.dest + " | " +
                      m.why.str());
  }
  EXPECT_EQ(masks, (std::vector<std::string>{
                       "--tmpfs /home/dev | deny read ~/.codewhale/secrets (masked at /home/dev: "
                       "the launcher's user uid 998 cannot search it)"}));
  // The workspace below the unsearchable home cannot be reached: its bind is dropped.
  bool dropped = false;
  for (const auto& s : p.skipped) {
    if (s.what == "writable root" && s.path == "/home/dev/ws") {
      dropped = true;
      EXPECT_EQ(s.reason,
                "the launcher's user (uid 998) cannot reach it: it cannot search /home/dev");
    }
  }
  EXPECT_TRUE(dropped);
  EXPECT_EQ(Argv(p).find("--bind /home/dev/ws"), std::string::npos);
  // Nor do its protected names get a placeholder: bwrap could not make one there.
  for (const ir::Mount& m : p.mounts()) {
    EXPECT_NE(m.dest.str().rfind("/home/dev/ws", 0), 0u) << m.dest;
  }
  size_t unmounted = 0;
  for (const ir::Root& r : p.roots) {
    if (r.path != "/home/dev/ws" || r.skip == ir::RootSkip::kDuplicate) continue;
    for (const ir::Protected& q : r.protected_paths) {
      EXPECT_FALSE(q.applied) << q.path;
      unmounted += q.skip_reason == "its root is not mounted";
    }
  }
  EXPECT_GT(unmounted, 0u);
  // The emitted argv hides everything below /home/dev.
  auto view = backends::InterpretBwrapArgv(backends::Texts(*backends::EmitBwrapArgv(p, {"id"})));
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->Find("/home/dev/.ssh/id_ed25519").access, backends::Access::kHidden);
  EXPECT_EQ(view->Find("/home/dev/.netrc").access, backends::Access::kHidden);

  // Without a launcher: one mask per denied path, at the path itself.
  Host plain = host;
  plain.Managed("sandbox_mode = \"workspace-write\"\n");
  LaunchPlan q = Plan(plain);
  ASSERT_EQ(q.kind(), PlanKind::kLinuxBwrap);
  std::vector<std::string> plain_masks;
  for (size_t i = 0; i < q.mounts().size(); ++i) {
    if (q.mounts()[i].role == ir::MountRole::kDenyMask) plain_masks.push_back(q.mounts()[i].dest);
  }
  EXPECT_EQ(plain_masks,
            (std::vector<std::string>{"/home/dev/.ssh", "/home/dev/.aws", "/home/dev/.netrc"}));
}

TEST(LauncherMasks, GroupSearchableHomeKeepsOrdinaryMasks) {
  Host host;
  host.Dir("/home/dev", 1000, 1000, "0750")
      .Dir("/home/dev/.ssh", 1000, 1000, "0700")
      .LauncherProbe("{ran: true, ok: true, uid: 998, gids: [998, 1000], message: \"\"}");
  LaunchPlan p = Plan(host);
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  EXPECT_NE(Argv(p).find("--remount-ro /home/dev/ws/.deepseek --tmpfs /home/dev/.ssh --chdir"),
            std::string::npos)
      << Argv(p);
}

TEST(LauncherMasks, ProbeRunsWithTheUsersMasks) {
  // The masks handed to the probe are the plan's own.
  Host host;
  host.Dir("/home/dev", 1000, 1000, "0700").Dir("/home/dev/.ssh", 1000, 1000, "0700");
  auto facts = host.Build();
  Identity agent{998, {998}};
  std::vector<ir::DeniedPath> denied = {{"/home/dev/.ssh", "~/.ssh", ir::Origin::Default("x")},
                                        {"/etc/shadow", "/etc/shadow", ir::Origin::Default("x")}};
  host.File("/etc/shadow", 0, 42, "0640");
  facts = host.Build();
  auto masks = DenyMasks(*facts, denied, &agent);
  EXPECT_EQ(LauncherProbeBwrapArgv(masks), (std::vector<std::string>{"/usr/bin/bwrap",
                                                                     "--unshare-all",
                                                                     "--unshare-user",
                                                                     "--disable-userns",
                                                                     "--cap-drop",
                                                                     "ALL",
                                                                     "--die-with-parent",
                                                                     "--ro-bind",
                                                                     "/",
                                                                     "/",
                                                                     "--dev",
                                                                     "/dev",
                                                                     "--proc",
                                                                     "/proc",
                                                                     "--tmpfs",
                                                                     "/tmp",
                                                                     "--tmpfs",
                                                                     "/home/dev",
                                                                     "--ro-bind",
                                                                     "/dev/null",
                                                                     "/etc/shadow",
                                                                     "--chdir",
                                                                     "/",
                                                                     "--",
                                                                     "/bin/true"}));
  // The engine's own uid can search its home: the mask stays on the path.
  Identity dev{1000, {1000}};
  auto own = DenyMasks(*facts, denied, &dev);
  ASSERT_EQ(own.size(), 2u);
  EXPECT_EQ(own[0].dest, "/home/dev/.ssh");
}

TEST(LauncherMasks, DenyListExceptionsAreNotAppliedUnderALauncher) {
  Host host;
  host.Dir("/home/dev/.ssh", 1000, 1000, "0700");
  LaunchPlan p = Plan(host, {"sandbox_read_denylist_defaults = false\n"
                             "sandbox_read_denylist_exempt = [\"~/.ssh\"]\n"});
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  EXPECT_NE(Argv(p).find("--tmpfs /home/dev/.ssh"), std::string::npos);
  std::vector<std::string> skipped;
  for (const auto& s : p.skipped) {
    if (s.what.rfind("sandbox_read_denylist", 0) == 0) skipped.push_back(s.what + ": " + s.reason);
  }
  EXPECT_EQ(skipped, (std::vector<std::string>{
                         "sandbox_read_denylist_defaults: the built-in deny list stays on under a "
                         "launcher",
                         "sandbox_read_denylist_exempt: deny-list exceptions are not applied under "
                         "a launcher"}));
}

TEST(LauncherMasks, UnreachableReadOnlyRootIsDropped) {
  Host host;
  host.Dir("/opt", 0, 0, "0711")
      .Dir("/opt/private", 0, 0, "0700")
      .Dir("/opt/private/lib", 0, 0, "0755");
  LaunchPlan p = Plan(host, {"bwrap_ro_roots = [\"/opt/private/lib\"]\n"});
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  EXPECT_EQ(Argv(p).find("/opt/private/lib"), std::string::npos);
  ASSERT_FALSE(p.skipped.empty());
  EXPECT_EQ(p.skipped.back().what, "bwrap_ro_roots");
  EXPECT_EQ(p.skipped.back().reason,
            "the launcher's user (uid 998) cannot reach it: it cannot search /opt/private");
}

// ---- lint --------------------------------------------------------------------

TEST(LauncherLint, RelativeProgramAndSudoWithoutN) {
  Host host;
  host.Managed(
      "sandbox_mode = \"workspace-write\"\ntool_launcher = [\"sudo\", \"-u\", \"agent\", "
      "\"--\"]\n");
  LaunchPlan p = Plan(host);
  EXPECT_EQ(
      WarningText(p, "launcher-not-absolute"),
      "the launcher's first program 'sudo' is not an absolute path; cwsc never searches PATH, "
      "so name it as /usr/bin/sudo or wherever it is installed");
  EXPECT_EQ(WarningText(p, "launcher-sudo-without-n"),
            "the launcher runs sudo without -n; without it sudo may wait for a password instead of "
            "failing at once");
  for (const char* ok : {"[\"/usr/bin/sudo\", \"-nu\", \"agent\", \"--\"]",
                         "[\"/usr/bin/sudo\", \"--non-interactive\", \"-u\", \"agent\"]"}) {
    host.Managed("sandbox_mode = \"workspace-write\"\ntool_launcher = " + std::string(ok) + "\n");
    LaunchPlan q = Plan(host);
    EXPECT_FALSE(HasWarning(q, "launcher-sudo-without-n")) << ok;
    EXPECT_FALSE(HasWarning(q, "launcher-not-absolute")) << ok;
  }
  host.Managed(
      "sandbox_mode = \"workspace-write\"\ntool_launcher = [\"/usr/bin/sudo\", \"-u\", "
      "\"nobody\"]\n");
  EXPECT_TRUE(HasWarning(Plan(host), "launcher-sudo-without-n"));
}

TEST(LauncherLint, ProgramInDirectoryTheLauncherUserCanWrite) {
  Host host;
  host.Dir("/opt", 0, 0, "0755")
      .Dir("/opt/tools", 0, 998, "0775")
      .File("/opt/tools/agent-exec", 0, 0, "0755")
      .Managed(
          "sandbox_mode = \"workspace-write\"\ntool_launcher = [\"/usr/bin/sudo\", \"-n\", "
          "\"-u\", \"agent\", \"--\", \"/opt/tools/agent-exec\"]\n");
  LaunchPlan p = Plan(host);
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  EXPECT_EQ(WarningText(p, "launcher-path-writable"),
            "the launcher program /opt/tools/agent-exec can be changed by the launcher's user (uid "
            "998): /opt/tools is group-writable (mode 0775, group 998) and the launcher's user is "
            "in that group; that user could replace it and escape the sandbox");
  Host bwrap;
  bwrap.Dir("/usr/bin", 0, 0, "0777");
  EXPECT_NE(WarningText(Plan(bwrap), "launcher-path-writable")
                .find("bubblewrap /usr/bin/bwrap can be changed by the launcher's user (uid 998): "
                      "/usr/bin is writable by every user (mode 0777)"),
            std::string::npos);
  EXPECT_FALSE(HasWarning(Plan(Host()), "launcher-path-writable"));
}

TEST(LauncherLint, LauncherThatRunsAShellScript) {
  Host host;
  host.Dir("/usr/local", 0, 0, "0755")
      .Dir("/usr/local/bin", 0, 0, "0755")
      .File("/usr/local/bin/agent-exec", 0, 0, "0755")
      .Content("/usr/local/bin/agent-exec", "#!/bin/sh\nexec \"$@\"\n")
      .Managed(
          "sandbox_mode = \"workspace-write\"\ntool_launcher = [\"/usr/bin/sudo\", \"-n\", "
          "\"-u\", \"agent\", \"--\", \"/usr/local/bin/agent-exec\"]\n");
  EXPECT_EQ(
      WarningText(Plan(host), "launcher-runs-script"),
      "/usr/local/bin/agent-exec is a script (#!/bin/sh); the launcher runs with the engine's "
      "environment, working directory and stdin and must ignore all three: use a setuid "
      "switcher such as `sudo -n`");
}

// ---- plans compiled elsewhere ------------------------------------------------

TEST(LauncherHost, OnlyTheLauncherPlanRunsOnALauncherHost) {
  Host host;
  auto facts = host.Build();
  LaunchPlan launcher_plan = Plan(host);
  ASSERT_EQ(launcher_plan.kind(), PlanKind::kLauncherBwrap);
  EXPECT_TRUE(runtime::CheckHostLauncher(launcher_plan, *facts).ok());
  Host plain;
  plain.Managed("sandbox_mode = \"workspace-write\"\n");
  LaunchPlan bwrap_plan = Plan(plain);
  ASSERT_EQ(bwrap_plan.kind(), PlanKind::kLinuxBwrap);
  absl::Status s = runtime::CheckHostLauncher(bwrap_plan, *facts);
  EXPECT_EQ(std::string(s.message()),
            "this host's managed config /etc/codewhale/managed_config.toml pins tool_launcher "
            "[/usr/bin/sudo -n -u agent --], and the plan (kind linux-bwrap) does not run through "
            "it; compile the plan on this host");
  LaunchPlan other = launcher_plan;
  other.bwrap()->launcher = {"/usr/bin/sudo", "-n", "-u", "root", "--"};
  EXPECT_NE(std::string(runtime::CheckHostLauncher(other, *facts).message())
                .find("and the plan (kind launcher+bwrap, launcher [/usr/bin/sudo -n -u root --])"),
            std::string::npos);
  // A host without a pinned launcher runs either.
  auto plain_facts = plain.Build();
  EXPECT_TRUE(runtime::CheckHostLauncher(bwrap_plan, *plain_facts).ok());
}

// ---- the example -------------------------------------------------------------

TEST(LauncherExample, ManagedLauncherExampleCompiles) {
  const char* root = std::getenv("CWSC_SOURCE_ROOT");
  std::ifstream in(std::string(root != nullptr ? root : ".") + "/examples/managed-launcher.toml");
  ASSERT_TRUE(in) << "examples/managed-launcher.toml not found (set CWSC_SOURCE_ROOT)";
  std::stringstream text;
  text << in.rdbuf();
  Host host;
  host.Managed(text.str());
  LaunchPlan p = Plan(host);
  ASSERT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  EXPECT_EQ(p.bwrap()->launcher,
            (std::vector<std::string>{"/usr/bin/sudo", "-n", "-u", "agent", "--"}));
  EXPECT_FALSE(testing::SharesNetwork(p));
  EXPECT_TRUE(p.warnings.size() == 1 && p.warnings[0].code == "launcher-user");
  // The same file is a load error as a user config.
  auto r = Compile(Host(), {text.str()});
  EXPECT_FALSE(r.ok());
}

// ---- facts ----------------------------------------------------------------

TEST(LauncherFacts, RecordedRoundTripGivesTheSamePlan) {
  for (const char* probe :
       {"{ran: true, ok: true, uid: 998, gids: [998, 1000], message: \"\"}",
        "{ran: true, ok: false, message: \"sudo: a password is required\"}",
        "{ran: true, ok: false, uid: 998, gids: [998], message: \"bwrap: setting up uid map: "
        "Permission denied\"}"}) {
    Host host;
    host.Dir("/home/dev", 1000, 1000, "0700")
        .Dir("/home/dev/.ssh", 1000, 1000, "0700")
        .LauncherProbe(probe);
    TempConfig cfg("");
    auto inner = host.Build();
    FactsRecorder rec(inner.get());
    CompileOptions o;
    o.config_path = cfg.path();
    auto first = CompileConfig(o, &rec);
    ASSERT_TRUE(first.ok()) << first.status();
    auto yaml = rec.WriteYaml();
    ASSERT_TRUE(yaml.ok());
    EXPECT_NE(yaml->find("launcher_probe: {"), std::string::npos) << *yaml;
    auto replay = ParseRecordedFacts(*yaml, "recorded.yaml");
    ASSERT_TRUE(replay.ok()) << replay.status() << *yaml;
    auto second = CompileConfig(o, replay->get());
    ASSERT_TRUE(second.ok()) << second.status();
    EXPECT_EQ(*ir::PlanToJson(first->plan), *ir::PlanToJson(second->plan)) << probe;
  }
}

TEST(LauncherFacts, BadLauncherProbeRecord) {
  auto f = ParseRecordedFacts("cwsc_facts: 1\nlauncher_probe: {ran: true, ok: true}\n", "f.yaml");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(std::string(f.status().message()),
            "f.yaml:2:17: error: launcher_probe cannot be ok without a uid\n"
            "  launcher_probe: {ran: true, ok: true}\n"
            "                  ^\n");
  auto g = ParseRecordedFacts("cwsc_facts: 1\nlauncher_probe: {uid: x}\n", "g.yaml");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("launcher_probe.uid must be a non-negative integer"),
            std::string::npos);
}

}  // namespace
}  // namespace cwsc::compiler
