// The driver layer's names as cli/ uses them: cli/ parses options, calls
// compiler/driver/ (compiles with the missing-facts rule, the expectation
// runner, diff, audit, target dispatch, why, a plan's artifact checked,
// lints, live probes, the reports of explain and why) and the
// other layers, and renders what they return (docs/architecture.md).
#ifndef CWSC_CLI_DRIVER_H_
#define CWSC_CLI_DRIVER_H_

#include <string>
#include <vector>

#include "compiler/driver/audit.h"
#include "compiler/driver/check.h"
#include "compiler/driver/check_report.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/diff.h"
#include "compiler/driver/emit.h"
#include "compiler/driver/expect.h"
#include "compiler/driver/format.h"
#include "compiler/driver/lints.h"
#include "compiler/driver/live_probe.h"
#include "compiler/driver/report.h"
#include "compiler/driver/stage.h"
#include "compiler/driver/verify.h"
#include "compiler/driver/why.h"

namespace cwsc::cli {

using driver::AccessChange;
using driver::Artifact;
using driver::ArtifactOf;
using driver::CheckedPolicy;
using driver::CheckSubject;
using driver::CompileChecked;
using driver::CompileJson;
using driver::DecideOn;
using driver::Decision;
using driver::DecisionJson;
using driver::DiffPlans;
using driver::DiffReport;
using driver::EmitCheckedSeccompBpf;
using driver::ExpectationResult;
using driver::ExpectationsOf;
using driver::ExpectFailure;
using driver::ExpectOptions;
using driver::ExpectRun;
using driver::ExpectVerdict;
using driver::ExplainPath;
using driver::ExplainReport;
using driver::ExplainShows;
using driver::FactsAsker;
using driver::FactsRule;
using driver::KindDecision;
using driver::KindOf;
using driver::Lint;
using driver::LintLocation;
using driver::LintPlan;
using driver::LintsOf;
using driver::LiveProbe;
using driver::LiveResult;
using driver::LiveRun;
using driver::MissingDenyTargets;
using driver::ModeLint;
using driver::NoteAbsentDenyTargets;
using driver::OriginJson;
using driver::OriginOfArg;
using driver::PathWhy;
using driver::PlanArtifact;
using driver::PlanDiff;
using driver::PlanForWhy;
using driver::PlanNotesJson;
using driver::ReadPlanFile;
using driver::ReadText;
using driver::RenderLintWarning;
using driver::RenderWhy;
using driver::Report;
using driver::RunExpectations;
using driver::SettingNotes;
using driver::SkipConcerns;
using driver::StrictlyInside;
using driver::TokensJson;
using driver::VarsFor;
using driver::WhyJson;
using driver::WhyLink;
using driver::WhyPlan;
using driver::WhyReport;

}  // namespace cwsc::cli

#endif  // CWSC_CLI_DRIVER_H_
