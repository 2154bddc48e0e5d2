// The TOML frontend: every key, aliases, types, exact error texts.
#include "compiler/config_toml.h"

#include <gtest/gtest.h>

namespace cwsc::compiler {
namespace {

absl::StatusOr<ConfigLayer> Read(const std::string& text, Layer layer = Layer::kUser) {
  return ReadTomlConfig(text, "cfg.toml", layer);
}

TEST(ConfigToml, ReadsEveryKeyWithPositions) {
  auto r = Read(
      "sandbox_mode = \"workspace-write\"\n"
      "prefer_bwrap = false\n"
      "bwrap_ro_roots = [\"/opt/a\", \"~/b\"]\n"
      "bwrap_dev_roots = [\"/dev/kvm\"]\n"
      "sandbox_backend = \"none\"\n"
      "sandbox_url = \"http://127.0.0.1:9\"\n"
      "sandbox_api_key = \"s3cret\"\n"
      "sandbox_network_access = true\n"
      "managed_config_path = \"/etc/m.toml\"\n"
      "sandbox_read_denylist_defaults = false\n"
      "sandbox_denied_read_paths = [\"~/x\"]\n"
      "sandbox_read_denylist_exempt = [\"~/.npmrc\"]\n"
      "sandbox_writable_roots = [\"/srv\"]\n"
      "sandbox_exclude_tmpdir = true\n"
      "sandbox_exclude_slash_tmp = true\n"
      "sandbox_protected_names = [\".git\"]\n");
  ASSERT_TRUE(r.ok()) << r.status();
  const PolicySpec& s = r->spec;
  EXPECT_EQ(s.sandbox_mode->value, "workspace-write");
  EXPECT_EQ(s.sandbox_mode->origin.Describe(), "config sandbox_mode at cfg.toml:1:16");
  EXPECT_FALSE(s.prefer_bwrap->value);
  ASSERT_EQ(s.bwrap_ro_roots->value.size(), 2u);
  EXPECT_EQ(s.bwrap_ro_roots->value[1].value, "~/b");
  EXPECT_EQ(s.bwrap_ro_roots->value[1].origin.col, 29);
  EXPECT_EQ(s.bwrap_dev_roots->value[0].value, "/dev/kvm");
  EXPECT_EQ(s.sandbox_backend->value, "none");
  EXPECT_EQ(s.sandbox_url->value, "http://127.0.0.1:9");
  EXPECT_EQ(s.sandbox_api_key->value, "s3cret");
  EXPECT_TRUE(s.sandbox_network_access->value);
  EXPECT_EQ(s.managed_config_path->value, "/etc/m.toml");
  EXPECT_FALSE(s.sandbox_read_denylist_defaults->value);
  EXPECT_EQ(s.sandbox_denied_read_paths->value[0].value, "~/x");
  EXPECT_EQ(s.sandbox_read_denylist_exempt->value[0].value, "~/.npmrc");
  EXPECT_EQ(s.sandbox_writable_roots->value[0].value, "/srv");
  EXPECT_TRUE(s.sandbox_exclude_tmpdir->value);
  EXPECT_TRUE(s.sandbox_exclude_slash_tmp->value);
  EXPECT_EQ(s.sandbox_protected_names->value[0].value, ".git");
}

TEST(ConfigToml, CamelCaseAliases) {
  auto r = Read(
      "sandboxMode = \"read-only\"\npreferBwrap = true\nbwrapRoRoots = [\"/a\"]\n"
      "bwrapDevRoots = [\"/dev/null\"]\nsandboxBackend = \"none\"\nsandboxUrl = \"http://x\"\n"
      "sandboxApiKey = \"k\"\nmanagedConfigPath = \"/m\"\n");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec.sandbox_mode->value, "read-only");
  EXPECT_EQ(r->spec.sandbox_mode->origin.detail, "sandbox_mode");
  EXPECT_TRUE(r->spec.prefer_bwrap->value);
  EXPECT_EQ(r->spec.bwrap_ro_roots->value.size(), 1u);
  EXPECT_EQ(r->spec.bwrap_dev_roots->value.size(), 1u);
  EXPECT_EQ(r->spec.managed_config_path->value, "/m");
}

TEST(ConfigToml, UnrelatedKeysAreIgnoredAndNestedSandboxKeysNoted) {
  auto r = Read(
      "model = \"x\"\nallow_shell = true\n[tui]\ntheme = \"dark\"\n"
      "[sandbox]\nsandbox_mode = \"read-only\"\n");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->spec.sandbox_mode);
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_EQ(r->notes[0].Render(),
            "cfg.toml:6:16: note: ignoring 'sandbox.sandbox_mode': sandbox keys are read only at "
            "the top level of the config\n");
}

TEST(ConfigToml, InvalidSandboxMode) {
  auto r = Read("\nsandbox_mode = \"sometimes\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "cfg.toml:2:16: error: Invalid sandbox_mode 'sometimes': expected read-only, "
            "workspace-write, danger-full-access, or external-sandbox.\n"
            "  sandbox_mode = \"sometimes\"\n"
            "                 ^\n");
  EXPECT_TRUE(Read("sandbox_mode = \" Read-Only \"").ok());  // trimmed + lowercased
}

TEST(ConfigToml, WrongTypesNameKeyAndPosition) {
  EXPECT_EQ(Read("prefer_bwrap = \"yes\"").status().message(),
            "cfg.toml:1:16: error: 'prefer_bwrap' must be a boolean (true or false), not a string\n"
            "  prefer_bwrap = \"yes\"\n"
            "                 ^\n");
  EXPECT_EQ(Read("bwrap_ro_roots = \"/opt\"").status().message(),
            "cfg.toml:1:18: error: 'bwrap_ro_roots' must be a list of path strings, not a string\n"
            "  bwrap_ro_roots = \"/opt\"\n"
            "                   ^\n");
  EXPECT_EQ(Read("bwrap_dev_roots = [\"/dev/kvm\", 3]").status().message(),
            "cfg.toml:1:32: error: 'bwrap_dev_roots' entries must be path strings, not an integer\n"
            "  bwrap_dev_roots = [\"/dev/kvm\", 3]\n"
            "                                 ^\n");
  EXPECT_EQ(Read("sandbox_mode = 1").status().message(),
            "cfg.toml:1:16: error: 'sandbox_mode' must be a string, not an integer\n"
            "  sandbox_mode = 1\n"
            "                 ^\n");
  EXPECT_EQ(Read("bwrap_ro_roots = [\"\"]").status().message(),
            "cfg.toml:1:19: error: 'bwrap_ro_roots' entries must not be empty\n"
            "  bwrap_ro_roots = [\"\"]\n"
            "                    ^\n");
  // docs/behavior.md B-52: an empty denied path is skipped (with a note), not an error.
  auto skipped = Read("sandbox_denied_read_paths = [\"\", \"/srv\"]");
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ(skipped->spec.sandbox_denied_read_paths->value.size(), 1u);
  ASSERT_EQ(skipped->notes.size(), 1u);
  EXPECT_EQ(skipped->notes[0].Render(),
            "cfg.toml:1:30: note: ignoring an empty entry of 'sandbox_denied_read_paths'\n");
}

TEST(ConfigToml, SeveralErrorsAreAllReported) {
  auto r = Read("prefer_bwrap = 1\nsandbox_mode = \"x\"\n");
  ASSERT_FALSE(r.ok());
  std::string m(r.status().message());
  EXPECT_NE(m.find("cfg.toml:1:16: error: 'prefer_bwrap'"), std::string::npos);
  EXPECT_NE(m.find("cfg.toml:2:16: error: Invalid sandbox_mode 'x'"), std::string::npos);
}

TEST(ConfigToml, AliasAndKeyTogetherIsAnError) {
  EXPECT_EQ(Read("sandbox_mode = \"read-only\"\nsandboxMode = \"read-only\"\n").status().message(),
            "cfg.toml:2:15: error: 'sandboxMode' repeats 'sandbox_mode' (the same setting)\n"
            "  sandboxMode = \"read-only\"\n"
            "                ^\n");
}

TEST(ConfigToml, ToolLauncherInUserConfigIsALoadError) {
  EXPECT_EQ(Read("tool_launcher = [\"/usr/bin/sudo\", \"-n\"]").status().message(),
            "cfg.toml:1:17: error: 'tool_launcher' is only honored from a trusted managed config; "
            "it cannot be set in a user config or profile\n"
            "  tool_launcher = [\"/usr/bin/sudo\", \"-n\"]\n"
            "                  ^\n");
  auto managed = Read("tool_launcher = [\"/usr/bin/sudo\", \"-n\"]", Layer::kManaged);
  ASSERT_TRUE(managed.ok());
  EXPECT_EQ(managed->spec.tool_launcher->value.size(), 2u);
  EXPECT_EQ(managed->spec.tool_launcher->origin.kind, ir::Origin::Kind::kManaged);
}

TEST(ConfigToml, MalformedToml) {
  EXPECT_EQ(std::string(Read("sandbox_mode = \"unterminated\n").status().message()).rfind(
                "cfg.toml:1:29: error: malformed TOML: ", 0),
            0u);
  auto bad_utf8 = Read(std::string("model = \"\xff\"\n"));
  ASSERT_FALSE(bad_utf8.ok());
  EXPECT_EQ(std::string(bad_utf8.status().message()).rfind("cfg.toml:1:9: error: malformed TOML: ", 0), 0u);
  auto nul = Read(std::string("model = 1\0x = 2\n", 16));
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(std::string(nul.status().message()).rfind("cfg.toml:1:", 0), 0u);
}

// toml++'s parser checks its own invariants; documents that break them are
// malformed TOML at the code point the parser stopped on, never an abort.
TEST(ConfigToml, ParserInvariantBreaksAreMalformedToml) {
  EXPECT_EQ(Read("r=[\"\",}").status().message(),
            "cfg.toml:1:7: error: malformed TOML: unexpected character '}'\n"
            "  r=[\"\",}\n"
            "        ^\n");
  EXPECT_EQ(Read("a = 1\nx = [1, }]\n").status().message(),
            "cfg.toml:2:9: error: malformed TOML: unexpected character '}'\n"
            "  x = [1, }]\n"
            "          ^\n");
}

// toml++'s Unicode tables miss some code points (U+02B2 after a bare key
// reached __builtin_unreachable): such a character is simply not white space.
TEST(ConfigToml, UncoveredCodePointsAreNotWhitespace) {
  EXPECT_EQ(Read("a\xca\xb2 = 1\n").status().message(),
            "cfg.toml:1:2: error: malformed TOML: Error while parsing key-value pair: expected '=', "
            "saw '\xca\xb2'\n"
            "  a\xca\xb2 = 1\n"
            "   ^\n");
}

TEST(ConfigToml, ProtectedNamesAreNames) {
  EXPECT_EQ(Read("sandbox_protected_names = [\"a/b\"]").status().message(),
            "cfg.toml:1:27: error: 'sandbox_protected_names' entries are single names like "
            "\".git\", not 'a/b'\n"
            "  sandbox_protected_names = [\"a/b\"]\n"
            "                            ^\n");
}

}  // namespace
}  // namespace cwsc::compiler
