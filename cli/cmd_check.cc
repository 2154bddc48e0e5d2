// `cwsc check`: validate a policy or config file and evaluate its
// expectations against the artifact each permission mode's plan emits
// (docs/verification.md): the bwrap argv through the mount interpreter, the
// Seatbelt profile through the SBPL evaluator. Each verdict names the rule
// that decided it and the plan element (config line) that emitted the rule.
#include <cstdio>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "cli/json_report.h"
#include "compiler/modes.h"
#include "ir/diagnostics.h"
#include "ir/display.h"

namespace cwsc::cli {
namespace {

// ModesAndTargets reads check's --mode and --target, each repeatable and a
// comma list: the modes in the order given, each once.
absl::Status ModesAndTargets(const ParsedArgs& p, driver::ExpectOptions* c) {
  for (const std::string& value : p.All("--mode")) {
    for (absl::string_view m : absl::StrSplit(value, ',')) {
      std::optional<ir::PermissionMode> n = compiler::ParsePermissionMode(m);
      if (!n) return absl::InvalidArgumentError(compiler::UnknownPermissionModeMessage(m));
      if (std::find(c->modes.begin(), c->modes.end(), *n) == c->modes.end()) c->modes.push_back(*n);
    }
  }
  for (const std::string& value : p.All("--target")) {
    for (absl::string_view t : absl::StrSplit(value, ',')) {
      if (!driver::IsNamed(driver::kCheckTargets, t)) {
        return absl::InvalidArgumentError(absl::StrCat("unknown --target '", t, "' for check (",
                                                       driver::NameList(driver::kCheckTargets),
                                                       ")"));
      }
      c->targets.emplace_back(t);
    }
  }
  return absl::OkStatus();
}

}  // namespace

int CmdCheck(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("check", args, &parse_rc);
  if (!p) return parse_rc;
  CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  driver::ExpectOptions expect;
  if (absl::Status s = ModesAndTargets(*p, &expect); !s.ok()) {
    return PrintUsageError("check", s.message());
  }
  const bool live = p->Has("--live");
  if (int rc = DiscoverConfig("check", &options); rc != kExitOk) return rc;
  if (live && o->facts) {
    return PrintUsageError("check", "--live probes this host: it cannot be combined with --facts");
  }
  const std::string file = InputName(o->config);
  absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(*o);  // checks --input
  if (Failed(copts)) return kExitUsage;
  absl::StatusOr<std::string> read = ReadInput(o->config);
  if (Failed(read)) return kExitUsage;
  driver::CheckInput in{file,
                        *std::move(read),
                        o->input ? *o->input == "dsl" : absl::EndsWith(file, ".cwsp"),
                        p->Has("--managed"),
                        o->policy,
                        {},
                        p->Has("--lint")};
  if (std::optional<std::string> extra = p->Last("--expect")) {
    absl::StatusOr<std::vector<ir::Expectation>> e = driver::ExpectationsOf(*extra);
    if (Failed(e)) return kExitUsage;
    in.extra = *std::move(e);
  }
  driver::CheckRun run{std::move(in), std::move(expect), p->Has("--strict")};
  run.expect.compile = *std::move(copts);
  run.expect.facts_rule = {o->facts, o->unlisted_as_missing};
  if (live) run.expect.live = driver::LiveRun{o->config, o->cwd, o->input, o->no_project_config};
  std::unique_ptr<compiler::HostFacts> facts;
  driver::CheckOutcome out = driver::RunCheck(run, [&]() -> absl::StatusOr<compiler::HostFacts*> {
    absl::StatusOr<std::unique_ptr<compiler::HostFacts>> f = MakeFacts(*o);
    if (!f.ok()) return f.status();
    facts = *std::move(f);
    return facts.get();
  });
  PrintNotes(out.notes);
  for (const ir::Diagnostic& n : out.setting_notes) PrintSettingNote(n);
  switch (out.stop) {
    case driver::CheckStop::kNone:
      break;
    case driver::CheckStop::kInput:
      PrintError(out.status);
      return kExitUsage;
    case driver::CheckStop::kNotApplicable:
      PrintError(out.status);
      return kExitNotApplicable;
    case driver::CheckStop::kInternal:
      std::fprintf(stderr, "cwsc: internal error: %s\n",
                   ir::Displayable(std::string(out.status.message())).c_str());
      return kExitUsage;
  }
  JsonReport* report = ActiveReport();
  if (report && !out.valid_line.empty()) report->Add({"note", "", out.valid_line, file, 0, 0});
  return PrintReport(std::move(out.report), out.failed ? kExitCheckFailed : kExitOk);
}

}  // namespace cwsc::cli
