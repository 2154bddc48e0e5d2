// The .cwsp frontend: every statement lowers to the PolicySpec field the
// TOML frontend fills, with its origin; variables are kept as written;
// several policies, extends, expectations, layers and policy selection.
#include "compiler/dsl_frontend.h"

#include <gtest/gtest.h>

#include "compiler/config_toml.h"
#include "compiler/dsl_text.h"

namespace cwsc::compiler {
namespace {

absl::StatusOr<DslResult> Read(const std::string& text, const std::string& name = "",
                               Layer layer = Layer::kUser) {
  return ReadDslPolicy(text, "p.cwsp", name, layer);
}

TEST(DslFrontend, EveryStatementLowersToItsKey) {
  auto r = Read(
      "policy agent {\n"
      "  mode workspace-write;\n"
      "  network on;\n"
      "  writable \"$WORKSPACE\", \"/srv/cache\";\n"
      "  read_only \"/opt/toolchains\";\n"
      "  device \"/dev/kvm\";\n"
      "  deny read \"~/.ssh\", \"$HOME/.aws\";\n"
      "  exempt read \"~/.npmrc\";\n"
      "  deny_defaults off;\n"
      "  tmp private;\n"
      "  protect \".git\", \".hg\";\n"
      "  wrapper bwrap prefer off;\n"
      "  linux_backend Landlock;\n"
      "  require_sandbox on;\n"
      "  managed_config \"/etc/codewhale/managed.toml\";\n"
      "  backend opensandbox {\n"
      "    url \"https://sandbox.example:8443/\";\n"
      "    api_key env \"OPENSANDBOX_KEY\";\n"
      "    api lifecycle;\n"
      "    execd_url \"http://127.0.0.1:44772\";\n"
      "    image \"python:3.12\";\n"
      "    execd_port 44772;\n"
      "    keep on;\n"
      "    remote_cwd \"/workspace\";\n"
      "  }\n"
      "}\n");
  ASSERT_TRUE(r.ok()) << r.status();
  const PolicySpec& s = r->spec;
  EXPECT_EQ(r->policy_name, "agent");
  EXPECT_EQ(s.sandbox_mode->value.type, ir::PolicyType::kWorkspaceWrite);
  EXPECT_EQ(s.sandbox_mode->origin.Describe(), "config mode at p.cwsp:2:3");
  EXPECT_TRUE(s.sandbox_network_access->value);
  ASSERT_EQ(s.sandbox_writable_roots->value.size(), 2u);
  EXPECT_EQ(s.sandbox_writable_roots->value[0].value, "$WORKSPACE");
  EXPECT_EQ(s.sandbox_writable_roots->value[1].value, "/srv/cache");
  EXPECT_EQ(s.sandbox_writable_roots->value[1].origin.Describe(), "config writable at p.cwsp:4:26");
  EXPECT_EQ(s.bwrap_ro_roots->value[0].value, "/opt/toolchains");
  EXPECT_EQ(s.bwrap_dev_roots->value[0].value, "/dev/kvm");
  EXPECT_EQ(s.sandbox_denied_read_paths->value[0].value, "~/.ssh");
  EXPECT_EQ(s.sandbox_denied_read_paths->value[1].value, "$HOME/.aws");
  EXPECT_EQ(s.sandbox_denied_read_paths->origin.detail, "deny read");
  EXPECT_EQ(s.sandbox_read_denylist_exempt->value[0].value, "~/.npmrc");
  EXPECT_FALSE(s.sandbox_read_denylist_defaults->value);
  EXPECT_TRUE(s.sandbox_exclude_slash_tmp->value);
  EXPECT_TRUE(s.sandbox_exclude_tmpdir->value);
  EXPECT_EQ(s.sandbox_exclude_tmpdir->origin.detail, "tmp private");
  ASSERT_EQ(s.sandbox_protected_names->value.size(), 2u);
  EXPECT_EQ(s.sandbox_protected_names->value[1].value, ".hg");
  EXPECT_FALSE(s.prefer_bwrap->value);
  EXPECT_EQ(s.managed_config_path->value, "/etc/codewhale/managed.toml");
  EXPECT_EQ(s.sandbox_backend->value.kind, BackendKind::kOpenSandbox);
  EXPECT_EQ(s.sandbox_url->value, "https://sandbox.example:8443/");
  EXPECT_EQ(s.sandbox_url->origin.Describe(), "config backend url at p.cwsp:17:5");
  EXPECT_EQ(s.sandbox_linux_backend->value, LinuxBackend::kLandlock);
  EXPECT_EQ(s.sandbox_linux_backend->origin.Describe(), "config linux_backend at p.cwsp:13:3");
  EXPECT_TRUE(s.sandbox_require->value);
  EXPECT_EQ(s.sandbox_require->origin.Describe(), "config require_sandbox at p.cwsp:14:3");
  EXPECT_FALSE(s.sandbox_api_key.has_value());  // never a literal key
  EXPECT_EQ(s.sandbox_api_key_env->value, "OPENSANDBOX_KEY");
  EXPECT_EQ(s.sandbox_opensandbox_api->value, ir::Contract::kLifecycle);
  EXPECT_EQ(s.sandbox_execd_url->value, "http://127.0.0.1:44772");
  EXPECT_EQ(s.sandbox_image->value, "python:3.12");
  EXPECT_EQ(s.sandbox_execd_port->value, 44772);
  EXPECT_TRUE(s.sandbox_keep->value);
  EXPECT_EQ(s.sandbox_remote_cwd->value, "/workspace");
  EXPECT_FALSE(s.tool_launcher.has_value());
  EXPECT_TRUE(s.expectations.empty());
}

TEST(DslFrontend, SameSpecAsTomlExceptOrigins) {
  auto dsl = Read(
      "policy p { mode read-only; network off; writable \"/a\", \"~/b\"; device \"/dev/kvm\";\n"
      "  deny read \"~/.x\"; tmp shared; protect \".git\"; wrapper bwrap prefer on;\n"
      "  linux_backend bwrap; require_sandbox off; }\n");
  auto toml = ReadTomlConfig(
      "sandbox_mode = \"read-only\"\nsandbox_network_access = false\n"
      "sandbox_writable_roots = [\"/a\", \"~/b\"]\nbwrap_dev_roots = [\"/dev/kvm\"]\n"
      "sandbox_denied_read_paths = [\"~/.x\"]\nsandbox_exclude_slash_tmp = false\n"
      "sandbox_exclude_tmpdir = false\nsandbox_protected_names = [\".git\"]\nprefer_bwrap = true\n"
      "sandbox_linux_backend = \"bwrap\"\nsandbox_require = false\n",
      "p.toml", Layer::kUser);
  ASSERT_TRUE(dsl.ok()) << dsl.status();
  ASSERT_TRUE(toml.ok()) << toml.status();
  // Erase every origin, then the two specs must be equal field by field.
  auto strip = [](PolicySpec s) {
    auto clear = [](auto& opt) {
      if (!opt) return;
      opt->origin = {};
      if constexpr (std::is_same_v<std::decay_t<decltype(opt->value)>, PathList>) {
        for (auto& e : opt->value) e.origin = {};
      }
    };
    clear(s.sandbox_mode);
    clear(s.sandbox_network_access);
    clear(s.sandbox_writable_roots);
    clear(s.bwrap_dev_roots);
    clear(s.sandbox_denied_read_paths);
    clear(s.sandbox_exclude_slash_tmp);
    clear(s.sandbox_exclude_tmpdir);
    clear(s.sandbox_protected_names);
    clear(s.prefer_bwrap);
    clear(s.sandbox_linux_backend);
    clear(s.sandbox_require);
    return s;
  };
  EXPECT_EQ(strip(dsl->spec), strip(toml->spec));
}

TEST(DslFrontend, SeparateTmpForms) {
  auto r = Read("policy p { slash_tmp private; tmpdir shared; }");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->spec.sandbox_exclude_slash_tmp->value);
  EXPECT_FALSE(r->spec.sandbox_exclude_tmpdir->value);
  EXPECT_EQ(r->spec.sandbox_exclude_slash_tmp->origin.detail, "slash_tmp private");
}

TEST(DslFrontend, ListsAccumulateAcrossStatements) {
  auto r = Read("policy p {\n  writable \"/a\";\n  writable \"/b\", \"/c\";\n}");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->spec.sandbox_writable_roots->value.size(), 3u);
  EXPECT_EQ(r->spec.sandbox_writable_roots->origin.line, 2);  // the first statement
  EXPECT_EQ(r->spec.sandbox_writable_roots->value[2].origin.line, 3);
}

TEST(DslFrontend, ExpectationsInSourceOrder) {
  auto r = Read(
      "policy p {\n"
      "  expect write \"$WORKSPACE/src/main.c\" allowed;\n"
      "  expect read \"~/.ssh/id_ed25519\" denied;\n"
      "  expect network denied;\n"
      "}\n");
  ASSERT_TRUE(r.ok()) << r.status();
  const auto& e = r->spec.expectations;
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].kind, ir::Expectation::Kind::kWrite);
  EXPECT_EQ(e[0].path, "$WORKSPACE/src/main.c");
  EXPECT_TRUE(e[0].allowed);
  EXPECT_EQ(e[0].origin.Describe(), "config expect at p.cwsp:2:3");
  EXPECT_EQ(e[1].kind, ir::Expectation::Kind::kRead);
  EXPECT_FALSE(e[1].allowed);
  EXPECT_EQ(e[2].kind, ir::Expectation::Kind::kNetwork);
  EXPECT_EQ(e[2].path, "");
}

TEST(DslFrontend, SeveralPoliciesSelectedByName) {
  std::string text =
      "policy base { mode workspace-write; writable \"/srv\"; expect network denied; }\n"
      "policy ci extends base { network on; writable \"/cache\"; }\n";
  auto base = Read(text, "base");
  ASSERT_TRUE(base.ok()) << base.status();
  EXPECT_EQ(base->all_policies, (std::vector<std::string>{"base", "ci"}));
  EXPECT_FALSE(base->spec.sandbox_network_access.has_value());
  EXPECT_EQ(base->spec.expectations.size(), 1u);

  auto ci = Read(text, "ci");
  ASSERT_TRUE(ci.ok()) << ci.status();
  EXPECT_EQ(ci->spec.sandbox_mode->value.type, ir::PolicyType::kWorkspaceWrite);  // from base
  EXPECT_EQ(ci->spec.sandbox_mode->origin.line, 1);
  EXPECT_TRUE(ci->spec.sandbox_network_access->value);
  ASSERT_EQ(ci->spec.sandbox_writable_roots->value.size(), 2u);
  EXPECT_EQ(ci->spec.sandbox_writable_roots->value[1].value, "/cache");
  EXPECT_TRUE(ci->spec.expectations.empty());  // expectations are not inherited
}

TEST(DslFrontend, ChildOverridesParentScalarWithoutDuplicateError) {
  auto r =
      Read("policy a { mode read-only; }\npolicy b extends a { mode workspace-write; }\n", "b");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.sandbox_mode->value.type, ir::PolicyType::kWorkspaceWrite);
}

TEST(DslFrontend, KeywordsAreValidPolicyNames) {
  auto r = Read("policy network { network off; }", "network");
  ASSERT_TRUE(r.ok()) << r.status();
}

TEST(DslFrontend, LauncherOnlyInManagedLayer) {
  std::string text =
      "policy m { mode workspace-write; launcher [\"/usr/bin/sudo\", \"-n\", \"-u\", \"agent\", "
      "\"--\"]; }";
  auto managed = Read(text, "", Layer::kManaged);
  ASSERT_TRUE(managed.ok()) << managed.status();
  EXPECT_EQ(managed->spec.tool_launcher->value,
            (std::vector<std::string>{"/usr/bin/sudo", "-n", "-u", "agent", "--"}));
  EXPECT_EQ(managed->spec.tool_launcher->origin.detail, "launcher");
  auto user = Read(text);
  ASSERT_FALSE(user.ok());
  EXPECT_EQ(user.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(user.status().message().find("only a managed config may set 'launcher'"),
            std::string::npos);
}

TEST(DslFrontend, ApiKeyFromFile) {
  auto r =
      Read("policy p { backend opensandbox { api_key file \"/run/secrets/opensandbox-key\"; } }");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.sandbox_api_key_file->value, "/run/secrets/opensandbox-key");
  EXPECT_EQ(r->spec.sandbox_api_key_file->origin.detail, "backend api_key file");
}

TEST(DslFrontend, StringEscapes) {
  auto r = Read("policy p { writable \"/a \\\"q\\\" \\\\ \\$HOME\\tx\"; }");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.sandbox_writable_roots->value[0].value, "/a \"q\" \\ $HOME\tx");
}

TEST(DslFrontend, VariablesAndHomeAreKeptAsWritten) {
  auto r = Read(
      "policy p { writable \"$WORKSPACE/out\", \"${HOME}/x\", \"$CWD\", \"$TMPDIR/t\", \"~\", "
      "\"~/y\"; }");
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> got;
  for (const auto& e : r->spec.sandbox_writable_roots->value) got.push_back(e.value);
  EXPECT_EQ(got, (std::vector<std::string>{"$WORKSPACE/out", "${HOME}/x", "$CWD", "$TMPDIR/t", "~",
                                           "~/y"}));
}

TEST(DslFrontend, CommentsOfEveryKindAreIgnored) {
  auto r = Read(
      "# hash\n// slashes\n/* block\n over lines */ policy p { /* inline */ mode read-only; # "
      "t\n}");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.sandbox_mode->value.type, ir::PolicyType::kReadOnly);
}

TEST(DslFrontend, CheckDslPath) {
  EXPECT_EQ(CheckDslPath("/abs"), "");
  EXPECT_EQ(CheckDslPath("~"), "");
  EXPECT_EQ(CheckDslPath("$WORKSPACE"), "");
  EXPECT_EQ(CheckDslPath("/a$b"),
            "a variable may only start a path: \"/a$b\" (write \\$ for a literal '$')");
  EXPECT_EQ(CheckDslPath("/a$"), "");  // a lone '$' is literal
  EXPECT_EQ(CheckDslPath("$HOMEX"),
            "unknown variable '$HOMEX'; the variables are $WORKSPACE, $HOME, $CWD and $TMPDIR");
  EXPECT_EQ(CheckDslPath("${HOME"), "unclosed '${' in \"${HOME\"");
  EXPECT_EQ(CheckDslPath("$HOME.d"),
            "a variable must be followed by '/' or end the path: \"$HOME.d\"");
}

TEST(DslFrontend, NumberedPositionsCountCodePoints) {
  // "é" is two bytes but one column.
  auto r = Read("policy p { writable \"/é\", \"rel\"; }");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("p.cwsp:1:27: error: relative path \"rel\""),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace cwsc::compiler
