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

// Options of check beyond the common ones; --mode and --target may repeat.
struct CheckOptions {
  std::vector<ir::PermissionMode> modes;  // in the order given
  std::vector<std::string> targets;       // "bwrap", "seatbelt"
  std::optional<std::string> expect_file;
  bool managed = false;
  bool json = false;
  bool live = false;
  bool lint = false;    // compile every mode for its lints, even without expectations
  bool strict = false;  // a warning about the config's keys fails the check
};

// CheckOptionsOf reads the options only check has (or repeats).
absl::Status CheckOptionsOf(const ParsedArgs& p, CheckOptions* c) {
  c->managed = p.Has("--managed");
  c->json = p.Has("--json");
  c->lint = p.Has("--lint");
  c->live = p.Has("--live");
  c->strict = p.Has("--strict");
  c->expect_file = p.Last("--expect");
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
  CheckOptions c;
  if (absl::Status s = CheckOptionsOf(*p, &c); !s.ok())
    return PrintUsageError("check", s.message());
  if (int rc = DiscoverConfig("check", &options); rc != kExitOk) return rc;
  if (c.live && o->facts) {
    return PrintUsageError("check", "--live probes this host: it cannot be combined with --facts");
  }
  const std::string file = InputName(o->config);
  absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(*o);  // checks --input
  if (Failed(copts)) return kExitUsage;
  absl::StatusOr<std::string> read = ReadInput(o->config);
  if (Failed(read)) return kExitUsage;
  driver::CheckInput in{
      file,      *std::move(read), o->input ? *o->input == "dsl" : absl::EndsWith(file, ".cwsp"),
      c.managed, o->policy,        {},
      c.lint};
  if (c.expect_file) {
    absl::StatusOr<std::vector<ir::Expectation>> e = driver::ExpectationsOf(*c.expect_file);
    if (Failed(e)) return kExitUsage;
    in.extra = *std::move(e);
  }
  driver::CheckRun run{std::move(in), {}, c.strict};
  run.expect.compile = *std::move(copts);
  run.expect.facts_rule = {o->facts, o->unlisted_as_missing};
  run.expect.modes = c.modes;
  run.expect.targets = c.targets;
  if (c.live) run.expect.live = driver::LiveRun{o->config, o->cwd, o->input, o->no_project_config};
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
