// libcwsc's C ABI (lib/cwsc.h) and C++ API (lib/cwsc.hpp): every function,
// every error path, and agreement with the `cwsc` program on the same
// inputs (the argv, the plan JSON, the SBPL text, the OpenSandbox requests,
// the rendered errors, the access verdicts).
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cwsc.h"
#include "cwsc.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/runtime/proc_helpers.h"

namespace {

using ::cwsc::testing::RunResult;
using ::cwsc::testing::SourceRoot;
using ::cwsc::testing::TempDir;
using ::cwsc::testing::WriteFile;
using ::testing::HasSubstr;

RunResult Cli(const std::vector<std::string>& argv) { return ::cwsc::testing::Run(argv); }

std::string Bin() {
  const char* b = std::getenv("CWSC_BIN");
  return b ? b : "cwsc";
}
std::string Src(const std::string& rel) { return SourceRoot() + "/" + rel; }
// FirstLine is the text up to and including the first newline.
std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n') + 1); }

std::vector<std::string> SplitNul(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\0', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> Tokens(const cwsc_argv* a) {
  std::vector<std::string> out;
  for (size_t i = 0; i < cwsc_argv_count(a); ++i) out.push_back(cwsc_argv_at(a, i));
  return out;
}

// Owned C objects, freed at the end of each test.
struct Owned {
  std::vector<cwsc_diagnostics*> diags;
  std::vector<cwsc_plan*> plans;
  std::vector<cwsc_facts*> facts;
  std::vector<cwsc_policy*> policies;
  ~Owned() {
    for (auto* d : diags) cwsc_diagnostics_free(d);
    for (auto* p : plans) cwsc_plan_free(p);
    for (auto* f : facts) cwsc_facts_free(f);
    for (auto* p : policies) cwsc_policy_free(p);
  }
};

cwsc_facts* Facts(Owned& o, const std::string& file) {
  cwsc_facts* f = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_facts_load_file(file.c_str(), &f, &d), CWSC_OK) << cwsc_diagnostics_render(d);
  cwsc_diagnostics_free(d);
  o.facts.push_back(f);
  return f;
}

cwsc_plan* CompileFile(Owned& o, const std::string& config, const std::string& mode,
                       cwsc_facts* facts, const cwsc_options* opts = nullptr) {
  cwsc_plan* plan = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(
      cwsc_compile_file(config.c_str(), CWSC_FORMAT_AUTO, mode.c_str(), facts, opts, &plan, &d),
      CWSC_OK)
      << cwsc_diagnostics_render(d);
  o.diags.push_back(d);
  o.plans.push_back(plan);
  return plan;
}

// ---- agreement with the program ---------------------------------------------

struct Case {
  const char* config;
  const char* facts;
  const char* mode;
};
const Case kLinuxCases[] = {
    {"examples/workspace.toml", "examples/facts/linux-workspace.yaml", "ask"},
    {"examples/workspace.toml", "examples/facts/linux-workspace.yaml", "plan"},
    {"examples/workspace.toml", "examples/facts/linux-workspace.yaml", "auto-review"},
    {"examples/workspace.cwsp", "examples/facts/linux-workspace.yaml", "ask"},
    {"examples/readonly.toml", "examples/facts/linux-readonly.yaml", "ask"},
    {"examples/locked-down.toml", "examples/facts/linux-locked-down.yaml", "auto"},
    {"examples/locked-down.cwsp", "examples/facts/linux-locked-down.yaml", "ask"},
};

TEST(LibAgreement, BwrapArgvIsTheProgramsNulArgv) {
  for (const Case& c : kLinuxCases) {
    SCOPED_TRACE(std::string(c.config) + " " + c.mode);
    Owned o;
    cwsc_options* opts = cwsc_options_new();
    const char* program[] = {"make", "test", "a b"};
    ASSERT_EQ(cwsc_options_set_program(opts, program, 3), CWSC_OK);
    cwsc_plan* plan = CompileFile(o, Src(c.config), c.mode, Facts(o, Src(c.facts)), opts);
    cwsc_options_free(opts);
    ASSERT_NE(plan, nullptr);
    cwsc_argv* argv = nullptr;
    ASSERT_EQ(cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &argv, nullptr), CWSC_OK);
    RunResult cli = Cli({Bin(), "compile", Src(c.config), "--facts", Src(c.facts), "--mode", c.mode,
                         "--target", "bwrap", "--format", "nul", "--", "make", "test", "a b"});
    ASSERT_EQ(cli.exit_code, 0) << cli.err;
    EXPECT_EQ(Tokens(argv), SplitNul(cli.out));
    // The execv form: the same tokens, then NULL.
    const char* const* data = cwsc_argv_data(argv);
    ASSERT_NE(data, nullptr);
    EXPECT_STREQ(data[0], "/usr/bin/bwrap");
    EXPECT_STREQ(data[cwsc_argv_count(argv) - 1], "a b");
    EXPECT_EQ(data[cwsc_argv_count(argv)], nullptr);
    // AUTO is bwrap for these plans.
    cwsc_argv* autov = nullptr;
    ASSERT_EQ(cwsc_plan_argv(plan, CWSC_TARGET_AUTO, &autov, nullptr), CWSC_OK);
    EXPECT_EQ(Tokens(autov), Tokens(argv));
    cwsc_argv_free(autov);
    cwsc_argv_free(argv);
  }
}

TEST(LibAgreement, PlanJsonIsTheProgramsPlanBytes) {
  for (const Case& c : kLinuxCases) {
    SCOPED_TRACE(std::string(c.config) + " " + c.mode);
    Owned o;
    cwsc_plan* plan = CompileFile(o, Src(c.config), c.mode, Facts(o, Src(c.facts)));
    ASSERT_NE(plan, nullptr);
    char* json = nullptr;
    size_t len = 0;
    ASSERT_EQ(cwsc_plan_json(plan, &json, &len, nullptr), CWSC_OK);
    RunResult cli = Cli({Bin(), "compile", Src(c.config), "--facts", Src(c.facts), "--mode", c.mode,
                         "--target", "plan"});
    ASSERT_EQ(cli.exit_code, 0) << cli.err;
    EXPECT_EQ(std::string(json, len), cli.out);
    EXPECT_EQ(std::strlen(json), len);
    EXPECT_THAT(std::string(json), HasSubstr("\"schema_version\""));
    EXPECT_EQ(std::string(cwsc_plan_kind(plan)), "linux-bwrap");
    cwsc_string_free(json);
  }
}

TEST(LibAgreement, SeccompProgramIsTheProgramsBpf) {
  for (const Case& c : kLinuxCases) {
    SCOPED_TRACE(std::string(c.config) + " " + c.mode);
    Owned o;
    cwsc_plan* plan = CompileFile(o, Src(c.config), c.mode, Facts(o, Src(c.facts)));
    ASSERT_NE(plan, nullptr);
    char* bpf = nullptr;
    size_t len = 0;
    ASSERT_EQ(cwsc_plan_seccomp_bpf(plan, &bpf, &len, nullptr), CWSC_OK);
    RunResult cli = Cli({Bin(), "compile", Src(c.config), "--facts", Src(c.facts), "--mode", c.mode,
                         "--target", "seccomp-bpf"});
    ASSERT_EQ(cli.exit_code, 0) << cli.err;
    EXPECT_EQ(std::string(bpf, len), cli.out);
    EXPECT_EQ(len % 8, 0u);  // whole sock_filter instructions
    EXPECT_GT(len, 0u);
    cwsc_string_free(bpf);
  }
  // A plan without a filter (none) has no program.
  const std::string dir = Src("tests/golden/bwrap/probe_failed");
  Owned o;
  cwsc_plan* none = CompileFile(o, dir + "/config.toml", "ask", Facts(o, dir + "/facts.yaml"));
  char* bpf = nullptr;
  size_t len = 0;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_plan_seccomp_bpf(none, &bpf, &len, &d), CWSC_E_NOT_APPLICABLE);
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
               "--target seccomp-bpf: plan kind none has no syscall filter");
  cwsc_diagnostics_free(d);
  d = nullptr;
  EXPECT_EQ(cwsc_plan_seccomp_bpf(none, &bpf, nullptr, &d), CWSC_E_USAGE);
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0), "len must not be NULL");
  cwsc_diagnostics_free(d);
  EXPECT_EQ(bpf, nullptr);
}

TEST(LibAgreement, SeatbeltProfileAndArgvAreThePrograms) {
  for (const char* config : {"examples/workspace.cwsp", "examples/readonly.toml"}) {
    SCOPED_TRACE(config);
    const std::string facts = Src("examples/facts/macos-workspace.yaml");
    Owned o;
    cwsc_plan* plan = CompileFile(o, Src(config), "ask", Facts(o, facts));
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(std::string(cwsc_plan_kind(plan)), "macos-seatbelt");
    char* sbpl = nullptr;
    size_t len = 0;
    ASSERT_EQ(cwsc_plan_sbpl(plan, &sbpl, &len, nullptr), CWSC_OK);
    RunResult cli =
        Cli({Bin(), "compile", Src(config), "--facts", facts, "--mode", "ask", "--format", "sbpl"});
    ASSERT_EQ(cli.exit_code, 0) << cli.err;
    EXPECT_EQ(std::string(sbpl, len) + "\n", cli.out);  // the program adds a newline
    EXPECT_THAT(std::string(sbpl), HasSubstr("(version 1)"));
    cwsc_string_free(sbpl);
    cwsc_argv* argv = nullptr;
    ASSERT_EQ(cwsc_plan_argv(plan, CWSC_TARGET_SEATBELT, &argv, nullptr), CWSC_OK);
    cli = Cli({Bin(), "compile", Src(config), "--facts", facts, "--mode", "ask", "--target",
               "seatbelt", "--format", "nul"});
    ASSERT_EQ(cli.exit_code, 0) << cli.err;
    EXPECT_EQ(Tokens(argv), SplitNul(cli.out));
    cwsc_argv_free(argv);
  }
}

TEST(LibAgreement, OpenSandboxRequestsAreTheProgramsJson) {
  for (const char* config : {"examples/remote.toml", "examples/remote.cwsp"}) {
    SCOPED_TRACE(config);
    const std::string facts = Src("examples/facts/linux-workspace.yaml");
    Owned o;
    cwsc_options* opts = cwsc_options_new();
    const char* program[] = {"make", "test"};
    cwsc_options_set_program(opts, program, 2);
    cwsc_plan* plan = CompileFile(o, Src(config), "ask", Facts(o, facts), opts);
    cwsc_options_free(opts);
    ASSERT_NE(plan, nullptr);
    EXPECT_EQ(std::string(cwsc_plan_kind(plan)), "opensandbox");
    char* json = nullptr;
    size_t len = 0;
    ASSERT_EQ(cwsc_plan_opensandbox_json(plan, &json, &len, nullptr), CWSC_OK);
    RunResult cli = Cli({Bin(), "compile", Src(config), "--facts", facts, "--mode", "ask",
                         "--target", "opensandbox", "--format", "json", "--", "make", "test"});
    ASSERT_EQ(cli.exit_code, 0) << cli.err;
    EXPECT_EQ(std::string(json, len), cli.out);
    EXPECT_THAT(std::string(json), HasSubstr("\"contract\""));
    cwsc_string_free(json);
    // A remote plan has no argv and cannot be checked from an artifact.
    cwsc_argv* argv = nullptr;
    cwsc_diagnostics* d = nullptr;
    EXPECT_EQ(cwsc_plan_argv(plan, CWSC_TARGET_AUTO, &argv, &d), CWSC_E_NOT_APPLICABLE);
    EXPECT_EQ(argv, nullptr);
    EXPECT_STREQ(cwsc_diagnostic_code(d, 0), "not-applicable");
    EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
                 "plan kind opensandbox has no argv (a remote plan: cwsc_plan_opensandbox_json)");
    cwsc_diagnostics_free(d);
    d = nullptr;
    EXPECT_EQ(cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &argv, &d), CWSC_E_NOT_APPLICABLE);
    EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
                 "--target bwrap: the plan does not use bubblewrap (kind opensandbox)");
    cwsc_diagnostics_free(d);
    cwsc_verdict* v = nullptr;
    EXPECT_EQ(cwsc_plan_check(plan, "read", "/etc/passwd", &v, nullptr), CWSC_E_NOT_APPLICABLE);
    EXPECT_EQ(v, nullptr);
  }
}

TEST(LibAgreement, LiveFactsWithCwdAndEscalateAreTheProgramsArgv) {
  TempDir dir;
  Owned o;
  cwsc_facts* live = cwsc_facts_live();
  ASSERT_NE(live, nullptr);
  o.facts.push_back(live);
  cwsc_options* opts = cwsc_options_new();
  ASSERT_EQ(cwsc_options_set_cwd(opts, dir.path().c_str()), CWSC_OK);
  ASSERT_EQ(cwsc_options_set_no_project_config(opts, 1), CWSC_OK);
  ASSERT_EQ(cwsc_options_set_escalate(opts, "danger-full-access"), CWSC_OK);
  cwsc_plan* plan = CompileFile(o, Src("examples/workspace.toml"), "ask", live, opts);
  cwsc_options_free(opts);
  ASSERT_NE(plan, nullptr);
  char* json = nullptr;
  ASSERT_EQ(cwsc_plan_json(plan, &json, nullptr, nullptr), CWSC_OK);
  RunResult cli = Cli({Bin(), "compile", Src("examples/workspace.toml"), "--cwd", dir.path(),
                       "--no-project-config", "--escalate", "danger-full-access", "--mode", "ask",
                       "--target", "plan"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(std::string(json), cli.out);
  cwsc_string_free(json);
}

// ---- policies from strings, reused --------------------------------------------

std::string ReadAll(const std::string& path) { return ::cwsc::testing::ReadFileOr(path); }

TEST(LibPolicy, ParsedFromAStringIsTheSameAsFromTheFile) {
  const std::string config = Src("examples/workspace.cwsp");
  const std::string text = ReadAll(config);
  Owned o;
  cwsc_facts* facts = Facts(o, Src("examples/facts/linux-workspace.yaml"));
  cwsc_policy* policy = nullptr;
  cwsc_diagnostics* d = nullptr;
  ASSERT_EQ(cwsc_policy_parse(text.data(), text.size(), config.c_str(), CWSC_FORMAT_DSL, nullptr,
                              &policy, &d),
            CWSC_OK)
      << cwsc_diagnostics_render(d);
  o.diags.push_back(d);
  o.policies.push_back(policy);
  cwsc_plan* from_file = CompileFile(o, config, "ask", facts);
  for (const char* mode : {"ask", "ask", "plan"}) {  // one parse, many compiles
    cwsc_plan* plan = nullptr;
    ASSERT_EQ(cwsc_compile(policy, mode, facts, nullptr, &plan, nullptr), CWSC_OK);
    o.plans.push_back(plan);
    char* a = nullptr;
    char* b = nullptr;
    cwsc_plan* other = std::string(mode) == "ask" ? from_file : CompileFile(o, config, mode, facts);
    ASSERT_EQ(cwsc_plan_json(plan, &a, nullptr, nullptr), CWSC_OK);
    ASSERT_EQ(cwsc_plan_json(other, &b, nullptr, nullptr), CWSC_OK);
    EXPECT_STREQ(a, b);
    cwsc_string_free(a);
    cwsc_string_free(b);
  }
  // Loaded from the file, the handle compiles the same.
  cwsc_policy* loaded = nullptr;
  ASSERT_EQ(cwsc_policy_load_file(config.c_str(), CWSC_FORMAT_AUTO, nullptr, &loaded, nullptr),
            CWSC_OK);
  o.policies.push_back(loaded);
  cwsc_plan* plan = nullptr;
  ASSERT_EQ(cwsc_compile(loaded, "ask", facts, nullptr, &plan, nullptr), CWSC_OK);
  o.plans.push_back(plan);
  cwsc_argv* x = nullptr;
  cwsc_argv* y = nullptr;
  ASSERT_EQ(cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &x, nullptr), CWSC_OK);
  ASSERT_EQ(cwsc_plan_argv(from_file, CWSC_TARGET_BWRAP, &y, nullptr), CWSC_OK);
  EXPECT_EQ(Tokens(x), Tokens(y));
  cwsc_argv_free(x);
  cwsc_argv_free(y);
}

TEST(LibPolicy, StringsInJsonFactsAndTomlGiveTheProgramsArgv) {
  // Recorded facts as a JSON string, the policy as a TOML string: the argv
  // of the program given the same texts as files.
  const std::string facts_json = R"({"cwsc_facts": 1, "platform": "linux",
    "user": {"uid": 1000, "gid": 1000, "groups": [1000], "name": "dev", "home": "/home/dev"},
    "cwd": "/home/dev/proj", "env": {"HOME": "/home/dev"}, "secrets_set": {},
    "paths": {
      "/home/dev": {"type": "directory", "canonical": "/home/dev", "mode": "0750", "uid": 1000, "gid": 1000},
      "/home/dev/proj": {"type": "directory", "canonical": "/home/dev/proj", "mode": "0755", "uid": 1000, "gid": 1000},
      "/usr/bin/bwrap": {"type": "file", "canonical": "/usr/bin/bwrap", "mode": "0755", "uid": 0, "gid": 0}},
    "bwrap_probe": {"ran": true, "ok": true, "exit_code": 0, "message": ""}})";
  const std::string toml = "sandbox_mode = \"workspace-write\"\n";
  TempDir dir;
  WriteFile(dir / "facts.json", facts_json);
  WriteFile(dir / "policy.toml", toml);
  cwsc_facts* facts = nullptr;
  cwsc_diagnostics* d = nullptr;
  ASSERT_EQ(cwsc_facts_parse(facts_json.data(), facts_json.size(), "facts.json", &facts, &d),
            CWSC_OK)
      << cwsc_diagnostics_render(d);
  cwsc_diagnostics_free(d);
  cwsc_policy* policy = nullptr;
  ASSERT_EQ(cwsc_policy_parse(toml.data(), toml.size(), nullptr, CWSC_FORMAT_TOML, nullptr, &policy,
                              nullptr),
            CWSC_OK);
  cwsc_plan* plan = nullptr;
  ASSERT_EQ(cwsc_compile(policy, "auto-review", facts, nullptr, &plan, nullptr), CWSC_OK);
  cwsc_argv* argv = nullptr;
  ASSERT_EQ(cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &argv, nullptr), CWSC_OK);
  RunResult cli = Cli({Bin(), "compile", dir / "policy.toml", "--facts", dir / "facts.json",
                       "--mode", "auto-review", "--target", "bwrap", "--format", "nul"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(Tokens(argv), SplitNul(cli.out));
  EXPECT_THAT(Tokens(argv), ::testing::Contains("/home/dev/proj"));
  cwsc_argv_free(argv);
  cwsc_plan_free(plan);
  cwsc_policy_free(policy);
  cwsc_facts_free(facts);
}

TEST(LibPolicy, ANamedDslPolicyIsTheProgramsPolicy) {
  const std::string config = Src("examples/team.cwsp");
  const std::string facts = Src("examples/facts/linux-team.yaml");
  Owned o;
  cwsc_options* opts = cwsc_options_new();
  ASSERT_EQ(cwsc_options_set_policy_name(opts, "reviewer"), CWSC_OK);
  cwsc_plan* plan = CompileFile(o, config, "ask", Facts(o, facts), opts);
  ASSERT_NE(plan, nullptr);
  char* json = nullptr;
  ASSERT_EQ(cwsc_plan_json(plan, &json, nullptr, nullptr), CWSC_OK);
  RunResult cli = Cli({Bin(), "compile", config, "--facts", facts, "--policy", "reviewer", "--mode",
                       "ask", "--target", "plan"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(std::string(json), cli.out);
  cwsc_string_free(json);
  // The policy name is read at load time: compiling a policy loaded as
  // another one with these options is a usage error.
  cwsc_policy* agent = nullptr;
  cwsc_options* agent_opts = cwsc_options_new();
  cwsc_options_set_policy_name(agent_opts, "agent");
  ASSERT_EQ(cwsc_policy_load_file(config.c_str(), CWSC_FORMAT_DSL, agent_opts, &agent, nullptr),
            CWSC_OK);
  o.policies.push_back(agent);
  cwsc_plan* bad = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_compile(agent, "ask", o.facts[0], opts, &bad, &d), CWSC_E_USAGE);
  EXPECT_EQ(bad, nullptr);
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
               "the options name policy 'reviewer' but the policy was loaded as 'agent': the "
               "policy name is read when the policy is loaded");
  cwsc_diagnostics_free(d);
  cwsc_options_free(agent_opts);
  // A policy name on a TOML config is the program's error.
  cwsc_policy* toml = nullptr;
  d = nullptr;
  const std::string workspace = Src("examples/workspace.toml");
  EXPECT_EQ(cwsc_policy_load_file(workspace.c_str(), CWSC_FORMAT_AUTO, opts, &toml, &d),
            CWSC_E_INPUT);
  EXPECT_EQ(toml, nullptr);
  EXPECT_STREQ(cwsc_diagnostic_file(d, 0), workspace.c_str());
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
               "--policy selects a policy of a .cwsp file; this is a TOML config (use --input dsl "
               "if it is a policy)");
  cwsc_diagnostics_free(d);
  cwsc_options_free(opts);
}

// ---- errors -----------------------------------------------------------------------

TEST(LibErrors, BadTomlGivesFileLineColAndTheProgramsText) {
  TempDir dir;
  const std::string cfg = dir / "bad.toml";
  WriteFile(cfg, "# a config\nsandbox_mode = \"sometimes\"\n");
  Owned o;
  cwsc_facts* facts = Facts(o, Src("examples/facts/linux-workspace.yaml"));
  cwsc_plan* plan = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_compile_file(cfg.c_str(), CWSC_FORMAT_AUTO, "ask", facts, nullptr, &plan, &d),
            CWSC_E_INPUT);
  EXPECT_EQ(plan, nullptr);
  ASSERT_EQ(cwsc_diagnostics_count(d), 1u);
  EXPECT_EQ(cwsc_diagnostics_error_count(d), 1u);
  EXPECT_EQ(cwsc_diagnostic_severity(d, 0), CWSC_SEVERITY_ERROR);
  EXPECT_STREQ(cwsc_diagnostic_code(d, 0), "input");
  EXPECT_STREQ(cwsc_diagnostic_file(d, 0), cfg.c_str());
  EXPECT_EQ(cwsc_diagnostic_line(d, 0), 2);
  EXPECT_EQ(cwsc_diagnostic_col(d, 0), 16);
  EXPECT_THAT(cwsc_diagnostic_message(d, 0), HasSubstr("Invalid sandbox_mode 'sometimes'"));
  RunResult cli =
      Cli({Bin(), "compile", cfg, "--facts", Src("examples/facts/linux-workspace.yaml")});
  EXPECT_EQ(cli.exit_code, 2);
  EXPECT_EQ(std::string(cwsc_diagnostics_render(d)), cli.err);
  cwsc_diagnostics_free(d);

  // The same text parsed from a string names the string's name.
  const std::string text = "sandbox_mode = \"sometimes\"\n";
  cwsc_policy* policy = nullptr;
  d = nullptr;
  EXPECT_EQ(
      cwsc_policy_parse(text.data(), text.size(), nullptr, CWSC_FORMAT_TOML, nullptr, &policy, &d),
      CWSC_E_INPUT);
  EXPECT_EQ(policy, nullptr);
  EXPECT_STREQ(cwsc_diagnostic_file(d, 0), "<policy>.toml");
  EXPECT_EQ(cwsc_diagnostic_line(d, 0), 1);
  EXPECT_EQ(cwsc_diagnostic_col(d, 0), 16);
  cwsc_diagnostics_free(d);
}

TEST(LibErrors, BadDslGivesEveryErrorWithItsPosition) {
  const std::string text = "policy p {\n  bogus thing\n}\n";
  cwsc_policy* policy = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(
      cwsc_policy_parse(text.data(), text.size(), "p.cwsp", CWSC_FORMAT_AUTO, nullptr, &policy, &d),
      CWSC_E_INPUT);
  EXPECT_EQ(policy, nullptr);
  ASSERT_GE(cwsc_diagnostics_count(d), 1u);
  EXPECT_STREQ(cwsc_diagnostic_file(d, 0), "p.cwsp");
  EXPECT_EQ(cwsc_diagnostic_line(d, 0), 2);
  EXPECT_GT(cwsc_diagnostic_col(d, 0), 0);
  EXPECT_THAT(cwsc_diagnostics_render(d), HasSubstr("p.cwsp:2:"));
  cwsc_diagnostics_free(d);
}

TEST(LibErrors, TooManyErrorsAreEachADiagnosticAndTheProgramsText) {
  // Errors that come as text (the closing "too many errors" line) are read
  // back into diagnostics; the rendering is the text the program prints.
  TempDir dir;
  std::string text = "policy p {\n";
  for (int i = 0; i < 25; ++i) text += "  writable \"relative" + std::to_string(i) + "\"\n";
  text += "}\n";
  const std::string file = dir / "many.cwsp";
  WriteFile(file, text);
  cwsc_policy* policy = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_policy_load_file(file.c_str(), CWSC_FORMAT_AUTO, nullptr, &policy, &d),
            CWSC_E_INPUT);
  EXPECT_EQ(policy, nullptr);
  EXPECT_EQ(cwsc_diagnostics_error_count(d), 20u);  // ir::Diagnostics::kMaxErrors
  EXPECT_STREQ(cwsc_diagnostic_file(d, 0), file.c_str());
  EXPECT_EQ(cwsc_diagnostic_line(d, 0), 2);  // "expected ';' after ..." at the end of line 2
  EXPECT_GT(cwsc_diagnostic_col(d, 0), 0);
  EXPECT_THAT(cwsc_diagnostic_message(d, 0), HasSubstr("expected ';'"));
  EXPECT_EQ(cwsc_diagnostic_line(d, 19), 21);
  RunResult cli =
      Cli({Bin(), "compile", file, "--facts", Src("examples/facts/linux-workspace.yaml")});
  EXPECT_EQ(cli.exit_code, 2);
  EXPECT_EQ(std::string(cwsc_diagnostics_render(d)), cli.err);
  EXPECT_THAT(cli.err, HasSubstr("too many errors; stopping\n"));
  cwsc_diagnostics_free(d);
}

TEST(LibErrors, AnEmptyCwdIsTheProgramsError) {
  Owned o;
  cwsc_options* opts = cwsc_options_new();
  ASSERT_EQ(cwsc_options_set_cwd(opts, ""), CWSC_OK);
  cwsc_plan* plan = nullptr;
  cwsc_diagnostics* d = nullptr;
  const std::string cfg = Src("examples/workspace.toml");
  EXPECT_EQ(
      cwsc_compile_file(cfg.c_str(), CWSC_FORMAT_AUTO, "ask",
                        Facts(o, Src("examples/facts/linux-workspace.yaml")), opts, &plan, &d),
      CWSC_E_INPUT);
  cwsc_options_free(opts);
  EXPECT_EQ(plan, nullptr);
  ASSERT_EQ(cwsc_diagnostics_count(d), 1u);
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0), "--cwd must not be empty");
  EXPECT_STREQ(cwsc_diagnostic_file(d, 0), "");
  EXPECT_EQ(cwsc_diagnostic_line(d, 0), 0);
  RunResult cli = Cli({Bin(), "compile", cfg, "--cwd", ""});
  EXPECT_EQ(cli.exit_code, 2);
  // The program's first line (a usage hint may follow it there).
  EXPECT_EQ("cwsc: " + std::string(cwsc_diagnostics_render(d)), FirstLine(cli.err));
  cwsc_diagnostics_free(d);
}

TEST(LibErrors, UnknownModeIsTheProgramsMessage) {
  Owned o;
  cwsc_facts* facts = Facts(o, Src("examples/facts/linux-workspace.yaml"));
  const std::string cfg = Src("examples/workspace.toml");
  cwsc_plan* plan = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(
      cwsc_compile_file(cfg.c_str(), CWSC_FORMAT_AUTO, "sometimes", facts, nullptr, &plan, &d),
      CWSC_E_INPUT);
  EXPECT_EQ(plan, nullptr);
  ASSERT_EQ(cwsc_diagnostics_count(d), 1u);
  EXPECT_STREQ(cwsc_diagnostic_code(d, 0), "mode");
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
               "unknown permission mode 'sometimes': expected plan, ask, auto-review or "
               "full-access (aliases: suggest, auto, bypass, yolo)");
  EXPECT_STREQ(cwsc_diagnostic_file(d, 0), "");
  EXPECT_EQ(cwsc_diagnostic_line(d, 0), 0);
  RunResult cli = Cli({Bin(), "compile", cfg, "--facts", Src("examples/facts/linux-workspace.yaml"),
                       "--mode", "sometimes"});
  EXPECT_EQ(cli.exit_code, 2);
  // The program's first line (a usage hint may follow it there).
  EXPECT_EQ("cwsc: " + std::string(cwsc_diagnostics_render(d)), FirstLine(cli.err));
  cwsc_diagnostics_free(d);
  // The same through a parsed policy.
  cwsc_policy* policy = nullptr;
  ASSERT_EQ(cwsc_policy_load_file(cfg.c_str(), CWSC_FORMAT_AUTO, nullptr, &policy, nullptr),
            CWSC_OK);
  o.policies.push_back(policy);
  d = nullptr;
  EXPECT_EQ(cwsc_compile(policy, "", facts, nullptr, &plan, &d), CWSC_E_INPUT);
  EXPECT_STREQ(cwsc_diagnostic_code(d, 0), "mode");
  cwsc_diagnostics_free(d);
}

TEST(LibErrors, MissingFilesNameTheFile) {
  cwsc_policy* policy = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_policy_load_file("/nonexistent/c.toml", CWSC_FORMAT_AUTO, nullptr, &policy, &d),
            CWSC_E_INPUT);
  EXPECT_EQ(policy, nullptr);
  EXPECT_STREQ(cwsc_diagnostic_file(d, 0), "/nonexistent/c.toml");
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0), "cannot read the config: No such file or directory");
  EXPECT_STREQ(cwsc_diagnostics_render(d),
               "/nonexistent/c.toml: error: cannot read the config: No such file or directory\n");
  cwsc_diagnostics_free(d);
  cwsc_facts* facts = nullptr;
  d = nullptr;
  EXPECT_EQ(cwsc_facts_load_file("/nonexistent/f.yaml", &facts, &d), CWSC_E_INPUT);
  EXPECT_EQ(facts, nullptr);
  EXPECT_EQ(cwsc_diagnostics_error_count(d), 1u);
  EXPECT_THAT(cwsc_diagnostics_render(d), HasSubstr("/nonexistent/f.yaml"));
  cwsc_diagnostics_free(d);
}

TEST(LibErrors, BadFactsTextGivesLineAndColumn) {
  const std::string text = "platform: linux\nuser: [\n";
  cwsc_facts* facts = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_facts_parse(text.data(), text.size(), "f.yaml", &facts, &d), CWSC_E_INPUT);
  EXPECT_EQ(facts, nullptr);
  ASSERT_EQ(cwsc_diagnostics_error_count(d), 1u);
  EXPECT_STREQ(cwsc_diagnostic_file(d, 0), "f.yaml");
  EXPECT_GT(cwsc_diagnostic_line(d, 0), 0);
  EXPECT_GT(cwsc_diagnostic_col(d, 0), 0);
  cwsc_diagnostics_free(d);
  // Good facts text parses, named "<facts>" by default.
  const std::string good = ReadAll(Src("examples/facts/linux-workspace.yaml"));
  ASSERT_EQ(cwsc_facts_parse(good.data(), good.size(), nullptr, &facts, nullptr), CWSC_OK);
  cwsc_facts_free(facts);
}

TEST(LibErrors, FactsThatLackAPathFailUnlessUnlistedAsMissing) {
  TempDir dir;
  WriteFile(dir / "a.toml", "");
  WriteFile(dir / "b.toml", "sandbox_writable_roots = [\"/opt/extra\"]\n");
  // Facts recorded for a.toml (`unlisted: error`), used for b.toml.
  RunResult rec = Cli({Bin(), "facts", "--for", dir / "a.toml", "-o", dir / "f.yaml"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  Owned o;
  cwsc_facts* facts = Facts(o, dir / "f.yaml");
  const std::string b = dir / "b.toml";
  cwsc_plan* plan = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_compile_file(b.c_str(), CWSC_FORMAT_AUTO, "ask", facts, nullptr, &plan, &d),
            CWSC_E_INPUT);
  EXPECT_EQ(plan, nullptr);
  EXPECT_STREQ(cwsc_diagnostic_file(d, 0), (dir / "f.yaml").c_str());
  // The program's text (its own option named), on the same inputs.
  RunResult cli = Cli({Bin(), "compile", b, "--facts", dir / "f.yaml"});
  EXPECT_EQ(cli.exit_code, 2);
  std::string want = cli.err;
  const std::string prefix = dir / "f.yaml" + ": error: ";
  ASSERT_EQ(want.rfind(prefix, 0), 0u) << want;
  want = want.substr(prefix.size());
  if (!want.empty() && want.back() == '\n') want.pop_back();
  const std::string option = "pass --unlisted-as-missing";
  ASSERT_NE(want.find(option), std::string::npos) << want;
  want.replace(want.find(option), option.size(), "set cwsc_options_set_unlisted_as_missing");
  EXPECT_EQ(std::string(cwsc_diagnostic_message(d, 0)), want);
  EXPECT_THAT(want, HasSubstr("the facts file does not record '"));
  cwsc_diagnostics_free(d);
  // Unlisted as missing: the plan of `--unlisted-as-missing`.
  cwsc_facts* fresh = Facts(o, dir / "f.yaml");
  cwsc_options* opts = cwsc_options_new();
  ASSERT_EQ(cwsc_options_set_unlisted_as_missing(opts, 1), CWSC_OK);
  plan = CompileFile(o, b, "ask", fresh, opts);
  cwsc_options_free(opts);
  ASSERT_NE(plan, nullptr);
  char* json = nullptr;
  ASSERT_EQ(cwsc_plan_json(plan, &json, nullptr, nullptr), CWSC_OK);
  cli = Cli({Bin(), "compile", b, "--facts", dir / "f.yaml", "--unlisted-as-missing", "--mode",
             "ask", "--target", "plan"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(std::string(json), cli.out);
  cwsc_string_free(json);
}

TEST(LibErrors, NullArgumentsAreUsageErrorsNamingTheArgument) {
  Owned o;
  cwsc_facts* facts = Facts(o, Src("examples/facts/linux-workspace.yaml"));
  cwsc_plan* plan = CompileFile(o, Src("examples/workspace.toml"), "ask", facts);
  cwsc_policy* policy = nullptr;
  ASSERT_EQ(cwsc_policy_parse("", 0, nullptr, CWSC_FORMAT_TOML, nullptr, &policy, nullptr),
            CWSC_OK);
  o.policies.push_back(policy);
  cwsc_diagnostics* d = nullptr;
  // The list is read after the call (an argument `d` would be read before it).
  auto expect_usage = [&d](cwsc_status s, const char* message) {
    EXPECT_EQ(s, CWSC_E_USAGE);
    EXPECT_STREQ(cwsc_diagnostic_code(d, 0), "usage");
    EXPECT_STREQ(cwsc_diagnostic_message(d, 0), message);
    cwsc_diagnostics_free(d);
    d = nullptr;
  };
  cwsc_plan* p = nullptr;
  cwsc_policy* pol = nullptr;
  cwsc_facts* f = nullptr;
  cwsc_argv* a = nullptr;
  cwsc_verdict* v = nullptr;
  char* t = nullptr;
  expect_usage(cwsc_compile(nullptr, "ask", facts, nullptr, &p, &d), "policy must not be NULL");
  expect_usage(cwsc_compile(policy, nullptr, facts, nullptr, &p, &d), "mode must not be NULL");
  expect_usage(cwsc_compile(policy, "ask", facts, nullptr, nullptr, &d), "out must not be NULL");
  expect_usage(cwsc_compile_file(nullptr, CWSC_FORMAT_AUTO, "ask", facts, nullptr, &p, &d),
               "path must not be NULL");
  expect_usage(cwsc_policy_load_file(nullptr, CWSC_FORMAT_AUTO, nullptr, &pol, &d),
               "path must not be NULL");
  expect_usage(cwsc_policy_parse(nullptr, 0, nullptr, CWSC_FORMAT_TOML, nullptr, &pol, &d),
               "text must not be NULL");
  expect_usage(cwsc_policy_parse("", 0, nullptr, static_cast<cwsc_format>(7), nullptr, &pol, &d),
               "unknown cwsc_format value");
  expect_usage(cwsc_facts_load_file(nullptr, &f, &d), "path must not be NULL");
  expect_usage(cwsc_facts_parse(nullptr, 0, nullptr, &f, &d), "text must not be NULL");
  expect_usage(cwsc_plan_json(nullptr, &t, nullptr, &d), "plan must not be NULL");
  expect_usage(cwsc_plan_json(plan, nullptr, nullptr, &d), "out must not be NULL");
  expect_usage(cwsc_plan_argv(nullptr, CWSC_TARGET_BWRAP, &a, &d), "plan must not be NULL");
  expect_usage(cwsc_plan_argv(plan, static_cast<cwsc_target>(9), &a, &d),
               "unknown cwsc_target value");
  expect_usage(cwsc_plan_sbpl(nullptr, &t, nullptr, &d), "plan must not be NULL");
  expect_usage(cwsc_plan_seccomp_bpf(nullptr, &t, nullptr, &d), "plan must not be NULL");
  expect_usage(cwsc_plan_opensandbox_json(nullptr, &t, nullptr, &d), "plan must not be NULL");
  expect_usage(cwsc_plan_check(nullptr, "read", "/", &v, &d), "plan must not be NULL");
  expect_usage(cwsc_plan_check(plan, nullptr, "/", &v, &d), "access must not be NULL");
  expect_usage(cwsc_plan_check(plan, "read", nullptr, &v, &d), "path must not be NULL");
  expect_usage(cwsc_plan_check(plan, "fly", "/", &v, &d),
               "unknown access 'fly': expected read, write, exec, create or network");
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(pol, nullptr);
  EXPECT_EQ(f, nullptr);
  EXPECT_EQ(a, nullptr);
  EXPECT_EQ(v, nullptr);
  EXPECT_EQ(t, nullptr);
  // Without a diagnostics list the status alone comes back.
  EXPECT_EQ(cwsc_compile(nullptr, "ask", facts, nullptr, &p, nullptr), CWSC_E_USAGE);
  // Options setters and accessors tolerate NULL.
  EXPECT_EQ(cwsc_options_set_cwd(nullptr, "/"), CWSC_E_USAGE);
  EXPECT_EQ(cwsc_options_set_policy_name(nullptr, "x"), CWSC_E_USAGE);
  EXPECT_EQ(cwsc_options_set_escalate(nullptr, "x"), CWSC_E_USAGE);
  EXPECT_EQ(cwsc_options_set_no_project_config(nullptr, 1), CWSC_E_USAGE);
  EXPECT_EQ(cwsc_options_set_unlisted_as_missing(nullptr, 1), CWSC_E_USAGE);
  EXPECT_EQ(cwsc_options_set_program(nullptr, nullptr, 0), CWSC_E_USAGE);
  cwsc_options* opts = cwsc_options_new();
  EXPECT_EQ(cwsc_options_set_program(opts, nullptr, 2), CWSC_E_USAGE);
  const char* holes[] = {"a", nullptr};
  EXPECT_EQ(cwsc_options_set_program(opts, holes, 2), CWSC_E_USAGE);
  EXPECT_EQ(cwsc_options_set_program(opts, nullptr, 0), CWSC_OK);
  EXPECT_EQ(cwsc_options_set_cwd(opts, nullptr), CWSC_OK);
  cwsc_options_free(opts);
  EXPECT_EQ(cwsc_diagnostics_count(nullptr), 0u);
  EXPECT_EQ(cwsc_diagnostics_error_count(nullptr), 0u);
  EXPECT_STREQ(cwsc_diagnostic_message(nullptr, 0), "");
  EXPECT_STREQ(cwsc_diagnostic_code(nullptr, 3), "");
  EXPECT_STREQ(cwsc_diagnostic_file(nullptr, 0), "");
  EXPECT_EQ(cwsc_diagnostic_line(nullptr, 0), 0);
  EXPECT_EQ(cwsc_diagnostic_col(nullptr, 0), 0);
  EXPECT_EQ(cwsc_diagnostic_severity(nullptr, 0), CWSC_SEVERITY_ERROR);
  EXPECT_STREQ(cwsc_diagnostics_render(nullptr), "");
  EXPECT_STREQ(cwsc_plan_kind(nullptr), "");
  EXPECT_EQ(cwsc_argv_count(nullptr), 0u);
  EXPECT_EQ(cwsc_argv_at(nullptr, 0), nullptr);
  EXPECT_EQ(cwsc_argv_data(nullptr), nullptr);
  EXPECT_EQ(cwsc_verdict_allowed(nullptr), 0);
  EXPECT_STREQ(cwsc_verdict_rule(nullptr), "");
  cwsc_diagnostics_free(nullptr);
  cwsc_plan_free(nullptr);
  cwsc_policy_free(nullptr);
  cwsc_facts_free(nullptr);
  cwsc_argv_free(nullptr);
  cwsc_verdict_free(nullptr);
  cwsc_options_free(nullptr);
  cwsc_string_free(nullptr);
}

TEST(LibErrors, RefusedAndNotApplicableArtifacts) {
  const std::string dir = Src("tests/golden/bwrap/refused_backend");
  Owned o;
  cwsc_facts* facts = Facts(o, dir + "/facts.yaml");
  cwsc_plan* plan = CompileFile(o, dir + "/config.toml", "ask", facts);
  ASSERT_NE(plan, nullptr);  // a refusal is a plan
  EXPECT_STREQ(cwsc_plan_kind(plan), "refused");
  cwsc_argv* argv = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_plan_argv(plan, CWSC_TARGET_AUTO, &argv, &d), CWSC_E_REFUSED);
  EXPECT_EQ(argv, nullptr);
  EXPECT_STREQ(cwsc_diagnostic_code(d, 0), "refused");
  EXPECT_THAT(cwsc_diagnostic_message(d, 0), HasSubstr("unsupported sandbox_backend 'docker'"));
  EXPECT_THAT(cwsc_diagnostic_message(d, 0), HasSubstr("config.toml:1:19"));
  cwsc_diagnostics_free(d);
  // A refused plan denies every access; the rule names the refusal.
  cwsc_verdict* v = nullptr;
  ASSERT_EQ(cwsc_plan_check(plan, "read", "/etc/hosts", &v, nullptr), CWSC_OK);
  EXPECT_EQ(cwsc_verdict_allowed(v), 0);
  EXPECT_THAT(cwsc_verdict_rule(v), HasSubstr("plan refused"));
  cwsc_verdict_free(v);

  cwsc_plan* bwrap = CompileFile(o, Src("examples/workspace.toml"), "ask",
                                 Facts(o, Src("examples/facts/linux-workspace.yaml")));
  char* t = nullptr;
  d = nullptr;
  EXPECT_EQ(cwsc_plan_sbpl(bwrap, &t, nullptr, &d), CWSC_E_NOT_APPLICABLE);
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
               "--format sbpl: plan kind linux-bwrap has no Seatbelt profile");
  cwsc_diagnostics_free(d);
  d = nullptr;
  EXPECT_EQ(cwsc_plan_opensandbox_json(bwrap, &t, nullptr, &d), CWSC_E_NOT_APPLICABLE);
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
               "--target opensandbox: plan kind linux-bwrap does not use OpenSandbox");
  cwsc_diagnostics_free(d);
  d = nullptr;
  EXPECT_EQ(cwsc_plan_argv(bwrap, CWSC_TARGET_SEATBELT, &argv, &d), CWSC_E_NOT_APPLICABLE);
  EXPECT_STREQ(cwsc_diagnostic_code(d, 0), "not-applicable");
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
               "--target seatbelt: plan kind linux-bwrap has no Seatbelt profile");
  EXPECT_EQ(t, nullptr);
  cwsc_diagnostics_free(d);
}

// A Landlock plan has no argv: the library says where its ruleset is applied.
TEST(LibErrors, ALandlockPlanHasNoArgv) {
  TempDir dir;
  const std::string cfg = dir / "l.toml";
  WriteFile(cfg, "sandbox_linux_backend = \"landlock\"\n");
  Owned o;
  cwsc_plan* plan = CompileFile(o, cfg, "ask", Facts(o, Src("tests/golden/landlock/facts.yaml")));
  ASSERT_NE(plan, nullptr);
  ASSERT_STREQ(cwsc_plan_kind(plan), "linux-landlock");
  cwsc_argv* argv = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_plan_argv(plan, CWSC_TARGET_AUTO, &argv, &d), CWSC_E_NOT_APPLICABLE);
  EXPECT_EQ(argv, nullptr);
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
               "plan kind linux-landlock has no argv: the runtime applies its ruleset to the "
               "command itself (cwsc run, cwsc exec)");
  cwsc_diagnostics_free(d);
}

// An unknown Linux backend fails the compile, as it fails `cwsc compile`:
// never a bubblewrap plan made of a misspelled name.
TEST(LibErrors, AnUnknownLinuxBackendFailsTheCompile) {
  const std::string dir = Src("tests/golden/bwrap/ws_default");
  Owned o;
  cwsc_options* opts = cwsc_options_new();
  ASSERT_EQ(cwsc_options_set_linux_backend(opts, "landlok"), CWSC_OK);
  cwsc_plan* plan = nullptr;
  cwsc_diagnostics* d = nullptr;
  const std::string cfg = dir + "/config.toml";
  EXPECT_EQ(cwsc_compile_file(cfg.c_str(), CWSC_FORMAT_AUTO, "ask", Facts(o, dir + "/facts.yaml"),
                              opts, &plan, &d),
            CWSC_E_INPUT);
  cwsc_options_free(opts);
  EXPECT_EQ(plan, nullptr);
  ASSERT_EQ(cwsc_diagnostics_count(d), 1u);
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
               "--linux-backend: invalid value 'landlok': expected auto, bwrap or landlock");
  cwsc_diagnostics_free(d);
}

TEST(LibErrors, ANoneplanIsTheProgramAloneWithTheProbeWarning) {
  const std::string dir = Src("tests/golden/bwrap/probe_failed");
  Owned o;
  cwsc_options* opts = cwsc_options_new();
  const char* program[] = {"ls"};
  cwsc_options_set_program(opts, program, 1);
  cwsc_plan* plan = nullptr;
  cwsc_diagnostics* d = nullptr;
  const std::string cfg = dir + "/config.toml";
  ASSERT_EQ(cwsc_compile_file(cfg.c_str(), CWSC_FORMAT_AUTO, "ask", Facts(o, dir + "/facts.yaml"),
                              opts, &plan, &d),
            CWSC_OK);
  cwsc_options_free(opts);
  o.plans.push_back(plan);
  EXPECT_STREQ(cwsc_plan_kind(plan), "none");
  EXPECT_EQ(cwsc_diagnostics_error_count(d), 0u);
  cwsc_diagnostics_free(d);
  cwsc_argv* argv = nullptr;
  ASSERT_EQ(cwsc_plan_argv(plan, CWSC_TARGET_AUTO, &argv, nullptr), CWSC_OK);
  EXPECT_EQ(Tokens(argv), std::vector<std::string>{"ls"});
  cwsc_argv_free(argv);
  d = nullptr;
  EXPECT_EQ(cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &argv, &d), CWSC_E_NOT_APPLICABLE);
  EXPECT_THAT(cwsc_diagnostic_message(d, 0), HasSubstr("probe failed"));
  cwsc_diagnostics_free(d);
  cwsc_verdict* v = nullptr;
  ASSERT_EQ(cwsc_plan_check(plan, "write", "/etc/passwd", &v, nullptr), CWSC_OK);
  EXPECT_EQ(cwsc_verdict_allowed(v), 1);  // no OS sandbox
  cwsc_verdict_free(v);
}

TEST(LibErrors, ConfigRemarksComeBackAsWarningsOfASuccess) {
  TempDir dir;
  const std::string cfg = dir / "w.toml";
  WriteFile(cfg, "sandbox_mod = \"read-only\"\n");
  Owned o;
  cwsc_plan* plan = nullptr;
  cwsc_diagnostics* d = nullptr;
  ASSERT_EQ(
      cwsc_compile_file(cfg.c_str(), CWSC_FORMAT_AUTO, "ask",
                        Facts(o, Src("examples/facts/linux-workspace.yaml")), nullptr, &plan, &d),
      CWSC_OK);
  o.plans.push_back(plan);
  ASSERT_EQ(cwsc_diagnostics_count(d), 1u);
  EXPECT_EQ(cwsc_diagnostics_error_count(d), 0u);
  EXPECT_EQ(cwsc_diagnostic_severity(d, 0), CWSC_SEVERITY_WARNING);
  EXPECT_STREQ(cwsc_diagnostic_code(d, 0), "note");
  EXPECT_STREQ(cwsc_diagnostic_file(d, 0), cfg.c_str());
  EXPECT_EQ(cwsc_diagnostic_line(d, 0), 1);
  EXPECT_EQ(cwsc_diagnostic_col(d, 0), 15);
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
               "unknown key 'sandbox_mod' is ignored; did you mean 'sandbox_mode'?");
  EXPECT_THAT(cwsc_diagnostics_render(d), HasSubstr(cfg + ":1:15: warning: unknown key"));
  cwsc_diagnostics_free(d);
  // A clean compile hands back an empty list.
  d = nullptr;
  ASSERT_EQ(cwsc_compile_file(Src("examples/workspace.toml").c_str(), CWSC_FORMAT_AUTO, "ask",
                              o.facts[0], nullptr, &plan, &d),
            CWSC_OK);
  o.plans.push_back(plan);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(cwsc_diagnostics_count(d), 0u);
  EXPECT_STREQ(cwsc_diagnostics_render(d), "");
  cwsc_diagnostics_free(d);
}

// ---- access questions ----------------------------------------------------------

TEST(LibCheck, VerdictsAreThoseOfCwscWhy) {
  const std::string cfg = Src("examples/workspace.toml");
  const std::string facts_file = Src("examples/facts/linux-workspace.yaml");
  Owned o;
  cwsc_plan* plan = CompileFile(o, cfg, "ask", Facts(o, facts_file));
  struct Q {
    const char* access;
    const char* path;
  };
  for (const Q& q :
       {Q{"write", "/etc/passwd"}, Q{"read", "/etc/passwd"}, Q{"write", "$WORKSPACE/src/main.c"},
        Q{"read", "~/.ssh/id_rsa"}, Q{"exec", "/usr/bin/make"}}) {
    SCOPED_TRACE(std::string(q.access) + " " + q.path);
    cwsc_verdict* v = nullptr;
    cwsc_diagnostics* d = nullptr;
    ASSERT_EQ(cwsc_plan_check(plan, q.access, q.path, &v, &d), CWSC_OK)
        << cwsc_diagnostics_render(d);
    cwsc_diagnostics_free(d);
    RunResult why = Cli({Bin(), "why", q.path, cfg, std::string("--") + q.access, "--facts",
                         facts_file, "--mode", "ask"});
    ASSERT_EQ(why.exit_code, 0) << why.err;
    // `PATH (context): write denied` on the first line.
    std::string first = why.out.substr(0, why.out.find('\n'));
    EXPECT_THAT(first, HasSubstr(std::string(cwsc_verdict_path(v)) + " ("));
    EXPECT_THAT(first, HasSubstr(std::string(q.access) +
                                 (cwsc_verdict_allowed(v) ? " allowed" : " denied")));
    EXPECT_THAT(why.out, HasSubstr(cwsc_verdict_rule(v)));
    EXPECT_STRNE(cwsc_verdict_rule(v), "");
    EXPECT_STRNE(cwsc_verdict_where(v), "");
    cwsc_verdict_free(v);
  }
  cwsc_verdict* v = nullptr;
  ASSERT_EQ(cwsc_plan_check(plan, "write", "/etc/passwd", &v, nullptr), CWSC_OK);
  EXPECT_EQ(cwsc_verdict_allowed(v), 0);
  EXPECT_STREQ(cwsc_verdict_detail(v), "read-only");
  cwsc_verdict_free(v);
  ASSERT_EQ(cwsc_plan_check(plan, "network", nullptr, &v, nullptr), CWSC_OK);
  cwsc_verdict_free(v);
  ASSERT_EQ(cwsc_plan_check(plan, "create", "$WORKSPACE", &v, nullptr), CWSC_OK);
  EXPECT_EQ(cwsc_verdict_allowed(v), 1);
  EXPECT_THAT(cwsc_verdict_origin(v), HasSubstr(""));
  cwsc_verdict_free(v);
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_plan_check(plan, "read", "relative/path", &v, &d), CWSC_E_INPUT);
  EXPECT_EQ(v, nullptr);
  EXPECT_STREQ(cwsc_diagnostic_code(d, 0), "input");
  cwsc_diagnostics_free(d);
}

// A deny rule whose target the facts record as missing (~/.aws): the
// library answers as `cwsc why` does, "absent", a denial.
TEST(LibCheck, AnAbsentDenyTargetIsDeniedAsAbsent) {
  const std::string cfg = Src("examples/workspace.toml");
  const std::string facts_file = Src("examples/facts/linux-workspace.yaml");
  Owned o;
  cwsc_plan* plan = CompileFile(o, cfg, "ask", Facts(o, facts_file));
  cwsc_verdict* v = nullptr;
  ASSERT_EQ(cwsc_plan_check(plan, "read", "~/.aws/credentials", &v, nullptr), CWSC_OK);
  EXPECT_EQ(cwsc_verdict_allowed(v), 0);
  EXPECT_STREQ(cwsc_verdict_detail(v), "absent");
  EXPECT_STREQ(cwsc_verdict_rule(v), "deny read ~/.aws");
  EXPECT_STREQ(cwsc_verdict_origin(v), "default built-in deny list: ~/.aws");
  cwsc_verdict_free(v);
  RunResult why = Cli(
      {Bin(), "why", "~/.aws/credentials", cfg, "--read", "--facts", facts_file, "--mode", "ask"});
  ASSERT_EQ(why.exit_code, 0) << why.err;
  EXPECT_THAT(why.out, HasSubstr("): read denied (absent)\n"));
}

// ---- reports: the bytes of `cwsc why` and `cwsc explain` -------------------------

// ReportOf is a report of the library's, or "" when the call failed.
template <typename F>
std::string ReportOf(F call) {
  char* text = nullptr;
  size_t len = 0;
  cwsc_diagnostics* d = nullptr;
  const cwsc_status s = call(&text, &len, &d);
  EXPECT_EQ(s, CWSC_OK) << cwsc_diagnostics_render(d);
  cwsc_diagnostics_free(d);
  std::string out = text ? std::string(text, len) : "";
  cwsc_string_free(text);
  return out;
}

// ResultOf is the `result` of a --json report of the program, as the
// library gives a report's JSON: one line.
std::string ResultOf(const RunResult& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(r.out);
  return j["result"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

struct ReportCase {
  const char* config;
  const char* facts;
  const char* mode;
};
const ReportCase kReportCases[] = {
    {"examples/workspace.toml", "examples/facts/linux-workspace.yaml", "ask"},
    {"examples/workspace.toml", "examples/facts/linux-workspace.yaml", "plan"},
    {"examples/workspace.cwsp", "examples/facts/linux-workspace.yaml", "ask"},
    {"examples/locked-down.toml", "examples/facts/linux-locked-down.yaml", "auto"},
    {"examples/workspace.cwsp", "examples/facts/macos-workspace.yaml", "ask"},
    {"examples/readonly.toml", "examples/facts/macos-workspace.yaml", "ask"},
    {"tests/golden/bwrap/refused_backend/config.toml",
     "tests/golden/bwrap/refused_backend/facts.yaml", "ask"},
};

// The library's why is the program's, text and JSON, for bwrap and Seatbelt
// plans, a refused one, every access and a path whose deny target is absent.
TEST(LibReport, WhyIsTheProgramsWhy) {
  struct Q {
    const char* path;
    const char* accesses;  // nullptr: the default, read and write
    std::vector<std::string> flags;
  };
  const Q kQuestions[] = {
      {"/etc/passwd", nullptr, {}},
      {"~/.ssh/id_rsa", "read", {"--read"}},
      {"$WORKSPACE/src/main.c", "read,write,exec", {"--read", "--write", "--exec"}},
      {"~/.aws/credentials", nullptr, {}},
      {"/usr/bin/make", "exec,read", {"--exec", "--read"}},
  };
  for (const ReportCase& c : kReportCases) {
    Owned o;
    cwsc_plan* plan = CompileFile(o, Src(c.config), c.mode, Facts(o, Src(c.facts)));
    ASSERT_NE(plan, nullptr);
    for (const Q& q : kQuestions) {
      SCOPED_TRACE(std::string(c.config) + " " + c.facts + " " + c.mode + ": " + q.path);
      std::vector<std::string> argv = {Bin(),     "why",        q.path,   Src(c.config),
                                       "--facts", Src(c.facts), "--mode", c.mode};
      argv.insert(argv.end(), q.flags.begin(), q.flags.end());
      RunResult text = Cli(argv);
      ASSERT_TRUE(text.exit_code == 0 || text.exit_code == 3) << text.err;
      EXPECT_EQ(ReportOf([&](char** t, size_t* n, cwsc_diagnostics** d) {
                  return cwsc_plan_why(plan, q.path, q.accesses, CWSC_REPORT_TEXT, t, n, d);
                }),
                text.out);
      argv.push_back("--json");
      RunResult json = Cli(argv);
      EXPECT_EQ(json.exit_code, text.exit_code) << json.err;
      const std::string lib = ReportOf([&](char** t, size_t* n, cwsc_diagnostics** d) {
        return cwsc_plan_why(plan, q.path, q.accesses, CWSC_REPORT_JSON, t, n, d);
      });
      EXPECT_EQ(lib, ResultOf(json));
      // What the report says, read from its JSON: the path expanded, one
      // decision an access, in the order asked.
      nlohmann::json j = nlohmann::json::parse(lib);
      EXPECT_EQ(j["path"].get<std::string>().front(), '/');
      EXPECT_EQ(j["decisions"].size(), q.flags.empty() ? 2u : q.flags.size());
    }
  }
}

// The library's explain is the program's, text and JSON, with the lints of
// the facts given (or none without them), for each target.
TEST(LibReport, ExplainIsTheProgramsExplain) {
  for (const ReportCase& c : kReportCases) {
    Owned o;
    cwsc_facts* facts = Facts(o, Src(c.facts));
    cwsc_plan* plan = CompileFile(o, Src(c.config), c.mode, facts);
    ASSERT_NE(plan, nullptr);
    const std::string kind = cwsc_plan_kind(plan);
    const cwsc_target target = kind == "macos-seatbelt" ? CWSC_TARGET_SEATBELT
                               : kind == "refused"      ? CWSC_TARGET_AUTO
                                                        : CWSC_TARGET_BWRAP;
    SCOPED_TRACE(std::string(c.config) + " " + c.facts + " " + c.mode);
    std::vector<std::string> argv = {Bin(),        "explain", Src(c.config), "--facts",
                                     Src(c.facts), "--mode",  c.mode};
    if (target != CWSC_TARGET_AUTO) {
      argv.push_back("--target");
      argv.push_back(target == CWSC_TARGET_SEATBELT ? "seatbelt" : "bwrap");
    }
    RunResult text = Cli(argv);
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(ReportOf([&](char** t, size_t* n, cwsc_diagnostics** d) {
                return cwsc_plan_explain(plan, facts, target, CWSC_REPORT_TEXT, t, n, d);
              }),
              text.out);
    argv.push_back("--json");
    RunResult json = Cli(argv);
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const std::string lib = ReportOf([&](char** t, size_t* n, cwsc_diagnostics** d) {
      return cwsc_plan_explain(plan, facts, target, CWSC_REPORT_JSON, t, n, d);
    });
    EXPECT_EQ(lib, ResultOf(json));
    nlohmann::json j = nlohmann::json::parse(lib);
    EXPECT_EQ(j["plan_kind"], kind);
    if (kind == "refused") {
      EXPECT_TRUE(j["tokens"].empty());
      EXPECT_FALSE(j["refusal"].is_null());
    } else {
      // Each token of the argv the plan gives, with its origin.
      cwsc_argv* a = nullptr;
      ASSERT_EQ(cwsc_plan_argv(plan, target, &a, nullptr), CWSC_OK);
      std::vector<std::string> tokens;
      for (const auto& t : j["tokens"]) tokens.push_back(t["text"]);
      EXPECT_EQ(tokens, Tokens(a));
      cwsc_argv_free(a);
    }
  }
  // Without facts, no lints: examples/workspace.toml in mode ask has one
  // (the program prints it as `# lint [...]`).
  Owned o;
  cwsc_plan* plan = CompileFile(o, Src("examples/workspace.toml"), "ask",
                                Facts(o, Src("examples/facts/linux-workspace.yaml")));
  const std::string without = ReportOf([&](char** t, size_t* n, cwsc_diagnostics** d) {
    return cwsc_plan_explain(plan, nullptr, CWSC_TARGET_AUTO, CWSC_REPORT_TEXT, t, n, d);
  });
  EXPECT_THAT(without, HasSubstr("# plan kind: linux-bwrap\n"));
  EXPECT_THAT(without, ::testing::Not(HasSubstr("# lint [")));
}

// The library's diff is the program's, text and JSON: two configs with
// their own facts, two modes of one config (the program diffs their plan
// files), and a plan against itself.
TEST(LibReport, DiffIsTheProgramsDiff) {
  TempDir dir;
  const std::string ws = Src("examples/workspace.toml"), ro = Src("examples/readonly.toml");
  const std::string ws_facts = Src("examples/facts/linux-workspace.yaml");
  const std::string ro_facts = Src("examples/facts/linux-readonly.yaml");
  Owned o;
  cwsc_plan* ask = CompileFile(o, ws, "ask", Facts(o, ws_facts));
  cwsc_plan* plan_mode = CompileFile(o, ws, "plan", Facts(o, ws_facts));
  cwsc_plan* readonly = CompileFile(o, ro, "ask", Facts(o, ro_facts));
  for (const char* mode : {"plan", "ask"}) {
    RunResult c =
        Cli({Bin(), "compile", ws, "--facts", ws_facts, "--mode", mode, "--target", "plan"});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    WriteFile(dir / (std::string(mode) + ".json"), c.out);
  }
  struct D {
    cwsc_plan* a;
    cwsc_plan* b;
    std::vector<std::string> args;
    std::string name_a, name_b;
  };
  const D kDiffs[] = {
      {ask,
       readonly,
       {ws, ro, "--facts", ws_facts, "--facts-b", ro_facts, "--mode", "ask"},
       ws,
       ro},
      {plan_mode, ask, {dir / "plan.json", dir / "ask.json"}, dir / "plan.json", dir / "ask.json"},
      {ask, ask, {dir / "ask.json", dir / "ask.json"}, dir / "ask.json", dir / "ask.json"},
  };
  for (const D& d : kDiffs) {
    SCOPED_TRACE(d.args[0] + " " + d.args[1]);
    std::vector<std::string> argv = {Bin(), "diff"};
    argv.insert(argv.end(), d.args.begin(), d.args.end());
    RunResult text = Cli(argv);
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(ReportOf([&](char** t, size_t* n, cwsc_diagnostics** dg) {
                return cwsc_plan_diff(d.a, nullptr, d.b, nullptr, CWSC_REPORT_TEXT, t, n, dg);
              }),
              text.out);
    argv.push_back("--json");
    RunResult json = Cli(argv);
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const std::string lib = ReportOf([&](char** t, size_t* n, cwsc_diagnostics** dg) {
      return cwsc_plan_diff(d.a, d.name_a.c_str(), d.b, d.name_b.c_str(), CWSC_REPORT_JSON, t, n,
                            dg);
    });
    EXPECT_EQ(lib, ResultOf(json));
    nlohmann::json j = nlohmann::json::parse(lib);
    EXPECT_EQ(j["widened"].get<int>() + j["narrowed"].get<int>(), j["changes"].size());
  }
  // Plan mode to ask mode widens: writing the workspace is what ask grants.
  const std::string widened = ReportOf([&](char** t, size_t* n, cwsc_diagnostics** dg) {
    return cwsc_plan_diff(plan_mode, nullptr, ask, nullptr, CWSC_REPORT_JSON, t, n, dg);
  });
  nlohmann::json j = nlohmann::json::parse(widened);
  EXPECT_EQ(j["a"], "A");
  EXPECT_EQ(j["b"], "B");
  EXPECT_GT(j["widened"].get<int>(), 0);
  EXPECT_EQ(j["changes"][0]["change"], "widened");
  EXPECT_EQ(ReportOf([&](char** t, size_t* n, cwsc_diagnostics** dg) {
              return cwsc_plan_diff(ask, nullptr, ask, nullptr, CWSC_REPORT_TEXT, t, n, dg);
            }),
            "no access changes\n");
}

// The library's check is the program's, text and JSON: passing and failing
// .cwsp files, a config without expectations, chosen modes, the failed
// flag as the exit code, and the notes as diagnostics.
TEST(LibReport, CheckIsTheProgramsCheck) {
  struct C {
    const char* file;
    const char* facts;
    const char* modes;  // nullptr: every mode
    int exit_code;
  };
  const C kChecks[] = {
      {"examples/workspace.cwsp", "examples/facts/linux-workspace.yaml", nullptr, 0},
      {"examples/failing.cwsp", "examples/facts/linux-workspace.yaml", nullptr, 1},
      {"examples/team.cwsp", "examples/facts/linux-workspace.yaml", "ask,plan", 1},
      {"examples/locked-down.cwsp", "examples/facts/linux-locked-down.yaml", "auto", 0},
      {"examples/workspace.cwsp", "examples/facts/macos-workspace.yaml", nullptr, 0},
      {"examples/workspace.toml", "examples/facts/linux-workspace.yaml", nullptr, 0},
  };
  for (const C& c : kChecks) {
    SCOPED_TRACE(std::string(c.file) + " " + c.facts + " " + (c.modes ? c.modes : "every mode"));
    Owned o;
    cwsc_facts* facts = Facts(o, Src(c.facts));
    std::vector<std::string> argv = {Bin(), "check", Src(c.file), "--facts", Src(c.facts)};
    if (c.modes) {
      argv.push_back("--mode");
      argv.push_back(c.modes);
    }
    RunResult text = Cli(argv);
    ASSERT_EQ(text.exit_code, c.exit_code) << text.err;
    for (cwsc_report_format format : {CWSC_REPORT_TEXT, CWSC_REPORT_JSON}) {
      char* t = nullptr;
      size_t n = 0;
      int failed = -1;
      cwsc_diagnostics* d = nullptr;
      ASSERT_EQ(cwsc_check_file(Src(c.file).c_str(), CWSC_FORMAT_AUTO, c.modes, facts, nullptr,
                                format, &t, &n, &failed, &d),
                CWSC_OK)
          << cwsc_diagnostics_render(d);
      EXPECT_EQ(failed, c.exit_code);
      const std::string lib(t, n);
      cwsc_string_free(t);
      if (format == CWSC_REPORT_TEXT) {
        EXPECT_EQ(lib, text.out);
        // The notes the program prints on stderr are the diagnostics.
        for (size_t i = 0; i < cwsc_diagnostics_count(d); ++i) {
          if (std::string(cwsc_diagnostic_code(d, i)) == "note" &&
              std::string(cwsc_diagnostic_message(d, i)).rfind("skipped ", 0) == 0) {
            EXPECT_THAT(text.err, HasSubstr(cwsc_diagnostic_message(d, i)));
          }
        }
      } else {
        std::vector<std::string> json_argv = argv;
        json_argv.push_back("--json");
        RunResult json = Cli(json_argv);
        EXPECT_EQ(json.exit_code, c.exit_code) << json.err;
        EXPECT_EQ(lib, ResultOf(json));
        nlohmann::json j = nlohmann::json::parse(lib);
        EXPECT_EQ(j["failed"].get<int>() > 0, c.exit_code == 1);
        EXPECT_EQ(j["results"].size(), j["passed"].get<size_t>() + j["failed"].get<size_t>() +
                                           j["unchecked"].get<size_t>());
      }
      cwsc_diagnostics_free(d);
    }
  }
  // A bad mode and a file that is not there are the program's errors.
  char* t = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(
      cwsc_check_file(Src("examples/workspace.cwsp").c_str(), CWSC_FORMAT_AUTO, "ask,sometimes",
                      nullptr, nullptr, CWSC_REPORT_TEXT, &t, nullptr, nullptr, &d),
      CWSC_E_INPUT);
  EXPECT_EQ(t, nullptr);
  EXPECT_STREQ(cwsc_diagnostic_code(d, 0), "mode");
  cwsc_diagnostics_free(d);
  d = nullptr;
  EXPECT_EQ(cwsc_check_file("/nonexistent/p.cwsp", CWSC_FORMAT_AUTO, nullptr, nullptr, nullptr,
                            CWSC_REPORT_TEXT, &t, nullptr, nullptr, &d),
            CWSC_E_INPUT);
  EXPECT_STREQ(cwsc_diagnostics_render(d),
               Cli({Bin(), "check", "/nonexistent/p.cwsp"}).err.c_str());
  cwsc_diagnostics_free(d);
}

TEST(LibReport, BadArgumentsAreTheirOwnErrors) {
  Owned o;
  cwsc_facts* facts = Facts(o, Src("examples/facts/linux-workspace.yaml"));
  cwsc_plan* plan = CompileFile(o, Src("examples/workspace.toml"), "ask", facts);
  struct E {
    cwsc_status status;
    const char* code;
    const char* message;
  };
  auto expect = [](const E& e, auto call) {
    char* t = nullptr;
    size_t n = 7;
    cwsc_diagnostics* d = nullptr;
    EXPECT_EQ(call(&t, &n, &d), e.status);
    EXPECT_EQ(t, nullptr);
    ASSERT_EQ(cwsc_diagnostics_count(d), 1u);
    EXPECT_STREQ(cwsc_diagnostic_code(d, 0), e.code);
    EXPECT_STREQ(cwsc_diagnostic_message(d, 0), e.message);
    cwsc_diagnostics_free(d);
  };
  expect({CWSC_E_USAGE, "usage", "unknown access 'create': expected read, write or exec"},
         [&](char** t, size_t* n, cwsc_diagnostics** d) {
           return cwsc_plan_why(plan, "/etc", "read,create", CWSC_REPORT_TEXT, t, n, d);
         });
  expect({CWSC_E_USAGE, "usage", "unknown access '': expected read, write or exec"},
         [&](char** t, size_t* n, cwsc_diagnostics** d) {
           return cwsc_plan_why(plan, "/etc", "", CWSC_REPORT_TEXT, t, n, d);
         });
  expect({CWSC_E_USAGE, "usage", "unknown cwsc_report_format value"},
         [&](char** t, size_t* n, cwsc_diagnostics** d) {
           return cwsc_plan_why(plan, "/etc", nullptr, static_cast<cwsc_report_format>(7), t, n, d);
         });
  expect({CWSC_E_USAGE, "usage", "unknown cwsc_report_format value"},
         [&](char** t, size_t* n, cwsc_diagnostics** d) {
           return cwsc_plan_explain(plan, facts, CWSC_TARGET_AUTO,
                                    static_cast<cwsc_report_format>(-1), t, n, d);
         });
  expect({CWSC_E_USAGE, "usage", "unknown cwsc_target value"}, [&](char** t, size_t* n,
                                                                   cwsc_diagnostics** d) {
    return cwsc_plan_explain(plan, facts, static_cast<cwsc_target>(9), CWSC_REPORT_TEXT, t, n, d);
  });
  expect({CWSC_E_INPUT, "input",
          "PATH 'relative/path': path 'relative/path' is relative; use an absolute path, ~ or a "
          "variable"},
         [&](char** t, size_t* n, cwsc_diagnostics** d) {
           return cwsc_plan_why(plan, "relative/path", nullptr, CWSC_REPORT_TEXT, t, n, d);
         });
  expect({CWSC_E_USAGE, "usage", "path must not be NULL"},
         [&](char** t, size_t* n, cwsc_diagnostics** d) {
           return cwsc_plan_why(plan, nullptr, nullptr, CWSC_REPORT_TEXT, t, n, d);
         });
  expect({CWSC_E_NOT_APPLICABLE, "not-applicable",
          "--target seatbelt: plan kind linux-bwrap has no Seatbelt profile"},
         [&](char** t, size_t* n, cwsc_diagnostics** d) {
           return cwsc_plan_explain(plan, facts, CWSC_TARGET_SEATBELT, CWSC_REPORT_TEXT, t, n, d);
         });
  expect({CWSC_E_USAGE, "usage", "b must not be NULL"},
         [&](char** t, size_t* n, cwsc_diagnostics** d) {
           return cwsc_plan_diff(plan, nullptr, nullptr, nullptr, CWSC_REPORT_TEXT, t, n, d);
         });
  expect({CWSC_E_USAGE, "usage", "unknown cwsc_report_format value"},
         [&](char** t, size_t* n, cwsc_diagnostics** d) {
           return cwsc_plan_diff(plan, nullptr, plan, nullptr, static_cast<cwsc_report_format>(2),
                                 t, n, d);
         });
  // A remote plan has no artifact here to ask.
  cwsc_plan* remote = CompileFile(o, Src("examples/remote.toml"), "ask", facts);
  expect({CWSC_E_NOT_APPLICABLE, "not-applicable",
          "a remote plan has no local artifact to ask: its server enforces it"},
         [&](char** t, size_t* n, cwsc_diagnostics** d) {
           return cwsc_plan_why(remote, "/etc", nullptr, CWSC_REPORT_JSON, t, n, d);
         });
}

// ---- threads ------------------------------------------------------------------------

TEST(LibThreads, ConcurrentCompilesGiveTheSameArgv) {
  const std::string cfg = Src("examples/workspace.cwsp");
  const std::string facts_file = Src("examples/facts/linux-workspace.yaml");
  Owned o;
  cwsc_facts* shared_facts = Facts(o, facts_file);
  cwsc_policy* policy = nullptr;
  ASSERT_EQ(cwsc_policy_load_file(cfg.c_str(), CWSC_FORMAT_AUTO, nullptr, &policy, nullptr),
            CWSC_OK);
  o.policies.push_back(policy);
  cwsc_plan* ref = CompileFile(o, cfg, "ask", shared_facts);
  cwsc_argv* ref_argv = nullptr;
  ASSERT_EQ(cwsc_plan_argv(ref, CWSC_TARGET_BWRAP, &ref_argv, nullptr), CWSC_OK);
  const std::vector<std::string> want = Tokens(ref_argv);
  cwsc_argv_free(ref_argv);

  constexpr int kThreads = 8, kRounds = 15;
  std::vector<int> bad(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      cwsc_facts* own = nullptr;
      if (cwsc_facts_load_file(facts_file.c_str(), &own, nullptr) != CWSC_OK) {
        bad[t]++;
        return;
      }
      for (int r = 0; r < kRounds; ++r) {
        cwsc_plan* plan = nullptr;
        // Half the threads share one facts handle and the parsed policy; the
        // others parse the file and use their own facts.
        cwsc_status s = t % 2 == 0
                            ? cwsc_compile(policy, "ask", shared_facts, nullptr, &plan, nullptr)
                            : cwsc_compile_file(cfg.c_str(), CWSC_FORMAT_AUTO, "ask", own, nullptr,
                                                &plan, nullptr);
        cwsc_argv* argv = nullptr;
        if (s != CWSC_OK || cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &argv, nullptr) != CWSC_OK ||
            Tokens(argv) != want) {
          bad[t]++;
        }
        cwsc_argv_free(argv);
        cwsc_plan_free(plan);
      }
      cwsc_facts_free(own);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
}

// ---- version and the C++ API -------------------------------------------------------

TEST(LibVersion, VersionAndAbi) {
  const char* v = std::getenv("CWSC_PROJECT_VERSION");
  ASSERT_NE(v, nullptr);
  EXPECT_STREQ(cwsc_version(), v);
  EXPECT_EQ(cwsc_abi_version(), CWSC_ABI_VERSION);
  EXPECT_EQ(CWSC_ABI_VERSION, 0);
  EXPECT_STREQ(cwsc_status_name(CWSC_OK), "ok");
  EXPECT_STREQ(cwsc_status_name(CWSC_E_USAGE), "usage");
  EXPECT_STREQ(cwsc_status_name(CWSC_E_INPUT), "input");
  EXPECT_STREQ(cwsc_status_name(CWSC_E_REFUSED), "refused");
  EXPECT_STREQ(cwsc_status_name(CWSC_E_NOT_APPLICABLE), "not-applicable");
  EXPECT_STREQ(cwsc_status_name(CWSC_E_INTERNAL), "internal");
  EXPECT_STREQ(cwsc_status_name(static_cast<cwsc_status>(42)), "unknown");
  // The statuses of bad input, refusal and a missing artifact are the program's exit codes.
  EXPECT_EQ(CWSC_E_INPUT, 2);
  EXPECT_EQ(CWSC_E_REFUSED, 3);
  EXPECT_EQ(CWSC_E_NOT_APPLICABLE, 4);
  RunResult cli = Cli({Bin(), "--version"});
  EXPECT_THAT(cli.out, HasSubstr(cwsc_version()));
}

TEST(LibCpp, TheCppApiGivesTheCApisResults) {
  const std::string cfg = Src("examples/workspace.toml");
  const std::string facts_file = Src("examples/facts/linux-workspace.yaml");
  cwsc::Result<cwsc::Facts> facts = cwsc::Facts::LoadFile(facts_file);
  ASSERT_TRUE(facts.ok()) << facts.diagnostics().Render();
  cwsc::Result<cwsc::Policy> policy = cwsc::Policy::LoadFile(cfg);
  ASSERT_TRUE(policy.ok());
  cwsc::Options opts;
  opts.Program({"make", "test"});
  cwsc::Result<cwsc::Plan> plan = policy->Compile("ask", &facts.value(), &opts);
  ASSERT_TRUE(plan.ok()) << plan.diagnostics().Render();
  EXPECT_EQ(plan->Kind(), "linux-bwrap");
  cwsc::Result<std::vector<std::string>> argv = plan->Argv(CWSC_TARGET_BWRAP);
  ASSERT_TRUE(argv.ok());
  RunResult cli = Cli({Bin(), "compile", cfg, "--facts", facts_file, "--mode", "ask", "--target",
                       "bwrap", "--format", "nul", "--", "make", "test"});
  EXPECT_EQ(argv.value(), SplitNul(cli.out));
  cwsc::Result<std::string> json = plan->Json();
  ASSERT_TRUE(json.ok());
  EXPECT_THAT(json.value(), HasSubstr("\"kind\": \"linux-bwrap\""));
  cwsc::Result<cwsc::Verdict> v = plan->Check("write", "/etc/passwd");
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->allowed);
  // Failures carry the status and the diagnostics, never an exception.
  cwsc::Result<cwsc::Policy> bad =
      cwsc::Policy::Parse("sandbox_mode = 3\n", CWSC_FORMAT_TOML, "b.toml");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status(), CWSC_E_INPUT);
  ASSERT_EQ(bad.diagnostics().size(), 1u);
  EXPECT_EQ(bad.diagnostics()[0].file, "b.toml");
  EXPECT_EQ(bad.diagnostics()[0].line, 1);
  EXPECT_EQ(bad.diagnostics().error_count(), 1u);
  cwsc::Result<std::string> bpf = plan->SeccompBpf();
  ASSERT_TRUE(bpf.ok());
  EXPECT_EQ(bpf.value(), Cli({Bin(), "compile", cfg, "--facts", facts_file, "--mode", "ask",
                              "--target", "seccomp-bpf"})
                             .out);
  cwsc::Result<std::string> sbpl = plan->Sbpl();
  EXPECT_EQ(sbpl.status(), CWSC_E_NOT_APPLICABLE);
  cwsc::Result<std::string> remote = plan->OpenSandboxJson();
  EXPECT_EQ(remote.status(), CWSC_E_NOT_APPLICABLE);
  // The reports, as the C functions give them.
  cwsc::Result<std::string> why = plan->Why("/etc/passwd", "write");
  ASSERT_TRUE(why.ok()) << why.diagnostics().Render();
  EXPECT_EQ(why.value(), Cli({Bin(), "why", "/etc/passwd", cfg, "--write", "--facts", facts_file,
                              "--mode", "ask"})
                             .out);
  cwsc::Result<std::string> explain = plan->Explain(&facts.value(), CWSC_TARGET_BWRAP);
  ASSERT_TRUE(explain.ok()) << explain.diagnostics().Render();
  EXPECT_EQ(explain.value(), Cli({Bin(), "explain", cfg, "--facts", facts_file, "--mode", "ask",
                                  "--target", "bwrap", "--", "make", "test"})
                                 .out);
  cwsc::Result<std::string> diff = plan->DiffTo(plan.value(), CWSC_REPORT_JSON);
  ASSERT_TRUE(diff.ok());
  EXPECT_THAT(diff.value(), HasSubstr("\"widened\":0,\"narrowed\":0"));
  EXPECT_EQ(plan->Why("relative").status(), CWSC_E_INPUT);
  cwsc::Result<cwsc::CheckReport> check =
      cwsc::CheckFile(Src("examples/failing.cwsp"), "ask", &facts.value());
  ASSERT_TRUE(check.ok()) << check.diagnostics().Render();
  EXPECT_TRUE(check->failed);
  RunResult check_cli =
      Cli({Bin(), "check", Src("examples/failing.cwsp"), "--facts", facts_file, "--mode", "ask"});
  EXPECT_EQ(check_cli.exit_code, 1);
  EXPECT_EQ(check->report, check_cli.out);
  cwsc::Result<cwsc::Facts> bad_facts = cwsc::Facts::Parse("user: [\n", "x.yaml");
  EXPECT_EQ(bad_facts.status(), CWSC_E_INPUT);
  cwsc::Facts live = cwsc::Facts::Live();
  EXPECT_NE(live.get(), nullptr);
  EXPECT_EQ(cwsc::Version(), cwsc_version());
}

}  // namespace
