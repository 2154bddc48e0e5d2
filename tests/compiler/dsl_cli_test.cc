// The DSL through the real `cwsc` binary: compile (by extension, --input,
// --policy), check and fmt (print, -w, --check), with exact texts and exit
// codes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/runtime/proc_helpers.h"

namespace cwsc::testing {
namespace {

std::string Bin() {
  const char* b = std::getenv("CWSC_BIN");
  return b ? b : "cwsc";
}
std::string Src(const std::string& rel) {
  const char* root = std::getenv("CWSC_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/" + rel;
}

RunResult Cwsc(std::vector<std::string> args, const std::string& cwd = "") {
  args.insert(args.begin(), Bin());
  return Run(args, "", {}, cwd);
}

TEST(DslCli, CompileByExtensionMatchesToml) {
  std::string facts = Src("examples/facts/linux-workspace.yaml");
  RunResult dsl = Cwsc({"compile", Src("examples/locked-down.cwsp"), "--facts", facts, "--mode",
                        "auto-review", "--format", "shell"});
  RunResult toml = Cwsc({"compile", Src("examples/locked-down.toml"), "--facts", facts, "--mode",
                         "auto-review", "--format", "shell"});
  ASSERT_EQ(dsl.exit_code, 0) << dsl.err;
  ASSERT_EQ(toml.exit_code, 0) << toml.err;
  EXPECT_EQ(dsl.out, toml.out);
  EXPECT_NE(dsl.out.find("--ro-bind /home/dev/proj/.git /home/dev/proj/.git"), std::string::npos)
      << dsl.out;  // `protect ".git"` reached the argv
}

TEST(DslCli, InputOverridesTheExtension) {
  TempDir dir;
  WriteFile(dir / "policy.txt", "policy p { mode read-only; }\n");
  std::string facts = Src("examples/facts/linux-workspace.yaml");
  RunResult as_toml = Cwsc({"compile", dir / "policy.txt", "--facts", facts});
  EXPECT_EQ(as_toml.exit_code, 2);
  RunResult as_dsl =
      Cwsc({"compile", dir / "policy.txt", "--input", "dsl", "--facts", facts, "--target", "plan"});
  EXPECT_EQ(as_dsl.exit_code, 0) << as_dsl.err;
  EXPECT_NE(as_dsl.out.find("\"type\": \"read-only\""), std::string::npos) << as_dsl.out;
}

TEST(DslCli, PolicySelection) {
  std::string facts = Src("examples/facts/linux-workspace.yaml");
  RunResult none = Cwsc({"compile", "examples/team.cwsp", "--facts", facts}, Src(""));
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err,
            "examples/team.cwsp: error: the file defines several policies (agent, ci, "
            "reviewer); choose one with --policy NAME\n");
  RunResult wrong =
      Cwsc({"compile", "examples/team.cwsp", "--policy", "qa", "--facts", facts}, Src(""));
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_EQ(wrong.err,
            "examples/team.cwsp: error: no policy named 'qa'; the file defines: agent, ci, "
            "reviewer\n");
  RunResult ci = Cwsc(
      {"compile", "examples/team.cwsp", "--policy", "ci", "--facts", facts, "--target", "plan"},
      Src(""));
  ASSERT_EQ(ci.exit_code, 0) << ci.err;
  EXPECT_NE(ci.out.find("\"network_access\": true"), std::string::npos);
  EXPECT_NE(ci.out.find("\"path\": \"/srv/artifacts/build.tar\""), std::string::npos);
  RunResult reviewer = Cwsc({"compile", "examples/team.cwsp", "--policy", "reviewer", "--facts",
                             facts, "--target", "plan"},
                            Src(""));
  ASSERT_EQ(reviewer.exit_code, 0) << reviewer.err;
  EXPECT_NE(reviewer.out.find("\"type\": \"read-only\""), std::string::npos);
}

TEST(DslCli, PolicyOptionOnTomlIsAnError) {
  RunResult r = Cwsc({"compile", "examples/readonly.toml", "--policy", "x", "--facts",
                      "examples/facts/linux-workspace.yaml"},
                     Src(""));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "examples/readonly.toml: error: --policy selects a policy of a .cwsp file; this is a "
            "TOML config (use --input dsl if it is a policy)\n");
}

TEST(DslCli, CompileErrorIsLocatedWithExitTwo) {
  TempDir dir;
  WriteFile(dir / "bad.cwsp", "policy p {\n  writable ;\n  mode sometimes;\n}\n");
  RunResult r = Cwsc({"compile", "bad.cwsp", "--facts", Src("examples/facts/linux-workspace.yaml")},
                     dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "bad.cwsp:2:12: error: expected a path string after 'writable', found ';'\n"
            "    writable ;\n"
            "             ^\n"
            "bad.cwsp:3:8: error: unknown mode 'sometimes'; expected read-only, workspace-write, "
            "danger-full-access or external-sandbox\n"
            "    mode sometimes;\n"
            "         ^\n");
}

TEST(DslCli, ApiKeyReferenceReachesThePlanButNoSecret) {
  TempDir dir;
  WriteFile(dir / "r.cwsp",
            "policy r {\n  mode workspace-write;\n  backend opensandbox {\n"
            "    url \"http://127.0.0.1:9/\";\n    api_key env \"MY_OPENSANDBOX_KEY\";\n  }\n}\n");
  RunResult r = cwsc::testing::Run({Bin(), "compile", "r.cwsp", "--target", "plan", "--facts",
                                    Src("examples/facts/linux-workspace.yaml")},
                                   "", {"MY_OPENSANDBOX_KEY=sk-do-not-print"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json key = nlohmann::json::parse(r.out)["launch"]["remote"]["api_key"];
  EXPECT_EQ(key["kind"], "env") << r.out;
  EXPECT_EQ(key["name"], "MY_OPENSANDBOX_KEY") << r.out;
  EXPECT_EQ(r.out.find("sk-do-not-print"), std::string::npos);
  EXPECT_EQ(r.err.find("sk-do-not-print"), std::string::npos);
}

TEST(DslCli, CheckEvaluatesExpectations) {
  RunResult r = Cwsc({"check", "examples/readonly.cwsp", "--facts",
                      "examples/facts/linux-readonly.yaml", "--mode", "ask"},
                     Src(""));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "policy reviewer (examples/readonly.cwsp:3:8): 3 expectations\n"
            "  expect write \"$WORKSPACE/README.md\" denied  (examples/readonly.cwsp:7:3)\n"
            "    pass  ask, bwrap: /home/dev/proj/README.md: denied (read-only)\n"
            "          by layer 0, argv 7: --ro-bind / /\n"
            "          from default bwrap base view\n"
            "  expect read \"$WORKSPACE/README.md\" allowed  (examples/readonly.cwsp:8:3)\n"
            "    pass  ask, bwrap: /home/dev/proj/README.md: allowed (read-only)\n"
            "          by layer 0, argv 7: --ro-bind / /\n"
            "          from default bwrap base view\n"
            "  expect network denied  (examples/readonly.cwsp:9:3)\n"
            "    pass  ask, bwrap: network: denied (network isolated)\n"
            "          by argv 1: --unshare-all\n"
            "          from default isolate every namespace\n"
            "check: 3 passed, 0 failed\n");
  // Every mode of a config is compiled (for its lints): recorded facts keep
  // the answer the same on every host.
  RunResult toml =
      Cwsc({"check", "examples/readonly.toml", "--facts", "examples/facts/linux-readonly.yaml"},
           Src(""));
  EXPECT_EQ(toml.exit_code, 0) << toml.err;
  EXPECT_EQ(toml.out,
            "examples/readonly.toml: valid config; no expectations (check it against a .cwsp "
            "file's with --expect FILE.cwsp)\n");
}

TEST(DslCli, CheckManagedLayerAllowsLauncher) {
  TempDir dir;
  WriteFile(
      dir / "m.cwsp",
      "policy fleet {\n  mode workspace-write;\n  launcher [\"/usr/bin/sudo\", \"-n\"];\n}\n");
  RunResult user = Cwsc({"check", "m.cwsp"}, dir.path());
  EXPECT_EQ(user.exit_code, 2);
  EXPECT_EQ(user.err,
            "m.cwsp:3:3: error: only a managed config may set 'launcher'\n"
            "    launcher [\"/usr/bin/sudo\", \"-n\"];\n"
            "    ^\n");
  RunResult managed = Cwsc({"check", "m.cwsp", "--managed"}, dir.path());
  EXPECT_EQ(managed.exit_code, 0) << managed.err;
}

TEST(DslCli, FmtPrintsWritesAndChecks) {
  TempDir dir;
  std::string messy = "policy p{mode read-only;   # why\nnetwork off;}\n";
  std::string canonical = "policy p {\n  mode read-only;  # why\n  network off;\n}\n";
  WriteFile(dir / "p.cwsp", messy);
  RunResult printed = Cwsc({"fmt", "p.cwsp"}, dir.path());
  EXPECT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(printed.out, canonical);
  EXPECT_EQ(ReadFileOr(dir / "p.cwsp"), messy);  // printing leaves the file alone

  RunResult check = Cwsc({"fmt", "--check", "p.cwsp"}, dir.path());
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(check.out, "p.cwsp:1: not formatted (run `cwsc fmt -w p.cwsp`)\n");

  RunResult write = Cwsc({"fmt", "-w", "p.cwsp"}, dir.path());
  EXPECT_EQ(write.exit_code, 0) << write.err;
  EXPECT_EQ(ReadFileOr(dir / "p.cwsp"), canonical);
  RunResult again = Cwsc({"fmt", "--check", "p.cwsp"}, dir.path());
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_EQ(again.out, "");
}

TEST(DslCli, FmtRefusesBadInput) {
  TempDir dir;
  WriteFile(dir / "bad.cwsp", "policy p {\n  mode \"read-only;\n}\n");
  RunResult r = Cwsc({"fmt", "-w", "bad.cwsp"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "bad.cwsp:2:8: error: unterminated string: a string must end with '\"' on the same "
            "line\n"
            "    mode \"read-only;\n"
            "         ^\n");
  EXPECT_EQ(ReadFileOr(dir / "bad.cwsp"), "policy p {\n  mode \"read-only;\n}\n");  // untouched
  RunResult usage = Cwsc({"fmt"}, dir.path());
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_EQ(usage.err, "cwsc: error: missing FILE\nTry 'cwsc fmt --help'.\n");
  RunResult both = Cwsc({"fmt", "--check", "-w", "x.cwsp"}, dir.path());
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err, "cwsc: error: give --check or -w, not both\nTry 'cwsc fmt --help'.\n");
  RunResult missing = Cwsc({"fmt", "nope.cwsp"}, dir.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "nope.cwsp: error: cannot read the file\n");
}

TEST(DslCli, ExamplesAreCanonical) {
  RunResult r = Cwsc({"fmt", "--check", "examples/build-farm.cwsp", "examples/locked-down.cwsp",
                      "examples/readonly.cwsp", "examples/remote.cwsp", "examples/team.cwsp",
                      "examples/workspace.cwsp"},
                     Src(""));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

}  // namespace
}  // namespace cwsc::testing
