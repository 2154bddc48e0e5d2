// The driver layer's values (compiler/driver/): what `cwsc check`, `diff`,
// `audit` and `compile` render, checked as the structs the driver returns
// rather than as the text the CLI prints.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/driver/audit.h"
#include "compiler/driver/check.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/diff.h"
#include "compiler/driver/emit.h"
#include "compiler/driver/expect.h"
#include "compiler/driver/format.h"
#include "compiler/driver/names.h"
#include "compiler/driver/stage.h"
#include "compiler/driver/why.h"
#include "compiler/facts/host_facts.h"
#include "compiler/modes.h"
#include "ir/plan_json.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc {
namespace {

std::string Src() { return testing::SourceRoot(); }

std::unique_ptr<compiler::HostFacts> Facts(const std::string& name) {
  absl::StatusOr<std::unique_ptr<compiler::HostFacts>> f =
      compiler::LoadRecordedFacts(Src() + "/examples/facts/" + name);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *std::move(f) : nullptr;
}

driver::ExpectOptions Options(const std::string& config, const std::string& facts_file) {
  driver::ExpectOptions o;
  o.compile.config_path = Src() + "/" + config;
  o.facts_rule.facts_file = Src() + "/examples/facts/" + facts_file;
  return o;
}

// Each expectation of workspace.cwsp in each mode it names, with the verdict
// the plan's artifact gives and the plan element behind it.
TEST(DriverExpect, EveryExpectationInEveryModeItNames) {
  std::unique_ptr<compiler::HostFacts> facts = Facts("linux-workspace.yaml");
  driver::ExpectOptions o = Options("examples/workspace.cwsp", "linux-workspace.yaml");
  std::vector<ir::Expectation> none;
  driver::ExpectRun run = driver::RunExpectations(o, "workspace", none, facts.get());
  EXPECT_EQ(run.failure, driver::ExpectFailure::kNone) << run.status;
  EXPECT_TRUE(run.plans.empty());  // nothing asked, nothing compiled

  // The policy's own expectations, read as `cwsc check` reads them.
  absl::StatusOr<std::vector<ir::Expectation>> es =
      driver::ExpectationsOf(Src() + "/examples/workspace.cwsp");
  ASSERT_TRUE(es.ok()) << es.status();
  ASSERT_EQ(es->size(), 5u);
  run = driver::RunExpectations(o, "workspace", *es, facts.get());
  ASSERT_EQ(run.failure, driver::ExpectFailure::kNone) << run.status;
  // Each mode compiled once, in the order first needed (plan is the first
  // mode of the first expectation that names it).
  ASSERT_EQ(run.plans.size(), 4u);
  EXPECT_EQ(run.plans[0]->mode, ir::PermissionMode::kAsk);
  EXPECT_EQ(run.plans[1]->mode, ir::PermissionMode::kAutoReview);
  EXPECT_EQ(run.plans[2]->mode, ir::PermissionMode::kFullAccess);
  EXPECT_EQ(run.plans[3]->mode, ir::PermissionMode::kPlan);
  for (const auto& mp : run.plans) EXPECT_EQ(mp->art.plan, &mp->result.plan);
  ASSERT_EQ(run.expectations.size(), 5u);
  const driver::ExpectationResult& first = run.expectations[0];
  EXPECT_EQ(first.expectation.origin.line, 15);
  ASSERT_EQ(first.verdicts.size(), 3u);
  EXPECT_EQ(first.verdicts[0].mode, ir::PermissionMode::kAsk);
  EXPECT_EQ(first.verdicts[0].target, "bwrap");
  EXPECT_EQ(first.verdicts[0].path, "/home/dev/proj/src/main.c");
  EXPECT_TRUE(first.verdicts[0].pass);
  EXPECT_TRUE(first.verdicts[0].decision.allowed);
  EXPECT_EQ(first.verdicts[0].decision.detail, "writable");
  EXPECT_EQ(first.verdicts[0].decision.where, "layer 4, argv 17");
  ASSERT_TRUE(first.verdicts[0].decision.origin.has_value());
  EXPECT_FALSE(first.verdicts[0].live.has_value());
  const driver::ExpectationResult& plan_only = run.expectations[1];
  ASSERT_EQ(plan_only.verdicts.size(), 1u);
  EXPECT_EQ(plan_only.verdicts[0].mode, ir::PermissionMode::kPlan);
  EXPECT_FALSE(plan_only.verdicts[0].decision.allowed);
  EXPECT_EQ(plan_only.verdicts[0].decision.detail, "read-only");
  int verdicts = 0;
  for (const auto& er : run.expectations) verdicts += static_cast<int>(er.verdicts.size());
  EXPECT_EQ(run.counts.passed + run.counts.failed + run.counts.unchecked, verdicts);
  EXPECT_EQ(run.counts.failed, 0);
}

// A mode chosen alone compiles that mode only; a target its plan does not
// emit stops the run with the modes compiled so far kept (for their notes).
TEST(DriverExpect, ModesAndTargets) {
  std::unique_ptr<compiler::HostFacts> facts = Facts("linux-workspace.yaml");
  driver::ExpectOptions o = Options("examples/workspace.cwsp", "linux-workspace.yaml");
  absl::StatusOr<std::vector<ir::Expectation>> es =
      driver::ExpectationsOf(Src() + "/examples/workspace.cwsp");
  ASSERT_TRUE(es.ok()) << es.status();
  o.modes = {ir::PermissionMode::kPlan};
  driver::ExpectRun run = driver::RunExpectations(o, "workspace", *es, facts.get());
  ASSERT_EQ(run.failure, driver::ExpectFailure::kNone) << run.status;
  ASSERT_EQ(run.plans.size(), 1u);
  EXPECT_TRUE(run.expectations[0].verdicts.empty());  // "in ask, auto-review, full-access"
  EXPECT_EQ(run.expectations[1].verdicts.size(), 1u);

  o.targets = {"seatbelt"};
  run = driver::RunExpectations(o, "workspace", *es, facts.get());
  EXPECT_EQ(run.failure, driver::ExpectFailure::kNotApplicable);
  EXPECT_EQ(run.status.message(),
            "--target seatbelt: mode plan compiles to a linux-bwrap plan, which emits no such "
            "artifact");
  ASSERT_EQ(run.plans.size(), 1u);
  EXPECT_EQ(run.plans[0]->mode, ir::PermissionMode::kPlan);
}

// --lint compiles every mode; each lint is listed once with its modes.
TEST(DriverExpect, LintsOnceWithTheirModes) {
  std::unique_ptr<compiler::HostFacts> facts = Facts("linux-workspace.yaml");
  driver::ExpectOptions o = Options("examples/workspace.cwsp", "linux-workspace.yaml");
  o.lint = true;
  driver::ExpectRun run = driver::RunExpectations(o, "workspace", {}, facts.get());
  ASSERT_EQ(run.failure, driver::ExpectFailure::kNone) << run.status;
  EXPECT_EQ(run.plans.size(), 4u);
  for (size_t i = 0; i < run.lints.size(); ++i) {
    EXPECT_FALSE(run.lints[i].modes.empty());
    for (size_t j = i + 1; j < run.lints.size(); ++j) {
      EXPECT_FALSE(run.lints[i].lint.code == run.lints[j].lint.code &&
                   run.lints[i].lint.message == run.lints[j].lint.message);
    }
  }
}

// The missing-facts rule: each asker's message.
TEST(DriverCompile, MissingFactsMessages) {
  std::vector<std::string> one = {"/a"}, three = {"/a", "/b", "/c"};
  EXPECT_EQ(driver::MissingFactsMessage(one, driver::FactsAsker::kDiff),
            "the facts file does not record '/a'; record the facts again with `cwsc facts --for "
            "CONFIG`, or pass --unlisted-as-missing");
  EXPECT_EQ(driver::MissingFactsMessage(three, driver::FactsAsker::kCheck, "ask"),
            "the facts file does not record '/a' (and 2 more paths), which this check asks "
            "about (mode ask): record the facts again with `cwsc facts --for CONFIG`, or pass "
            "--unlisted-as-missing to treat unrecorded paths as missing");
  EXPECT_NE(driver::MissingFactsMessage(one, driver::FactsAsker::kLibrary)
                .find("cwsc_options_set_unlisted_as_missing"),
            std::string::npos);
  EXPECT_NE(driver::MissingFactsMessage(one, driver::FactsAsker::kCompile)
                .find("which this compile asks about"),
            std::string::npos);
}

ir::LaunchPlan PlanFor(const std::string& mode, compiler::HostFacts* facts) {
  compiler::CompileOptions c;
  c.config_path = Src() + "/examples/workspace.cwsp";
  c.mode = mode;
  absl::StatusOr<compiler::CompileResult> r =
      driver::CompileChecked(c, facts, {Src() + "/examples/facts/linux-workspace.yaml", false},
                             driver::FactsAsker::kCompile);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->plan : ir::LaunchPlan{};
}

// plan -> ask opens the workspace for writing: a widening, explained on
// both sides, and no change listed below one that explains it.
TEST(DriverDiff, WideningsFirstAndNoneBelowTheSameChange) {
  std::unique_ptr<compiler::HostFacts> facts = Facts("linux-workspace.yaml");
  ir::LaunchPlan plan = PlanFor("plan", facts.get()), ask = PlanFor("ask", facts.get());
  absl::StatusOr<driver::PlanDiff> same = driver::DiffPlans(ask, ask);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_TRUE(same->changes.empty());
  EXPECT_FALSE(same->plan_kind || same->launcher || same->wrapper || same->remote_not_compared);

  absl::StatusOr<driver::PlanDiff> d = driver::DiffPlans(plan, ask);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_GT(d->widened, 0);
  EXPECT_EQ(d->widened + d->narrowed, static_cast<int>(d->changes.size()));
  bool workspace = false;
  for (size_t i = 0; i < d->changes.size(); ++i) {
    const driver::AccessChange& c = d->changes[i];
    EXPECT_EQ(c.widened, static_cast<int>(i) < d->widened) << c.path;
    EXPECT_EQ(c.widened, c.b.allowed);
    EXPECT_NE(c.a.allowed, c.b.allowed);
    if (c.kind == backends::AccessKind::kWrite && c.path == "/home/dev/proj") {
      workspace = true;
      EXPECT_EQ(c.a.detail, "read-only");
      EXPECT_EQ(c.b.detail, "writable");
    }
    for (const driver::AccessChange& o : d->changes) {
      EXPECT_FALSE(&o != &c && o.kind == c.kind && o.widened == c.widened && o.a.rule == c.a.rule &&
                   o.b.rule == c.b.rule && !o.path.empty() &&
                   driver::StrictlyInside(c.path, o.path))
          << c.path << " is below " << o.path;
    }
  }
  EXPECT_TRUE(workspace);
  // Reversed, every widening is a narrowing.
  absl::StatusOr<driver::PlanDiff> back = driver::DiffPlans(ask, plan);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->widened, d->narrowed);
  EXPECT_EQ(back->narrowed, d->widened);
}

// A bwrap command line cwsc did not write: each destination once, in layer
// order, with what a read meets; expectations decided on it.
TEST(DriverAudit, BwrapArgvMapAndExpectations) {
  absl::StatusOr<driver::Audit> a = driver::AuditBwrapArgv(
      {"bwrap", "--ro-bind", "/", "/", "--bind", "/w", "/w", "--tmpfs", "/tmp", "--bind", "/w",
       "/w", "--chdir", "/w", "--unshare-all", "--", "sh"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->art.target, "bwrap");
  EXPECT_EQ(a->art.plan, a->plan.get());
  EXPECT_EQ(a->chdir, "/w");
  ASSERT_EQ(a->paths.size(), 3u);
  EXPECT_EQ(a->paths[0].path, "/");
  EXPECT_EQ(a->paths[0].access, "read-only");
  EXPECT_EQ(a->paths[1].path, "/tmp");
  EXPECT_EQ(a->paths[2].path, "/w");
  EXPECT_EQ(a->paths[2].access, "writable");

  compiler::PathVars vars = driver::AuditVars("/home/x", std::nullopt, a->chdir);
  EXPECT_EQ(vars.workspace, "/w");
  EXPECT_EQ(vars.home, "/home/x");
  ir::Expectation w{ir::Expectation::Kind::kWrite, "$WORKSPACE/out", true, {}, {}};
  ir::Expectation net{ir::Expectation::Kind::kNetwork, "", true, {}, {}};
  absl::StatusOr<std::vector<driver::AuditVerdict>> v = driver::CheckAudit(a->art, vars, {w, net});
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->size(), 2u);
  EXPECT_EQ((*v)[0].path, "/w/out");
  EXPECT_TRUE((*v)[0].pass);
  EXPECT_FALSE((*v)[1].pass);  // --unshare-all isolates the network
  EXPECT_FALSE((*v)[1].decision.allowed);
}

// Target dispatch: auto resolves to the plan kind's own target; a target
// the plan does not have is not applicable; an unknown one is the caller's.
TEST(DriverEmit, TargetDispatch) {
  std::unique_ptr<compiler::HostFacts> facts = Facts("linux-workspace.yaml");
  ir::LaunchPlan ask = PlanFor("ask", facts.get());
  driver::Emitted e = driver::EmitTarget(ask, "auto", {"sh"});
  ASSERT_EQ(e.failure, driver::EmitFailure::kNone) << e.status;
  EXPECT_EQ(e.artifact.target, "bwrap");
  EXPECT_TRUE(e.artifact.is_argv);
  ASSERT_FALSE(e.artifact.argv.empty());
  EXPECT_EQ(e.artifact.argv.back().text, "sh");
  EXPECT_TRUE(e.artifact.note.empty());

  e = driver::EmitTarget(ask, "plan", {});
  ASSERT_EQ(e.failure, driver::EmitFailure::kNone) << e.status;
  EXPECT_FALSE(e.artifact.is_argv);
  EXPECT_EQ(e.artifact.text.front(), '{');

  e = driver::EmitTarget(ask, "seatbelt", {"sh"});
  EXPECT_EQ(e.failure, driver::EmitFailure::kNotApplicable);
  EXPECT_TRUE(absl::StartsWith(e.status.message(), "--target seatbelt: ")) << e.status;

  e = driver::EmitTarget(ask, "opensandbox", {"sh"});
  EXPECT_EQ(e.failure, driver::EmitFailure::kNotApplicable);

  e = driver::EmitTarget(ask, "nope", {"sh"});
  EXPECT_EQ(e.failure, driver::EmitFailure::kUnknownTarget);

  ir::LaunchPlan none;
  e = driver::EmitTarget(none, "auto", {"sh", "-c", "true"});
  ASSERT_EQ(e.failure, driver::EmitFailure::kNone) << e.status;
  EXPECT_EQ(e.artifact.target, "none");
  EXPECT_EQ(e.artifact.argv.size(), 3u);
  EXPECT_EQ(e.artifact.note, "plan kind none: the command runs without an OS sandbox");
}

// compile's --format: which forms a target takes, checked before any
// compile, and what is written for each, with the note a bwrap argv that
// needs its seccomp program carries in the forms people read.
TEST(DriverFormat, FormsAndNotes) {
  EXPECT_TRUE(driver::CheckFormat("bwrap", std::nullopt).ok());
  EXPECT_TRUE(driver::CheckFormat("bwrap", "nul").ok());
  EXPECT_TRUE(driver::CheckFormat("opensandbox", "json").ok());
  EXPECT_EQ(driver::CheckFormat("plan", "json").message(),
            "--format json does not apply to --target plan: it prints the plan JSON");
  EXPECT_EQ(driver::CheckFormat("bwrap", "yaml").message(),
            "unknown --format 'yaml' (lines, shell, json, nul, sbpl or script)");

  std::unique_ptr<compiler::HostFacts> facts = Facts("linux-workspace.yaml");
  ir::LaunchPlan ask = PlanFor("ask", facts.get());
  driver::Emitted e = driver::EmitTarget(ask, "bwrap", {"sh", "-c", "echo 'a b'"});
  ASSERT_EQ(e.failure, driver::EmitFailure::kNone) << e.status;
  driver::Written lines = driver::WriteArtifact(ask, e.artifact, "bwrap", std::nullopt, "0.1.0");
  ASSERT_EQ(lines.failure, driver::EmitFailure::kNone) << lines.status;
  EXPECT_TRUE(absl::StartsWith(lines.output, "/usr/bin/bwrap\n")) << lines.output;
  EXPECT_TRUE(absl::EndsWith(lines.output, "\nsh\n-c\necho 'a b'\n")) << lines.output;
  ASSERT_NE(ask.syscall_filter(), nullptr);
  EXPECT_TRUE(absl::StrContains(lines.note, "(`--target seccomp-bpf`)")) << lines.note;
  driver::Written nul = driver::WriteArtifact(ask, e.artifact, "bwrap", "nul", "0.1.0");
  EXPECT_EQ(nul.note, "");  // a form for programs, not people
  EXPECT_TRUE(absl::EndsWith(nul.output, std::string("sh\0-c\0echo 'a b'\0", 17)));
  driver::Written sbpl = driver::WriteArtifact(ask, e.artifact, "bwrap", "sbpl", "0.1.0");
  EXPECT_EQ(sbpl.failure, driver::EmitFailure::kNotApplicable);
  EXPECT_EQ(sbpl.status.message(), "--format sbpl: plan kind linux-bwrap has no Seatbelt profile");
}

// The names a front door offers (compiler/driver/names.h) are the ones the
// driver takes: each target of compile emits or says why not (never an
// unknown target), each format and stage is read, a name outside the
// tables is refused with the table's list.
TEST(DriverNames, TheTablesAreWhatTheDriverTakes) {
  std::unique_ptr<compiler::HostFacts> facts = Facts("linux-workspace.yaml");
  ir::LaunchPlan ask = PlanFor("ask", facts.get());
  for (const driver::Named& t : driver::kCompileTargets) {
    driver::Emitted e = driver::EmitTarget(ask, std::string(t.name), {"sh"});
    EXPECT_NE(e.failure, driver::EmitFailure::kUnknownTarget) << t.name;
    EXPECT_FALSE(t.help.empty()) << t.name;
  }
  for (const driver::Named& t : driver::kExplainTargets) {
    EXPECT_TRUE(driver::IsNamed(driver::kCompileTargets, t.name)) << t.name;
  }
  for (const driver::Named& t : driver::kCheckTargets) {
    EXPECT_TRUE(driver::IsNamed(driver::kCompileTargets, t.name)) << t.name;
  }
  driver::Emitted unknown = driver::EmitTarget(ask, "docker", {"sh"});
  EXPECT_EQ(unknown.failure, driver::EmitFailure::kUnknownTarget);
  EXPECT_EQ(unknown.status.message(),
            "unknown --target 'docker' (auto, bwrap, seatbelt, opensandbox, seccomp, "
            "seccomp-bpf, landlock or plan)");
  for (const driver::Named& f : driver::kFormats) {
    EXPECT_TRUE(driver::CheckFormat("bwrap", std::string(f.name)).ok()) << f.name;
  }
  int stages = 0;
  for (const driver::Named& s : driver::kStages) {
    const std::string name(s.name);
    std::optional<driver::Stage> st = driver::ParseStage(name);
    ASSERT_TRUE(st.has_value()) << name;
    EXPECT_EQ(driver::StageName(*st), name);
    ++stages;
  }
  EXPECT_EQ(stages, 4);
  EXPECT_FALSE(driver::ParseStage("parsed").has_value());
  EXPECT_EQ(driver::NameList(driver::kStages), "spec, layered, policy or plan");
  // A compile takes each mode, escalation (from read-only, in ask mode)
  // and Linux backend; --input's names are the config formats.
  for (const driver::Named& m : driver::kModes) {
    EXPECT_TRUE(compiler::ParsePermissionMode(m.name).has_value()) << m.name;
  }
  EXPECT_FALSE(compiler::ParsePermissionMode("sometimes").has_value());
  auto compiles = [&](const std::function<void(compiler::CompileOptions*)>& set) {
    compiler::CompileOptions c;
    c.config_path = Src() + "/examples/readonly.cwsp";
    c.mode = "ask";
    set(&c);
    std::unique_ptr<compiler::HostFacts> f = Facts("linux-readonly.yaml");
    return compiler::CompileConfig(c, f.get()).status();
  };
  for (const driver::Named& e : driver::kEscalations) {
    absl::Status s =
        compiles([&](compiler::CompileOptions* c) { c->escalate = std::string(e.name); });
    EXPECT_TRUE(s.ok()) << e.name << ": " << s;
  }
  EXPECT_FALSE(compiles([](compiler::CompileOptions* c) { c->escalate = "read-only"; }).ok());
  for (const driver::Named& b : driver::kLinuxBackends) {
    absl::Status s =
        compiles([&](compiler::CompileOptions* c) { c->linux_backend = std::string(b.name); });
    EXPECT_TRUE(s.ok()) << b.name << ": " << s;
  }
  EXPECT_FALSE(compiles([](compiler::CompileOptions* c) { c->linux_backend = "docker"; }).ok());
  EXPECT_EQ(driver::NameList(driver::kInputs), "toml or dsl");
  EXPECT_EQ(driver::NameList(driver::kCheckTargets), "bwrap or seatbelt");
  EXPECT_EQ(driver::NameList(std::span<const driver::Named>()), "");
}

// cwsc facts: without a config, the host's few facts; with one, every path
// its compile asked, read back so that an unasked path is an error; a
// compile error is the compiler's.
TEST(DriverFacts, RecordedAreWhatTheCompileAsked) {
  std::unique_ptr<compiler::HostFacts> live = Facts("linux-workspace.yaml");
  absl::StatusOr<std::string> host = driver::RecordFacts(std::nullopt, live.get());
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_TRUE(absl::StrContains(*host, "/usr/bin/bwrap")) << *host;
  EXPECT_TRUE(absl::StrContains(*host, "bwrap_probe:")) << *host;
  compiler::CompileOptions c;
  c.config_path = Src() + "/examples/workspace.toml";
  c.mode = "ask";
  absl::StatusOr<std::string> yaml = driver::RecordFacts(c, live.get());
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_TRUE(absl::StrContains(*yaml, "unlisted: error")) << *yaml;
  absl::StatusOr<std::unique_ptr<compiler::HostFacts>> back =
      compiler::ParseRecordedFacts(*yaml, "facts.yaml");
  ASSERT_TRUE(back.ok()) << back.status();
  absl::StatusOr<compiler::CompileResult> again =
      driver::CompileChecked(c, back->get(), {"facts.yaml", false}, driver::FactsAsker::kCompile);
  EXPECT_TRUE(again.ok()) << again.status();
  c.mode = "sometimes";
  EXPECT_FALSE(driver::RecordFacts(c, live.get()).ok());
}

// explain --stage's report: a spec's settings with their origins, the
// policy and the plan as the plan JSON's own text.
TEST(DriverStage, ReportOfEachStage) {
  std::unique_ptr<compiler::HostFacts> facts = Facts("linux-workspace.yaml");
  testing::TempDir dir;
  const std::string config = dir / "config.toml";
  testing::WriteFile(config, "sandbox_mode = \"read-only\"\n");
  compiler::CompileOptions o;
  o.config_path = config;
  o.mode = "ask";
  absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(o, facts.get());
  ASSERT_TRUE(r.ok()) << r.status();
  absl::StatusOr<driver::Report> spec = driver::StageReport(driver::Stage::kSpec, o, *r);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(
      spec->text.str(),
      absl::StrCat("sandbox_mode = \"read-only\"  # config sandbox_mode at ", config, ":1:16\n"));
  EXPECT_EQ(spec->json["stage"], "spec");
  ASSERT_EQ(spec->json["settings"].size(), 1u);
  EXPECT_EQ(spec->json["settings"][0]["key"], "sandbox_mode");
  EXPECT_EQ(spec->json["settings"][0]["withheld"], false);
  absl::StatusOr<driver::Report> plan = driver::StageReport(driver::Stage::kPlan, o, *r);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::string> json = ir::PlanToJson(r->plan);
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(plan->text.str(), *json);
  EXPECT_EQ(plan->json["value"], driver::Json::parse(*json));
  absl::StatusOr<driver::Report> policy = driver::StageReport(driver::Stage::kPolicy, o, *r);
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_EQ(policy->json["value"], driver::Json::parse(*json)["policy"]);
  EXPECT_EQ(policy->text.str(), policy->json["value"].dump(2) + "\n");
}

// audit's report of a bwrap argv: the map by access, the symlinks, the
// why of a path and each expectation's verdict; a --why path that does not
// expand is an error naming it.
TEST(DriverAudit, ReportOfAnArgv) {
  absl::StatusOr<driver::Audit> a = driver::AuditBwrapArgv(
      {"bwrap", "--ro-bind", "/", "/", "--bind", "/w", "/w", "--tmpfs", "/tmp", "--symlink",
       "usr/lib", "/lib", "--chdir", "/w", "--new-flag", "--", "sh"});
  ASSERT_TRUE(a.ok()) << a.status();
  testing::TempDir dir;
  const std::string cwsp = dir / "e.cwsp";
  testing::WriteFile(cwsp,
                     "policy p {\n  expect write \"$WORKSPACE/x\" allowed;\n"
                     "  expect read \"/etc\" denied;\n}\n");
  driver::AuditAsk ask;
  ask.why = "$WORKSPACE/f";
  ask.kinds = {backends::AccessKind::kWrite};
  ask.expect = cwsp;
  absl::StatusOr<driver::AuditResult> r = driver::AuditReport(*a, ask);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->failed, 1);
  const std::string& text = r->report.text.str();
  EXPECT_TRUE(absl::StartsWith(text,
                               "bwrap: 3 mount layers, network shared (the host's)\n"
                               "writable:\n  /w  (--bind /w /w)\n"))
      << text;
  EXPECT_TRUE(absl::StrContains(text, "symlinks:\n  /lib -> usr/lib  (--symlink usr/lib /lib)\n"))
      << text;
  EXPECT_TRUE(absl::StrContains(text, "pass  expect write /w/x allowed  (")) << text;
  EXPECT_TRUE(absl::StrContains(text, "FAIL  expect read /etc denied  (")) << text;
  EXPECT_TRUE(absl::EndsWith(text, "check: 1 passed, 1 failed\n")) << text;
  EXPECT_EQ(r->report.json["artifact"], "bwrap");
  EXPECT_EQ(r->report.json["layers"], 3);
  EXPECT_EQ(r->report.json["why"]["path"], "/w/f");
  EXPECT_EQ(r->report.json["expectations"].size(), 2u);
  EXPECT_EQ(r->report.json["failed"], 1);
  EXPECT_EQ(driver::SkippedFlagWarnings(*a),
            std::vector<std::string>{"bwrap flag '--new-flag' is not in the bubblewrap 0.8.0 "
                                     "manual cwsc reads: skipped with the 0 argument(s) after "
                                     "it; the map leaves out what it does"});
  ask = {};
  ask.why = "$NOPE/x";
  absl::StatusOr<driver::AuditResult> bad = driver::AuditReport(*a, ask);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StartsWith(bad.status().message(), "--why '$NOPE/x': ")) << bad.status();
}

// why: each access asked, and for bwrap every layer covering the path, the
// deciding one first, with the plan element behind it.
TEST(DriverWhy, ChainDecidingLayerFirst) {
  absl::StatusOr<driver::Audit> a =
      driver::AuditBwrapArgv({"bwrap", "--ro-bind", "/", "/", "--bind", "/w", "/w", "--", "sh"});
  ASSERT_TRUE(a.ok()) << a.status();
  driver::PathWhy w = driver::ExplainPath(
      a->art, "/w/x", {backends::AccessKind::kRead, backends::AccessKind::kWrite});
  EXPECT_EQ(w.path, "/w/x");
  ASSERT_EQ(w.decisions.size(), 2u);
  EXPECT_EQ(w.decisions[1].kind, backends::AccessKind::kWrite);
  EXPECT_TRUE(w.decisions[1].decision.allowed);
  ASSERT_TRUE(w.chain.has_value());
  ASSERT_EQ(w.chain->size(), 2u);
  EXPECT_EQ((*w.chain)[0].link.rule, "--bind /w /w");
  EXPECT_EQ((*w.chain)[1].link.rule, "--ro-bind / /");
  EXPECT_FALSE((*w.chain)[0].origin.has_value());  // not cwsc's argv
  EXPECT_TRUE(w.skipped.empty());

  std::unique_ptr<compiler::HostFacts> facts = Facts("linux-workspace.yaml");
  compiler::CompileOptions c;
  c.config_path = Src() + "/examples/workspace.cwsp";
  absl::StatusOr<std::unique_ptr<driver::WhyPlan>> p = driver::PlanForWhy(
      c, facts.get(), {Src() + "/examples/facts/linux-workspace.yaml", false}, "$WORKSPACE/src");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->path, "/home/dev/proj/src");
  EXPECT_EQ((*p)->art.plan, &(*p)->result.plan);
  w = driver::ExplainPath((*p)->art, (*p)->path, {backends::AccessKind::kWrite});
  ASSERT_TRUE(w.chain.has_value());
  ASSERT_FALSE(w.chain->empty());
  EXPECT_TRUE((*w.chain)[0].origin.has_value());  // the plan element that emitted the layer
  EXPECT_TRUE(w.decisions[0].decision.allowed);

  absl::StatusOr<std::unique_ptr<driver::WhyPlan>> bad = driver::PlanForWhy(
      c, facts.get(), {Src() + "/examples/facts/linux-workspace.yaml", false}, "$NOPE/x");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StartsWith(bad.status().message(), "PATH '$NOPE/x': ")) << bad.status();
}

// The policies a check runs, and a TOML config validated before any compile.
TEST(DriverExpect, SubjectsAndConfigCheck) {
  const std::string text =
      "policy a {\n  expect read \"/etc\" allowed;\n}\npolicy b {\n  mode read-only;\n}\n";
  ir::Expectation extra{ir::Expectation::Kind::kNetwork, "", false, {}, {}};
  absl::StatusOr<std::vector<driver::CheckSubject>> all =
      driver::DslSubjects(text, "p.cwsp", compiler::Layer::kUser, "", {extra});
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].name, "a");
  EXPECT_EQ((*all)[0].where, "p.cwsp:1:8");
  ASSERT_EQ((*all)[0].expectations.size(), 2u);  // its own, then --expect's
  EXPECT_EQ((*all)[0].expectations[1], extra);
  EXPECT_EQ((*all)[1].expectations.size(), 1u);
  absl::StatusOr<std::vector<driver::CheckSubject>> b =
      driver::DslSubjects(text, "p.cwsp", compiler::Layer::kUser, "b", {});
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->size(), 1u);
  EXPECT_TRUE((*b)[0].expectations.empty());
  EXPECT_FALSE(driver::DslSubjects(text, "p.cwsp", compiler::Layer::kUser, "c", {}).ok());
  absl::StatusOr<std::vector<driver::CheckSubject>> none =
      driver::DslSubjects("", "e.cwsp", compiler::Layer::kUser, "", {});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());

  driver::ConfigCheck ok =
      driver::CheckTomlConfig("sandbox_mode = \"read-only\"\n", "c.toml", compiler::Layer::kUser);
  EXPECT_TRUE(ok.status.ok()) << ok.status;
  EXPECT_EQ(ok.warnings, 0u);
  driver::ConfigCheck launcher = driver::CheckTomlConfig("tool_launcher = [\"/usr/bin/env\"]\n",
                                                         "m.toml", compiler::Layer::kManaged);
  EXPECT_FALSE(launcher.status.ok());
}

// What `cwsc check` runs for a file: each policy with its expectations (or
// only its "valid" line), a TOML config's shape with and without --expect,
// and the errors that stop it before any compile.
TEST(DriverCheck, WhatRunsForAFile) {
  const std::string dsl =
      "policy a {\n  expect read \"/etc\" allowed;\n}\npolicy b {\n  mode read-only;\n}\n";
  driver::CheckInput in{"p.cwsp", dsl, true, false, "", {}, false};
  driver::CheckPlan p = driver::PlanCheck(in);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.shape, driver::CheckShape::kPolicies);
  ASSERT_EQ(p.policies.size(), 2u);
  EXPECT_EQ(p.policies[0].subject.name, "a");
  EXPECT_TRUE(p.policies[0].run);
  EXPECT_TRUE(p.policies[0].header);
  EXPECT_FALSE(p.policies[0].lint);
  EXPECT_EQ(p.policies[1].subject.name, "b");
  EXPECT_FALSE(p.policies[1].run);  // no expectations, no --lint: only valid
  in.lint = true;
  p = driver::PlanCheck(in);
  ASSERT_EQ(p.policies.size(), 2u);
  EXPECT_TRUE(p.policies[1].run);
  EXPECT_TRUE(p.policies[1].lint);
  in.policy = "b";
  p = driver::PlanCheck(in);
  ASSERT_EQ(p.policies.size(), 1u);
  EXPECT_EQ(p.policies[0].subject.where, "p.cwsp:4:8");
  in.policy = "c";
  EXPECT_EQ(driver::PlanCheck(in).status.message(), "p.cwsp: error: no policy named 'c'\n");
  EXPECT_EQ(driver::PlanCheck({"e.cwsp", "", true, false, "", {}, false}).shape,
            driver::CheckShape::kNoPolicy);

  // A TOML config without expectations: compiled in every mode for its lints,
  // with no header; a managed layer alone is only validated.
  const std::string toml = "sandbox_mode = \"read-only\"\nsandbox_permissions = 1\n";
  driver::CheckInput cfg{"c.toml", toml, false, false, "", {}, false};
  p = driver::PlanCheck(cfg);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.shape, driver::CheckShape::kConfigOnly);
  EXPECT_EQ(p.warnings, 1u);
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_EQ(p.notes[0].line, 2);
  ASSERT_EQ(p.policies.size(), 1u);
  EXPECT_EQ(p.policies[0].subject.name, "");
  EXPECT_FALSE(p.policies[0].header);
  EXPECT_TRUE(p.policies[0].lint);
  cfg.managed = true;
  p = driver::PlanCheck(cfg);
  EXPECT_EQ(p.shape, driver::CheckShape::kConfigOnly);
  EXPECT_TRUE(p.policies.empty());
  cfg.managed = false;
  cfg.extra = {ir::Expectation{ir::Expectation::Kind::kNetwork, "", false, {}, {}}};
  p = driver::PlanCheck(cfg);
  EXPECT_EQ(p.shape, driver::CheckShape::kPolicies);
  ASSERT_EQ(p.policies.size(), 1u);
  EXPECT_EQ(p.policies[0].subject.expectations, cfg.extra);
  EXPECT_TRUE(p.policies[0].header);
  cfg.policy = "a";
  p = driver::PlanCheck(cfg);
  EXPECT_EQ(p.status.message(), "c.toml: error: --policy selects a policy of a .cwsp file\n");
  EXPECT_TRUE(p.notes.empty());
}

}  // namespace
}  // namespace cwsc
