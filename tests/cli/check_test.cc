// `cwsc check` evaluates expectations against the emitted artifacts
// (docs/verification.md): exact text of the report (golden) and of every
// error, and a semantic check that replays each JSON verdict through the
// interpreters independently of the command.
#include <gtest/gtest.h>

#include "backends/bwrap_interp.h"
#include "backends/sbpl_eval.h"
#include "nlohmann/json.hpp"
#include "tests/runtime/proc_helpers.h"

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

// Golden compares `actual` with tests/golden/check/NAME (CWSC_UPDATE_GOLDENS=1 rewrites it).
void Golden(const std::string& name, const std::string& actual) {
  std::string path = Src() + "/tests/golden/check/" + name;
  if (std::getenv("CWSC_UPDATE_GOLDENS") != nullptr) {
    WriteFile(path, actual);
    return;
  }
  ASSERT_TRUE(testing::Exists(path)) << path << " is missing; run with CWSC_UPDATE_GOLDENS=1";
  EXPECT_EQ(testing::ReadFileOr(path), actual) << "golden " << path << " differs";
}

const char kLinuxWs[] = "examples/facts/linux-workspace.yaml";
const char kMacWs[] = "examples/facts/macos-workspace.yaml";

TEST(Check, WorkspaceReportGoldenLinux) {
  RunResult r = Cwsc({"check", "examples/workspace.cwsp", "--facts", kLinuxWs});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  Golden("workspace_linux.txt", r.out);
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
  // The same policy holds on macOS: the profile denies the subpath whether or not it exists.
  RunResult mac = Cwsc({"check", "examples/failing.cwsp", "--facts", kMacWs, "--mode", "ask",
                        "--unlisted-as-missing"});
  EXPECT_EQ(mac.exit_code, 0) << mac.out << mac.err;
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
    RunResult r = Cwsc({"check", "p.cwsp", "--facts", Src() + "/" + facts,
                        "--unlisted-as-missing", "--json"},
                       t.path());
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["failed"], 3);
    EXPECT_EQ(j["passed"], 0);
    for (const auto& res : j["results"]) EXPECT_EQ(res["result"], "fail") << res.dump();
  }
}

TEST(Check, ExactFailureLines) {
  TempDir t;
  WriteFile(t / "p.cwsp",
            "policy p {\n  mode workspace-write;\n  expect write \"/etc/hosts\" allowed in ask;\n}\n");
  RunResult r = Cwsc({"check", "p.cwsp", "--facts", Src() + "/" + kLinuxWs,
                      "--unlisted-as-missing"},
                     t.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "policy p (p.cwsp:1:8): 1 expectation\n"
            "  expect write \"/etc/hosts\" allowed in ask  (p.cwsp:3:3)\n"
            "    FAIL  ask, bwrap: /etc/hosts: denied (read-only), expected allowed\n"
            "          by layer 0, argv 8: --ro-bind / /\n"
            "          from default bwrap base view\n"
            "check: 0 passed, 1 failed\n");
}

// Modes: --mode restricts; an expectation's `in` list restricts.
TEST(Check, ModesSelectWhatIsEvaluated) {
  RunResult r = Cwsc({"check", "examples/workspace.cwsp", "--facts", kLinuxWs, "--mode", "plan",
                      "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["version"], 1);
  for (const auto& res : j["results"]) EXPECT_EQ(res["mode"], "plan");
  // workspace.cwsp: 5 expectations, one of them `in ask, auto-review, full-access`.
  EXPECT_EQ(j["results"].size(), 4u);
}

// The semantic check: every JSON verdict agrees with the interpreter run here
// on the artifact `cwsc compile` prints.
TEST(Check, JsonVerdictsAgreeWithTheInterpreters) {
  for (const char* mode : {"plan", "ask"}) {
    RunResult r = Cwsc({"check", "examples/workspace.cwsp", "--facts", kLinuxWs, "--mode", mode,
                        "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    RunResult argv = Cwsc({"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--mode", mode,
                           "--format", "json"});
    ASSERT_EQ(argv.exit_code, 0) << argv.err;
    auto view = backends::InterpretBwrapArgv(nlohmann::json::parse(argv.out).get<std::vector<std::string>>());
    ASSERT_TRUE(view.ok());
    nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_GT(j["results"].size(), 0u);
    for (const auto& res : j["results"]) {
      std::string kind = res["expectation"]["kind"];
      bool allowed;
      if (kind == "network") {
        allowed = !view->network_isolated;
      } else {
        backends::Access a = view->Find(res["path"]).access;
        allowed = kind == "write" ? a == backends::Access::kWritable
                                  : a == backends::Access::kReadOnly ||
                                        a == backends::Access::kWritable;
      }
      EXPECT_EQ(res["actual"], allowed ? "allowed" : "denied") << res.dump();
      EXPECT_EQ(res["result"], (res["expectation"]["expected"] == res["actual"]) ? "pass" : "fail");
    }
  }
  RunResult r = Cwsc({"check", "examples/workspace.cwsp", "--facts", kMacWs, "--mode", "ask",
                      "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult argv = Cwsc({"compile", "examples/workspace.cwsp", "--facts", kMacWs, "--mode", "ask",
                         "--format", "json"});
  ASSERT_EQ(argv.exit_code, 0) << argv.err;
  auto call = backends::ParseSandboxExecArgv(
      nlohmann::json::parse(argv.out).get<std::vector<std::string>>());
  ASSERT_TRUE(call.ok());
  auto profile = backends::SbplProfile::Parse(call->profile, call->params);
  ASSERT_TRUE(profile.ok());
  for (const auto& res : nlohmann::json::parse(r.out)["results"]) {
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
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "cwsc: error: option '--mode' needs a value");
}

}  // namespace
}  // namespace cwsc

namespace cwsc {
namespace {

TEST(Why, BwrapChainFromTheTopWithOrigins) {
  RunResult r = Cwsc({"why", "$WORKSPACE/.codewhale/config.toml", "examples/workspace.cwsp",
                      "--facts", kLinuxWs});
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
  RunResult argv = Cwsc({"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--format",
                         "json"});
  auto view = backends::InterpretBwrapArgv(
      nlohmann::json::parse(argv.out).get<std::vector<std::string>>());
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->Find("/home/dev/proj/.codewhale/config.toml").layer, 7);
}

TEST(Why, SeatbeltRuleAndParamsAndSkippedNotes) {
  RunResult r = Cwsc({"why", "~/.ssh/id_rsa", "examples/workspace.cwsp", "--facts", kMacWs,
                      "--read"});
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
  r = Cwsc({"why", "/x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "cwsc: error: missing CONFIG");
}

}  // namespace
}  // namespace cwsc
