// `cwsc check` evaluates expectations against the emitted artifacts
// (docs/verification.md): exact text of the report (golden) and of every
// error, and a semantic check that replays each JSON verdict through the
// interpreters independently of the command.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "backends/bwrap_flags.h"
#include "backends/verify/bwrap_interp.h"
#include "backends/verify/sbpl_eval.h"
#include "compiler/driver/lints.h"
#include "compiler/driver/live_probe.h"
#include "compiler/facts/host_facts.h"
#include "nlohmann/json.hpp"
#include "tests/cli/argv_note.h"
#include "tests/runtime/proc_helpers.h"
#include "tests/testing/golden.h"

namespace cwsc {
namespace {

using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

std::string Bin() { return std::getenv("CWSC_BIN") ? std::getenv("CWSC_BIN") : "cwsc"; }
std::string Src() { return testing::SourceRoot(); }

RunResult Cwsc(std::vector<std::string> args, const std::string& cwd = Src()) {
  args.insert(args.begin(), Bin());
  return testing::Run(args, "", {}, cwd);
}

// Golden checks `actual` against tests/golden/check/NAME (tests/testing/golden.h).
void Golden(const std::string& name, const std::string& actual) {
  testing::CheckGolden(Src() + "/tests/golden/check/" + name, actual);
}

const char kLinuxWs[] = "examples/facts/linux-workspace.yaml";
const char kMacWs[] = "examples/facts/macos-workspace.yaml";

TEST(Check, WorkspaceReportGoldenLinux) {
  RunResult r = Cwsc({"check", "examples/workspace.cwsp", "--facts", kLinuxWs});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // The settings the plans leave out (the plan's `skipped`), once each.
  EXPECT_EQ(r.err,
            "examples/workspace.cwsp:8:13: note: skipped bwrap_ro_roots /opt/toolchains: missing\n"
            "examples/workspace.cwsp:5:3: note: skipped sandbox_mode: 'workspace-write' can only "
            "narrow the policy of the plan mode, which stays read-only\n");
  Golden("workspace_linux.txt", r.out);
}

// The JSON report: a golden (its verdicts are replayed in JsonVerdictsAgreeWithTheInterpreters).
TEST(Check, WorkspaceJsonGolden) {
  RunResult r =
      Cwsc({"check", "examples/workspace.cwsp", "--facts", kMacWs, "--mode", "ask", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["cwsc"]["version"], 1);
  EXPECT_EQ(report["cwsc"]["command"], "check");
  nlohmann::json j = report["result"];
  EXPECT_EQ(j["passed"], 4);
  // The release is not part of the golden (tests/cli/json_report_test.cc does the same).
  std::string text = r.out;
  std::string version =
      std::string("\"tool_version\": \"") +
      (std::getenv("CWSC_PROJECT_VERSION") ? std::getenv("CWSC_PROJECT_VERSION") : "") + "\"";
  ASSERT_NE(text.find(version), std::string::npos) << text;
  text.replace(text.find(version), version.size(), "\"tool_version\": \"@VERSION@\"");
  Golden("workspace_macos_ask.json", text);
}

TEST(Check, WorkspaceReportGoldenSeatbelt) {
  RunResult r = Cwsc({"check", "examples/workspace.cwsp", "--facts", kMacWs, "--mode", "ask",
                      "--target", "seatbelt"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Golden("workspace_macos_ask.txt", r.out);
}

TEST(Check, FailingExampleExitsOneWithItsReport) {
  RunResult r = Cwsc({"check", "examples/failing.cwsp", "--facts", kLinuxWs, "--mode", "ask",
                      "--unlisted-as-missing"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  Golden("failing_linux_ask.txt", r.out);
  // Semantic: exactly the unprotected hook fails; the absent notes are a pass.
  EXPECT_NE(r.out.find("    FAIL  ask, bwrap: /home/dev/proj/.git/hooks/pre-commit: allowed "
                       "(writable), expected denied\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    pass  ask, bwrap: /home/dev/.config/private-notes/todo.txt: denied "
                       "(absent)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("check: 2 passed, 1 failed\n"), std::string::npos) << r.out;
  // macOS fails on the same hook; its profile denies the notes whether or not they exist.
  RunResult mac = Cwsc({"check", "examples/failing.cwsp", "--facts", kMacWs, "--mode", "ask",
                        "--unlisted-as-missing"});
  EXPECT_EQ(mac.exit_code, 1) << mac.out << mac.err;
  EXPECT_NE(mac.out.find("    FAIL  ask, seatbelt: /Users/dev/proj/.git/hooks/pre-commit: allowed "
                         "(file-write-data), expected denied\n"),
            std::string::npos)
      << mac.out;
  EXPECT_NE(mac.out.find("check: 2 passed, 1 failed\n"), std::string::npos) << mac.out;
}

TEST(Check, EveryExamplePassesWithItsFacts) {
  const std::pair<const char*, const char*> cases[] = {
      {"examples/workspace.cwsp", "linux-workspace"},
      {"examples/workspace.cwsp", "macos-workspace"},
      {"examples/readonly.cwsp", "linux-readonly"},
      {"examples/readonly.cwsp", "macos-readonly"},
      {"examples/locked-down.cwsp", "linux-locked-down"},
      {"examples/locked-down.cwsp", "macos-locked-down"},
      {"examples/team.cwsp", "linux-team"},
      {"examples/team.cwsp", "macos-workspace"},
      {"examples/build-farm.cwsp", "macos-build-farm"},
  };
  for (const auto& [file, facts] : cases) {
    RunResult r = Cwsc({"check", file, "--facts", std::string("examples/facts/") + facts + ".yaml",
                        "--unlisted-as-missing"});
    EXPECT_EQ(r.exit_code, 0) << file << " " << facts << "\n" << r.out << r.err;
    EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
  }
}

// A verdict that contradicts the expectation fails, for bwrap and Seatbelt.
TEST(Check, FalseExpectationFailsOnBothTargets) {
  TempDir t;
  WriteFile(t / "p.cwsp",
            "policy p {\n  mode workspace-write;\n"
            "  expect write \"$WORKSPACE/x\" denied in ask;\n"
            "  expect read \"~/.ssh/id_rsa\" allowed in ask;\n"
            "  expect network denied in ask;\n}\n");
  for (const char* facts : {kLinuxWs, kMacWs}) {
    RunResult r =
        Cwsc({"check", "p.cwsp", "--facts", Src() + "/" + facts, "--unlisted-as-missing", "--json"},
             t.path());
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out)["result"];
    EXPECT_EQ(j["failed"], 3);
    EXPECT_EQ(j["passed"], 0);
    for (const auto& res : j["results"]) EXPECT_EQ(res["result"], "fail") << res.dump();
  }
}

TEST(Check, ExactFailureLines) {
  TempDir t;
  WriteFile(
      t / "p.cwsp",
      "policy p {\n  mode workspace-write;\n  expect write \"/etc/hosts\" allowed in ask;\n}\n");
  RunResult r = Cwsc(
      {"check", "p.cwsp", "--facts", Src() + "/" + kLinuxWs, "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "policy p (p.cwsp:1:8): 1 expectation\n"
            "  expect write \"/etc/hosts\" allowed in ask  (p.cwsp:3:3)\n"
            "    FAIL  ask, bwrap: /etc/hosts: denied (read-only), expected allowed\n"
            "          by layer 0, argv 8: --ro-bind / /\n"
            "          from default bwrap base view\n"
            "  lint git-writable at mode workspace of permission mode ask (ask): the writable root "
            "'/home/dev/proj' holds a writable '.git': a hook or config written there runs outside "
            "the sandbox at the next git command\n"
            "    fix: add `protect \".git\";` (TOML: list .git in the protected names)\n"
            "check: 0 passed, 1 failed\n");
}

// Modes: --mode restricts; an expectation's `in` list restricts.
TEST(Check, ModesSelectWhatIsEvaluated) {
  RunResult r =
      Cwsc({"check", "examples/workspace.cwsp", "--facts", kLinuxWs, "--mode", "plan", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out)["result"];
  for (const auto& res : j["results"]) EXPECT_EQ(res["mode"], "plan");
  // workspace.cwsp: 5 expectations, one of them `in ask, auto-review, full-access`.
  EXPECT_EQ(j["results"].size(), 4u);
}

// The semantic check: every JSON verdict agrees with the interpreter run here
// on the artifact `cwsc compile` prints.
TEST(Check, JsonVerdictsAgreeWithTheInterpreters) {
  for (const char* mode : {"plan", "ask"}) {
    RunResult r =
        Cwsc({"check", "examples/workspace.cwsp", "--facts", kLinuxWs, "--mode", mode, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    RunResult argv = Cwsc({"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--mode",
                           mode, "--format", "json"});
    ASSERT_EQ(argv.exit_code, 0) << argv.err;
    auto view = backends::InterpretBwrapArgv(
        nlohmann::json::parse(argv.out).get<std::vector<std::string>>());
    ASSERT_TRUE(view.ok());
    nlohmann::json j = nlohmann::json::parse(r.out)["result"];
    ASSERT_TRUE(j.is_object()) << r.out;
    ASSERT_GT(j["results"].size(), 0u);
    for (const auto& res : j["results"]) {
      std::string kind = res["expectation"]["kind"];
      bool allowed;
      if (kind == "network") {
        allowed = !view->network_isolated;
      } else {
        backends::Access a = view->Find(res["path"]).access;
        allowed = kind == "write"
                      ? a == backends::Access::kWritable
                      : a == backends::Access::kReadOnly || a == backends::Access::kWritable;
      }
      EXPECT_EQ(res["actual"], allowed ? "allowed" : "denied") << res.dump();
      EXPECT_EQ(res["result"], (res["expectation"]["expected"] == res["actual"]) ? "pass" : "fail");
    }
  }
  RunResult r =
      Cwsc({"check", "examples/workspace.cwsp", "--facts", kMacWs, "--mode", "ask", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult argv = Cwsc({"compile", "examples/workspace.cwsp", "--facts", kMacWs, "--mode", "ask",
                         "--format", "json"});
  ASSERT_EQ(argv.exit_code, 0) << argv.err;
  auto call = backends::ParseSandboxExecArgv(
      nlohmann::json::parse(argv.out).get<std::vector<std::string>>());
  ASSERT_TRUE(call.ok());
  auto profile = backends::SbplProfile::Parse(call->profile, call->params);
  ASSERT_TRUE(profile.ok());
  nlohmann::json mac = nlohmann::json::parse(r.out)["result"];
  ASSERT_TRUE(mac.is_object()) << r.out;
  ASSERT_GT(mac["results"].size(), 0u);
  for (const auto& res : mac["results"]) {
    std::string kind = res["expectation"]["kind"], path = res["path"];
    bool allowed = kind == "read"    ? profile->CanRead(path)
                   : kind == "write" ? profile->CanWrite(path)
                   : kind == "network"
                       ? profile->CanConnect(backends::SbplNet::kIPv4, "192.0.2.1", 443)
                       : profile->CanRead(path);
    EXPECT_EQ(res["actual"], allowed ? "allowed" : "denied") << res.dump();
    EXPECT_EQ(res["target"], "seatbelt");
  }
}

// A Codewhale config.toml takes its expectations from --expect FILE.cwsp.
TEST(Check, TomlWithExpectFile) {
  TempDir t;
  WriteFile(t / "e.cwsp",
            "# expectations only: the policy's settings are not read\n"
            "policy expectations {\n"
            "  expect write \"$WORKSPACE/src/a.c\" allowed in ask;\n"
            "  expect read \"~/.ssh/id_rsa\" denied;\n}\n");
  RunResult r = Cwsc({"check", Src() + "/examples/workspace.toml", "--expect", "e.cwsp", "--facts",
                      Src() + "/" + kLinuxWs, "--unlisted-as-missing", "--mode", "ask"},
                     t.path());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("config (" + Src() + "/examples/workspace.toml): 2 expectations\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("check: 2 passed, 0 failed\n"), std::string::npos) << r.out;
}

TEST(Check, ExecExpectations) {
  TempDir t;
  WriteFile(t / "p.cwsp",
            "policy p {\n  mode workspace-write;\n"
            "  expect exec \"/usr/bin/make\" allowed;\n"
            "  expect exec \"~/.ssh/evil\" denied;\n}\n");
  RunResult r = Cwsc({"check", "p.cwsp", "--facts", Src() + "/" + kLinuxWs, "--mode", "ask",
                      "--unlisted-as-missing"},
                     t.path());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("    pass  ask, bwrap: /home/dev/.ssh/evil: denied (hidden)\n"
                       "          by layer 21, argv "),
            std::string::npos)
      << r.out;
}

// Bad input: exit 2 with an exact message.
TEST(Check, ErrorMessages) {
  TempDir t;
  WriteFile(t / "p.cwsp", "policy p {\n  expect read \"/x\" allowed in ask, sometimes;\n}\n");
  RunResult r = Cwsc({"check", "p.cwsp"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "p.cwsp:2:36: error: unknown permission mode 'sometimes'; expected plan, ask, "
            "auto-review or full-access\n"
            "    expect read \"/x\" allowed in ask, sometimes;\n"
            "                                     ^\n");
  WriteFile(t / "d.cwsp", "policy p {\n  expect network denied in plan, plan;\n}\n");
  r = Cwsc({"check", "d.cwsp"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "d.cwsp:2:34: error: permission mode 'plan' is named twice");
  WriteFile(t / "ok.cwsp", "policy p {\n  expect network denied;\n}\n");
  r = Cwsc({"check", "ok.cwsp", "--mode", "never"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "cwsc: error: unknown permission mode 'never': expected plan, ask, auto-review or "
            "full-access (aliases: suggest, auto, bypass, yolo)");
  r = Cwsc({"check", "ok.cwsp", "--target", "opensandbox"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "cwsc: error: unknown --target 'opensandbox' for check (bwrap or seatbelt)");
  r = Cwsc({"check", "ok.cwsp", "--target", "seatbelt", "--mode", "ask", "--facts",
            Src() + "/" + kLinuxWs, "--unlisted-as-missing"},
           t.path());
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err,
            "cwsc: error: --target seatbelt: mode ask compiles to a linux-bwrap plan, which emits "
            "no such artifact\n");
  r = Cwsc({"check", "ok.cwsp", "--expect", "e.toml"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "e.toml: error: --expect reads a .cwsp file (policies with expect lines)\n");
  WriteFile(t / "none.cwsp", "policy p {\n  mode read-only;\n}\n");
  r = Cwsc({"check", "ok.cwsp", "--expect", "none.cwsp"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "none.cwsp: error: --expect: the file has no expectations\n");
  r = Cwsc({"check", "ok.cwsp", "--expect", "missing.cwsp"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "missing.cwsp: error: cannot read the file\n");
  r = Cwsc({"check", "ok.cwsp", "--mode"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cwsc: error: option '--mode' needs a value\nTry 'cwsc check --help'.\n");
}

}  // namespace
}  // namespace cwsc

namespace cwsc {
namespace {

TEST(Why, BwrapChainFromTheTopWithOrigins) {
  RunResult r = Cwsc(
      {"why", "$WORKSPACE/.codewhale/config.toml", "examples/workspace.cwsp", "--facts", kLinuxWs});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "/home/dev/proj/.codewhale/config.toml (mode ask, bwrap): read allowed, write denied\n"
            "  decided by:\n"
            "    layer 7, argv 26: --ro-bind /home/dev/proj/.codewhale /home/dev/proj/.codewhale  "
            "(read-only)\n"
            "      from default protected name .codewhale\n"
            "  overrides:\n"
            "    layer 4, argv 17: --bind /home/dev/proj /home/dev/proj  (writable)\n"
            "      from mode workspace of permission mode ask\n"
            "    layer 0, argv 8: --ro-bind / /  (read-only)\n"
            "      from default bwrap base view\n");
  // Semantic: the deciding layer is the interpreter's answer for the path.
  RunResult argv =
      Cwsc({"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--format", "json"});
  auto view =
      backends::InterpretBwrapArgv(nlohmann::json::parse(argv.out).get<std::vector<std::string>>());
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->Find("/home/dev/proj/.codewhale/config.toml").layer, 7);
}

TEST(Why, SeatbeltRuleAndParamsAndSkippedNotes) {
  RunResult r =
      Cwsc({"why", "~/.ssh/id_rsa", "examples/workspace.cwsp", "--facts", kMacWs, "--read"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "/Users/dev/.ssh/id_rsa (mode ask, seatbelt): read denied\n"
            "  read: file-read-data decided by profile line 101: (deny file-read* (subpath (param "
            "\"DENY_READ_11\")))\n"
            "    from default built-in deny list: ~/.ssh\n"
            "    param DENY_READ_11=/Users/dev/.ssh (default built-in deny list: ~/.ssh)\n");
  RunResult s = Cwsc({"why", "/srv/artifacts/x", "examples/team.cwsp", "--policy", "ci", "--facts",
                      kLinuxWs, "--write"});
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.out,
            "/srv/artifacts/x (mode ask, bwrap): write denied\n"
            "  decided by:\n"
            "    layer 0, argv 8: --ro-bind / /  (read-only)\n"
            "      from default bwrap base view\n"
            "  note: the plan skipped writable root /srv/artifacts: missing (config writable at "
            "examples/team.cwsp:23:12)\n");
}

// A read the Landlock ruleset refuses names the deny rule behind it (the
// grant of the nearest ancestor's entries leaves the path out), and only
// the skipped listings that concern the path are noted: a file deeper down
// is reached through a grant of its own (docs/runtime.md).
TEST(Why, LandlockNamesTheDenyRuleBehindARefusedRead) {
  TempDir t;
  WriteFile(t / "c.toml",
            "sandbox_linux_backend = \"landlock\"\n"
            "sandbox_denied_read_paths = [\"~/.config/private-notes\"]\n");
  const std::string facts = Src() + "/tests/golden/landlock/facts.yaml";
  const std::string rule =
      "allow execute|read_file|read_dir beneath every entry of /home/dev/.config except "
      "BraveSoftware, chromium, doctl, fly, gcloud, gh, glab-cli, google-chrome, private-notes";
  RunResult r = Cwsc({"why", "~/.config/private-notes/todo.txt", "c.toml", "--facts", facts,
                      "--unlisted-as-missing", "--read"},
                     t.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "/home/dev/.config/private-notes/todo.txt (mode ask, landlock): read denied\n"
            "  read: leaves out /home/dev/.config/private-notes (deny read "
            "~/.config/private-notes) decided by ruleset line 16: " +
                rule +
                "\n"
                "    from config sandbox_denied_read_paths at c.toml:2:30\n");
  RunResult ok = Cwsc({"why", "~/.config/git/config", "c.toml", "--facts", facts,
                       "--unlisted-as-missing", "--read"},
                      t.path());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out,
            "/home/dev/.config/git/config (mode ask, landlock): read allowed\n"
            "  read:  decided by ruleset line 16: " +
                rule + "\n    from default landlock read view\n");
  // Listing ~/.config itself is what its skipped entry is about.
  RunResult dir =
      Cwsc({"why", "~/.config", "c.toml", "--facts", facts, "--unlisted-as-missing", "--read"},
           t.path());
  EXPECT_EQ(dir.exit_code, 0) << dir.err;
  EXPECT_NE(dir.out.find("  note: the plan skipped directory listing /home/dev/.config: "
                         "listing /home/dev/.config is refused"),
            std::string::npos)
      << dir.out;
}

TEST(Why, Errors) {
  RunResult r = Cwsc({"why", "rel", "examples/workspace.cwsp", "--facts", kLinuxWs});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "cwsc: error: PATH 'rel': path 'rel' is relative; use an absolute path, ~ or a "
            "variable\n");
  r = Cwsc({"why", "$NOPE/x", "examples/workspace.cwsp", "--facts", kLinuxWs});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "cwsc: error: PATH '$NOPE/x': unknown variable '$NOPE' (known: $HOME, $WORKSPACE, "
            "$CWD, $TMPDIR)\n");
  r = Cwsc({"why"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cwsc: error: missing PATH\nTry 'cwsc why --help'.\n");
}

}  // namespace
}  // namespace cwsc

namespace cwsc {
namespace {

// A workspace and a home with the files the examples name, owned by `uid`.
struct LiveFixture {
  explicit LiveFixture(uid_t uid, gid_t gid) : base("/var/tmp") {
    chmod(base.path().c_str(), 0755);
    home = base / "home";
    ws = base / "ws";
    for (const std::string& d :
         {home, home + "/.ssh", ws, ws + "/src", ws + "/.git", ws + "/.codewhale"}) {
      mkdir(d.c_str(), 0755);
    }
    WriteFile(home + "/.ssh/id_ed25519", "KEY\n");
    WriteFile(ws + "/src/main.c", "int main;\n");
    WriteFile(ws + "/.git/config", "[core]\n");
    WriteFile(ws + "/.codewhale/config.toml", "# project\n");
    for (const auto& e : std::filesystem::recursive_directory_iterator(base.path())) {
      lchown(e.path().c_str(), uid, gid);
    }
    lchown(base.path().c_str(), uid, gid);
  }
  TempDir base;
  std::string home, ws;
};

// Every example that runs under bubblewrap here: the kernel agrees with each
// static verdict. `prefix` starts cwsc as another user (empty: as is).
void ExpectLiveAgreement(const LiveFixture& f, const std::vector<std::string>& prefix) {
  for (const char* example : {"workspace", "locked-down", "readonly"}) {
    std::vector<std::string> argv = prefix;
    argv.insert(argv.end(),
                {"/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=" + f.home, Bin(), "check",
                 Src() + "/examples/" + example + ".cwsp", "--live", "--cwd", f.ws});
    RunResult r = testing::Run(argv, "", {}, f.ws);
    EXPECT_EQ(r.exit_code, 0) << example << "\n" << r.out << r.err;
    EXPECT_EQ(r.out.find("disagree"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("did not run"), std::string::npos) << r.out;
    size_t agrees = 0;
    for (size_t at = 0; (at = r.out.find(", agrees (", at)) != std::string::npos; ++at) ++agrees;
    EXPECT_GE(agrees, 8u) << example << "\n" << r.out;
  }
  // The other examples expect paths this host may lack (/srv/artifacts, a CI
  // secret), so their static verdicts may fail here; live never disagrees.
  for (const char* example : {"team", "build-farm", "failing", "remote"}) {
    std::vector<std::string> argv = prefix;
    argv.insert(argv.end(),
                {"/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=" + f.home, Bin(), "check",
                 Src() + "/examples/" + example + ".cwsp", "--live", "--cwd", f.ws});
    RunResult r = testing::Run(argv, "", {}, f.ws);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << example << "\n" << r.out << r.err;
    EXPECT_EQ(r.out.find("disagree"), std::string::npos) << example << "\n" << r.out;
    EXPECT_EQ(r.out.find("did not run"), std::string::npos) << example << "\n" << r.out;
    EXPECT_NE(r.out.find("\ncheck: "), std::string::npos) << example << "\n" << r.out;
  }
}

TEST(LiveCheck, AgreesWithTheStaticVerdictsAsRoot) {
  if (geteuid() != 0 || access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "needs root and bwrap";
  LiveFixture f(0, 0);
  ExpectLiveAgreement(f, {});
}

TEST(LiveCheck, AgreesWithTheStaticVerdictsAsAnotherUser) {
  passwd* pw = getpwnam("cwsc-escape");
  if (geteuid() != 0 || pw == nullptr || access("/usr/bin/bwrap", X_OK) != 0) {
    GTEST_SKIP() << "needs root, bwrap and the user cwsc-escape (created by escape_test)";
  }
  LiveFixture f(pw->pw_uid, pw->pw_gid);
  ExpectLiveAgreement(f, {"/usr/bin/setpriv", "--reuid", std::to_string(pw->pw_uid), "--regid",
                          std::to_string(pw->pw_gid), "--clear-groups", "--"});
}

// The probes read what the kernel does: the same write is allowed without a
// sandbox and refused under a read-only one, and a file created in a private
// tmpfs does not count as a write.
TEST(LiveCheck, ProbesSeeTheKernelsAnswer) {
  if (geteuid() != 0 || access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "needs root and bwrap";
  TempDir t("/var/tmp");
  WriteFile(t / "f", "x\n");
  std::vector<std::string> bare = {"/usr/bin/env"};
  std::vector<std::string> ro = {"/usr/bin/bwrap", "--unshare-all", "--ro-bind", "/", "/",
                                 "--dev",          "/dev",          "--"};
  std::vector<std::string> priv = {"/usr/bin/bwrap", "--unshare-all", "--ro-bind", "/", "/",
                                   "--tmpfs",        t.path(),        "--"};
  EXPECT_TRUE(driver::LiveProbe(bare, backends::AccessKind::kWrite, t / "f").allowed);
  EXPECT_TRUE(driver::LiveProbe(bare, backends::AccessKind::kWrite, t / "new").allowed);
  EXPECT_FALSE(testing::Exists(t / "new"));  // the probe removes what it created
  driver::LiveResult w = driver::LiveProbe(ro, backends::AccessKind::kWrite, t / "f");
  EXPECT_TRUE(w.probed);
  EXPECT_FALSE(w.allowed);
  driver::LiveResult p = driver::LiveProbe(priv, backends::AccessKind::kWrite, t / "new");
  EXPECT_TRUE(p.probed) << p.why;
  EXPECT_FALSE(p.allowed) << p.why;
  EXPECT_FALSE(driver::LiveProbe(priv, backends::AccessKind::kRead, t / "f").allowed);
  EXPECT_TRUE(driver::LiveProbe(ro, backends::AccessKind::kRead, t / "f").allowed);
  EXPECT_FALSE(driver::LiveProbe(ro, backends::AccessKind::kNetwork, "").allowed);
  EXPECT_TRUE(driver::LiveProbe(bare, backends::AccessKind::kNetwork, "").allowed);
  driver::LiveResult missing = driver::LiveProbe(ro, backends::AccessKind::kRead, t / "none");
  EXPECT_FALSE(missing.probed);
  EXPECT_EQ(missing.why, "not probed: not a regular file on this host");
  // A sandbox that refuses to start says why, and the report carries it.
  std::vector<std::string> refusing = {
      "/bin/sh", "-c", "echo 'cwsc: refused: a reason' >&2; echo more >&2; exit 125", "sh"};
  driver::LiveResult refused = driver::LiveProbe(refusing, backends::AccessKind::kRead, t / "f");
  EXPECT_FALSE(refused.probed);
  EXPECT_EQ(refused.why, "the probe did not run (cwsc run exit 125: cwsc: refused: a reason)");
  refused = driver::LiveProbe(refusing, backends::AccessKind::kWrite, t / "new");
  EXPECT_EQ(refused.why, "the probe did not run (cwsc run exit 125: cwsc: refused: a reason)");
}

}  // namespace
}  // namespace cwsc

namespace cwsc {
namespace {

std::string Example(const std::string& name) {
  return testing::ReadFileOr(Src() + "/examples/" + name);
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

TEST(Diff, SpellingAndOrderGiveNothing) {
  TempDir t;
  std::string a = Example("locked-down.cwsp");
  WriteFile(t / "a.cwsp", a);
  // Same meaning: statements reordered, comments and spacing changed.
  std::string b = Replace(a, "  mode workspace-write;\n", "");
  b = Replace(b, "{\n", "{\n  # respelled\n  mode    workspace-write ;\n");
  WriteFile(t / "b.cwsp", b);
  WriteFile(t / "a.toml", Example("locked-down.toml"));
  for (const char* other : {"b.cwsp", "a.toml"}) {
    RunResult r =
        Cwsc({"diff", "a.cwsp", other, "--facts", Src() + "/examples/facts/linux-locked-down.yaml",
              "--exit-code", "--unlisted-as-missing"},
             t.path());
    EXPECT_EQ(r.exit_code, 0) << other << r.err;
    EXPECT_EQ(r.out, "no access changes\n") << other;
  }
}

// `-` reads one side from stdin (a policy, TOML unless --input dsl), as
// compile does; both sides cannot be stdin.
TEST(Diff, OneSideFromStdin) {
  const std::string facts = Src() + "/examples/facts/linux-workspace.yaml";
  RunResult files = Cwsc({"diff", "examples/readonly.toml", "examples/workspace.toml", "--facts",
                          facts, "--unlisted-as-missing"});
  ASSERT_EQ(files.exit_code, 0) << files.err;
  ASSERT_NE(files.out, "no access changes\n");
  RunResult piped = testing::Run(
      {Bin(), "diff", "-", "examples/workspace.toml", "--facts", facts, "--unlisted-as-missing"},
      testing::ReadFileOr(Src() + "/examples/readonly.toml"), {}, Src());
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, files.out);
  RunResult both = Cwsc({"diff", "-", "-"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err,
            "cwsc: error: only one of A and B can be - (stdin is read once)\n"
            "Try 'cwsc diff --help'.\n");
}

TEST(Diff, WideningIsReportedFirstAndFailsWithExitCode) {
  TempDir t;
  std::string a = Example("workspace.cwsp");
  WriteFile(t / "a.cwsp", a);
  WriteFile(t / "w.cwsp",
            Replace(a, "  read_only \"/opt/toolchains\";\n",
                    "  read_only \"/opt/toolchains\";\n  writable \"$HOME/.cargo\";\n"));
  std::string facts = Src() + "/" + kLinuxWs;
  RunResult r =
      Cwsc({"diff", "a.cwsp", "w.cwsp", "--facts", facts, "--exit-code", "--unlisted-as-missing"},
           t.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(
      r.out,
      "widened (B allows what A did not):\n"
      "  write /home/dev/.cargo: denied -> allowed (read-only -> writable)\n"
      "    B: layer 4, argv 17: --bind /home/dev/.cargo /home/dev/.cargo; from config writable "
      "at w.cwsp:9:12\n"
      "    A: layer 0, argv 8: --ro-bind / /; from default bwrap base view\n"
      "narrowed (B denies what A allowed):\n"
      "  read /home/dev/.cargo/.codewhale: allowed -> denied (read-only -> private)\n"
      "    B: layer 8, argv 29: --tmpfs /home/dev/.cargo/.codewhale; from default protected "
      "name .codewhale\n"
      "    A: layer 0, argv 8: --ro-bind / /; from default bwrap base view\n"
      "  read /home/dev/.cargo/.deepseek: allowed -> denied (read-only -> private)\n"
      "    B: layer 10, argv 33: --tmpfs /home/dev/.cargo/.deepseek; from default protected "
      "name .deepseek\n"
      "    A: layer 0, argv 8: --ro-bind / /; from default bwrap base view\n"
      "diff: 1 widened, 2 narrowed\n");
  // Reversed, the widening is a narrowing (and the placeholders' reads widen);
  // without --exit-code a diff is a report: exit 0.
  RunResult back =
      Cwsc({"diff", "w.cwsp", "a.cwsp", "--facts", facts, "--unlisted-as-missing"}, t.path());
  EXPECT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(
      back.out.rfind("widened (B allows what A did not):\n  read /home/dev/.cargo/.codewhale", 0),
      0u)
      << back.out;
  EXPECT_NE(
      back.out.find("narrowed (B denies what A allowed):\n  write /home/dev/.cargo: allowed -> "
                    "denied"),
      std::string::npos)
      << back.out;
}

TEST(Diff, PlansAndNetworkAndKind) {
  TempDir t;
  std::string facts = Src() + "/" + kLinuxWs;
  RunResult pa = Cwsc({"compile", "examples/readonly.cwsp", "--facts", facts, "--target", "plan",
                       "--unlisted-as-missing"});
  RunResult pb = Cwsc({"compile", "examples/workspace.cwsp", "--facts", facts, "--target", "plan",
                       "--unlisted-as-missing"});
  ASSERT_EQ(pa.exit_code, 0) << pa.err;
  WriteFile(t / "a.json", pa.out);
  WriteFile(t / "b.json", pb.out);
  RunResult r = Cwsc({"diff", "a.json", "b.json", "--exit-code"}, t.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("  network: denied -> allowed (network isolated -> network shared)\n"
                       "    B: argv 2: --share-net; from default workspace-write policy from the "
                       "mode has network\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  write /home/dev/proj: denied -> allowed"), std::string::npos) << r.out;
  RunResult same = Cwsc({"diff", "a.json", "a.json", "--exit-code"}, t.path());
  EXPECT_EQ(same.out, "no access changes\n");
  // build-farm turns bubblewrap off on Linux: every mask is gone, the kind changes.
  RunResult none = Cwsc({"diff", "examples/workspace.cwsp", "examples/build-farm.cwsp", "--facts",
                         facts, "--unlisted-as-missing"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("other changes:\n  plan kind: linux-bwrap -> none\n"), std::string::npos)
      << none.out;
  EXPECT_NE(none.out.find("  read /etc/shadow: denied -> allowed (hidden -> unsandboxed)\n"),
            std::string::npos)
      << none.out;
}

TEST(Diff, Errors) {
  RunResult r = Cwsc({"diff", "examples/workspace.cwsp"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "cwsc: error: diff compares two files (A and B), got 1\nTry 'cwsc diff --help'.\n");
  TempDir t;
  WriteFile(t / "bad.json", "{\"schema_version\": 1,");
  r = Cwsc({"diff", "bad.json", "bad.json"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("bad.json:", 0), 0u) << r.err;
  r = Cwsc({"diff", "missing.json", "bad.json"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "missing.json: error: cannot read the file\n");
}

}  // namespace
}  // namespace cwsc

namespace cwsc {
namespace {

const std::vector<std::string> kHandArgv = {"audit",
                                            "--why",
                                            "/home/me/.ssh/id_rsa",
                                            "--",
                                            "bwrap",
                                            "--ro-bind",
                                            "/",
                                            "/",
                                            "--dev",
                                            "/dev",
                                            "--bind",
                                            "/home/me/proj",
                                            "/home/me/proj",
                                            "--tmpfs",
                                            "/home/me/.ssh",
                                            "--ro-bind",
                                            "/dev/null",
                                            "/etc/shadow",
                                            "--chdir",
                                            "/home/me/proj",
                                            "--",
                                            "sh"};

TEST(Audit, HandWrittenBwrapArgvMapAndWhy) {
  RunResult r = Cwsc(kHandArgv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "bwrap: 5 mount layers, network shared (the host's)\n"
            "writable:\n"
            "  /home/me/proj  (--bind /home/me/proj /home/me/proj)\n"
            "read-only:\n"
            "  /  (--ro-bind / /)\n"
            "private:\n"
            "  /dev  (--dev /dev)\n"
            "  /home/me/.ssh  (--tmpfs /home/me/.ssh)\n"
            "hidden:\n"
            "  /etc/shadow  (--ro-bind /dev/null /etc/shadow)\n"
            "/home/me/.ssh/id_rsa (bwrap): read denied, write denied\n"
            "  decided by:\n"
            "    layer 3, argv 9: --tmpfs /home/me/.ssh  (hidden)\n"
            "  overrides:\n"
            "    layer 0, argv 1: --ro-bind / /  (read-only)\n");
  // Semantic: the interpreter gives the same answers for every destination listed.
  std::vector<std::string> argv(kHandArgv.begin() + 4, kHandArgv.end());
  auto view = backends::InterpretBwrapArgv(argv);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->Find("/home/me/proj").access, backends::Access::kWritable);
  EXPECT_EQ(view->Find("/etc/shadow").access, backends::Access::kHidden);
  EXPECT_EQ(view->Find("/home/me/.ssh").access, backends::Access::kPrivate);
  EXPECT_EQ(view->Find("/home/me/.ssh/id_rsa").layer, 3);
}

TEST(Audit, ExpectationsAgainstAForeignArgvAndAProfile) {
  TempDir t;
  WriteFile(t / "e.cwsp",
            "policy expectations {\n"
            "  expect write \"$WORKSPACE/x\" allowed;\n"
            "  expect read \"~/.ssh/id_rsa\" denied;\n"
            "  expect write \"/etc/passwd\" allowed;\n"
            "  expect network denied;\n}\n");
  RunResult r = Cwsc(
      {"audit",         "--expect",      "e.cwsp",  "--home", "/home/me", "--", "/usr/bin/bwrap",
       "--unshare-all", "--ro-bind",     "/",       "/",      "--bind",   "/w", "/w",
       "--tmpfs",       "/home/me/.ssh", "--chdir", "/w",     "--",       "sh"},
      t.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(
      r.out.find("pass  expect write /w/x allowed  (e.cwsp:2:3): allowed by layer 1, argv 5: "
                 "--bind /w /w\n"
                 "pass  expect read /home/me/.ssh/id_rsa denied  (e.cwsp:3:3): denied by layer "
                 "2, argv 8: --tmpfs /home/me/.ssh\n"
                 "FAIL  expect write /etc/passwd allowed  (e.cwsp:4:3): denied by layer 0, argv "
                 "2: --ro-bind / /\n"
                 "pass  expect network denied  (e.cwsp:5:3): denied by argv 1: --unshare-all\n"
                 "check: 3 passed, 1 failed\n"),
      std::string::npos)
      << r.out;
  WriteFile(t / "p.sb",
            "(version 1)\n(deny default)\n(allow file-read*)\n"
            "(allow file-write* (subpath (param \"ROOT\")))\n"
            "(deny file-read* (subpath (param \"SECRET\")))\n");
  RunResult s = Cwsc(
      {"audit", "--sbpl", "p.sb", "-D", "ROOT=/w", "-D", "SECRET=/home/me/.ssh", "--expect",
       "e.cwsp", "--home", "/home/me", "--workspace", "/w", "--why", "~/.ssh/id_rsa", "--read"},
      t.path());
  EXPECT_EQ(s.exit_code, 1) << s.err;
  EXPECT_EQ(
      s.out,
      "seatbelt profile p.sb: network denied (network-outbound 192.0.2.1:443)\n"
      "parameters:\n"
      "  ROOT=/w: read allowed, write allowed\n"
      "  SECRET=/home/me/.ssh: read denied, write denied\n"
      "/home/me/.ssh/id_rsa (seatbelt): read denied\n"
      "  read: file-read-data decided by profile line 5: (deny file-read* (subpath (param "
      "\"SECRET\")))\n"
      "    param SECRET=/home/me/.ssh\n"
      "pass  expect write /w/x allowed  (e.cwsp:2:3): allowed by profile line 4: (allow "
      "file-write* (subpath (param \"ROOT\")))\n"
      "pass  expect read /home/me/.ssh/id_rsa denied  (e.cwsp:3:3): denied by profile line 5: "
      "(deny file-read* (subpath (param \"SECRET\")))\n"
      "FAIL  expect write /etc/passwd allowed  (e.cwsp:4:3): denied by profile line 2: (deny "
      "default)\n"
      "pass  expect network denied  (e.cwsp:5:3): denied by profile line 2: (deny default)\n"
      "check: 3 passed, 1 failed\n");
}

TEST(Audit, Errors) {
  RunResult r = Cwsc({"audit"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "cwsc: error: audit reads either a bwrap command line after -- or a profile with "
            "--sbpl FILE\nTry 'cwsc audit --help'.\n");
  // An unknown flag warns (AFlagOfANewerBwrapWarnsAndTheAuditGoesOn); what
  // cannot be read at all is refused.
  r = Cwsc({"audit", "--", "bwrap", "--args", "3", "--"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "cwsc: error: the bwrap command line: --args 3: bwrap reads more arguments from "
            "descriptor 3, which the command line does not show\n");
  r = Cwsc({"audit", "--", "bwrap", "--version", "--"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "cwsc: error: the bwrap command line: --version: bwrap prints and exits; it starts no "
            "sandbox\n");
  r = Cwsc({"audit", "--", "bwrap", "--bind", "/a", "/a"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cwsc: error: the bwrap command line: the bwrap argv has no '--'\n");
  r = Cwsc({"audit", "--sbpl", "/nonexistent.sb"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "/nonexistent.sb: error: cannot read the file\n");
  r = Cwsc({"audit", "--sbpl", "x.sb", "-D", "NOEQUALS"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cwsc: error: -D NOEQUALS: expected KEY=VALUE\nTry 'cwsc audit --help'.\n");
  TempDir t;
  WriteFile(t / "bad.sb", "(version 1)\n(allow frobnicate)\n");
  r = Cwsc({"audit", "--sbpl", "bad.sb"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("bad.sb:2:", 0), 0u) << r.err;
}

}  // namespace
}  // namespace cwsc

namespace cwsc {
namespace {

TEST(Lints, ReportedByCheckWithCodeLocationAndFix) {
  TempDir t;
  WriteFile(t / "l.cwsp",
            "policy lints {\n  mode workspace-write;\n  network on;\n  deny_defaults off;\n"
            "  writable \"/tmp\";\n  protect \".codewhale\", \".git\";\n"
            "  expect network allowed in ask;\n}\n");
  RunResult r = Cwsc({"check", "l.cwsp", "--facts", Src() + "/" + kLinuxWs, "--mode", "ask",
                      "--unlisted-as-missing"},
                     t.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;  // lints never fail a check
  EXPECT_NE(r.out.find("  lint duplicate-root at l.cwsp:5:12 (ask): the writable root '/tmp' is "
                       "already writable (default workspace-write shares the host /tmp)\n"
                       "    fix: remove one of them\n"
                       "  lint network-with-secrets at l.cwsp:3:3 (ask): the network is reachable "
                       "and '/home/dev/.netrc' is readable\n"
                       "    fix: turn the network off, or `deny read \"~/.netrc\";`\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("git-writable"), std::string::npos) << r.out;  // .git is protected
  // Without `protect ".git"` the workspace's .git stays writable.
  RunResult w =
      Cwsc({"check", "examples/workspace.cwsp", "--facts", kLinuxWs, "--mode", "ask", "--json"});
  nlohmann::json j = nlohmann::json::parse(w.out)["result"];
  ASSERT_EQ(j["lints"].size(), 1u) << w.out;
  EXPECT_EQ(j["lints"][0]["code"], "git-writable");
  EXPECT_EQ(j["lints"][0]["modes"], nlohmann::json::array({"ask"}));
  // --lint compiles a policy without expectations for its lints.
  WriteFile(t / "n.cwsp", "policy n {\n  mode workspace-write;\n}\n");
  RunResult n = Cwsc({"check", "n.cwsp", "--facts", Src() + "/" + kLinuxWs, "--mode", "ask",
                      "--lint", "--unlisted-as-missing"},
                     t.path());
  EXPECT_EQ(n.exit_code, 0) << n.err;
  EXPECT_NE(n.out.find("  lint git-writable at "), std::string::npos) << n.out;
}

// compile prints the lints as warnings on stderr (its output is unchanged),
// explain lists them after the plan's own warnings.
TEST(Lints, CompileAndExplainWarn) {
  TempDir t;
  WriteFile(t / "l.cwsp",
            "policy lints {\n  mode workspace-write;\n  network on;\n  deny_defaults off;\n"
            "  writable \"/tmp\";\n  protect \".codewhale\", \".git\";\n}\n");
  const std::vector<std::string> common = {"l.cwsp", "--facts", Src() + "/" + kLinuxWs,
                                           "--mode", "ask",     "--unlisted-as-missing"};
  std::vector<std::string> args = {"compile"};
  args.insert(args.end(), common.begin(), common.end());
  RunResult c = Cwsc(args, t.path());
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.err,
            "l.cwsp:5:12: warning [duplicate-root]: the writable root '/tmp' is already writable "
            "(default workspace-write shares the host /tmp)\n"
            "  fix: remove one of them\n"
            "l.cwsp:3:3: warning [network-with-secrets]: the network is reachable and "
            "'/home/dev/.netrc' is readable\n"
            "  fix: turn the network off, or `deny read \"~/.netrc\";`\n" +
                std::string(::cwsc::testing::kArgvNote));
  EXPECT_EQ(c.out.rfind("/usr/bin/bwrap\n", 0), 0u) << c.out;  // the argv, as without lints
  args[0] = "explain";
  RunResult e = Cwsc(args, t.path());
  EXPECT_EQ(e.exit_code, 0) << e.err;
  EXPECT_EQ(e.err, "");
  EXPECT_NE(
      e.out.find("# lint [duplicate-root] at l.cwsp:5:12: the writable root '/tmp' is already "
                 "writable (default workspace-write shares the host /tmp); fix: remove one "
                 "of them\n"),
      std::string::npos)
      << e.out;
  // A clean policy warns about nothing.
  WriteFile(t / "c.cwsp", "policy c {\n  mode read-only;\n}\n");
  RunResult q = Cwsc({"compile", "c.cwsp", "--facts", Src() + "/" + kLinuxWs, "--mode", "ask",
                      "--unlisted-as-missing"},
                     t.path());
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(q.err, ::cwsc::testing::kArgvNote);  // no lint; the argv's own note
}

// A deny path that a later mount exposes again; a sudo launcher without -n.
TEST(Lints, ShadowedDenyAndPromptingLauncher) {
  auto facts = compiler::LoadRecordedFacts(Src() + "/" + kLinuxWs);
  ASSERT_TRUE(facts.ok());
  ir::LaunchPlan plan;
  ir::Bwrap& bwrap = plan.launch.emplace<ir::Bwrap>();
  plan.cwd = "/home/dev/proj";
  bwrap.launcher = {"/usr/bin/sudo", "-u", "agent"};
  bwrap.launcher_origin = ir::Origin::Config("tool_launcher", "managed.toml", 3, 1);
  ir::Origin deny = ir::Origin::Config("deny read", "p.cwsp", 4, 3);
  bwrap.mounts = {{ir::MountOp::kReadOnlyBind, "/", "/", "", ir::Origin::Default("base")},
                  {ir::MountOp::kTmpfs, "", "/home/dev/.ssh", "", deny},
                  {ir::MountOp::kWritableBind, "/home/dev/.ssh", "/home/dev/.ssh", "",
                   ir::Origin::Config("writable", "p.cwsp", 5, 3)}};
  plan.denied_read = {{"/home/dev/.ssh", "~/.ssh", deny}};
  auto art = driver::ArtifactOf(plan);
  ASSERT_TRUE(art.ok()) << art.status();
  compiler::PathVars vars{"/home/dev", "/home/dev/proj", "/home/dev/proj", "/tmp"};
  std::vector<driver::Lint> lints = driver::LintPlan(*art, vars, facts->get());
  ASSERT_EQ(lints.size(), 2u);
  EXPECT_EQ(lints[0].code, "deny-shadowed");
  EXPECT_EQ(driver::LintLocation(lints[0].origin), "p.cwsp:4:3");
  EXPECT_EQ(lints[0].message,
            "'/home/dev/.ssh' is denied but stays readable: --bind /home/dev/.ssh /home/dev/.ssh "
            "(layer 2, argv 16) decides");
  EXPECT_EQ(lints[1].code, "launcher-without-n");
  EXPECT_EQ(driver::LintLocation(lints[1].origin), "managed.toml:3:1");
  bwrap.launcher = {"/usr/bin/sudo", "-n", "-u", "agent"};
  bwrap.mounts.pop_back();
  art = driver::ArtifactOf(plan);
  ASSERT_TRUE(art.ok());
  EXPECT_TRUE(driver::LintPlan(*art, vars, facts->get()).empty());
}

}  // namespace
}  // namespace cwsc

namespace cwsc {
namespace {

TEST(Check, CreateAndNetworkTargets) {
  TempDir t;
  WriteFile(t / "n.cwsp",
            "policy n {\n  mode workspace-write;\n  slash_tmp private;\n"
            "  expect create \"$WORKSPACE\" allowed in ask;\n"
            "  expect create \"/tmp\" denied in ask;\n"
            "  expect create \"/etc\" denied;\n"
            "  expect network \"127.0.0.1:8080\" allowed in ask;\n"
            "  expect network \"[::1]:443\" denied in plan;\n}\n");
  for (const char* facts : {kLinuxWs, kMacWs}) {
    RunResult r = Cwsc({"check", "n.cwsp", "--facts", Src() + "/" + facts, "--unlisted-as-missing"},
                       t.path());
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("check: 8 passed, 0 failed\n"), std::string::npos) << r.out;
  }
  RunResult r = Cwsc({"check", "n.cwsp", "--facts", Src() + "/" + kMacWs, "--mode", "plan",
                      "--unlisted-as-missing"},
                     t.path());
  EXPECT_NE(r.out.find("    pass  plan, seatbelt: network [::1]:443: denied (network-outbound "
                       "[::1]:443)\n"),
            std::string::npos)
      << r.out;
  // A private /tmp: the file would stay in the sandbox's own tmpfs.
  RunResult l = Cwsc({"check", "n.cwsp", "--facts", Src() + "/" + kLinuxWs, "--mode", "ask",
                      "--unlisted-as-missing"},
                     t.path());
  EXPECT_NE(l.out.find("    pass  ask, bwrap: /tmp: denied (hidden)\n"
                       "          by layer 3, argv 15: --tmpfs /tmp\n"),
            std::string::npos)
      << l.out;
  WriteFile(t / "bad.cwsp", "policy x {\n  expect network \"example.com:80\" allowed;\n}\n");
  RunResult bad = Cwsc({"check", "bad.cwsp"}, t.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "bad.cwsp:2:18: error: network target 'example.com:80': expected HOST:PORT with an "
            "IPv4 address, [IPv6] or localhost, and a port 1-65535\n"
            "    expect network \"example.com:80\" allowed;\n"
            "                   ^\n");
}

}  // namespace
}  // namespace cwsc

namespace cwsc {
namespace {

// A deny rule whose target is absent from the host: `check` and `why` say
// so, and it counts as denied (docs/verification.md, "Absent deny targets").
const char kAbsentPolicy[] =
    "policy p {\n  mode workspace-write;\n  deny read \"~/.config/private-notes\";\n"
    "  expect read \"~/.config/private-notes/todo.txt\" denied in ask;\n"
    "  expect read \"~/.config/private-notes/todo.txt\" allowed in ask;\n"
    "  expect exec \"~/.ssh/evil\" denied in ask;\n}\n";

const char kAbsentNote[] =
    "absent: nothing to read now; the rule ~/.config/private-notes hides "
    "/home/dev/.config/private-notes when it exists (this argv has no mask for it: a plan "
    "compiled after it appears masks it, and `cwsc run` and `cwsc exec` refuse this plan if it "
    "appears first)";

TEST(Absent, CheckReportsAnAbsentDenyTargetAsDenied) {
  TempDir t;
  WriteFile(t / "p.cwsp", kAbsentPolicy);
  RunResult r = Cwsc({"check", "p.cwsp", "--facts", Src() + "/" + kLinuxWs, "--mode", "ask",
                      "--unlisted-as-missing"},
                     t.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find("  expect exec")),
            std::string("policy p (p.cwsp:1:8): 3 expectations\n"
                        "  expect read \"~/.config/private-notes/todo.txt\" denied in ask  "
                        "(p.cwsp:4:3)\n"
                        "    pass  ask, bwrap: /home/dev/.config/private-notes/todo.txt: denied "
                        "(absent)\n"
                        "          by deny read ~/.config/private-notes\n"
                        "          from config deny read at p.cwsp:3:13\n"
                        "          note: ") +
                kAbsentNote +
                "\n"
                "  expect read \"~/.config/private-notes/todo.txt\" allowed in ask  (p.cwsp:5:3)\n"
                "    FAIL  ask, bwrap: /home/dev/.config/private-notes/todo.txt: denied (absent), "
                "expected allowed\n"
                "          by deny read ~/.config/private-notes\n"
                "          from config deny read at p.cwsp:3:13\n"
                "          note: " +
                kAbsentNote + "\n");
  // ~/.ssh exists in these facts: its mask decides, as before.
  EXPECT_NE(r.out.find("    pass  ask, bwrap: /home/dev/.ssh/evil: denied (hidden)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("check: 2 passed, 1 failed\n"), std::string::npos) << r.out;
  // The JSON report: the verdict "absent", a pass when denied was expected.
  RunResult j = Cwsc({"check", "p.cwsp", "--facts", Src() + "/" + kLinuxWs, "--mode", "ask",
                      "--unlisted-as-missing", "--json"},
                     t.path());
  EXPECT_EQ(j.exit_code, 1) << j.err;
  nlohmann::json res = nlohmann::json::parse(j.out)["result"]["results"];
  ASSERT_EQ(res.size(), 3u) << j.out;
  EXPECT_EQ(res[0]["actual"], "absent");
  EXPECT_EQ(res[0]["result"], "pass");
  EXPECT_EQ(res[0]["detail"], "absent");
  EXPECT_EQ(res[0]["rule"], "deny read ~/.config/private-notes");
  EXPECT_EQ(res[0]["notes"], nlohmann::json::array({kAbsentNote}));
  EXPECT_EQ(res[1]["actual"], "absent");
  EXPECT_EQ(res[1]["result"], "fail");
  EXPECT_EQ(res[2]["actual"], "denied");
  // Semantic: the emitted argv has no mask at the absent path, and the
  // facts record it as missing (an absent verdict is not a hidden one).
  RunResult argv = Cwsc({"compile", "p.cwsp", "--facts", Src() + "/" + kLinuxWs, "--mode", "ask",
                         "--unlisted-as-missing", "--format", "json"},
                        t.path());
  auto view =
      backends::InterpretBwrapArgv(nlohmann::json::parse(argv.out).get<std::vector<std::string>>());
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->Find("/home/dev/.config/private-notes").access, backends::Access::kReadOnly);
  EXPECT_EQ(testing::ReadFileOr(Src() + "/" + kLinuxWs).find("/home/dev/.config/private-notes"),
            std::string::npos);
}

TEST(Absent, WhySaysTheTargetIsAbsent) {
  TempDir t;
  WriteFile(t / "p.cwsp", kAbsentPolicy);
  RunResult r = Cwsc({"why", "~/.config/private-notes/todo.txt", "p.cwsp", "--facts",
                      Src() + "/" + kLinuxWs, "--unlisted-as-missing"},
                     t.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("/home/dev/.config/private-notes/todo.txt (mode ask, bwrap): read "
                               "denied (absent), write denied\n"
                               "  read: ") +
                       kAbsentNote +
                       "\n"
                       "    from config deny read at p.cwsp:3:13\n"
                       "  decided by:\n"
                       "    layer 0, argv 8: --ro-bind / /  (read-only)\n"
                       "      from default bwrap base view\n");
  RunResult j = Cwsc({"why", "~/.config/private-notes/todo.txt", "p.cwsp", "--facts",
                      Src() + "/" + kLinuxWs, "--unlisted-as-missing", "--json"},
                     t.path());
  EXPECT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json w = nlohmann::json::parse(j.out)["result"];
  EXPECT_EQ(w["decisions"][0]["allowed"], false);
  EXPECT_EQ(w["decisions"][0]["detail"], "absent");
  EXPECT_EQ(w["decisions"][1]["detail"], "read-only");
  EXPECT_EQ(w["notes"], nlohmann::json::array({kAbsentNote}));
}

// Every bundled example, checked on this host with live facts, in a home
// without the files its deny rules name and in one with them: no verdict
// about a path in the home fails, and the examples whose expectations do
// not need other host paths pass whole.
TEST(Absent, ExamplesPassInAnEmptyHomeAndInAFullOne) {
  TempDir base("/var/tmp");
  const std::string ws = base / "ws", empty = base / "empty", full = base / "full";
  for (const std::string& d :
       {ws, ws + "/src", ws + "/.git", ws + "/.codewhale", empty, full, full + "/.ssh",
        full + "/.config", full + "/.config/private-notes"}) {
    mkdir(d.c_str(), 0755);
  }
  WriteFile(ws + "/src/main.c", "int main;\n");
  WriteFile(ws + "/.git/config", "[core]\n");
  WriteFile(ws + "/.codewhale/config.toml", "# project\n");
  WriteFile(ws + "/README.md", "# ws\n");
  WriteFile(full + "/.ssh/id_ed25519", "KEY\n");
  WriteFile(full + "/.config/private-notes/todo.txt", "notes\n");
  for (const std::string& home : {empty, full}) {
    for (const char* example :
         {"workspace", "readonly", "locked-down", "team", "build-farm", "failing", "remote"}) {
      RunResult r = testing::RunWithEnv(
          {Bin(), "check", Src() + "/examples/" + example + ".cwsp", "--cwd", ws},
          {"PATH=/usr/bin:/bin", "HOME=" + home}, "", ws);
      SCOPED_TRACE(std::string(example) + " with HOME=" + home + "\n" + r.out + r.err);
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1);
      EXPECT_EQ(r.out.find("FAIL  plan, bwrap: " + home), std::string::npos);
      EXPECT_EQ(r.out.find("FAIL  ask, bwrap: " + home), std::string::npos);
      std::string e = example;
      if (e == "workspace" || e == "readonly" || e == "locked-down" || e == "remote") {
        EXPECT_EQ(r.exit_code, 0);
      }
      if (home == empty && e != "readonly" && e != "remote" && e != "build-farm") {
        EXPECT_NE(r.out.find(": denied (absent)\n"), std::string::npos);
      }
      if (home == full) {
        EXPECT_EQ(r.out.find("(absent)"), std::string::npos);
      }
    }
  }
}

}  // namespace
}  // namespace cwsc

namespace cwsc {
namespace {

// One flag of `bwrap --help`: its name and argument names ("SRC", "DEST").
struct HelpFlag {
  std::string name;
  std::vector<std::string> args;
};

// HelpFlags parses the help of the bwrap on this host: "    --flag ARG...  text".
std::vector<HelpFlag> HelpFlags() {
  RunResult r = testing::Run({"/usr/bin/bwrap", "--help"});
  std::vector<HelpFlag> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find_first_not_of(' ');
    if (at == std::string::npos || line.compare(at, 2, "--") != 0) continue;
    size_t end = line.find("  ", at);
    std::istringstream words(line.substr(at, end == std::string::npos ? end : end - at));
    HelpFlag f;
    words >> f.name;
    for (std::string w; words >> w;) f.args.push_back(w);
    out.push_back(f);
  }
  return out;
}

// A value for each argument name of the help.
std::string ValueFor(const std::string& arg) {
  if (arg == "FD") return "3";
  if (arg == "OCTAL") return "0755";
  if (arg == "BYTES" || arg == "UID" || arg == "GID") return "1000";
  if (arg == "SRC" || arg == "DEST" || arg == "DIR" || arg == "PATH") return "/srv/x";
  return "value";
}

// Every flag of the host's bwrap manual: audit reads it (or, for a flag of a
// newer bwrap than the table's, warns naming it and still answers).
TEST(Audit, EveryFlagOfTheHostsBwrapHelp) {
  if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "needs bwrap";
  std::vector<HelpFlag> flags = HelpFlags();
  ASSERT_GT(flags.size(), 50u);
  RunResult version = testing::Run({"/usr/bin/bwrap", "--version"});
  size_t known = 0;
  for (const HelpFlag& f : flags) {
    SCOPED_TRACE(f.name);
    std::vector<std::string> argv = {"audit", "--", "bwrap", "--ro-bind", "/", "/", f.name};
    for (const std::string& a : f.args) argv.push_back(ValueFor(a));
    argv.insert(argv.end(), {"--", "sh"});
    RunResult r = Cwsc(argv);
    if (f.name == "--help" || f.name == "--version" || f.name == "--args") {
      EXPECT_EQ(r.exit_code, 2);  // nothing to map: bwrap prints and exits, or reads more argv
      continue;
    }
    const backends::BwrapFlag* entry = backends::FindBwrapFlag(f.name);
    if (entry == nullptr) {
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.err, "cwsc: warning [unknown-bwrap-flag]: bwrap flag '" + f.name +
                           "' is not in the bubblewrap " + backends::kBwrapManualVersion +
                           " manual cwsc reads: skipped with the " + std::to_string(f.args.size()) +
                           " argument(s) after it; the map leaves out what it does\n");
      continue;
    }
    ++known;
    EXPECT_EQ(entry->args, static_cast<int>(f.args.size()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out.find("bwrap: "), 0u) << r.out;
  }
  // This table is bubblewrap 0.8.0's: on that version, every flag is known.
  if (version.out == std::string("bubblewrap ") + backends::kBwrapManualVersion + "\n") {
    EXPECT_EQ(known, flags.size() - 3);
  }
}

TEST(Audit, AStandardArgvWithEnvironmentAndNamespaceFlags) {
  RunResult r = Cwsc({"audit",
                      "--",
                      "bwrap",
                      "--unshare-pid",
                      "--unshare-net",
                      "--die-with-parent",
                      "--ro-bind",
                      "/usr",
                      "/usr",
                      "--symlink",
                      "usr/lib",
                      "/lib",
                      "--dir",
                      "/var/tmp",
                      "--ro-bind-try",
                      "/etc/resolv.conf",
                      "/etc/resolv.conf",
                      "--setenv",
                      "PATH",
                      "/usr/bin",
                      "--unsetenv",
                      "TERM",
                      "--proc",
                      "/proc",
                      "--dev",
                      "/dev",
                      "--tmpfs",
                      "/tmp",
                      "--chdir",
                      "/tmp",
                      "--",
                      "sh"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "bwrap: 5 mount layers, network isolated\n"
            "read-only:\n"
            "  /usr  (--ro-bind /usr /usr)\n"
            "  /etc/resolv.conf  (--ro-bind-try /etc/resolv.conf /etc/resolv.conf)\n"
            "private:\n"
            "  /proc  (--proc /proc)\n"
            "  /dev  (--dev /dev)\n"
            "  /tmp  (--tmpfs /tmp)\n"
            "symlinks:\n"
            "  /lib -> usr/lib  (--symlink usr/lib /lib)\n");
  RunResult w = Cwsc({"audit", "--why", "/lib/libc.so.6", "--read", "--", "bwrap", "--ro-bind",
                      "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--", "sh"});
  EXPECT_EQ(w.exit_code, 0) << w.err;
  EXPECT_NE(w.out.find("/lib/libc.so.6 (bwrap): read allowed\n"), std::string::npos) << w.out;
}

TEST(Audit, AFlagOfANewerBwrapWarnsAndTheAuditGoesOn) {
  RunResult r = Cwsc({"audit", "--", "bwrap", "--ro-bind", "/", "/", "--overlay-src", "/a",
                      "--tmp-overlay", "/b", "--", "sh"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err,
            "cwsc: warning [unknown-bwrap-flag]: bwrap flag '--overlay-src' is not in the "
            "bubblewrap 0.8.0 manual cwsc reads: skipped with the 1 argument(s) after it; the "
            "map leaves out what it does\n"
            "cwsc: warning [unknown-bwrap-flag]: bwrap flag '--tmp-overlay' is not in the "
            "bubblewrap 0.8.0 manual cwsc reads: skipped with the 1 argument(s) after it; the "
            "map leaves out what it does\n");
  EXPECT_EQ(
      r.out,
      "bwrap: 1 mount layers, network shared (the host's)\nread-only:\n  /  (--ro-bind / /)\n");
  RunResult j = Cwsc(
      {"audit", "--json", "--", "bwrap", "--ro-bind", "/", "/", "--overlay-src", "/a", "--", "sh"});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json report = nlohmann::json::parse(j.out);
  ASSERT_EQ(report["diagnostics"].size(), 1u) << j.out;
  EXPECT_EQ(report["diagnostics"][0]["severity"], "warning");
  EXPECT_EQ(report["diagnostics"][0]["code"], "unknown-bwrap-flag");
}

}  // namespace
}  // namespace cwsc
