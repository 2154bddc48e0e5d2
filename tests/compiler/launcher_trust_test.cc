// The managed-file trust rules for tool_launcher (docs/launcher.md), from
// recorded facts: every refusal names the file and the rule it broke.
#include <gtest/gtest.h>

#include "compiler/launcher.h"
#include "tests/compiler/launcher_fixture.h"

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

// ---- trust rules: each refusal names the file and the rule ----------------

TEST(LauncherTrust, ManagedFileOwnedByEngineUser) {
  Host host;
  host.File(kManaged, 1000, 1000, "0444");
  EXPECT_EQ(Refusal(host),
            "tool_launcher in /etc/codewhale/managed_config.toml is refused: the engine's user can "
            "change it or a directory above it: /etc/codewhale/managed_config.toml is owned by the "
            "engine's user dev (uid 1000) (checked with mode bits and group membership; group "
            "write bits also count as a POSIX ACL's mask)");
}

TEST(LauncherTrust, AncestorWritableByEveryone) {
  Host host;
  host.Dir("/etc/codewhale", 0, 0, "0777");
  EXPECT_EQ(Refusal(host),
            "tool_launcher in /etc/codewhale/managed_config.toml is refused: the engine's user can "
            "change it or a directory above it: /etc/codewhale is writable by every user (mode "
            "0777) (checked with mode bits and group membership; group write bits also count as a "
            "POSIX ACL's mask)");
}

TEST(LauncherTrust, GroupWritableWithEngineInGroup) {
  Host host;
  host.Dir("/etc/codewhale", 0, 27, "0775");
  EXPECT_EQ(Refusal(host),
            "tool_launcher in /etc/codewhale/managed_config.toml is refused: the engine's user can "
            "change it or a directory above it: /etc/codewhale is group-writable (mode 0775, group "
            "27) and the engine's user dev is in that group (checked with mode bits and group "
            "membership; group write bits also count as a POSIX ACL's mask)");
  // The same mode for a group the engine's user is not in may be a POSIX
  // ACL's mask over an entry naming the engine's user: refused too.
  Host other;
  other.Dir("/etc/codewhale", 0, 50, "0775");
  EXPECT_EQ(Refusal(other),
            "tool_launcher in /etc/codewhale/managed_config.toml is refused: the engine's user can "
            "change it or a directory above it: /etc/codewhale is group-writable (mode 0775, group "
            "50): with a POSIX ACL those bits are its mask, and an entry may let the engine's "
            "user dev write it (checked with mode bits and group membership; group write bits "
            "also count as a POSIX ACL's mask)");
  // Without group write bits no ACL entry can grant writing.
  Host narrow;
  narrow.Dir("/etc/codewhale", 0, 50, "0755");
  EXPECT_EQ(Plan(narrow).kind(), PlanKind::kLauncherBwrap);
  // A group member gets the group bits, not the (wider) other bits.
  Host classes;
  classes.Dir("/etc/codewhale", 0, 27, "0757");
  EXPECT_EQ(Plan(classes).kind(), PlanKind::kLauncherBwrap);
}

TEST(LauncherTrust, GroupWritableManagedFile) {
  Host host;
  host.File(kManaged, 0, 1000, "0664");
  EXPECT_EQ(Refusal(host),
            "tool_launcher in /etc/codewhale/managed_config.toml is refused: the engine's user can "
            "change it or a directory above it: /etc/codewhale/managed_config.toml is "
            "group-writable (mode 0664, group 1000) and the engine's user dev is in that group "
            "(checked with mode bits and group membership; group write bits also count as a POSIX "
            "ACL's mask)");
}

TEST(LauncherTrust, SymlinkedManagedPath) {
  Host host;
  host.Dir("/srv", 0, 0, "0755")
      .File("/srv/link.toml", 0, 0, "0644", kManaged, true)
      .Env("CODEWHALE_MANAGED_CONFIG_PATH", "/srv/link.toml")
      .Content("/srv/link.toml", "sandbox_mode = \"workspace-write\"\ntool_launcher = " +
                                     std::string(kLauncher) + "\n");
  EXPECT_EQ(Refusal(host),
            "tool_launcher in /srv/link.toml is refused: the managed path is a symlink (to "
            "/etc/codewhale/managed_config.toml); name the real file");
}

TEST(LauncherTrust, ManagedPathThroughSymlinkedDirectory) {
  Host host;
  host.Dir("/srv", 0, 0, "0755", "/etc/codewhale", true)
      .File("/srv/managed_config.toml", 0, 0, "0644", kManaged)
      .Env("CODEWHALE_MANAGED_CONFIG_PATH", "/srv/managed_config.toml")
      .Content("/srv/managed_config.toml", "sandbox_mode = \"workspace-write\"\ntool_launcher = " +
                                               std::string(kLauncher) + "\n");
  EXPECT_EQ(Refusal(host),
            "tool_launcher in /srv/managed_config.toml is refused: the managed path is reached "
            "through a symlink or a non-canonical spelling (it resolves to "
            "/etc/codewhale/managed_config.toml); name the real file");
}

TEST(LauncherTrust, UserConfigPointsManagedPathElsewhere) {
  Host host;
  host.Dir("/srv", 0, 0, "0755")
      .Managed(
          "sandbox_mode = \"workspace-write\"\ntool_launcher = " + std::string(kLauncher) + "\n",
          "/srv/managed.toml");
  auto r = Compile(host, {"managed_config_path = \"/srv/managed.toml\"\n"});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->plan.kind(), PlanKind::kRefused);
  const std::string& reason = r->plan.refusal()->reason;
  EXPECT_EQ(reason.substr(0, reason.find(" (config managed_config_path at ")),
            "tool_launcher in /srv/managed.toml is refused: the managed file was named by "
            "managed_config_path");
  EXPECT_NE(reason.find(":1:23); a launcher is honored only from the file named by "
                        "CODEWHALE_MANAGED_CONFIG_PATH or the default managed path "
                        "/etc/codewhale/managed_config.toml"),
            std::string::npos)
      << reason;
  // The environment variable beats the user config's pointer.
  host.Env("CODEWHALE_MANAGED_CONFIG_PATH", "/srv/managed.toml");
  EXPECT_EQ(Plan(host, {"managed_config_path = \"/srv/managed.toml\"\n"}).kind(),
            PlanKind::kLauncherBwrap);
}

TEST(LauncherTrust, KeyInUserConfigIsLoadError) {
  Host host;
  auto r = Compile(host, {"tool_launcher = [\"/usr/bin/sudo\", \"-n\"]\n"});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status()));
  std::string m(r.status().message());
  EXPECT_NE(m.find(":1:17: error: 'tool_launcher' is only honored from a trusted managed config; "
                   "it cannot be set in a user config or profile\n"),
            std::string::npos)
      << m;
}

TEST(LauncherTrust, KeyInProjectConfigStopsInteractiveLaunch) {
  Host host;
  host.Dir("/home/dev/ws/.codewhale", 1000, 1000, "0755")
      .File("/home/dev/ws/.codewhale/config.toml", 1000, 1000, "0644")
      .Content("/home/dev/ws/.codewhale/config.toml", "tool_launcher = [\"/bin/sh\"]\n");
  auto r = Compile(host);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().message()),
            "/home/dev/ws/.codewhale/config.toml:1:17: error: 'tool_launcher' in a project config "
            "stops an interactive launch; only a trusted managed config may set it\n"
            "  tool_launcher = [\"/bin/sh\"]\n"
            "                  ^\n");
  // serve/exec style (--no-project-config): the project config is not read.
  Options serve;
  serve.project = false;
  EXPECT_EQ(Plan(host, serve).kind(), PlanKind::kLauncherBwrap);
}

TEST(LauncherTrust, ManagedFileWithoutSandboxMode) {
  Host host;
  host.Managed("tool_launcher = " + std::string(kLauncher) + "\n");
  std::string want =
      "tool_launcher in /etc/codewhale/managed_config.toml is refused: the managed file must set "
      "sandbox_mode itself, to workspace-write or read-only (a sandbox_mode from a user config or "
      "the environment does not count)";
  EXPECT_EQ(Refusal(host, {"sandbox_mode = \"workspace-write\"\n"}), want);
  host.Env("CODEWHALE_SANDBOX_MODE", "read-only");
  EXPECT_EQ(Refusal(host), want);
}

TEST(LauncherTrust, ManagedDangerFullAccess) {
  Host host;
  host.Managed("sandbox_mode = \"danger-full-access\"\ntool_launcher = " + std::string(kLauncher) +
               "\n");
  EXPECT_EQ(
      Refusal(host),
      "tool_launcher in /etc/codewhale/managed_config.toml is refused: its sandbox_mode "
      "'danger-full-access' (/etc/codewhale/managed_config.toml:1:16) would skip the sandbox; "
      "it must be workspace-write or read-only");
  host.Managed("sandbox_mode = \"External-Sandbox\"\ntool_launcher = " + std::string(kLauncher) +
               "\n");
  EXPECT_NE(Refusal(host).find("its sandbox_mode 'External-Sandbox'"), std::string::npos);
}

TEST(LauncherTrust, OnlyOnLinux) {
  Host host;
  host.Platform("macos");
  EXPECT_EQ(Refusal(host),
            "tool_launcher in /etc/codewhale/managed_config.toml is refused: a launcher is honored "
            "only on Linux (this host is macos)");
}

TEST(LauncherTrust, RootEngineCanChangeEverything) {
  Host host;
  host.User("{uid: 0, gid: 0, groups: [0], name: root, home: /root}");
  EXPECT_EQ(Refusal(host),
            "tool_launcher in /etc/codewhale/managed_config.toml is refused: the engine's user can "
            "change it or a directory above it: the engine's user root has uid 0 (root), which can "
            "change any file (checked with mode bits and group membership; group write bits "
            "also count as a POSIX ACL's mask)");
}

}  // namespace
}  // namespace cwsc::compiler
