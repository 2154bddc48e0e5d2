// `--json`: one envelope on every reporting command (docs/cli.md, "JSON
// output"). Each command has a golden of its report (tests/golden/json/, the
// tool version written as @VERSION@) and a semantic check that parses the
// report and compares it with what the command says in text, or with the
// interpreters. Errors print the envelope too, with file:line:col as fields;
// unsupported combinations are usage errors; the OpenSandbox key never shows.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "backends/verify/bwrap_interp.h"
#include "ir/display.h"
#include "nlohmann/json.hpp"
#include "tests/runtime/proc_helpers.h"
#include "tests/testing/golden.h"

namespace cwsc {
namespace {

using Json = nlohmann::json;
using testing::ReadFileOr;
using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

std::string Bin() { return std::getenv("CWSC_BIN") ? std::getenv("CWSC_BIN") : "cwsc"; }
std::string Src() { return testing::SourceRoot(); }
std::string Version() {
  return std::getenv("CWSC_PROJECT_VERSION") ? std::getenv("CWSC_PROJECT_VERSION") : "";
}

RunResult Cwsc(std::vector<std::string> args, const std::string& cwd = Src(),
               const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), Bin());
  return testing::Run(args, "", env, cwd);
}

// Golden compares a report with tests/golden/json/NAME, the tool version
// replaced (a release changes it, not the report).
void Golden(const std::string& name, const std::string& report) {
  std::string text = report;
  for (const char* sep : {": ", ":"}) {
    std::string from = std::string("\"tool_version\"") + sep + "\"" + Version() + "\"";
    std::string to = std::string("\"tool_version\"") + sep + "\"@VERSION@\"";
    if (size_t at = text.find(from); at != std::string::npos) text.replace(at, from.size(), to);
  }
  testing::CheckGolden(Src() + "/tests/golden/json/" + name, text);
}

// Envelope parses a report and checks the envelope's own fields.
Json Envelope(const std::string& text, const std::string& command, int exit_code) {
  Json j = Json::parse(text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << text;
  if (j.is_discarded()) return Json::object();
  EXPECT_EQ(j["cwsc"]["format"], "cwsc-report");
  EXPECT_EQ(j["cwsc"]["version"], 1);
  EXPECT_EQ(j["cwsc"]["command"], command);
  EXPECT_EQ(j["cwsc"]["tool_version"], Version());
  EXPECT_EQ(j["exit_code"], exit_code);
  bool errors = false;
  for (const Json& d : j["diagnostics"]) errors = errors || d["severity"] == "error";
  EXPECT_EQ(j["ok"], !errors && !j["result"].is_null()) << text;
  return j;
}

const char kLinuxWs[] = "examples/facts/linux-workspace.yaml";
const char kLinuxRo[] = "examples/facts/linux-readonly.yaml";
const char kLinuxLocked[] = "examples/facts/linux-locked-down.yaml";

TEST(JsonReport, CompileArgvIsTheArgvOfTheJsonFormat) {
  RunResult r = Cwsc({"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Golden("compile.json", r.out);
  Json j = Envelope(r.out, "compile", 0);
  EXPECT_EQ(j["result"]["plan_kind"], "linux-bwrap");
  EXPECT_EQ(j["result"]["target"], "bwrap");
  RunResult plain =
      Cwsc({"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--format", "json"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(j["result"]["argv"], Json::parse(plain.out));
  // The setting the plan skips (its `skipped` entry of kind setting) is a
  // note at its line; the one lint (.git is writable) a warning.
  ASSERT_EQ(j["diagnostics"].size(), 2u) << r.out;
  EXPECT_EQ(j["diagnostics"][0]["severity"], "note");
  EXPECT_EQ(j["diagnostics"][0]["message"], "skipped bwrap_ro_roots /opt/toolchains: missing");
  EXPECT_EQ(j["diagnostics"][0]["line"], 8);
  EXPECT_EQ(j["diagnostics"][1]["severity"], "warning");
  EXPECT_EQ(j["diagnostics"][1]["code"], "git-writable");
}

TEST(JsonReport, CompilePlanIsThePlan) {
  RunResult r = Cwsc(
      {"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--target", "plan", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Golden("compile_plan.json", r.out);
  Json j = Envelope(r.out, "compile", 0);
  RunResult plan =
      Cwsc({"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--target", "plan"});
  EXPECT_EQ(j["result"]["plan"], Json::parse(plan.out));
  EXPECT_EQ(j["result"]["target"], "plan");
  EXPECT_FALSE(j["result"].contains("argv"));
  // Each skipped setting of the plan is a note of the report, in order.
  std::vector<std::string> skipped, notes;
  for (const Json& s : j["result"]["plan"]["skipped"]) {
    if (s["kind"] != "setting") continue;
    skipped.push_back("skipped " + s["what"].get<std::string>() +
                      (s["path"] == "" ? "" : " " + s["path"].get<std::string>()) + ": " +
                      s["reason"].get<std::string>());
  }
  for (const Json& d : j["diagnostics"]) {
    if (d["severity"] == "note") notes.push_back(d["message"]);
  }
  EXPECT_FALSE(skipped.empty());
  EXPECT_EQ(notes, skipped);
}

// A plan's warnings are diagnostics with their code.
TEST(JsonReport, CompileWarningsAreDiagnostics) {
  TempDir t;
  WriteFile(t / "c.toml", "sandbox_mode = \"workspace-write\"\nprefer_bwrap = false\n");
  RunResult r = Cwsc({"compile", "c.toml", "--facts", Src() + "/" + kLinuxWs, "--json"}, t.path());
  Json j = Envelope(r.out, "compile", r.exit_code);
  RunResult text = Cwsc({"compile", "c.toml", "--facts", Src() + "/" + kLinuxWs}, t.path());
  EXPECT_EQ(r.exit_code, text.exit_code);
  // Every line cwsc printed on stderr is one diagnostic.
  std::vector<std::string> lines = absl::StrSplit(text.err, '\n', absl::SkipEmpty());
  ASSERT_EQ(j["diagnostics"].size(), lines.size()) << r.out << text.err;
  for (size_t i = 0; i < lines.size(); ++i) {
    const Json& d = j["diagnostics"][i];
    if (d["code"].is_string()) {
      EXPECT_EQ(lines[i], "cwsc: warning [" + d["code"].get<std::string>() +
                              "]: " + d["message"].get<std::string>());
    } else {
      EXPECT_EQ(lines[i], "cwsc: " + d["severity"].get<std::string>() + ": " +
                              d["message"].get<std::string>());
    }
  }
}

TEST(JsonReport, ExplainGivesEveryTokenWithItsOrigin) {
  RunResult r = Cwsc({"explain", "examples/locked-down.cwsp", "--facts", kLinuxLocked, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Golden("explain.json", r.out);
  Json j = Envelope(r.out, "explain", 0);
  RunResult argv =
      Cwsc({"compile", "examples/locked-down.cwsp", "--facts", kLinuxLocked, "--format", "json"});
  std::vector<std::string> texts;
  for (const Json& t : j["result"]["tokens"]) texts.push_back(t["text"]);
  EXPECT_EQ(Json(texts), Json::parse(argv.out));
  // The text form names the same origin on each token's line.
  RunResult text = Cwsc({"explain", "examples/locked-down.cwsp", "--facts", kLinuxLocked});
  std::vector<std::string> lines = absl::StrSplit(text.out, '\n');
  size_t line = 2;  // after the plan kind and policy lines
  const std::set<std::string> kinds = {"default", "config", "managed", "project",
                                       "env",     "mode",   "fact",    "cli"};
  bool config_origin = false;
  for (const Json& t : j["result"]["tokens"]) {
    ASSERT_LT(line, lines.size());
    EXPECT_NE(lines[line].find("  # " + t["origin"]["text"].get<std::string>()), std::string::npos)
        << lines[line];
    ++line;
    EXPECT_TRUE(kinds.count(t["origin"]["kind"])) << t.dump();
    if (t["origin"]["kind"] == "config") {
      config_origin = true;
      EXPECT_EQ(t["origin"]["file"], "examples/locked-down.cwsp");
      EXPECT_GT(t["origin"]["line"], 0);
      EXPECT_GT(t["origin"]["col"], 0);
    }
  }
  EXPECT_TRUE(config_origin) << "a token of examples/locked-down.cwsp's own";
  EXPECT_TRUE(j["result"]["refusal"].is_null());
  EXPECT_TRUE(j["result"]["skipped"].is_array());
}

// A Seatbelt argv: its profile token is given line by line, each line with
// its origin, and the lines are the token.
TEST(JsonReport, ExplainGivesTheSeatbeltProfileByLine) {
  RunResult r = Cwsc({"explain", "examples/workspace.cwsp", "--facts",
                      "examples/facts/macos-workspace.yaml", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json j = Envelope(r.out, "explain", 0);
  EXPECT_EQ(j["result"]["plan_kind"], "macos-seatbelt");
  ASSERT_TRUE(j["result"]["profile"].is_array()) << r.out;
  ASSERT_GT(j["result"]["tokens"].size(), 2u);
  EXPECT_EQ(j["result"]["tokens"][1]["text"], "-p");
  std::string joined;
  std::set<std::string> kinds;
  for (const Json& line : j["result"]["profile"]) {
    if (&line != &j["result"]["profile"][0]) joined += "\n";
    joined += line["text"].get<std::string>();
    kinds.insert(line["origin"]["kind"]);
  }
  EXPECT_EQ(joined, j["result"]["tokens"][2]["text"]);
  EXPECT_TRUE(kinds.count("config")) << "a profile line from the policy's own settings";
}

// explain's --format was accepted and ignored: now a usage error naming --json.
TEST(JsonReport, ExplainRejectsFormat) {
  for (const char* form : {"--format=json", "--format"}) {
    std::vector<std::string> args = {"explain", "examples/workspace.cwsp", "--facts", kLinuxWs,
                                     form};
    if (std::string(form) == "--format") args.push_back("json");
    RunResult r = Cwsc(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.substr(0, r.err.find('\n') + 1),
              "cwsc: error: explain has no --format: use --json for the JSON form\n");
  }
}

// Combinations --json cannot honour are usage errors, reported in the envelope.
TEST(JsonReport, UnsupportedCombinationsAreUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string command, message;
    bool hint = true;  // a usage error of the command line carries the help hint
  };
  std::string ws = "examples/workspace.cwsp";
  std::vector<Case> cases = {
      {{"compile", ws, "--facts", kLinuxWs, "--json", "--format", "shell"},
       "compile",
       "--json and --format shell cannot be combined: --json prints the artifact in the JSON "
       "report"},
      {{"compile", ws, "--facts", kLinuxWs, "--json", "--target", "seccomp-bpf"},
       "compile",
       "--target seccomp-bpf is a binary program: it has no --json form (use --target seccomp)"},
      {{"fmt", ws, "--json"}, "fmt", "fmt --json reports a --check: it needs --check"},
      {{"run", "examples/workspace.toml", "--json", "--", "true"},
       "run",
       "--json needs -o FILE or --json-fd N: the command's own stderr cannot carry a result it "
       "could forge"},
      {{"exec", "plan.json", "--json", "--json-fd", "1", "--", "true"},
       "exec",
       "--json-fd: expected a descriptor number of 3 or more (0, 1 and 2 are the command's own), "
       "got '1'",
       false},
  };
  for (const Case& c : cases) {
    RunResult r = Cwsc(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    // A usage error: one line and the hint (docs/cli.md).
    EXPECT_EQ(r.err, "cwsc: error: " + c.message + "\n" +
                         (c.hint ? "Try 'cwsc " + c.command + " --help'.\n" : ""));
    Json j = Envelope(r.out, c.command, 2);
    EXPECT_EQ(j["ok"], false);
    EXPECT_TRUE(j["result"].is_null());
    ASSERT_EQ(j["diagnostics"].size(), 1u) << r.out;
    EXPECT_EQ(j["diagnostics"][0]["severity"], "error");
    EXPECT_EQ(j["diagnostics"][0]["message"], c.message);
  }
}

// --format was ignored by the targets that print no argv: a usage error now.
TEST(JsonReport, FormatNeedsAnArgvTarget) {
  RunResult r = Cwsc({"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--target", "plan",
                      "--format", "nul"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "cwsc: error: --format nul does not apply to --target plan: it prints the plan JSON\n"
            "Try 'cwsc compile --help'.\n");
  r = Cwsc({"compile", "examples/remote.cwsp", "--facts", kLinuxWs, "--target", "opensandbox",
            "--format", "shell"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "cwsc: error: --format shell does not apply to --target opensandbox: it prints the "
            "requests as text, or as JSON with --format json\nTry 'cwsc compile --help'.\n");
  r = Cwsc({"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--target", "seccomp",
            "--format", "json"});
  EXPECT_EQ(r.err,
            "cwsc: error: --format json does not apply to --target seccomp: it prints a listing\n"
            "Try 'cwsc compile --help'.\n");
  // A usage error is the report's diagnostic, with the message stderr shows.
  r = Cwsc({"check", "--json"}, Src(), {"HOME=/nonexistent", "CODEWHALE_HOME="});
  EXPECT_EQ(r.exit_code, 2);
  Json j = Envelope(r.out, "check", 2);
  ASSERT_EQ(j["diagnostics"].size(), 1u) << r.out;
  EXPECT_EQ(j["diagnostics"][0]["code"], "usage");
  const std::string message = j["diagnostics"][0]["message"];
  EXPECT_EQ(r.err, "cwsc: error: " + message + "\nTry 'cwsc check --help'.\n");
  EXPECT_EQ(message.rfind("no CONFIG given and no config file found; looked for ", 0), 0u)
      << message;
}

// Options that had no effect in the combination given: usage errors now.
TEST(Usage, OptionsWithoutEffectAreErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string ws = "examples/workspace.cwsp";
  const std::string unlisted =
      "--unlisted-as-missing needs --facts FILE: it applies to a facts file";
  const std::string no_for = " needs --for CONFIG: without it no compile runs";
  const std::string chooses = "--read, --write and --exec choose what --why explains";
  std::vector<Case> cases = {
      {{"compile", ws, "--unlisted-as-missing"}, unlisted},
      {{"explain", ws, "--unlisted-as-missing"}, unlisted},
      {{"check", ws, "--unlisted-as-missing"}, unlisted},
      {{"why", "/tmp", ws, "--unlisted-as-missing"}, unlisted},
      {{"diff", ws, ws, "--unlisted-as-missing"},
       "--unlisted-as-missing needs --facts FILE or --facts-b FILE: it applies to a facts file"},
      {{"facts", "--mode", "plan"}, "--mode MODE" + no_for},
      {{"facts", "--cwd", "/tmp"}, "--cwd DIR" + no_for},
      {{"facts", "--policy", "p"}, "--policy NAME" + no_for},
      {{"facts", "--input", "dsl"}, "--input FORMAT" + no_for},
      {{"audit", "--write", "--", "bwrap", "--ro-bind", "/", "/"},
       "--write needs --why PATH: " + chooses},
      {{"audit", "--read", "--exec", "--", "bwrap"}, "--read needs --why PATH: " + chooses},
      {{"audit", "-D", "HOME=/h", "--", "bwrap", "--ro-bind", "/", "/"},
       "-D KEY=VALUE needs --sbpl FILE: it sets a parameter of a Seatbelt profile"},
      {{"run", ws, "-o", "r.json", "--", "true"}, "-o FILE needs --json"},
      {{"exec", "p.json", "--json-fd", "3", "--", "true"}, "--json-fd N needs --json"},
  };
  for (const Case& c : cases) {
    RunResult r = Cwsc(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[0] << " " << c.message;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.substr(0, r.err.find('\n') + 1), "cwsc: error: " + c.message + "\n");
  }
  // --help wins over a flag without what it needs.
  EXPECT_EQ(Cwsc({"compile", ws, "--unlisted-as-missing", "--help"}).exit_code, 0);
  // With what they apply to, they are fine.
  EXPECT_EQ(Cwsc({"compile", ws, "--facts", kLinuxWs, "--unlisted-as-missing"}).exit_code, 0);
  EXPECT_EQ(Cwsc({"diff", ws, ws, "--facts-b", kLinuxWs, "--unlisted-as-missing"}).exit_code, 0);
}

// Bad input: exit 2 and the envelope on stdout, the place as fields.
// A list that stops at the error limit: each error with its place, then
// the closing line as an error of its own, as stderr shows them; an error
// of cwsc's own names no file. None of it is read back out of printed text.
TEST(JsonReport, ErrorsPastTheLimitAndErrorsWithoutAFile) {
  TempDir t;
  std::string text = "policy p {\n";
  for (int i = 0; i < 25; ++i) text += "  writable \"relative" + std::to_string(i) + "\"\n";
  text += "}\n";
  WriteFile(t / "many.cwsp", text);
  RunResult r =
      Cwsc({"compile", "many.cwsp", "--facts", Src() + "/" + kLinuxWs, "--json"}, t.path());
  Json j = Envelope(r.out, "compile", 2);
  ASSERT_EQ(j["diagnostics"].size(), 21u) << r.out;
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(j["diagnostics"][i]["severity"], "error") << i;
    EXPECT_EQ(j["diagnostics"][i]["file"], "many.cwsp") << i;
    EXPECT_EQ(j["diagnostics"][i]["line"], static_cast<int>(i) + 2) << i;
  }
  EXPECT_EQ(j["diagnostics"][20]["severity"], "error");
  EXPECT_EQ(j["diagnostics"][20]["message"], "too many errors; stopping");
  EXPECT_TRUE(j["diagnostics"][20]["file"].is_null());
  EXPECT_TRUE(absl::EndsWith(r.err, "\ntoo many errors; stopping\n")) << r.err;
  r = Cwsc({"compile", "many.cwsp", "--facts", Src() + "/" + kLinuxWs, "--mode", "turbo", "--json"},
           t.path());
  j = Envelope(r.out, "compile", 2);
  ASSERT_GE(j["diagnostics"].size(), 1u) << r.out;
  EXPECT_TRUE(j["diagnostics"][0]["file"].is_null());
  EXPECT_TRUE(j["diagnostics"][0]["line"].is_null());
}

TEST(JsonReport, ErrorsCarryFileLineCol) {
  TempDir t;
  WriteFile(t / "bad.toml", "sandbox_mode = \"workspace-write\"\nsandbox_mode = \"sometimes\"\n");
  RunResult r =
      Cwsc({"compile", "bad.toml", "--facts", Src() + "/" + kLinuxWs, "--json"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  Golden("compile_error.json", r.out);
  Json j = Envelope(r.out, "compile", 2);
  EXPECT_EQ(j["ok"], false);
  ASSERT_GE(j["diagnostics"].size(), 1u);
  // The stderr header of each error is file:line:col: error: message.
  std::smatch m;
  std::string err = r.err;
  size_t i = 0;
  std::regex header(R"(^([^ :]+):(\d+):(\d+): error: (.*)$)");
  for (const std::string& line : std::vector<std::string>(absl::StrSplit(err, '\n'))) {
    if (!std::regex_match(line, m, header)) continue;
    ASSERT_LT(i, j["diagnostics"].size());
    const Json& d = j["diagnostics"][i++];
    EXPECT_EQ(d["severity"], "error");
    EXPECT_EQ(d["file"], m[1].str());
    EXPECT_EQ(d["line"], std::stoi(m[2].str()));
    EXPECT_EQ(d["col"], std::stoi(m[3].str()));
    EXPECT_EQ(d["message"], m[4].str());
  }
  EXPECT_EQ(i, j["diagnostics"].size()) << r.err;
  // A missing file, a refused plan (exit 3) and a target the plan has not (exit 4).
  r = Cwsc({"compile", "missing.toml", "--json"}, t.path());
  j = Envelope(r.out, "compile", 2);
  EXPECT_EQ(j["diagnostics"][0]["file"], "missing.toml");
  EXPECT_TRUE(j["diagnostics"][0]["line"].is_null());
  WriteFile(t / "refused.toml", "sandbox_backend = \"bogus\"\n");
  r = Cwsc({"compile", "refused.toml", "--facts", Src() + "/" + kLinuxWs, "--json"}, t.path());
  j = Envelope(r.out, "compile", 3);
  ASSERT_EQ(j["diagnostics"].size(), 1u) << r.out;
  EXPECT_EQ(j["diagnostics"][0]["code"], "refused");
  EXPECT_EQ(j["diagnostics"][0]["file"], "refused.toml");
  EXPECT_EQ(j["diagnostics"][0]["line"], 1);
  r = Cwsc({"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--target", "seatbelt",
            "--json"});
  j = Envelope(r.out, "compile", 4);
  EXPECT_EQ(j["ok"], false);
  // explain shows a refused plan (exit 0): the refusal is in its result.
  r = Cwsc({"explain", "refused.toml", "--facts", Src() + "/" + kLinuxWs, "--json"}, t.path());
  j = Envelope(r.out, "explain", 0);
  EXPECT_EQ(j["result"]["plan_kind"], "refused");
  EXPECT_EQ(j["result"]["tokens"], Json::array());
  EXPECT_EQ(j["result"]["refusal"]["origin"]["file"], "refused.toml");
  EXPECT_EQ(j["result"]["refusal"]["reason"].get<std::string>().rfind(
                "unsupported sandbox_backend 'bogus'", 0),
            0u);
}

TEST(JsonReport, CheckHasItsFileAndCounts) {
  // A config without expectations is compiled in every mode (for its notes
  // and lints): recorded facts keep the report the same on every host.
  RunResult r = Cwsc({"check", "examples/workspace.toml", "--facts", kLinuxWs, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Golden("check_no_expectations.json", r.out);
  Json j = Envelope(r.out, "check", 0);
  EXPECT_EQ(j["result"]["file"], "examples/workspace.toml");
  EXPECT_EQ(j["result"]["results"], Json::array());
  EXPECT_EQ(j["result"]["warnings"], 0);
  RunResult text = Cwsc({"check", "examples/workspace.toml", "--facts", kLinuxWs});
  // The text's first line is the last diagnostic (the notes come first, on stderr).
  EXPECT_EQ(
      text.out.substr(0, text.out.find('\n') + 1),
      "examples/workspace.toml: " + j["diagnostics"].back()["message"].get<std::string>() + "\n");
  std::string err;
  for (size_t i = 0; i + 1 < j["diagnostics"].size(); ++i) {
    const Json& d = j["diagnostics"][i];
    err += d["file"].get<std::string>() + ":" + std::to_string(d["line"].get<int>()) + ":" +
           std::to_string(d["col"].get<int>()) + ": " + d["severity"].get<std::string>() + ": " +
           d["message"].get<std::string>() + "\n";
  }
  EXPECT_EQ(text.err, err);
  // Each lint of the report is a lint line of the text.
  for (const Json& l : j["result"]["lints"]) {
    EXPECT_NE(text.out.find("  lint " + l["code"].get<std::string>() + " at " +
                            l["location"].get<std::string>()),
              std::string::npos)
        << text.out;
  }
}

TEST(JsonReport, WhyAgreesWithItsText) {
  for (const char* path : {"~/.ssh/id_ed25519", "$WORKSPACE/src", "/etc/passwd"}) {
    SCOPED_TRACE(path);
    RunResult r = Cwsc({"why", path, "examples/workspace.cwsp", "--facts", kLinuxWs, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    if (std::string(path) == "~/.ssh/id_ed25519") Golden("why.json", r.out);
    Json j = Envelope(r.out, "why", 0);
    RunResult text = Cwsc({"why", path, "examples/workspace.cwsp", "--facts", kLinuxWs});
    std::string first = text.out.substr(0, text.out.find('\n'));
    std::string expect = j["result"]["path"].get<std::string>() + " (mode ask, bwrap):";
    for (const Json& d : j["result"]["decisions"]) {
      expect += (expect.back() == ':' ? " " : ", ") + d["access"].get<std::string>() +
                (d["allowed"] == true ? " allowed" : " denied");
    }
    EXPECT_EQ(first, expect);
    ASSERT_FALSE(j["result"]["chain"].empty());
    EXPECT_NE(text.out.find(j["result"]["chain"][0]["rule"].get<std::string>()), std::string::npos);
  }
}

TEST(JsonReport, DiffCountsItsChanges) {
  RunResult r = Cwsc({"diff", "examples/readonly.cwsp", "examples/workspace.cwsp", "--facts",
                      kLinuxRo, "--facts-b", kLinuxWs, "--json", "--exit-code"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  Golden("diff.json", r.out);
  Json j = Envelope(r.out, "diff", 1);
  int widened = 0, narrowed = 0;
  for (const Json& c : j["result"]["changes"]) {
    (c["change"] == "widened" ? widened : narrowed)++;
    EXPECT_EQ(c["b"]["allowed"], c["change"] == "widened");
    EXPECT_EQ(c["a"]["allowed"], c["change"] != "widened");
  }
  EXPECT_EQ(j["result"]["widened"], widened);
  EXPECT_EQ(j["result"]["narrowed"], narrowed);
  RunResult text = Cwsc({"diff", "examples/readonly.cwsp", "examples/workspace.cwsp", "--facts",
                         kLinuxRo, "--facts-b", kLinuxWs});
  EXPECT_NE(text.out.find("diff: " + std::to_string(widened) + " widened, " +
                          std::to_string(narrowed) + " narrowed\n"),
            std::string::npos)
      << text.out;
}

// audit's paths agree with the mount interpreter run here.
TEST(JsonReport, AuditAgreesWithTheInterpreter) {
  RunResult argv =
      Cwsc({"compile", "examples/workspace.cwsp", "--facts", kLinuxWs, "--format", "json"});
  std::vector<std::string> tokens = Json::parse(argv.out).get<std::vector<std::string>>();
  std::vector<std::string> args = {"audit", "--why", "/home/dev/.ssh", "--json", "--"};
  args.insert(args.end(), tokens.begin(), tokens.end());
  RunResult r = Cwsc(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Golden("audit.json", r.out);
  Json j = Envelope(r.out, "audit", 0);
  auto view = backends::InterpretBwrapArgv(tokens);
  ASSERT_TRUE(view.ok());
  ASSERT_FALSE(j["result"]["paths"].empty());
  for (const Json& p : j["result"]["paths"]) {
    backends::Access a = view->Find(p["path"]).access;
    std::string access = p["access"];
    if (access == "writable") {
      EXPECT_EQ(a, backends::Access::kWritable) << p.dump();
    } else if (access == "read-only") {
      EXPECT_EQ(a, backends::Access::kReadOnly) << p.dump();
    }
  }
  EXPECT_EQ(j["result"]["network"]["allowed"], !view->network_isolated);
  EXPECT_EQ(j["result"]["symlinks"].size(), view->symlinks.size());
  EXPECT_EQ(j["result"]["why"]["path"], "/home/dev/.ssh");
}

TEST(JsonReport, FmtCheckListsEachFile) {
  TempDir t;
  WriteFile(t / "ugly.cwsp", "policy p {\nmode   read-only;\n}\n");
  WriteFile(t / "fine.cwsp", "policy p {\n  mode read-only;\n}\n");
  RunResult r = Cwsc({"fmt", "--check", "--json", "ugly.cwsp", "fine.cwsp"}, t.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  Golden("fmt_check.json", r.out);
  Json j = Envelope(r.out, "fmt", 1);
  ASSERT_EQ(j["result"]["files"].size(), 2u);
  EXPECT_EQ(j["result"]["files"][0]["formatted"], false);
  EXPECT_EQ(j["result"]["files"][0]["line"], 2);
  EXPECT_EQ(j["result"]["files"][1]["formatted"], true);
  RunResult text = Cwsc({"fmt", "--check", "ugly.cwsp", "fine.cwsp"}, t.path());
  EXPECT_EQ(text.out, "ugly.cwsp:2: not formatted (run `cwsc fmt -w ugly.cwsp`)\n");
}

// doctor and facts read the live host: the report is compared with the text
// form; their error reports are goldens.
TEST(JsonReport, DoctorAndFactsOnThisHost) {
  RunResult r = Cwsc({"doctor", "--json"});
  Json j = Envelope(r.out, "doctor", r.exit_code);
  EXPECT_EQ(r.exit_code, j["result"]["sandbox"]["available"] == true ? 0 : 1);
  RunResult text = Cwsc({"doctor"});
  EXPECT_EQ(text.out.rfind(j["result"]["sandbox"]["available"] == true
                               ? "sandbox: linux-bwrap (available)\n"
                               : "sandbox: none (unavailable)\n",
                           0),
            0u)
      << text.out;
  r = Cwsc({"doctor", "missing.toml", "--json"});
  EXPECT_EQ(r.exit_code, 2);
  Golden("doctor_error.json", r.out);
  Envelope(r.out, "doctor", 2);

  r = Cwsc({"facts", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = Envelope(r.out, "facts", 0);
  text = Cwsc({"facts"});
  EXPECT_EQ(j["result"]["facts_yaml"], text.out);
  r = Cwsc({"facts", "--for", "missing.toml", "--json"});
  EXPECT_EQ(r.exit_code, 2);
  Golden("facts_error.json", r.out);
  Envelope(r.out, "facts", 2);
}

// run and exec write the report on their result channel, one line; an error
// after the channel is open goes there too.
TEST(JsonReport, RunAndExecReportOnTheirChannel) {
  TempDir t;
  WriteFile(t / "c.toml", "sandbox_mode = \"danger-full-access\"\n");
  RunResult r = Cwsc({"run", "c.toml", "--mode", "full-access", "--cwd", t.path(), "--json", "-o",
                      "r.json", "--", "/bin/sh", "-c", "exit 3"},
                     t.path());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, "");
  std::string line = ReadFileOr(t / "r.json");
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
  Golden("run.json", line);
  Json j = Envelope(line, "run", 3);
  EXPECT_EQ(j["result"]["exit_code"], 3);
  EXPECT_EQ(j["result"]["sandbox_kind"], "none");

  // A warning the runtime prints is a diagnostic of the report too.
  WriteFile(t / "unwrapped.toml", "sandbox_mode = \"workspace-write\"\nprefer_bwrap = false\n");
  r = Cwsc({"run", "unwrapped.toml", "--cwd", t.path(), "--json", "-o", "w.json", "--", "true"},
           t.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  j = Envelope(ReadFileOr(t / "w.json"), "run", 0);
  bool warned = false;
  for (const Json& d : j["diagnostics"]) {
    if (d["severity"] != "warning") continue;
    std::string m = d["message"];
    if (m.rfind("the command runs without a sandbox although the policy is workspace-write", 0) ==
        0) {
      warned = true;
      EXPECT_NE(r.err.find("cwsc: warning: " + m + "\n"), std::string::npos) << r.err;
    }
  }
  EXPECT_TRUE(warned) << ReadFileOr(t / "w.json");

  WriteFile(t / "bad.toml", "sandbox_mode = \"sometimes\"\n");
  r = Cwsc({"run", "bad.toml", "--json", "-o", "r.json", "--", "true"}, t.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  j = Envelope(ReadFileOr(t / "r.json"), "run", 2);
  ASSERT_EQ(j["diagnostics"].size(), 1u);
  EXPECT_EQ(j["diagnostics"][0]["file"], "bad.toml");
  EXPECT_EQ(j["diagnostics"][0]["line"], 1);

  WriteFile(t / "refused.toml", "sandbox_backend = \"bogus\"\n");
  RunResult plan = Cwsc(
      {"compile", "refused.toml", "--facts", Src() + "/" + kLinuxWs, "--target", "plan"}, t.path());
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  WriteFile(t / "plan.json", plan.out);
  r = Cwsc({"exec", "plan.json", "--json", "-o", "e.json", "--", "true"}, t.path());
  EXPECT_EQ(r.exit_code, 125) << r.err;
  Golden("exec_refused.json", ReadFileOr(t / "e.json"));
  j = Envelope(ReadFileOr(t / "e.json"), "exec", 125);
  EXPECT_EQ(j["result"]["ran"], false);
  ASSERT_EQ(j["diagnostics"].size(), 1u);
  EXPECT_EQ(j["diagnostics"][0]["code"], "refused");
  EXPECT_EQ(j["diagnostics"][0]["message"], j["result"]["refused"]);
}

// The OpenSandbox API key never appears in a report.
TEST(JsonReport, NoReportShowsTheApiKey) {
  const std::string key = "sk-json-report-test-0123456789";
  TempDir t;
  WriteFile(t / "remote.toml",
            "sandbox_backend = \"OpenSandbox\"\nsandbox_url = \"http://127.0.0.1:9/\"\n"
            "sandbox_api_key = \"" +
                key + "\"\n");
  std::string facts = Src() + "/" + kLinuxWs;
  RunResult r = Cwsc({"compile", "remote.toml", "--facts", facts, "--json"}, t.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Golden("compile_opensandbox.json", r.out);
  Json j = Envelope(r.out, "compile", 0);
  EXPECT_EQ(j["result"]["target"], "opensandbox");
  EXPECT_TRUE(j["result"]["requests"].is_object() || j["result"]["requests"].is_array());
  std::vector<std::vector<std::string>> runs = {
      {"compile", "remote.toml", "--facts", facts, "--json", "--target", "plan"},
      {"explain", "remote.toml", "--facts", facts, "--json"},
      {"check", "remote.toml", "--json"},
      {"diff", "remote.toml", "remote.toml", "--facts", facts, "--json"},
      {"doctor", "remote.toml", "--json"},
      {"why", "/tmp", "remote.toml", "--facts", facts, "--json"},
  };
  for (const auto& args : runs) {
    r = Cwsc(args, t.path());
    EXPECT_EQ(r.out.find(key), std::string::npos) << args[0] << ": " << r.out;
    EXPECT_EQ(r.err.find(key), std::string::npos) << args[0] << ": " << r.err;
    Envelope(r.out, args[0], r.exit_code);
  }
}

// Hostile values through every rendering path of the CLI: a diagnostic with
// its source line (a TOML value), a diagnostic's file (the config's path),
// a usage error (an unknown option) and an error message (an unknown mode),
// each as text on stderr and as --json (ir/display.h; the same table as
// tests/ir/display_test.cc). Nothing a value holds reaches the terminal raw.
struct HostileValue {
  const char* name;
  std::string toml;   // the value written as a TOML basic string ("" = not expressible)
  std::string bytes;  // the value itself (argv cannot hold NUL: "" for that)
  std::string shown;
};

const HostileValue kHostileValues[] = {
    {"esc", "a\\u001b[2Jb", "a\x1b[2Jb", "a\\x1b[2Jb"},
    {"csi_utf8", "a\\u009b2Jb",
     "a\xc2\x9b"
     "2Jb",
     "a\\u009b2Jb"},
    {"bare_9b", "",
     "a\x9b"
     "2Jb",
     "a\\x9b2Jb"},
    {"nul", "a\\u0000b", "", "a\\x00b"},
    {"newline", "a\\nerror: forged", "a\nerror: forged", "a\\x0aerror: forged"},
    {"del", "a\\u007fb",
     "a\x7f"
     "b",
     "a\\x7fb"},
    {"invalid", "",
     "a\xff\xfe"
     "b",
     "a\\xff\\xfeb"},
    {"overlong", "",
     "a\xc0\xaf"
     "b",
     "a\\xc0\\xafb"},
};

// Clean: every line is printable UTF-8 without control characters.
void ExpectClean(const std::string& text, const std::string& what) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::string l(line);
    EXPECT_EQ(ir::Displayable(l), l) << what;
  }
}

// MessagesOf is every diagnostic's message and file of a --json report.
std::string MessagesOf(const std::string& report) {
  Json j = Json::parse(report, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << report;
  if (j.is_discarded()) return "";
  std::string out;
  for (const Json& d : j["diagnostics"]) {
    out += d["message"].get<std::string>() + "\n";
    if (d["file"].is_string()) out += d["file"].get<std::string>() + "\n";
  }
  return out;
}

// Both runs of `args` (text, then --json) show `shown` and nothing raw.
void ExpectShownInBoth(const std::vector<std::string>& args, const std::string& shown,
                       const std::string& what) {
  RunResult text = Cwsc(args);
  EXPECT_EQ(text.exit_code, 2) << what << text.err;
  EXPECT_NE(text.err.find(shown), std::string::npos) << what << "\n" << text.err;
  ExpectClean(text.err, what + " (text)");
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.begin() + 1, "--json");
  RunResult json = Cwsc(json_args);
  EXPECT_EQ(json.exit_code, 2) << what << json.out;
  std::string messages = MessagesOf(json.out);
  EXPECT_NE(messages.find(shown), std::string::npos) << what << "\n" << json.out;
  ExpectClean(messages, what + " (json)");
  ExpectClean(json.err, what + " (json stderr)");
}

TEST(DisplayedValues, EveryRenderingPathEscapesHostileValues) {
  TempDir dir;
  const std::string facts = Src() + "/examples/facts/linux-workspace.yaml";
  for (const HostileValue& h : kHostileValues) {
    if (!h.toml.empty()) {
      const std::string config = dir.path() + "/" + h.name + ".toml";
      WriteFile(config, "sandbox_mode = \"" + h.toml + "\"\n");
      ExpectShownInBoth({"compile", config, "--facts", facts}, "'" + h.shown + "'",
                        std::string(h.name) + ": a TOML value");
    }
    if (!h.bytes.empty()) {
      ExpectShownInBoth({"compile", dir.path() + "/" + h.bytes, "--facts", facts}, h.shown,
                        std::string(h.name) + ": the config's path");
      ExpectShownInBoth({"compile", "--x" + h.bytes}, "'--x" + h.shown + "'",
                        std::string(h.name) + ": an unknown option");
      ExpectShownInBoth({"compile", "-", "--mode", h.bytes}, "'" + h.shown + "'",
                        std::string(h.name) + ": an unknown mode");
    }
  }
}

}  // namespace
}  // namespace cwsc
