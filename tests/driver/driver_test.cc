// The driver layer's values (compiler/driver/): what `cwsc check`, `diff`,
// `audit` and `compile` render, checked as the structs the driver returns
// rather than as the text the CLI prints.
#include <gtest/gtest.h>

#include <string>

#include "compiler/driver/compile.h"
#include "compiler/driver/expect.h"
#include "compiler/facts/host_facts.h"
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
  EXPECT_EQ(run.plans[0]->mode, "ask");
  EXPECT_EQ(run.plans[1]->mode, "auto-review");
  EXPECT_EQ(run.plans[2]->mode, "full-access");
  EXPECT_EQ(run.plans[3]->mode, "plan");
  for (const auto& mp : run.plans) EXPECT_EQ(mp->art.plan, &mp->result.plan);
  ASSERT_EQ(run.expectations.size(), 5u);
  const driver::ExpectationResult& first = run.expectations[0];
  EXPECT_EQ(first.expectation.origin.line, 15);
  ASSERT_EQ(first.verdicts.size(), 3u);
  EXPECT_EQ(first.verdicts[0].mode, "ask");
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
  EXPECT_EQ(plan_only.verdicts[0].mode, "plan");
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
  o.modes = {"plan"};
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
  EXPECT_EQ(run.plans[0]->mode, "plan");
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

}  // namespace
}  // namespace cwsc
