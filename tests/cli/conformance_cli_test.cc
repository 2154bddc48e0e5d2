// What users hit on the command line: misspelled keys, Codex tables, nested
// sandbox keys, profiles, check agreeing with compile, stale facts files,
// compile warnings on stderr and notes for keys that change nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "nlohmann/json.hpp"
#include "tests/cli/argv_note.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc {
namespace {

using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

std::string Bin() { return std::getenv("CWSC_BIN") ? std::getenv("CWSC_BIN") : "cwsc"; }
std::string Facts() { return testing::SourceRoot() + "/tests/golden/bwrap/ws_default/facts.yaml"; }
// Facts with /srv/extra and a missing /opt/missing-ro (tests/golden/bwrap/roots_mixed).
std::string RootsFacts() {
  return testing::SourceRoot() + "/tests/golden/bwrap/roots_mixed/facts.yaml";
}

RunResult Cwsc(std::vector<std::string> args, const std::string& cwd,
               const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), Bin());
  return testing::Run(args, "", env, cwd);
}

// Item 16: near misses of known keys warn with a did-you-mean.
TEST(ConfigCli, MisspelledSandboxKeyWarns) {
  TempDir t;
  WriteFile(t / "c.toml",
            "model = \"x\"\nsandbox_mdoe = \"read-only\"\nprefer_bwarp = false\n"
            "sandboxmode = 1\nsandbox = 3\n");
  RunResult c = Cwsc({"check", "c.toml", "--facts", Facts(), "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(c.exit_code, 0);
  // `sandbox = 3` is a look-alike key (Gemini CLI's): it warns too.
  EXPECT_EQ(c.err,
            "c.toml:2:16: warning: unknown key 'sandbox_mdoe' is ignored; did you mean "
            "'sandbox_mode'?\n"
            "c.toml:3:16: warning: unknown key 'prefer_bwarp' is ignored; did you mean "
            "'prefer_bwrap'?\n"
            "c.toml:4:15: warning: unknown key 'sandboxmode' is ignored; did you mean "
            "'sandboxMode'?\n"
            "c.toml:5:11: warning: unknown key 'sandbox' is ignored (a Gemini CLI and Claude Code "
            "key); set 'sandbox_mode' instead: a mode, \"read-only\" or \"workspace-write\", not a "
            "boolean; prefer_bwrap = false turns bubblewrap off\n");
  EXPECT_EQ(c.out,
            "c.toml: valid config with 4 warnings; no expectations (check it against a "
            ".cwsp file's with --expect FILE.cwsp)\n");
  RunResult p = Cwsc({"compile", "c.toml", "--facts", Facts(), "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_NE(p.err.find("did you mean 'sandbox_mode'?"), std::string::npos) << p.err;
}

// A misspelled list key is the likeliest typo of all (its roots or denied
// paths silently vanish): arrays get the did-you-mean too.
TEST(ConfigCli, MisspelledListKeyWarns) {
  TempDir t;
  WriteFile(t / "c.toml",
            "sandbox_writable_root = [\"/tmp/x\"]\nsandbox_denied_read_path = []\n"
            "plugins = [\"a\"]\n");
  RunResult c = Cwsc({"check", "c.toml"}, t.path());
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_EQ(c.err,
            "c.toml:1:25: warning: unknown key 'sandbox_writable_root' is ignored; did you mean "
            "'sandbox_writable_roots'?\n"
            "c.toml:2:28: warning: unknown key 'sandbox_denied_read_path' is ignored; did you "
            "mean 'sandbox_denied_read_paths'?\n");
}

TEST(ConfigCli, PreferBwrapYesSaysItReadsAsFalse) {
  TempDir t;
  WriteFile(t / "c.toml", "");
  RunResult r = Cwsc({"compile", "c.toml", "--cwd", t.path(), "--target", "plan"}, t.path(),
                     {"CODEWHALE_PREFER_BWRAP=yes"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err.rfind("warning: CODEWHALE_PREFER_BWRAP='yes' is read as false (only 1 or true "
                        "mean true): bubblewrap is not used\n",
                        0),
            0u)
      << r.err;
}

// Item 21: Codex's [sandbox_workspace_write] table names the Codewhale keys.
TEST(ConfigCli, CodexWorkspaceWriteTableWarns) {
  TempDir t;
  WriteFile(t / "c.toml",
            "[sandbox_workspace_write]\nwritable_roots = [\"/srv\"]\n"
            "network_access = false\nexclude_slash_tmp = true\n"
            "exclude_tmpdir_env_var = true\nother = 1\n");
  RunResult c = Cwsc({"check", "c.toml"}, t.path());
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_EQ(c.err,
            "c.toml:2:18: warning: ignoring Codex's 'sandbox_workspace_write.writable_roots': "
            "Codewhale does not read this table; set 'sandbox_writable_roots' at the top level "
            "instead\n"
            "c.toml:3:18: warning: ignoring Codex's 'sandbox_workspace_write.network_access': "
            "Codewhale does not read this table; set 'sandbox_network_access' at the top level "
            "instead\n"
            "c.toml:4:21: warning: ignoring Codex's 'sandbox_workspace_write.exclude_slash_tmp': "
            "Codewhale does not read this table; set 'sandbox_exclude_slash_tmp' at the top level "
            "instead\n"
            "c.toml:5:26: warning: ignoring Codex's "
            "'sandbox_workspace_write.exclude_tmpdir_env_var': Codewhale does not read this table; "
            "set 'sandbox_exclude_tmpdir' at the top level instead\n"
            "c.toml:6:9: warning: ignoring Codex's 'sandbox_workspace_write.other': Codewhale does "
            "not read this table\n");
}

// Item 22: sandbox keys nested at any depth get the note.
TEST(ConfigCli, NestedSandboxKeysAtAnyDepthAreNoted) {
  TempDir t;
  WriteFile(t / "c.toml",
            "[agents.x]\nsandbox_mode = \"read-only\"\n[[team]]\nname = \"a\"\n"
            "sandbox_mode = \"read-only\"\n[a.b.c]\nprefer_bwrap = false\n");
  RunResult c = Cwsc({"check", "c.toml"}, t.path());
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_EQ(c.err,
            "c.toml:2:16: note: ignoring 'agents.x.sandbox_mode': sandbox keys are read only at "
            "the top level of the config\n"
            "c.toml:5:16: note: ignoring 'team[0].sandbox_mode': sandbox keys are read only at "
            "the top level of the config\n"
            "c.toml:7:16: note: ignoring 'a.b.c.prefer_bwrap': sandbox keys are read only at the "
            "top level of the config\n");
}

// Item 11: the selected profile's keys apply; tool_launcher in a profile is a load error.
TEST(ConfigCli, ProfilesSelectAndRejectLauncher) {
  TempDir t;
  WriteFile(t / "c.toml",
            "profile = \"safe\"\n[profiles.safe]\nsandbox_mode = \"read-only\"\n"
            "[profiles.reviewer]\nsandbox_mode = \"workspace-write\"\n");
  RunResult p =
      Cwsc({"compile", "c.toml", "--facts", Facts(), "--unlisted-as-missing", "--target", "plan"},
           t.path());
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(p.out.find("\"type\": \"read-only\""), std::string::npos);
  EXPECT_NE(p.out.find("\"detail\": \"profiles.safe.sandbox_mode\""), std::string::npos);
  EXPECT_EQ(p.err,
            "c.toml:5:16: note: ignoring 'profiles.reviewer.sandbox_mode': profile 'reviewer' is "
            "not selected (profile = \"reviewer\" selects it)\n");
  WriteFile(t / "l.toml", "[profiles.x]\ntool_launcher = [\"/usr/bin/sudo\"]\n");
  RunResult l = Cwsc({"check", "l.toml"}, t.path());
  EXPECT_EQ(l.exit_code, 2);
  EXPECT_EQ(l.err,
            "l.toml:2:17: error: 'tool_launcher' is only honored from a trusted managed config; it "
            "cannot be set in a user config or profile\n"
            "  tool_launcher = [\"/usr/bin/sudo\"]\n"
            "                  ^\n");
  WriteFile(t / "m.toml", "profile = \"nope\"\n");
  RunResult m = Cwsc({"check", "m.toml"}, t.path());
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_EQ(m.err,
            "m.toml:1:11: error: profile 'nope' is not defined (no [profiles.nope] table)\n"
            "  profile = \"nope\"\n"
            "            ^\n");
}

// Item 23: check rejects what compile rejects in any mode.
TEST(ConfigCli, CheckValidatesPathsForEveryMode) {
  TempDir t;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"sandbox_writable_roots = [\"rel/dir\"]\n",
       "c.toml:1:27: error: sandbox_writable_roots: path 'rel/dir' is relative; use an absolute "
       "path, ~ or a variable\n"},
      {"bwrap_ro_roots = [\"vendor\"]\n",
       "c.toml:1:19: error: bwrap_ro_roots: path 'vendor' is relative; use an absolute path, ~ or "
       "a variable\n"},
      {"sandbox_denied_read_paths = [\"$NOPE/x\"]\n",
       "c.toml:1:30: error: sandbox_denied_read_paths: unknown variable '$NOPE' (known: $HOME, "
       "$WORKSPACE, $CWD, $TMPDIR)\n"},
  };
  for (const auto& [text, err] : cases) {
    WriteFile(t / "c.toml", text);
    RunResult c = Cwsc({"check", "c.toml"}, t.path());
    EXPECT_EQ(c.exit_code, 2) << text;
    EXPECT_EQ(c.err.substr(0, c.err.find('\n') + 1), err) << text;
    for (const char* mode : {"plan", "ask", "full-access"}) {
      RunResult p =
          Cwsc({"compile", "c.toml", "--facts", Facts(), "--unlisted-as-missing", "--mode", mode},
               t.path());
      EXPECT_EQ(p.exit_code, 2) << text << mode;
      EXPECT_EQ(p.err.substr(0, p.err.find('\n') + 1), err) << text << mode;
    }
  }
}

// Item 18: check --managed refuses what every compile refuses; compile prints
// the plan's warnings on stderr.
TEST(ConfigCli, CheckManagedLauncherNeedsSandboxMode) {
  TempDir t;
  WriteFile(t / "m.toml", "tool_launcher = [\"/usr/bin/sudo\", \"-n\"]\n");
  RunResult c = Cwsc({"check", "m.toml", "--managed"}, t.path());
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_EQ(
      c.err,
      "m.toml:1:17: error: a managed config with 'tool_launcher' must set sandbox_mode itself "
      "(workspace-write or read-only); every compile refuses it\n");
  WriteFile(t / "m.toml",
            "sandbox_mode = \"danger-full-access\"\ntool_launcher = [\"/usr/bin/sudo\"]\n");
  c = Cwsc({"check", "m.toml", "--managed"}, t.path());
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_EQ(c.err,
            "m.toml:2:17: error: a managed config with 'tool_launcher' must set sandbox_mode to "
            "workspace-write or read-only, not 'danger-full-access'; every compile refuses it\n");
  WriteFile(t / "m.toml", "sandbox_mode = \"read-only\"\ntool_launcher = [\"/usr/bin/sudo\"]\n");
  c = Cwsc({"check", "m.toml", "--managed"}, t.path());
  EXPECT_EQ(c.exit_code, 0) << c.err;
}

TEST(ConfigCli, CompilePrintsPlanWarnings) {
  TempDir t;
  std::string roots;
  for (int i = 0; i < 60; ++i) roots += "\"/ro" + std::to_string(i) + "\", ";
  WriteFile(t / "c.toml", "bwrap_ro_roots = [" + roots + "]\n");
  std::string facts = testing::ReadFileOr(Facts());
  facts = facts.substr(0, facts.find("paths:\n") + 7);
  for (int i = 0; i < 60; ++i) {
    facts += "  /ro" + std::to_string(i) + ": {type: directory, canonical: /ro" +
             std::to_string(i) + ", mode: \"0755\", uid: 0, gid: 0}\n";
  }
  std::string rest = testing::ReadFileOr(Facts());
  facts += rest.substr(rest.find("paths:\n") + 7);
  WriteFile(t / "f.yaml", facts);
  RunResult r =
      Cwsc({"compile", "c.toml", "--facts", t / "f.yaml", "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cwsc: warning [many-mounts]: "), std::string::npos) << r.err;
}

// Item 17: a facts file from `cwsc facts --for` that lacks a path the
// compile asks about is an error, unless --unlisted-as-missing.
TEST(FactsCli, UnrecordedPathIsAnError) {
  TempDir t;
  mkdir((t / "ws").c_str(), 0755);
  WriteFile(t / "c.toml", "sandbox_read_denylist_defaults = false\n");
  RunResult f = Cwsc({"facts", "--for", "c.toml", "--cwd", t / "ws", "-o", "f.yaml"}, t.path());
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_NE(testing::ReadFileOr(t / "f.yaml").find("unlisted: error\n"), std::string::npos);
  RunResult same = Cwsc({"compile", "c.toml", "--cwd", t / "ws", "--facts", "f.yaml"}, t.path());
  EXPECT_EQ(same.exit_code, 0) << same.err;
  // `--for -` reads the config from stdin: the same facts, the same compile.
  RunResult piped = testing::Run({Bin(), "facts", "--for", "-", "--cwd", t / "ws", "-o", "p.yaml"},
                                 testing::ReadFileOr(t / "c.toml"), {}, t.path());
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  RunResult from_piped =
      Cwsc({"compile", "c.toml", "--cwd", t / "ws", "--facts", "p.yaml"}, t.path());
  EXPECT_EQ(from_piped.exit_code, 0) << from_piped.err;
  EXPECT_EQ(from_piped.out, same.out);
  WriteFile(t / "c.toml",
            "sandbox_read_denylist_defaults = false\nbwrap_ro_roots = [\"/opt/cwsc-x\"]\n");
  RunResult changed = Cwsc({"compile", "c.toml", "--cwd", t / "ws", "--facts", "f.yaml"}, t.path());
  EXPECT_EQ(changed.exit_code, 2);
  EXPECT_EQ(changed.out, "");
  EXPECT_EQ(changed.err,
            "f.yaml: error: the facts file does not record '/opt/cwsc-x', which this compile asks "
            "about: the policy changed since the facts were recorded; record them again with `cwsc "
            "facts --for CONFIG`, or pass --unlisted-as-missing to treat unrecorded paths as "
            "missing\n");
  WriteFile(t / "c.toml",
            "sandbox_read_denylist_defaults = false\n"
            "bwrap_ro_roots = [\"/opt/cwsc-x\", \"/opt/cwsc-y\", \"/opt/cwsc-z\"]\n");
  RunResult more = Cwsc({"compile", "c.toml", "--cwd", t / "ws", "--facts", "f.yaml"}, t.path());
  EXPECT_EQ(more.exit_code, 2);
  EXPECT_EQ(more.err.substr(0, more.err.find(", which")),
            "f.yaml: error: the facts file does not record '/opt/cwsc-x' (and 2 more paths)");
  WriteFile(t / "c.toml",
            "sandbox_read_denylist_defaults = false\nbwrap_ro_roots = [\"/opt/cwsc-x\"]\n");
  RunResult opt = Cwsc({"compile", "c.toml", "--cwd", t / "ws", "--facts", "f.yaml",
                        "--unlisted-as-missing", "--target", "plan"},
                       t.path());
  EXPECT_EQ(opt.exit_code, 0) << opt.err;
  EXPECT_NE(opt.out.find("\"path\": \"/opt/cwsc-x\""), std::string::npos);
}

// Item 24: a sandbox_mode that cannot widen the mode's policy is shown.
TEST(ConfigCli, WideningSandboxModeIsExplained) {
  TempDir t;
  WriteFile(t / "c.toml", "sandbox_mode = \"danger-full-access\"\n");
  RunResult e = Cwsc({"explain", "c.toml", "--facts", Facts(), "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(
      e.out.find(
          "# skipped sandbox_mode: 'danger-full-access' can only narrow the policy of "
          "the ask mode, which stays workspace-write  (config sandbox_mode at c.toml:1:16)\n"),
      std::string::npos)
      << e.out;
  WriteFile(t / "c.toml", "sandbox_mode = \"read-only\"\n");
  RunResult ro = Cwsc({"explain", "c.toml", "--facts", Facts(), "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(ro.out.find("# skipped sandbox_mode"), std::string::npos);
}

// Issue 25: keys that look like sandbox settings warn with the key to set;
// check --strict fails on them.
TEST(ConfigCli, LookAlikeKeysWarnAndFailStrictCheck) {
  TempDir t;
  WriteFile(t / "c.toml",
            "model = \"x\"\nnetwork_access = false\nsandbox_network = false\n"
            "writable_roots = [\"/srv\"]\nsandbox_deny_read = [\"~/.aws\"]\n");
  const std::string warnings =
      "c.toml:2:18: warning: unknown key 'network_access' is ignored (a Codex key); set "
      "'sandbox_network_access' instead\n"
      "c.toml:3:19: warning: unknown key 'sandbox_network' is ignored; did you mean "
      "'sandbox_network_access'?\n"
      "c.toml:4:18: warning: unknown key 'writable_roots' is ignored (a Codex key); set "
      "'sandbox_writable_roots' instead\n"
      "c.toml:5:21: warning: unknown key 'sandbox_deny_read' is ignored; did you mean "
      "'sandbox_denied_read_paths'?\n";
  RunResult c = Cwsc({"check", "c.toml", "--facts", Facts(), "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_EQ(c.err, warnings);
  EXPECT_EQ(c.out,
            "c.toml: valid config with 4 warnings; no expectations (check it against a .cwsp "
            "file's with --expect FILE.cwsp)\n");
  RunResult strict =
      Cwsc({"check", "c.toml", "--facts", Facts(), "--unlisted-as-missing", "--strict"}, t.path());
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_EQ(strict.err, warnings);
  EXPECT_EQ(strict.out,
            "c.toml: 4 warnings fail --strict; no expectations (check it against a .cwsp file's "
            "with --expect FILE.cwsp)\n");
  RunResult json =
      Cwsc({"check", "c.toml", "--facts", Facts(), "--unlisted-as-missing", "--strict", "--json"},
           t.path());
  EXPECT_EQ(json.exit_code, 1);
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["result"]["warnings"], 4);
  EXPECT_EQ(j["diagnostics"][0]["severity"], "warning");
  EXPECT_EQ(j["diagnostics"][0]["line"], 2);
  // With expectations, the summary says why check fails.
  WriteFile(t / "x.cwsp", "policy x {\n  expect read \"/etc/hostname\" allowed in ask;\n}\n");
  RunResult ex = Cwsc({"check", "c.toml", "--facts", Facts(), "--unlisted-as-missing", "--strict",
                       "--expect", "x.cwsp"},
                      t.path());
  EXPECT_EQ(ex.exit_code, 1);
  EXPECT_NE(ex.out.find("\ncheck: 1 passed, 0 failed; 4 config warnings fail --strict\n"),
            std::string::npos)
      << ex.out;
  // The same config with the keys cwsc reads passes --strict; compile warns too.
  RunResult p = Cwsc({"compile", "c.toml", "--facts", Facts(), "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(p.err, warnings + ::cwsc::testing::kArgvNote);
  WriteFile(t / "c.toml", "model = \"x\"\nsandbox_network_access = false\n");
  RunResult clean =
      Cwsc({"check", "c.toml", "--facts", Facts(), "--unlisted-as-missing", "--strict"}, t.path());
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(clean.err, "");
}

// Issue 25: a setting the plan leaves out (recorded in its `skipped`) is a
// note of compile, run and check, at the setting's line.
TEST(ConfigCli, SkippedSettingsAreNotes) {
  TempDir t;
  WriteFile(t / "c.toml",
            "sandbox_mode = \"danger-full-access\"\nbwrap_ro_roots = [\"/opt/missing-ro\"]\n");
  const std::string ask =
      "c.toml:1:16: note: skipped sandbox_mode: 'danger-full-access' can only narrow the policy "
      "of the ask mode, which stays workspace-write\n";
  const std::string ro = "c.toml:2:19: note: skipped bwrap_ro_roots /opt/missing-ro: missing\n";
  RunResult p =
      Cwsc({"compile", "c.toml", "--facts", RootsFacts(), "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.err, ask + ro + ::cwsc::testing::kArgvNote);
  RunResult pj = Cwsc(
      {"compile", "c.toml", "--facts", RootsFacts(), "--unlisted-as-missing", "--json"}, t.path());
  nlohmann::json j = nlohmann::json::parse(pj.out);
  ASSERT_EQ(j["diagnostics"].size(), 2u) << pj.out;
  EXPECT_EQ(j["diagnostics"][1],
            nlohmann::json({{"severity", "note"},
                            {"code", nullptr},
                            {"message", "skipped bwrap_ro_roots /opt/missing-ro: missing"},
                            {"file", "c.toml"},
                            {"line", 2},
                            {"col", 19}}));
  // check: every mode once, each note once.
  RunResult c =
      Cwsc({"check", "c.toml", "--facts", RootsFacts(), "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.err,
            "c.toml:1:16: note: skipped sandbox_mode: 'danger-full-access' can only narrow the "
            "policy of the plan mode, which stays read-only\n" +
                ro + ask +
                "c.toml:1:16: note: skipped sandbox_mode: 'danger-full-access' can only narrow "
                "the policy of the auto-review mode, which stays workspace-write\n");
  RunResult cj = Cwsc({"check", "c.toml", "--facts", RootsFacts(), "--unlisted-as-missing",
                       "--mode", "ask", "--json"},
                      t.path());
  j = nlohmann::json::parse(cj.out);
  ASSERT_EQ(j["diagnostics"].size(), 3u) << cj.out;
  EXPECT_EQ(j["diagnostics"][0]["message"],
            "skipped sandbox_mode: 'danger-full-access' can only narrow the policy of the ask "
            "mode, which stays workspace-write");
  EXPECT_EQ(j["diagnostics"][0]["line"], 1);
  // run (bubblewrap off, so on any host): the note before the command runs.
  WriteFile(t / "r.toml", "sandbox_mode = \"danger-full-access\"\nprefer_bwrap = false\n");
  RunResult r = Cwsc({"run", "r.toml", "--cwd", t.path(), "--", "true"}, t.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("r.toml:1:16: note: skipped sandbox_mode: 'danger-full-access' can only "
                        "narrow the policy of the ask mode, which stays workspace-write\n",
                        0),
            0u)
      << r.err;
  // An env override has no line: its origin is named.
  WriteFile(t / "e.toml", "prefer_bwrap = false\n");
  RunResult e = Cwsc({"compile", "e.toml", "--cwd", t.path()}, t.path(),
                     {"CODEWHALE_SANDBOX_MODE=danger-full-access"});
  EXPECT_NE(e.err.find("cwsc: note: skipped sandbox_mode: 'danger-full-access' can only narrow "
                       "the policy of the ask mode, which stays workspace-write (env "
                       "CODEWHALE_SANDBOX_MODE)\n"),
            std::string::npos)
      << e.err;
}

// Issue 25: check of a config.toml lists its lints, as compile warns with them.
TEST(ConfigCli, CheckOfAConfigPrintsItsLints) {
  TempDir t;
  WriteFile(t / "c.toml", "sandbox_writable_roots = [\"/srv/extra\", \"/\"]\n");
  RunResult c =
      Cwsc({"check", "c.toml", "--facts", RootsFacts(), "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out,
            "c.toml: valid config; no expectations (check it against a .cwsp file's with --expect "
            "FILE.cwsp)\n"
            "  lint nested-root at c.toml:1:27 (ask, auto-review): the writable root '/srv/extra' "
            "lies inside the writable root '/' (c.toml:1:41)\n"
            "    fix: remove the inner one\n");
  RunResult p =
      Cwsc({"compile", "c.toml", "--facts", RootsFacts(), "--unlisted-as-missing"}, t.path());
  EXPECT_NE(p.err.find("c.toml:1:27: warning [nested-root]: the writable root '/srv/extra' lies "
                       "inside the writable root '/' (c.toml:1:41)\n"),
            std::string::npos)
      << p.err;
  RunResult j = Cwsc(
      {"check", "c.toml", "--facts", RootsFacts(), "--unlisted-as-missing", "--json"}, t.path());
  nlohmann::json report = nlohmann::json::parse(j.out);
  ASSERT_EQ(report["result"]["lints"].size(), 1u) << j.out;
  EXPECT_EQ(report["result"]["lints"][0]["code"], "nested-root");
  EXPECT_EQ(report["result"]["lints"][0]["modes"], nlohmann::json({"ask", "auto-review"}));
  // --mode narrows the modes compiled.
  RunResult plan =
      Cwsc({"check", "c.toml", "--facts", RootsFacts(), "--unlisted-as-missing", "--mode", "plan"},
           t.path());
  EXPECT_EQ(plan.out.find("lint"), std::string::npos) << plan.out;
}

// A configured writable root that does not exist is left out with a note
// naming it (issue 25), at its entry; a root that exists gets none.
TEST(ConfigCli, MissingWritableRootGetsANote) {
  TempDir t;
  WriteFile(t / "c.toml", "sandbox_writable_roots = [\"/srv/not-there\"]\n");
  RunResult c = Cwsc({"compile", "c.toml", "--facts", Facts(), "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.err,
            "c.toml:1:27: note: the writable root '/srv/not-there' does not exist, so the "
            "sandbox leaves it out; create it, or remove the entry\n" +
                std::string(::cwsc::testing::kArgvNote));
  // On the live host too.
  const std::string missing = t / "not-there";
  WriteFile(t / "c.toml", "sandbox_writable_roots = [\"" + missing + "\"]\n");
  RunResult live = Cwsc({"compile", "c.toml", "--mode", "ask", "--cwd", t.path()}, t.path());
  EXPECT_EQ(live.exit_code, 0) << live.err;
  EXPECT_NE(live.err.find("c.toml:1:27: note: the writable root '" + missing +
                          "' does not exist, so the sandbox leaves it out; create it, or remove "
                          "the entry\n"),
            std::string::npos)
      << live.err;
  mkdir(missing.c_str(), 0755);
  RunResult made = Cwsc({"compile", "c.toml", "--mode", "ask", "--cwd", t.path()}, t.path());
  EXPECT_EQ(made.err.find("does not exist"), std::string::npos) << made.err;
}

// Item 10: an empty denied path is skipped, with a note (docs/behavior.md B-52).
TEST(ConfigCli, EmptyDeniedPathIsSkipped) {
  TempDir t;
  WriteFile(t / "c.toml", "sandbox_denied_read_paths = [\"\", \"/srv/secret\"]\n");
  RunResult c =
      Cwsc({"compile", "c.toml", "--facts", Facts(), "--unlisted-as-missing", "--target", "plan"},
           t.path());
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_EQ(c.err, "c.toml:1:30: note: ignoring an empty entry of 'sandbox_denied_read_paths'\n");
  EXPECT_NE(c.out.find("\"path\": \"/srv/secret\""), std::string::npos);
  WriteFile(t / "c.toml", "bwrap_ro_roots = [\"\"]\n");
  RunResult ro = Cwsc({"check", "c.toml"}, t.path());
  EXPECT_EQ(ro.exit_code, 2);
}

}  // namespace
}  // namespace cwsc

namespace cwsc {
namespace {

std::string Git(const std::vector<std::string>& args, const std::string& cwd) {
  std::vector<std::string> argv = {"git",         "-c", "user.email=t@t",         "-c",
                                   "user.name=t", "-c", "init.defaultBranch=main"};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = testing::Run(argv, "", {}, cwd);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// Item 19: in plan mode a worktree under /tmp keeps its git metadata
// visible (read-only) over the private /tmp, so `git status` works.
TEST(RunCli, PlanModeWorktreeUnderTmpCanRunGitStatus) {
  TempDir t("/tmp");
  std::string main = t / "main", wt = t / "feature";
  mkdir(main.c_str(), 0755);
  Git({"init", "-q"}, main);
  WriteFile(main + "/a.txt", "a\n");
  Git({"add", "a.txt"}, main);
  Git({"commit", "-q", "-m", "x"}, main);
  Git({"worktree", "add", "-q", wt}, main);
  WriteFile(t / "c.toml", "");
  RunResult r = Cwsc({"run", t / "c.toml", "--mode", "plan", "--cwd", wt, "--", "git", "status",
                      "--short", "--branch"},
                     t.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "## feature\n");
  RunResult w = Cwsc({"run", t / "c.toml", "--mode", "plan", "--cwd", wt, "--", "sh", "-c",
                      "echo x > " + main + "/.git/hooks/evil"},
                     t.path());
  EXPECT_NE(w.exit_code, 0);
  EXPECT_FALSE(testing::Exists(main + "/.git/hooks/evil"));
}

}  // namespace
}  // namespace cwsc
