// `cwsc check`: validate a policy or config file and evaluate its
// expectations against the artifact each permission mode's plan emits
// (docs/verification.md): the bwrap argv through the mount interpreter, the
// Seatbelt profile through the SBPL evaluator. Each verdict names the rule
// that decided it and the plan element (config line) that emitted the rule.
#include <cstdio>
#include <memory>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "cli/json_report.h"
#include "compiler/dsl_text.h"
#include "compiler/modes.h"
#include "ir/diagnostics.h"
#include "ir/display.h"
#include "nlohmann/json.hpp"

namespace cwsc::cli {
namespace {

std::string Quote(const std::string& s) { return compiler::QuoteForMessage(s); }

// ModeNames spells permission modes for the text and the JSON report.
std::vector<std::string> ModeNames(const std::vector<ir::PermissionMode>& modes) {
  std::vector<std::string> out;
  for (ir::PermissionMode m : modes) out.push_back(ir::PermissionModeName(m));
  return out;
}

std::string ExpectText(const ir::Expectation& e) {
  std::string what = ir::ExpectationKindName(e.kind);
  if (e.kind != ir::Expectation::Kind::kNetwork || !e.path.empty()) what += " " + Quote(e.path);
  std::string out = absl::StrCat("expect ", what, " ", e.allowed ? "allowed" : "denied");
  if (!e.modes.empty()) absl::StrAppend(&out, " in ", absl::StrJoin(ModeNames(e.modes), ", "));
  return out;
}

// OneLine folds a multi-line rule onto one line, cut at 120 characters (the
// JSON report keeps it whole).
std::string OneLine(const std::string& rule) {
  std::string out;
  bool space = false;
  for (char ch : rule) {
    if (ch == '\n' || ch == ' ' || ch == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
  }
  if (out.size() > 120) out = out.substr(0, 117) + "...";
  return out;
}

// ActualOf is a verdict as the JSON report names it; "absent" is a denial
// (nothing there to read), so it passes where "denied" is expected.
const char* ActualOf(const Decision& d) {
  if (!d.checkable) return "unchecked";
  if (d.allowed) return "allowed";
  return d.detail == "absent" ? "absent" : "denied";
}

std::string At(const ir::Origin& o) { return absl::StrCat(o.file.str(), ":", o.line, ":", o.col); }

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

struct Counts {
  int passed = 0, failed = 0, unchecked = 0;
};

// What the checks of every subject add up to: the text report, the JSON
// results and lints, the counts, and the setting notes already printed (each
// once, however many modes skip the same setting).
struct CheckReport {
  ir::Text text;
  Json results = Json::array();
  Json lints = Json::array();
  Counts counts;
  std::set<std::string> notes;
};

// RenderVerdict adds one expectation's verdict in one mode to the report.
void RenderVerdict(const CheckSubject& s, const ir::Expectation& e, const ExpectVerdict& v,
                   CheckReport* report) {
  ir::Text& text = report->text;
  const Decision& d = v.decision;
  const std::string& path = v.path;
  const char* mark = !d.checkable ? "SKIP" : v.pass ? "pass" : "FAIL";
  std::string subject = e.kind == ir::Expectation::Kind::kNetwork
                            ? (path.empty() ? "network" : absl::StrCat("network ", path))
                            : path;
  std::string verdict = !d.checkable
                            ? "not checkable statically"
                            : absl::StrCat(d.allowed ? "allowed" : "denied", " (", d.detail, ")");
  text << "    " << mark << "  " << ir::PermissionModeName(v.mode) << ", " << v.target << ": "
       << subject << ": " << verdict;
  if (d.checkable && !v.pass) text << ", expected " << (e.allowed ? "allowed" : "denied");
  text << "\n";
  text << "          by ";
  if (!d.where.empty()) text << d.where << ": ";
  text << OneLine(d.rule) << "\n";
  if (d.origin) text << "          from " << d.origin->Describe() << "\n";
  for (const std::string& p : d.params) text << "          param " << p << "\n";
  for (const std::string& n : v.notes) text << "          note: " << n << "\n";
  Json r{{"policy", s.name},
         {"expectation", Json{{"kind", ir::ExpectationKindName(e.kind)},
                              {"path", e.path},
                              {"expected", e.allowed ? "allowed" : "denied"},
                              {"modes", ModeNames(e.modes)},
                              {"file", e.origin.file},
                              {"line", e.origin.line},
                              {"col", e.origin.col}}},
         {"mode", ir::PermissionModeName(v.mode)},
         {"target", v.target},
         {"path", path},
         {"actual", ActualOf(d)},
         {"result", !d.checkable ? "skip"
                    : v.pass     ? "pass"
                                 : "fail"},
         {"detail", d.detail},
         {"rule", d.rule},
         {"where", d.where},
         {"origin", d.origin ? Json(d.origin->Describe()) : Json(nullptr)},
         {"params", d.params},
         {"notes", v.notes}};
  if (v.live) {
    const LiveResult& live = *v.live;
    Json lj{{"probed", live.probed}, {"how", live.why}};
    if (!live.probed) {
      text << "          live: " << live.why << "\n";
    } else if (!v.live_disagrees) {
      text << "          live: " << (live.allowed ? "allowed" : "denied") << ", agrees ("
           << live.why << ")\n";
      lj["actual"] = live.allowed ? "allowed" : "denied";
      lj["agrees"] = true;
    } else {
      text << "    FAIL  live: " << (live.allowed ? "allowed" : "denied") << " (" << live.why
           << ") but the static verdict is " << (d.allowed ? "allowed" : "denied")
           << ": the artifact and the kernel disagree\n";
      lj["actual"] = live.allowed ? "allowed" : "denied";
      lj["agrees"] = false;
    }
    r["live"] = lj;
  }
  report->results.push_back(std::move(r));
}

// RunChecks runs the expectations of `s` (compiler/driver/expect.h) and
// renders what they found; the setting notes of each mode compiled are
// printed as they come, before an error that stopped the run.
int RunChecks(const ExpectOptions& c, const CheckedPolicy& cp, compiler::HostFacts* facts,
              CheckReport* report) {
  const CheckSubject& s = cp.subject;
  ExpectRun run = RunExpectations(c, s.name, s.expectations, facts);
  for (const auto& mp : run.plans) {
    for (const ir::Diagnostic& n : SettingNotes(mp->result.plan)) {
      if (report->notes.insert(n.Render()).second) PrintSettingNote(n);
    }
  }
  switch (run.failure) {
    case ExpectFailure::kNone:
      break;
    case ExpectFailure::kInput:
      PrintError(run.status);
      return kExitUsage;
    case ExpectFailure::kNotApplicable:
      PrintError(run.status);
      return kExitNotApplicable;
    case ExpectFailure::kInternal:
      std::fprintf(stderr, "cwsc: internal error: %s\n",
                   ir::Displayable(std::string(run.status.message())).c_str());
      return kExitUsage;
  }
  ir::Text& text = report->text;
  if (cp.header) {
    if (s.name.empty()) {
      text << "config";
    } else {
      text << "policy " << s.name;
    }
    text << " (" << s.where << "): " << s.expectations.size() << " expectation"
         << (s.expectations.size() == 1 ? "" : "s") << "\n";
  }
  for (const ExpectationResult& er : run.expectations) {
    const ir::Expectation& e = er.expectation;
    text << "  " << ExpectText(e) << "  (" << At(e.origin) << ")\n";
    for (const ExpectVerdict& v : er.verdicts) RenderVerdict(s, e, v, report);
    if (er.verdicts.empty()) text << "    (none of its modes is checked)\n";
  }
  report->counts.passed += run.counts.passed;
  report->counts.failed += run.counts.failed;
  report->counts.unchecked += run.counts.unchecked;
  for (const ModeLint& ml : run.lints) {
    const Lint& l = ml.lint;
    text << "  lint " << l.code << " at " << LintLocation(l.origin) << " ("
         << absl::StrJoin(ModeNames(ml.modes), ", ") << "): " << l.message << "\n    fix: " << l.fix
         << "\n";
    report->lints.push_back(Json{{"policy", s.name},
                                 {"code", l.code},
                                 {"location", LintLocation(l.origin)},
                                 {"modes", ModeNames(ml.modes)},
                                 {"message", l.message},
                                 {"fix", l.fix}});
  }
  return kExitOk;
}

// ResultJson is the `result` of the check report.
Json ResultJson(const std::string& file, const CheckReport& r, size_t warnings) {
  return Json{{"file", file},
              {"passed", r.counts.passed},
              {"failed", r.counts.failed},
              {"unchecked", r.counts.unchecked},
              {"warnings", warnings},
              {"results", r.results},
              {"lints", r.lints}};
}

// Valid reports a file without expectations: a line of text and the lints
// of `r`, or the result in the JSON report with the line as a note.
int Valid(const std::string& file, const std::string& line, const CheckReport& r, size_t warnings,
          int rc) {
  if (JsonReport* report = ActiveReport()) {
    report->Add({"note", "", line, file, 0, 0});
    report->SetResult(ResultJson(file, r, warnings));
    return rc;
  }
  ir::Text out;
  out << file << ": " << line << "\n" << r.text;
  PrintText(out);
  return rc;
}

// ValidLine is what Valid says of a config without expectations.
std::string ValidLine(size_t warnings, bool strict) {
  const char* const kNoExpectations =
      "no expectations (check it against a .cwsp file's with --expect FILE.cwsp)";
  if (warnings == 0) return absl::StrCat("valid config; ", kNoExpectations);
  std::string n = absl::StrCat(warnings, " warning", warnings == 1 ? "" : "s");
  if (strict)
    return absl::StrCat(n, warnings == 1 ? " fails" : " fail", " --strict; ", kNoExpectations);
  return absl::StrCat("valid config with ", n, "; ", kNoExpectations);
}

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
      if (t != "bwrap" && t != "seatbelt") {
        return absl::InvalidArgumentError(
            absl::StrCat("unknown --target '", t, "' for check (bwrap or seatbelt)"));
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
  if (o->unlisted_as_missing && !o->facts) {
    return PrintUsageError("check",
                           "--unlisted-as-missing applies to a facts file: give --facts FILE");
  }
  if (c.live && o->facts) {
    return PrintUsageError("check", "--live probes this host: it cannot be combined with --facts");
  }
  const std::string file = InputName(o->config);
  if (o->input && *o->input != "dsl" && *o->input != "toml") {
    PrintError(absl::StrCat("--input: unknown input format '", *o->input, "' (toml or dsl)"));
    return kExitUsage;
  }
  absl::StatusOr<std::string> read = ReadInput(o->config);
  if (!read.ok()) {
    PrintError(read.status());
    return kExitUsage;
  }
  driver::CheckInput in{
      file,      *std::move(read), o->input ? *o->input == "dsl" : absl::EndsWith(file, ".cwsp"),
      c.managed, o->policy,        {},
      c.lint};
  if (c.expect_file) {
    absl::StatusOr<std::vector<ir::Expectation>> e = ExpectationsOf(*c.expect_file);
    if (!e.ok()) {
      PrintError(e.status());
      return kExitUsage;
    }
    in.extra = *std::move(e);
  }
  // What runs (compiler/driver/check.h): the config read and validated as
  // every compile reads it, then each policy's checks.
  const driver::CheckPlan plan = driver::PlanCheck(in);
  PrintNotes(plan.notes);
  if (!plan.status.ok()) {
    PrintError(plan.status);
    return kExitUsage;
  }
  const size_t warnings = plan.warnings;
  std::unique_ptr<compiler::HostFacts> facts;
  CheckReport r;
  for (const CheckedPolicy& cp : plan.policies) {
    if (!cp.run) {
      r.text << "policy " << cp.subject.name << " (" << cp.subject.where
             << "): valid, no expectations\n";
      continue;
    }
    if (!facts) {
      absl::StatusOr<std::unique_ptr<compiler::HostFacts>> f = MakeFacts(*o);
      if (!f.ok()) {
        PrintError(f.status());
        return kExitUsage;
      }
      facts = *std::move(f);
    }
    absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(*o);
    if (!copts.ok()) {
      PrintError(copts.status());
      return kExitUsage;
    }
    ExpectOptions e;
    e.compile = *std::move(copts);
    e.facts_rule = {o->facts, o->unlisted_as_missing};
    e.modes = c.modes;
    e.targets = c.targets;
    e.lint = cp.lint;
    if (c.live) e.live = LiveRun{o->config, o->cwd, o->input, o->no_project_config};
    if (int rc = RunChecks(e, cp, facts.get(), &r); rc != kExitOk) return rc;
  }
  if (plan.shape == driver::CheckShape::kConfigOnly) {
    return Valid(file, ValidLine(warnings, c.strict), r, warnings,
                 c.strict && warnings > 0 ? kExitCheckFailed : kExitOk);
  }
  if (plan.shape == driver::CheckShape::kNoPolicy) {
    return Valid(file, "valid, but defines no policy", r, 0, kExitOk);
  }
  const bool strict_failed = c.strict && warnings > 0;
  int rc = r.counts.failed > 0 || strict_failed ? kExitCheckFailed : kExitOk;
  if (JsonReport* report = ActiveReport()) {
    report->SetResult(ResultJson(file, r, warnings));
    return rc;
  }
  r.text << "check: " << r.counts.passed << " passed, " << r.counts.failed << " failed";
  if (r.counts.unchecked > 0) r.text << ", " << r.counts.unchecked << " not checkable";
  if (strict_failed) {
    r.text << "; " << warnings << " config warning"
           << std::string_view(warnings == 1 ? " fails" : "s fail") << " --strict";
  }
  r.text << "\n";
  PrintText(r.text);
  return rc;
}

}  // namespace cwsc::cli
