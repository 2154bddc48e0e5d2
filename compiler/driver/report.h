// The reports both front doors give: `cwsc explain` and `cwsc why` print
// them, and libcwsc hands out the same bytes (cwsc_plan_explain,
// cwsc_plan_why; docs/embedding.md), so an engine shows its user the
// report a person would get from the command line. A report is a driver
// value rendered twice: for people (an ir::Text, every value escaped as it
// was added) and as the JSON `result` of the report envelope (docs/cli.md,
// "JSON output"). `cwsc diff` is one too (cwsc_plan_diff). The JSON forms
// of the driver's values the other reports share (an origin, a token, a
// decision) are here as well.
#ifndef CWSC_COMPILER_DRIVER_REPORT_H_
#define CWSC_COMPILER_DRIVER_REPORT_H_

#include <string>
#include <vector>

#include "backends/emitted.h"
#include "compiler/driver/diff.h"
#include "compiler/driver/emit.h"
#include "compiler/driver/lints.h"
#include "compiler/driver/why.h"
#include "ir/diagnostics.h"
#include "ir/display.h"
#include "ir/origin.h"
#include "ir/plan.h"
#include "nlohmann/json.hpp"

namespace cwsc::driver {

using Json = nlohmann::ordered_json;

// Report is one command's result both ways.
struct Report {
  ir::Text text;  // what the command prints for people
  Json json;      // the envelope's `result`
};

// OneLine folds `text` onto one line (each run of spaces, tabs and line
// breaks one space) and cuts it at `width` characters, "..." last.
std::string OneLine(const std::string& text, size_t width);

// SettingNotes are the plan's `skipped` entries of kind setting (a
// configured value the plan leaves out: a sandbox_mode that cannot widen the
// mode, a missing bwrap_ro_roots entry, ...) as notes at the setting's
// place: `FILE:LINE:COL: note: skipped WHAT PATH: REASON`; a setting from no
// file (an env override) has no file and names its origin in the message.
std::vector<ir::Diagnostic> SettingNotes(const ir::LaunchPlan& plan);

// OriginJson is an origin: {"kind", "detail", "file", "line", "col",
// "text"} (file, line and col null when unset).
Json OriginJson(const ir::Origin& o);

// TokensJson is an emitted argv as [{"text", "origin"}].
Json TokensJson(const backends::EmittedArgv& argv);

// PlanNotesJson adds what `explain` lists after the tokens: "refusal",
// "skipped" and "warnings".
void PlanNotesJson(const ir::LaunchPlan& plan, Json* out);

// DecisionJson is one verdict: {"access", "allowed", "checkable", "detail",
// "rule", "where", "origin", "params"}.
Json DecisionJson(backends::AccessKind kind, const Decision& d);

// CompileJson is `compile --json`'s result: the plan kind, the target that
// emitted, and the artifact: `argv` (argv targets), `plan` (plan),
// `requests` (opensandbox) or `listing` (seccomp, landlock).
Json CompileJson(const ir::LaunchPlan& plan, const Artifact& art);

// WhyJson is the decisions and the chain of a PathWhy: {"path",
// "decisions": [DecisionJson], "chain": [{"layer", "arg", "rule",
// "effect", "origin"}] (bwrap) or null}.
Json WhyJson(const PathWhy& w);

// RenderWhy is the decision for a path and the chain behind it, for people;
// `context` names the artifact ("mode ask, bwrap"). `cwsc audit --why`
// prints it too.
ir::Text RenderWhy(const PathWhy& w, const std::string& context);

// WhyReport is `cwsc why`'s report of `w`, asked of the artifact `art` of
// `plan`: the decisions and the chain, then what the plan skipped at the
// path ("note: ..."); the JSON adds the mode, the plan kind and the target.
Report WhyReport(const ir::LaunchPlan& plan, const PlanArtifact& art, const PathWhy& w);

// ExplainShows: `explain` can show the artifact `art` (an argv with an
// origin per token, a remote plan's requests or a Landlock plan's ruleset;
// not the plan JSON or a listing).
bool ExplainShows(const ir::LaunchPlan& plan, const Artifact& art);

// ExplainReport is `cwsc explain`'s report: the plan kind and policy, each
// token of `art` with the plan element that emitted it (a Seatbelt profile
// line by line; a remote plan's URL and requests; a Landlock ruleset), or
// the refusal when `art` is null, then what the plan skipped, its warnings
// and `lints`. `discovered` is the config found without being named ("" when
// it was named). `art`, when given, is one ExplainShows accepts.
Report ExplainReport(const ir::LaunchPlan& plan, const Artifact* art,
                     const std::vector<Lint>& lints, const std::string& discovered);

// DiffReport is `cwsc diff`'s report of `diff` between plans `a` and `b`
// (named so in the JSON): the widened accesses, then the narrowed ones,
// each with the rule of B and of A that decides it, then what else differs;
// "no access changes" when nothing does.
Report DiffReport(const std::string& a, const std::string& b, const PlanDiff& diff);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_REPORT_H_
