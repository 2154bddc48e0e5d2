// What cwsc prints is escaped (docs/decisions.md, "What cwsc prints is
// escaped"): every report of the CLI is given a path a sandboxed command
// could have made, holding ESC (`\x1b[31m`), a newline, U+009B (C2 9B), a
// byte that is not UTF-8 (\xff) and a leading dash. Each test checks the
// exact text, that the output has no raw control byte left, and that the
// report still names the right path (its --json form, or an interpreter,
// gives the raw bytes back). The machine forms (--format shell/json/nul, the
// plan and the --json report) are checked to carry every byte safely.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "backends/verify/bwrap_interp.h"
#include "ir/display.h"
#include "nlohmann/json.hpp"
#include "tests/runtime/proc_helpers.h"
#include "tests/testing/golden.h"

namespace cwsc {
namespace {

using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;
using Json = nlohmann::json;

std::string Bin() { return std::getenv("CWSC_BIN") ? std::getenv("CWSC_BIN") : "cwsc"; }
std::string Src() { return testing::SourceRoot(); }

RunResult Cwsc(std::vector<std::string> args, const std::string& cwd = Src(),
               const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), Bin());
  return testing::Run(args, "", env, cwd);
}

// H is the hostile name; kShown how every report shows it.
const std::string kH = "-\x1b[31m\n\xc2\x9b\xff";
const std::string kShown = "-\\x1b[31m\\x0a\\u009b\\xff";
// A TOML or YAML string cannot hold \xff: the path of a config value has the rest.
const std::string kT = "-\x1b[31m\n\xc2\x9b";
const std::string kTShown = "-\\x1b[31m\\x0a\\u009b";
const char kTToml[] = "-\\u001b[31m\\n\\u009b";  // kT in a TOML basic string
const char kTYaml[] = "-\\e[31m\\n\\x9b";        // kT in a YAML double-quoted string
const char kTDsl[] = "-\x1b[31m\\n\xc2\x9b";     // kT in a .cwsp string (\n escaped)

// ExpectClean: no line holds a byte Displayable would escape (no raw
// control character, C1, or invalid UTF-8).
void ExpectClean(const std::string& text, const std::string& what) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::string l(line);
    EXPECT_EQ(ir::Displayable(l), l) << what << ": " << ir::Displayable(text);
  }
}

// Workspace facts: examples/facts/linux-workspace.yaml with /srv and
// /srv/<kT> directories.
class HostileOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string facts = testing::ReadFileOr(Src() + "/examples/facts/linux-workspace.yaml");
    size_t paths = facts.find("\npaths:\n");
    ASSERT_NE(paths, std::string::npos);
    facts.insert(paths + 8,
                 std::string("  /srv: {type: directory, canonical: /srv, mode: \"0755\", "
                             "uid: 0, gid: 0}\n  \"/srv/") +
                     kTYaml + "\": {type: directory, canonical: \"/srv/" + kTYaml +
                     "\", mode: \"0755\", uid: 1000, gid: 1000}\n");
    WriteFile(dir_ / "facts.yaml", facts);
    WriteFile(dir_ / "a.toml", "");
    WriteFile(dir_ / "b.toml", std::string("sandbox_writable_roots = [\"/srv/") + kTToml + "\"]\n");
    // The config's own name holds all of kH.
    WriteFile(hostile_config(),
              std::string("sandbox_writable_roots = [\"/srv/") + kTToml + "\", \"/srv\"]\n");
  }
  std::string facts() const { return dir_ / "facts.yaml"; }
  std::string hostile_config() const { return dir_.path() + "/c" + kH + ".toml"; }
  std::string shown_config() const { return dir_.path() + "/c" + kShown + ".toml"; }
  TempDir dir_;
};

TEST_F(HostileOutput, Why) {
  RunResult r = Cwsc({"why", "/srv/" + kH, hostile_config(), "--facts", facts()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "/srv/" + kShown +
                       " (mode ask, bwrap): read allowed, write allowed\n"
                       "  decided by:\n"
                       "    layer 5, argv 20: --bind /srv /srv  (writable)\n"
                       "      from config sandbox_writable_roots at " +
                       shown_config() +
                       ":1:55\n"
                       "  overrides:\n"
                       "    layer 0, argv 8: --ro-bind / /  (read-only)\n"
                       "      from default bwrap base view\n");
  ExpectClean(r.out, "why");
  ExpectClean(r.err, "why stderr");
  // The root itself: its bind names it, escaped; the JSON names the bytes.
  RunResult t = Cwsc({"why", "/srv/" + kT, hostile_config(), "--facts", facts(), "--write"});
  EXPECT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(t.out, "/srv/" + kTShown +
                       " (mode ask, bwrap): write allowed\n"
                       "  decided by:\n"
                       "    layer 6, argv 23: --bind /srv/" +
                       kTShown + " /srv/" + kTShown +
                       "  (writable)\n"
                       "      from config sandbox_writable_roots at " +
                       shown_config() +
                       ":1:27\n"
                       "  overrides:\n"
                       "    layer 5, argv 20: --bind /srv /srv  (writable)\n"
                       "      from config sandbox_writable_roots at " +
                       shown_config() +
                       ":1:55\n"
                       "    layer 0, argv 8: --ro-bind / /  (read-only)\n"
                       "      from default bwrap base view\n");
  RunResult j = Cwsc({"why", "/srv/" + kT, hostile_config(), "--facts", facts(), "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  ExpectClean(j.out, "why --json");
  Json result = Json::parse(j.out)["result"];
  EXPECT_EQ(result["path"], "/srv/" + kT);
  EXPECT_EQ(result["chain"][0]["rule"], "--bind /srv/" + kT + " /srv/" + kT);
}

TEST_F(HostileOutput, Check) {
  RunResult r = Cwsc({"check", hostile_config(), "--facts", facts(), "--unlisted-as-missing"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string at = shown_config();
  EXPECT_EQ(r.out, at +
                       ": valid config; no expectations (check it against a .cwsp file's with "
                       "--expect FILE.cwsp)\n"
                       "  lint git-writable at mode workspace of permission mode ask (ask, "
                       "auto-review): the writable root '/home/dev/proj' holds a writable '.git': "
                       "a hook or config written there runs outside the sandbox at the next git "
                       "command\n"
                       "    fix: add `protect \".git\";` (TOML: list .git in the protected names)\n"
                       "  lint nested-root at " +
                       at + ":1:27 (ask, auto-review): the writable root '/srv/" + kTShown +
                       "' lies inside the writable root '/srv' (" + at +
                       ":1:55)\n"
                       "    fix: remove the inner one\n");
  EXPECT_EQ(r.err, "");
  ExpectClean(r.out, "check");
  // An expectation about the path: its verdict line names it escaped.
  WriteFile(dir_ / "e.cwsp",
            "policy e {\n  expect write \"/srv/" + std::string(kTDsl) + "\" allowed in ask;\n}\n");
  RunResult e = Cwsc({"check", hostile_config(), "--expect", dir_ / "e.cwsp", "--facts", facts(),
                      "--unlisted-as-missing", "--mode", "ask"});
  EXPECT_EQ(e.exit_code, 0) << e.err;
  const std::string e_at = dir_ / "e.cwsp";
  EXPECT_EQ(e.out,
            "config (" + at +
                "): 1 expectation\n"
                "  expect write \"/srv/-\\x1B[31m\\n\\u009b\" allowed in ask  (" +
                e_at +
                ":2:3)\n"
                "    pass  ask, bwrap: /srv/" +
                kTShown +
                ": allowed (writable)\n"
                "          by layer 6, argv 23: --bind /srv/-\\x1b[31m \\u009b /srv/-\\x1b[31m "
                "\\u009b\n"
                "          from config sandbox_writable_roots at " +
                at +
                ":1:27\n"
                "  lint git-writable at mode workspace of permission mode ask (ask): the "
                "writable root '/home/dev/proj' holds a writable '.git': a hook or config "
                "written there runs outside the sandbox at the next git command\n"
                "    fix: add `protect \".git\";` (TOML: list .git in the protected names)\n"
                "  lint nested-root at " +
                at + ":1:27 (ask): the writable root '/srv/" + kTShown +
                "' lies inside the writable root '/srv' (" + at +
                ":1:55)\n"
                "    fix: remove the inner one\n"
                "check: 1 passed, 0 failed\n");
  ExpectClean(e.out, "check --expect");
  RunResult j = Cwsc({"check", "--json", hostile_config(), "--expect", dir_ / "e.cwsp", "--facts",
                      facts(), "--unlisted-as-missing", "--mode", "ask"});
  ExpectClean(j.out, "check --json");
  EXPECT_EQ(Json::parse(j.out)["result"]["results"][0]["path"], "/srv/" + kT);
}

TEST_F(HostileOutput, Diff) {
  RunResult r =
      Cwsc({"diff", dir_ / "a.toml", dir_ / "b.toml", "--facts", facts(), "--unlisted-as-missing"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The rule is folded onto one line (a line break reads as a blank there);
  // the path of the change keeps it, escaped.
  const std::string b = dir_ / "b.toml";
  EXPECT_EQ(r.out, "widened (B allows what A did not):\n  write /srv/" + kTShown +
                       ": denied -> allowed (read-only -> writable)\n"
                       "    B: layer 5, argv 20: --bind /srv/-\\x1b[31m \\u009b /srv/-\\x1b[31m "
                       "\\u009b; from config sandbox_writable_roots at " +
                       b +
                       ":1:27\n"
                       "    A: layer 0, argv 8: --ro-bind / /; from default bwrap base view\n"
                       "narrowed (B denies what A allowed):\n  read /srv/" +
                       kTShown +
                       "/.codewhale: allowed -> denied (read-only -> private)\n"
                       "    B: layer 11, argv 36: --tmpfs /srv/-\\x1b[31m \\u009b/.codewhale; from "
                       "default protected name .codewhale\n"
                       "    A: layer 0, argv 8: --ro-bind / /; from default bwrap base view\n"
                       "  read /srv/" +
                       kTShown +
                       "/.deepseek: allowed -> denied (read-only -> private)\n"
                       "    B: layer 13, argv 40: --tmpfs /srv/-\\x1b[31m \\u009b/.deepseek; from "
                       "default protected name .deepseek\n"
                       "    A: layer 0, argv 8: --ro-bind / /; from default bwrap base view\n"
                       "diff: 1 widened, 2 narrowed\n");
  ExpectClean(r.out, "diff");
  ExpectClean(r.err, "diff stderr");
  RunResult j = Cwsc({"diff", "--json", dir_ / "a.toml", dir_ / "b.toml", "--facts", facts(),
                      "--unlisted-as-missing"});
  ExpectClean(j.out, "diff --json");
  EXPECT_EQ(Json::parse(j.out)["result"]["changes"][0]["path"], "/srv/" + kT);
}

TEST_F(HostileOutput, Audit) {
  std::vector<std::string> args = {
      "audit",  "--why",      "/srv/" + kH, "--",        "bwrap", "--ro-bind",   "/",  "/",
      "--bind", "/srv/" + kH, "/srv/" + kH, "--symlink", kH,      "/srv/l" + kH, "--", "sh"};
  RunResult r = Cwsc(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string p = "/srv/" + kShown;
  EXPECT_EQ(r.out,
            "bwrap: 2 mount layers, network shared (the host's)\n"
            "writable:\n  " +
                p + "  (--bind " + p + " " + p +
                ")\n"
                "read-only:\n"
                "  /  (--ro-bind / /)\n"
                "symlinks:\n"
                "  /srv/l" +
                kShown + " -> " + kShown + "  (--symlink " + kShown + " /srv/l" + kShown + ")\n" +
                p +
                " (bwrap): read allowed, write allowed\n"
                "  decided by:\n"
                "    layer 1, argv 4: --bind " +
                p + " " + p +
                "  (writable)\n"
                "  overrides:\n"
                "    layer 0, argv 1: --ro-bind / /  (read-only)\n");
  ExpectClean(r.out, "audit");
  ExpectClean(r.err, "audit stderr");
  // Semantic: the interpreter finds the bind at the raw path.
  auto view = backends::InterpretBwrapArgv(std::vector<std::string>(args.begin() + 4, args.end()));
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->Find("/srv/" + kH).access, backends::Access::kWritable);
}

TEST_F(HostileOutput, Explain) {
  RunResult r =
      Cwsc({"explain", hostile_config(), "--facts", facts(), "--unlisted-as-missing", "--", kH});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string at = shown_config();
  // Each token as --format shell quotes it, then escaped.
  for (const std::string& line : {
           "\n'/srv/" + kTShown + "'             # config sandbox_writable_roots at " + at +
               ":1:27\n",
           "\n'/srv/" + kTShown + "/.codewhale'  # default protected name .codewhale\n",
           "\n'" + kShown + "'              # cli program\n",
           "\n# lint [nested-root] at " + at + ":1:27: the writable root '/srv/" + kTShown +
               "' lies inside the writable root '/srv' (" + at +
               ":1:55); fix: remove the inner one\n",
       }) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  ExpectClean(r.out, "explain");
  ExpectClean(r.err, "explain stderr");
  RunResult j = Cwsc({"explain", "--json", hostile_config(), "--facts", facts(),
                      "--unlisted-as-missing", "--", kT});
  ExpectClean(j.out, "explain --json");
  EXPECT_EQ(Json::parse(j.out)["result"]["tokens"].back()["text"], kT);
}

TEST_F(HostileOutput, CompileLints) {
  // The argv holds a newline: --format nul carries it (lines refuses it).
  RunResult r = Cwsc({"compile", hostile_config(), "--facts", facts(), "--unlisted-as-missing",
                      "--format", "nul"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string at = shown_config();
  EXPECT_EQ(r.err,
            "cwsc: warning [git-writable]: the writable root '/home/dev/proj' holds a writable "
            "'.git': a hook or config written there runs outside the sandbox at the next git "
            "command (mode workspace of permission mode ask)\n"
            "  fix: add `protect \".git\";` (TOML: list .git in the protected names)\n" +
                at + ":1:27: warning [nested-root]: the writable root '/srv/" + kTShown +
                "' lies inside the writable root '/srv' (" + at +
                ":1:55)\n"
                "  fix: remove the inner one\n");
  ExpectClean(r.err, "compile stderr");
  // Semantic: the argv binds the raw path.
  EXPECT_NE(r.out.find("/srv/" + kT + '\0' + "/srv/" + kT + '\0'), std::string::npos) << r.out;
}

// A refusal quotes the config's value, escaped, from run and from exec.
TEST_F(HostileOutput, RunAndExecRefusals) {
  // A plan is JSON: the config's name holds what JSON can carry.
  const std::string cfg = dir_.path() + "/r" + kT + ".toml";
  WriteFile(cfg, std::string("sandbox_backend = \"docker") + kTToml + "\"\n");
  RunResult r = Cwsc({"run", cfg, "--", "touch", dir_ / "ran"});
  EXPECT_EQ(r.exit_code, 125);
  const std::string refusal =
      "cwsc: refused: unsupported sandbox_backend 'docker" + kTShown +
      "': shell execution is refused; choose a supported backend (opensandbox) or explicitly "
      "select none\n";
  EXPECT_EQ(r.err, refusal);
  RunResult plan = Cwsc({"compile", cfg, "--target", "plan"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  ExpectClean(plan.out, "the refused plan");
  EXPECT_EQ(Json::parse(plan.out)["launch"]["refusal"]["reason"],
            "unsupported sandbox_backend 'docker" + kT +
                "': shell execution is refused; choose a supported backend (opensandbox) or "
                "explicitly select none");
  WriteFile(dir_ / "plan.json", plan.out);
  RunResult e = Cwsc({"exec", dir_ / "plan.json", "--", "touch", dir_ / "ran"});
  EXPECT_EQ(e.exit_code, 125);
  EXPECT_EQ(e.err, refusal);
  EXPECT_FALSE(testing::Exists(dir_ / "ran"));
}

// A facts file's error names the file and shows the line, escaped, and
// stays a diagnostic with its caret.
TEST_F(HostileOutput, FactsErrors) {
  const std::string f = dir_.path() + "/f" + kH + ".yaml";
  WriteFile(f, "cwsc_facts: 1\nplatform: " + kH + "\n");
  RunResult r = Cwsc({"compile", dir_ / "a.toml", "--facts", f});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, dir_.path() + "/f" + kShown +
                       ".yaml:3:1: error: unknown key '\\u009b\\xff' in the facts file\n"
                       "  \\u009b\\xff\n"
                       "  ^\n");
  ExpectClean(r.err, "facts error");
}

TEST_F(HostileOutput, Doctor) {
  const std::string cfg = dir_.path() + "/d" + kH + ".toml";
  WriteFile(cfg, std::string("sandbox_backend = \"docker") + kTToml + "\"\n");
  RunResult r = Cwsc({"doctor", cfg});
  // The host's lines vary; the backend and every mode's line are the config's.
  EXPECT_NE(r.out.find("\nbackend: docker" + kTShown +
                       "\ncommand (ask mode): refused: "
                       "unsupported sandbox_backend 'docker" +
                       kTShown + "': shell execution is refused;"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n  ask: workspace-write, refused, network on, refused: unsupported "
                       "sandbox_backend 'docker" +
                       kTShown +
                       "': shell execution is refused; choose a supported backend (opensandbox) "
                       "or explicitly select none\n"),
            std::string::npos)
      << r.out;
  ExpectClean(r.out, "doctor");
  ExpectClean(r.err, "doctor stderr");
}

// --format shell quotes every byte: sh gets each token back whole, the
// same tokens --format nul prints.
TEST_F(HostileOutput, ShellFormatRoundTripsEveryByte) {
  std::vector<std::string> base = {"compile", dir_ / "b.toml",         "--facts",
                                   facts(),   "--unlisted-as-missing", "--format"};
  std::vector<std::string> program = {"--", "printf", kH, "'" + kH + "\"", kH + "'\\"};
  std::vector<std::string> shell_args = base, nul_args = base;
  shell_args.push_back("shell");
  nul_args.push_back("nul");
  shell_args.insert(shell_args.end(), program.begin(), program.end());
  nul_args.insert(nul_args.end(), program.begin(), program.end());
  RunResult shell = Cwsc(shell_args);
  RunResult nul = Cwsc(nul_args);
  ASSERT_EQ(shell.exit_code, 0) << shell.err;
  ASSERT_EQ(nul.exit_code, 0) << nul.err;
  ASSERT_FALSE(shell.out.empty());
  EXPECT_EQ(shell.out.back(), '\n');
  // Each token in single quotes, a quote as '\'', the newline inside them.
  EXPECT_NE(shell.out.find(" '/srv/" + kT + "' '/srv/" + kT + "' "), std::string::npos);
  EXPECT_NE(shell.out.find(" -- printf '" + kH + "' ''\\''" + kH + "\"' '" + kH + "'\\''\\'\n"),
            std::string::npos)
      << shell.out;
  std::string line = shell.out.substr(0, shell.out.size() - 1);
  RunResult back = testing::Run({"/bin/sh", "-c", "printf '%s\\0' " + line});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(back.out, nul.out);
  EXPECT_NE(nul.out.find(std::string("\0/srv/", 6) + kT + '\0'), std::string::npos);
}

// JSON output is valid JSON, gives the same tokens back, and no byte of it
// acts on a terminal; a token that is not UTF-8 is refused by --format json
// and replaced (U+FFFD) in the --json report.
TEST_F(HostileOutput, JsonFormsAreValidAndInert) {
  RunResult json = Cwsc({"compile", dir_ / "b.toml", "--facts", facts(), "--unlisted-as-missing",
                         "--format", "json", "--", "printf", kT});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  ExpectClean(json.out, "--format json");
  std::vector<std::string> tokens = Json::parse(json.out).get<std::vector<std::string>>();
  EXPECT_EQ(tokens.back(), kT);
  EXPECT_NE(std::find(tokens.begin(), tokens.end(), "/srv/" + kT), tokens.end());
  EXPECT_NE(json.out.find("\"-\\u001b[31m\\n\\u009b\"]"), std::string::npos) << json.out;

  RunResult bad = Cwsc({"compile", dir_ / "b.toml", "--facts", facts(), "--unlisted-as-missing",
                        "--format", "json", "--", "printf", kH});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err,
            "cwsc: error: an argv token is not valid UTF-8; JSON cannot carry it (use --format nul "
            "or shell)\n");

  RunResult report = Cwsc({"compile", "--json", hostile_config(), "--facts", facts(),
                           "--unlisted-as-missing", "--", "printf", kH});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  ExpectClean(report.out, "--json");
  Json j = Json::parse(report.out);
  std::vector<std::string> argv = j["result"]["argv"].get<std::vector<std::string>>();
  ASSERT_FALSE(argv.empty()) << report.out;
  EXPECT_EQ(argv.back(), "-\x1b[31m\n\xc2\x9b\xef\xbf\xbd");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "/srv/" + kT), argv.end());
  // The lint's message in the report, escaped as on stderr.
  EXPECT_NE(report.out.find("\"message\": \"the writable root '/srv/-\\\\x1b[31m\\\\x0a\\\\u009b'"),
            std::string::npos)
      << report.out;

  RunResult plan = Cwsc({"compile", dir_ / "b.toml", "--facts", facts(), "--unlisted-as-missing",
                         "--target", "plan"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  ExpectClean(plan.out, "--target plan");
  const Json roots = Json::parse(plan.out)["policy"]["writable_roots"];
  EXPECT_NE(std::find(roots.begin(), roots.end(), Json("/srv/" + kT)), roots.end()) << plan.out;
}

// The OpenSandbox request review (compile --target opensandbox) is text for
// people: the config's path and the command in the body are escaped.
TEST_F(HostileOutput, OpenSandboxReview) {
  const std::string cfg = dir_.path() + "/o" + kH + ".toml";
  WriteFile(cfg,
            "sandbox_backend = \"OpenSandbox\"\nsandbox_url = \"http://127.0.0.1:9/\"\n"
            "sandbox_api_key = \"sk-hostile-test\"\n");
  RunResult r = Cwsc({"compile", cfg, "--target", "opensandbox", "--", "printf", kT});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string at = dir_.path() + "/o" + kShown + ".toml:3:19";
  for (const std::string& line : {
           "\n# API key: from config sandbox_api_key at " + at + " (redacted)\n",
           "\nAuthorization: Bearer <redacted: config sandbox_api_key at " + at + ">\n",
           std::string("\n  \"cmd\": \"printf '-\\u001b[31m\\n\\u009b'\",\n"),
       }) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  ExpectClean(r.out, "opensandbox review");
  EXPECT_EQ(r.out.find("sk-hostile-test"), std::string::npos);
}

// A Seatbelt profile holds none of the bytes of a path: paths are -D
// parameters, which --format shell quotes.
TEST_F(HostileOutput, SeatbeltProfileHoldsNoOutsideBytes) {
  const std::string mac = Src() + "/examples/facts/macos-workspace.yaml";
  const std::string cfg = dir_ / "m.toml";
  WriteFile(cfg, std::string("sandbox_writable_roots = [\"/Users/dev/proj/") + kTToml + "\"]\n");
  RunResult sbpl =
      Cwsc({"compile", cfg, "--facts", mac, "--unlisted-as-missing", "--format", "sbpl", "--", kH});
  ASSERT_EQ(sbpl.exit_code, 0) << sbpl.err;
  ExpectClean(sbpl.out, "the profile");
  for (char c : std::string("\x1b\xc2\x9b\xff")) EXPECT_EQ(sbpl.out.find(c), std::string::npos);
}

// The writers are the only way cli/ reaches stdout and stderr: a report is an
// ir::Text printed by PrintReport/PrintErrText, a message goes through
// PrintError/PrintWarning/PrintNote/PrintRefused (which escape), an artifact
// through WriteOut. A new direct write fails here and must be one of
// those, or be listed with the reason it is safe.
TEST(ReportWriters, CliWritesOnlyThroughTheWriters) {
  const std::map<std::string, int> kAllowed = {
      {"cli_options.cc", 9},  // the Print* writers and WriteOut themselves
      {"cli_parse.cc", 2},    // the usage error (escaped) and --help
      {"cmd_check.cc", 1},    // an internal error, escaped
      {"cmd_compile.cc", 1},  // an internal error, escaped
      {"cmd_facts.cc", 1},    // the facts YAML (ASCII: yaml-cpp escapes the rest)
      {"cmd_fmt.cc", 3},      // two lines naming a file, escaped; the formatted file
      {"cmd_run.cc", 2},      // a hardening warning, escaped; --json-fd's number
      {"cwsc_main.cc", 4},    // help and version
      {"json_report.cc", 1},  // the JSON report (TerminalSafeJson)
  };
  const std::regex write(R"(\b(fputs|puts|printf|fprintf|fwrite)\(|std::cout|std::cerr)");
  for (const auto& e : std::filesystem::directory_iterator(Src() + "/cli")) {
    if (e.path().extension() != ".cc") continue;
    std::string text = testing::ReadFileOr(e.path().string());
    int n = static_cast<int>(std::distance(std::sregex_iterator(text.begin(), text.end(), write),
                                           std::sregex_iterator()));
    std::string name = e.path().filename().string();
    auto it = kAllowed.find(name);
    EXPECT_EQ(n, it == kAllowed.end() ? 0 : it->second)
        << name << ": print a report through PrintReport (an ir::Text), a message through "
        << "PrintError";
  }
}

}  // namespace
}  // namespace cwsc
