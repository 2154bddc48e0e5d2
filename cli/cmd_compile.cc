// `cwsc compile` and `cwsc explain`.
#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "cli/json_report.h"
#include "cli/version.h"
#include "ir/display.h"

namespace cwsc::cli {
namespace {

// ReportLint prints a lint as a warning on stderr and, with --json, records
// it in the report with its place.
void ReportLint(const driver::Lint& l) {
  PrintErrText(driver::RenderLintWarning(l));
  if (JsonReport* report = ActiveReport()) {
    report->Add({"warning", l.code, absl::StrCat(l.message, " (fix: ", l.fix, ")"), l.origin.file,
                 l.origin.line, l.origin.col});
  }
}

// Emit builds the artifact for `target` (compiler/driver/emit.h) and says
// what goes before it, or prints why there is none and returns the exit
// code. An unknown target is a usage error of `command`.
int Emit(const ir::LaunchPlan& plan, const std::string& target,
         const std::vector<std::string>& program, absl::string_view command,
         driver::Artifact* out) {
  driver::Emitted e = driver::EmitTarget(plan, target, program);
  switch (e.failure) {
    case driver::EmitFailure::kNone:
      break;
    case driver::EmitFailure::kInput:
      PrintError(e.status);
      return kExitUsage;
    case driver::EmitFailure::kRefused:
      PrintRefused(plan.refusal()->reason, plan.refusal()->origin);
      return kExitRefused;
    case driver::EmitFailure::kNotApplicable:
      PrintError(e.status);
      return kExitNotApplicable;
    case driver::EmitFailure::kInternal:
      std::fprintf(stderr, "cwsc: internal error: %s\n",
                   ir::Displayable(std::string(e.status.message())).c_str());
      return kExitCheckFailed;
    case driver::EmitFailure::kUnknownTarget:
      return PrintUsageError(command, e.status.message());
  }
  if (!e.artifact.note.empty()) PrintNote(e.artifact.note);
  *out = std::move(e.artifact);
  return kExitOk;
}

// CompileFromOptions runs the compiler; returns an exit code on failure.
// o.config is set: given, or found by DiscoverConfig. With `lints`, also the
// plan's lints (compiler/driver/lints.h), read against the same facts.
int CompileFromOptions(const CommonOptions& o, compiler::CompileResult* out,
                       std::vector<driver::Lint>* lints, compiler::CompileOptions* used = nullptr) {
  absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(o);
  if (Failed(copts)) return kExitUsage;
  absl::StatusOr<std::unique_ptr<compiler::HostFacts>> facts = MakeFacts(o);
  if (Failed(facts)) return kExitUsage;
  // A facts file from `cwsc facts --for` records every path its compile asked
  // about; another path means the policy changed since (docs/facts.md).
  absl::StatusOr<compiler::CompileResult> r = driver::CompileChecked(
      *copts, facts->get(), {o.facts, o.unlisted_as_missing}, driver::FactsAsker::kCompile);
  if (Failed(r)) return kExitUsage;
  PrintNotes(r->notes);
  if (lints != nullptr) *lints = driver::LintsOf(r->plan, facts->get());
  if (used != nullptr) *used = *std::move(copts);
  *out = *std::move(r);
  return kExitOk;
}

}  // namespace

int CmdCompile(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("compile", args, &parse_rc);
  if (!p) return parse_rc;
  CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  if (o->json && o->format) {
    return PrintUsageError(
        "compile",
        absl::StrCat("--json and --format ", *o->format,
                     " cannot be combined: --json prints the artifact in the JSON report"));
  }
  if (o->json && o->target == "seccomp-bpf") {
    return PrintUsageError("compile",
                           "--target seccomp-bpf is a binary program: it has no --json form (use "
                           "--target seccomp)");
  }
  if (absl::Status s = driver::CheckFormat(o->target, o->format); !s.ok()) {
    return PrintUsageError("compile", s.message());
  }
  compiler::CompileResult r;
  if (int rc = DiscoverConfig("compile", &options); rc != kExitOk) return rc;
  std::vector<driver::Lint> lints;
  if (int rc = CompileFromOptions(*o, &r, &lints); rc != kExitOk) return rc;
  for (const ir::Warning& w : r.plan.warnings) {
    PrintWarning(w.code, w.message);
  }
  // The setting notes and the lints go with an output, not with an error
  // about the target or format.
  const std::vector<ir::Diagnostic> notes = driver::SettingNotes(r.plan);
  driver::Artifact art;
  if (int rc = Emit(r.plan, o->target, o->program, "compile", &art); rc != kExitOk) return rc;
  if (JsonReport* report = ActiveReport()) {
    for (const ir::Diagnostic& n : notes) PrintSettingNote(n);
    for (const driver::Lint& l : lints) ReportLint(l);
    report->SetResult(driver::CompileJson(r.plan, art));
    return kExitOk;
  }
  // The bytes of the chosen form (compiler/driver/format.h), then what the
  // printed artifact needs besides itself, said last.
  driver::Written w = driver::WriteArtifact(r.plan, art, o->target, o->format, kVersion);
  if (w.failure != driver::EmitFailure::kNone) {
    PrintError(w.status);
    return w.failure == driver::EmitFailure::kInput ? kExitUsage : kExitNotApplicable;
  }
  for (const ir::Diagnostic& n : notes) PrintSettingNote(n);
  for (const driver::Lint& l : lints) PrintErrText(driver::RenderLintWarning(l));
  if (!w.note.empty()) PrintNote(w.note);
  return WriteOut(w.output, kExitOk);
}

int CmdExplain(const Args& args) {
  // explain has one other form, --json; a --format would be ignored.
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "--format" || absl::StartsWith(a, "--format=")) {
      return PrintUsageError("explain", "explain has no --format: use --json for the JSON form");
    }
  }
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("explain", args, &parse_rc);
  if (!p) return parse_rc;
  CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  compiler::CompileResult r;
  if (int rc = DiscoverConfig("explain", &options); rc != kExitOk) return rc;
  std::optional<driver::Stage> stage;
  if (o->stage) {
    stage = driver::ParseStage(*o->stage);  // one of the flag's choices
    if (!stage)
      return PrintUsageError("explain", absl::StrCat("unknown --stage '", *o->stage, "' (",
                                                     driver::NameList(driver::kStages), ")"));
  }
  std::vector<driver::Lint> lints;
  compiler::CompileOptions copts;
  if (int rc = CompileFromOptions(*o, &r, &lints, &copts); rc != kExitOk) return rc;
  if (stage) {
    absl::StatusOr<driver::Report> report = driver::StageReport(*stage, copts, r);
    if (Failed(report)) return kExitUsage;
    return PrintReport(*std::move(report), kExitOk);
  }
  const ir::LaunchPlan& plan = r.plan;
  driver::Artifact art;
  const bool refused = plan.refusal() && o->target != "plan";
  if (!refused) {
    if (int rc = Emit(plan, o->target, o->program, "explain", &art); rc != kExitOk) return rc;
    if (!driver::ExplainShows(plan, art)) {
      return PrintUsageError("explain", absl::StrCat("explain shows argv targets (auto, bwrap, "
                                                     "seatbelt), not '",
                                                     o->target, "'"));
    }
  }
  if (ActiveReport()) {
    for (const driver::Lint& l : lints) ReportLint(l);
  }
  return PrintReport(driver::ExplainReport(plan, refused ? nullptr : &art, lints,
                                           o->config_discovered ? o->config : ""),
                     kExitOk);
}

}  // namespace cwsc::cli
