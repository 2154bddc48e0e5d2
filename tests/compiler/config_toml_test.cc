// The TOML frontend: every key, aliases, types, exact error texts.
#include "compiler/config_toml.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "compiler/key_lookalikes.h"

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
  EXPECT_EQ(s.sandbox_mode->value.type, ir::PolicyType::kWorkspaceWrite);
  EXPECT_EQ(s.sandbox_mode->value.text, "workspace-write");
  EXPECT_EQ(s.sandbox_mode->origin.Describe(), "config sandbox_mode at cfg.toml:1:16");
  EXPECT_FALSE(s.prefer_bwrap->value);
  ASSERT_EQ(s.bwrap_ro_roots->value.size(), 2u);
  EXPECT_EQ(s.bwrap_ro_roots->value[1].value, "~/b");
  EXPECT_EQ(s.bwrap_ro_roots->value[1].origin.col, 29);
  EXPECT_EQ(s.bwrap_dev_roots->value[0].value, "/dev/kvm");
  EXPECT_EQ(s.sandbox_backend->value.kind, BackendKind::kNone);
  EXPECT_EQ(s.sandbox_backend->value.text, "none");
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
  EXPECT_EQ(r->spec.sandbox_mode->value.type, ir::PolicyType::kReadOnly);
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
  // A [sandbox] table is itself a look-alike key (Gemini CLI's, Claude
  // Code's): a warning, which --strict fails on, then the key inside.
  ASSERT_EQ(r->notes.size(), 2u);
  EXPECT_EQ(r->notes[0].severity, ir::Diagnostic::Severity::kWarning);
  EXPECT_EQ(r->notes[0].line, 5);
  EXPECT_EQ(r->notes[1].Render(),
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
  EXPECT_EQ(std::string(Read("sandbox_mode = \"unterminated\n").status().message())
                .rfind("cfg.toml:1:29: error: malformed TOML: ", 0),
            0u);
  auto bad_utf8 = Read(std::string("model = \"\xff\"\n"));
  ASSERT_FALSE(bad_utf8.ok());
  EXPECT_EQ(
      std::string(bad_utf8.status().message()).rfind("cfg.toml:1:9: error: malformed TOML: ", 0),
      0u);
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
  EXPECT_EQ(
      Read("a\xca\xb2 = 1\n").status().message(),
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

// Notes rendered one a line, `line:col: severity: message`.
std::string NotesText(const ConfigLayer& c) {
  std::string out;
  for (const ir::Diagnostic& d : c.notes) out += d.Render();
  return out;
}

// Issue 25: keys other agents use, or a plausible guess, leave the network
// on in silence unless the reader names the key to set.
TEST(ConfigToml, LookAlikeKeysWarnWithTheKeyToSet) {
  auto r = Read(
      "network_access = false\n"
      "sandbox_network = false\n"
      "writable_roots = [\"/srv\"]\n"
      "sandbox_deny_read = [\"~/.aws\"]\n"
      "sandbox = false\n"
      "sandbox_permissions = [\"disk-full-read-access\"]\n"
      "sandboxNetworkEnabled = true\n"
      "use_bubblewrap = true\n"
      "[sandbox_settings]\n"
      "enabled = true\n");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(NotesText(*r),
            "cfg.toml:1:18: warning: unknown key 'network_access' is ignored (a Codex key); set "
            "'sandbox_network_access' instead\n"
            "cfg.toml:2:19: warning: unknown key 'sandbox_network' is ignored; did you mean "
            "'sandbox_network_access'?\n"
            "cfg.toml:3:18: warning: unknown key 'writable_roots' is ignored (a Codex key); set "
            "'sandbox_writable_roots' instead\n"
            "cfg.toml:4:21: warning: unknown key 'sandbox_deny_read' is ignored; did you mean "
            "'sandbox_denied_read_paths'?\n"
            "cfg.toml:5:11: warning: unknown key 'sandbox' is ignored (a Gemini CLI and Claude "
            "Code key); set 'sandbox_mode' instead: a mode, \"read-only\" or \"workspace-write\", "
            "not a boolean; prefer_bwrap = false turns bubblewrap off\n"
            "cfg.toml:6:23: warning: unknown key 'sandbox_permissions' is ignored (a Codex key); "
            "set 'sandbox_mode' instead: a mode, \"read-only\" or \"workspace-write\", and "
            "sandbox_network_access = true for the network\n"
            "cfg.toml:7:25: warning: unknown key 'sandboxNetworkEnabled' is ignored; did you mean "
            "'sandbox_network_access'?\n"
            "cfg.toml:8:18: warning: unknown key 'use_bubblewrap' is ignored; did you mean "
            "'prefer_bwrap'?\n"
            "cfg.toml:9:1: warning: unknown key 'sandbox_settings' is ignored; did you mean "
            "'sandbox_mode'?\n");
  EXPECT_FALSE(r->spec.sandbox_network_access.has_value());
}

TEST(ConfigToml, LookAlikeKeysOfTheSelectedProfileWarn) {
  auto r = Read("profile = \"work\"\n[profiles.work]\nnetwork_access = false\nmodel = \"m\"\n");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(NotesText(*r),
            "cfg.toml:3:18: warning: unknown key 'profiles.work.network_access' is ignored (a "
            "Codex key); set 'sandbox_network_access' instead\n");
}

// The keys of an ordinary Codewhale config (DeepSeek TUI's docs/CONFIGURATION.md
// and examples/workspace.toml) share no word with the table.
TEST(ConfigToml, OrdinaryCodewhaleKeysStaySilent) {
  auto r = Read(
      "provider = \"deepseek\"\napi_key = \"k\"\nbase_url = \"https://api.deepseek.com\"\n"
      "model = \"deepseek-v4\"\ndefault_text_model = \"deepseek-v4-pro\"\n"
      "reasoning_effort = \"high\"\nallow_shell = true\napproval_policy = \"on-request\"\n"
      "verbosity = \"normal\"\nmax_subagents = 5\nskills_dir = \"~/.deepseek/skills\"\n"
      "mcp_config_path = \"~/.deepseek/mcp.json\"\nnotes_path = \"~/n.txt\"\n"
      "memory_path = \"~/m.md\"\ntools_file = \"t.json\"\n"
      "[retry]\nenabled = true\nmax_retries = 3\n[capacity]\nenabled = true\n"
      "[tui]\ntheme = \"dark\"\nalternate_screen = \"auto\"\nmouse_capture = true\n"
      "[hooks]\n[features]\nshell_tool = true\nexec_policy = true\nweb_search = true\n"
      "[providers.nvidia_nim]\napi_key = \"k\"\n[mcp_servers.docs]\ncommand = \"docs-server\"\n");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(NotesText(*r), "");
}

// docs/config.md lists every row of the table, in its order.
TEST(ConfigToml, DocsListEveryLookAlike) {
  const char* root = std::getenv("CWSC_SOURCE_ROOT");
  std::ifstream in(std::string(root ? root : ".") + "/docs/config.md");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string docs = ss.str();
  size_t at = docs.find("## Look-alike keys");
  ASSERT_NE(at, std::string::npos);
  for (const LookAlike& l : LookAlikes()) {
    std::string row = absl::StrCat("| ", l.word ? "word " : "", "`", l.name, "` | ",
                                   l.from.empty() ? "—" : l.from, " | `", l.use, "` |");
    size_t next = docs.find(row, at);
    EXPECT_NE(next, std::string::npos) << row;
    if (next != std::string::npos) at = next;
  }
}

}  // namespace
}  // namespace cwsc::compiler
