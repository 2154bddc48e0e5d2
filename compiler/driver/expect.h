// The expectation runner of `cwsc check` (docs/verification.md): each
// permission mode's plan compiled once, its artifact read back, and every
// expectation of a policy decided on it, with the rule and the plan element
// (config line) behind each verdict, what the plan skipped there, the live
// probe's answer under --live, and the lints of every mode compiled. The
// result is a value; check_report.h renders it as text and JSON.
#ifndef CWSC_COMPILER_DRIVER_EXPECT_H_
#define CWSC_COMPILER_DRIVER_EXPECT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/compile.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/lints.h"
#include "compiler/driver/live_probe.h"
#include "compiler/driver/verify.h"
#include "compiler/facts/host_facts.h"
#include "compiler/policy_spec.h"
#include "ir/plan.h"

namespace cwsc::driver {

// The permission modes a check runs when none is chosen, in this order.
inline constexpr const auto& kAllModes = ir::kPermissionModes;

// LiveRun is what a live probe's `cwsc run` prefix repeats of the check:
// the same config, input format, working directory and project config.
struct LiveRun {
  std::string config;
  std::optional<std::string> cwd;
  std::optional<std::string> input;
  bool no_project_config = false;
};

// RunArgv is the `cwsc run` prefix a live probe runs under: this binary, the
// same config, policy, mode and working directory as the static check.
std::vector<std::string> RunArgv(const LiveRun& live, ir::PermissionMode mode,
                                 const std::string& policy);

struct ExpectOptions {
  // The options every mode's compile shares; the mode, its origin (`--mode
  // MODE`) and the policy name are set for each compile.
  compiler::CompileOptions compile;
  FactsRule facts_rule;
  std::vector<ir::PermissionMode> modes;  // empty: kAllModes
  std::vector<std::string> targets;       // "bwrap", "seatbelt"; empty: any
  bool lint = false;            // compile every mode for its lints, even without expectations
  std::optional<LiveRun> live;  // probe each checkable verdict on this host
};

// ModePlan is one mode's plan, compiled once, and its artifact.
struct ModePlan {
  ir::PermissionMode mode = ir::PermissionMode::kAsk;
  compiler::CompileResult result;
  PlanArtifact art;  // art.plan is &result.plan
  compiler::PathVars vars;
};

// ExpectVerdict is one expectation decided in one mode.
struct ExpectVerdict {
  ir::PermissionMode mode = ir::PermissionMode::kAsk;
  std::string target;  // the artifact's ("bwrap", "seatbelt", ...)
  std::string path;    // expanded; network: "" or HOST:PORT
  Decision decision;
  bool pass = false;               // checkable, and allowed as expected
  std::vector<std::string> notes;  // the decision's note, then what the plan skipped at the path
  std::optional<LiveResult> live;  // --live, for a checkable verdict
  // --live: the probe ran and disagrees with the static verdict (a failure).
  bool live_disagrees = false;
};

struct ExpectationResult {
  ir::Expectation expectation;
  std::vector<ExpectVerdict> verdicts;  // one per mode checked; none: no mode of its is
};

// ModeLint is a lint and the modes whose plans have it.
struct ModeLint {
  Lint lint;
  std::vector<ir::PermissionMode> modes;
};

struct ExpectCounts {
  int passed = 0, failed = 0, unchecked = 0;
};

// How a run stopped early; the front door maps it to an exit code.
enum class ExpectFailure {
  kNone,
  kInput,          // a compile, the missing-facts rule or a path (exit 2)
  kNotApplicable,  // a mode's plan emits none of the chosen targets (exit 4)
  kInternal,       // an artifact its own interpreter cannot read (exit 2)
};

// ExpectRun is what the checks of one policy found. When `failure` is set,
// `status` says why and `plans` still holds the modes compiled before it
// (their setting notes are shown); the rest is incomplete.
struct ExpectRun {
  std::vector<std::unique_ptr<ModePlan>> plans;  // in the order compiled
  std::vector<ExpectationResult> expectations;
  std::vector<ModeLint> lints;  // each once, in the order found
  ExpectCounts counts;
  ExpectFailure failure = ExpectFailure::kNone;
  absl::Status status;
};

// ConfigCheck is what a check finds in a TOML config before any compile:
// its notes and warnings (an ignored look-alike key, ...) and, when it is
// not valid, why: a read error, what every compile checks in every mode
// (paths), or what every compile of a managed launcher file refuses
// (docs/launcher.md).
struct ConfigCheck {
  std::vector<ir::Diagnostic> notes;  // shown before the error, if any
  size_t warnings = 0;                // of a valid config
  absl::Status status;
};

// CheckTomlConfig reads `text` as the config layer `layer` of `file`.
ConfigCheck CheckTomlConfig(const std::string& text, const std::string& file,
                            compiler::Layer layer);

// CheckSubject is a policy of a .cwsp file a check runs: its name, where
// it is ("file:line:col") and its expectations.
struct CheckSubject {
  std::string name;
  std::string where;
  std::vector<ir::Expectation> expectations;
};

// DslSubjects reads `text` as the .cwsp file `file` (config layer `layer`):
// every policy, or the one named `policy` ("FILE: error: no policy named
// 'P'" when there is none), each with its expectations and then `extra`'s.
// A file that defines no policy has no subjects.
absl::StatusOr<std::vector<CheckSubject>> DslSubjects(const std::string& text,
                                                      const std::string& file,
                                                      compiler::Layer layer,
                                                      const std::string& policy,
                                                      const std::vector<ir::Expectation>& extra);

// RunExpectations compiles each mode it needs once (`policy` names the
// policy of a .cwsp file, "" for a TOML config) and decides every
// expectation in each of its modes that the options choose.
ExpectRun RunExpectations(const ExpectOptions& options, const std::string& policy,
                          const std::vector<ir::Expectation>& expectations,
                          compiler::HostFacts* facts);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_EXPECT_H_
