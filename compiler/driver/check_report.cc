#include "compiler/driver/check_report.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/dsl_text.h"
#include "compiler/modes.h"
#include "ir/display.h"

namespace cwsc::driver {
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

// ActualOf is a verdict as the JSON report names it; "absent" is a denial
// (nothing there to read), so it passes where "denied" is expected.
const char* ActualOf(const Decision& d) {
  if (!d.checkable) return "unchecked";
  if (d.allowed) return "allowed";
  return d.detail == "absent" ? "absent" : "denied";
}

std::string At(const ir::Origin& o) { return absl::StrCat(o.file.str(), ":", o.line, ":", o.col); }

// Checked is what the checks of every subject add up to: the text, the
// JSON results and lints, the counts, and the setting notes already given.
struct Checked {
  ir::Text text;
  Json results = Json::array();
  Json lints = Json::array();
  ExpectCounts counts;
  std::set<std::string> notes;
};

// LiveVerdict adds what the live probe of a verdict found.
void LiveVerdict(const ExpectVerdict& v, ir::Text* text, Json* r) {
  const LiveResult& live = *v.live;
  const Decision& d = v.decision;
  Json lj{{"probed", live.probed}, {"how", live.why}};
  if (!live.probed) {
    *text << "          live: " << live.why << "\n";
  } else if (!v.live_disagrees) {
    *text << "          live: " << (live.allowed ? "allowed" : "denied") << ", agrees (" << live.why
          << ")\n";
    lj["actual"] = live.allowed ? "allowed" : "denied";
    lj["agrees"] = true;
  } else {
    *text << "    FAIL  live: " << (live.allowed ? "allowed" : "denied") << " (" << live.why
          << ") but the static verdict is " << (d.allowed ? "allowed" : "denied")
          << ": the artifact and the kernel disagree\n";
    lj["actual"] = live.allowed ? "allowed" : "denied";
    lj["agrees"] = false;
  }
  (*r)["live"] = lj;
}

// AddVerdict adds one expectation's verdict in one mode.
void AddVerdict(const CheckSubject& s, const ir::Expectation& e, const ExpectVerdict& v,
                Checked* c) {
  ir::Text& text = c->text;
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
  text << OneLine(d.rule, 120) << "\n";  // the JSON report keeps it whole
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
  if (v.live) LiveVerdict(v, &text, &r);
  c->results.push_back(std::move(r));
}

// AddRun adds what the expectations of one policy found: its header, each
// expectation with its verdicts, and the lints of the modes it compiled.
void AddRun(const CheckedPolicy& cp, const ExpectRun& run, Checked* c) {
  const CheckSubject& s = cp.subject;
  ir::Text& text = c->text;
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
    for (const ExpectVerdict& v : er.verdicts) AddVerdict(s, e, v, c);
    if (er.verdicts.empty()) text << "    (none of its modes is checked)\n";
  }
  c->counts.passed += run.counts.passed;
  c->counts.failed += run.counts.failed;
  c->counts.unchecked += run.counts.unchecked;
  for (const ModeLint& ml : run.lints) {
    const Lint& l = ml.lint;
    text << "  lint " << l.code << " at " << LintLocation(l.origin) << " ("
         << absl::StrJoin(ModeNames(ml.modes), ", ") << "): " << l.message << "\n    fix: " << l.fix
         << "\n";
    c->lints.push_back(Json{{"policy", s.name},
                            {"code", l.code},
                            {"location", LintLocation(l.origin)},
                            {"modes", ModeNames(ml.modes)},
                            {"message", l.message},
                            {"fix", l.fix}});
  }
}

// ValidLine is what is said of a config without expectations.
std::string ValidLine(size_t warnings, bool strict) {
  const char* const kNoExpectations =
      "no expectations (check it against a .cwsp file's with --expect FILE.cwsp)";
  if (warnings == 0) return absl::StrCat("valid config; ", kNoExpectations);
  std::string n = absl::StrCat(warnings, " warning", warnings == 1 ? "" : "s");
  if (strict)
    return absl::StrCat(n, warnings == 1 ? " fails" : " fail", " --strict; ", kNoExpectations);
  return absl::StrCat("valid config with ", n, "; ", kNoExpectations);
}

CheckStop StopOf(ExpectFailure f) {
  switch (f) {
    case ExpectFailure::kNone:
      return CheckStop::kNone;
    case ExpectFailure::kInput:
      return CheckStop::kInput;
    case ExpectFailure::kNotApplicable:
      return CheckStop::kNotApplicable;
    case ExpectFailure::kInternal:
      return CheckStop::kInternal;
  }
  return CheckStop::kInternal;
}

}  // namespace

CheckOutcome RunCheck(const CheckRun& run, const CheckFacts& facts) {
  CheckOutcome out;
  // What runs (check.h): the config read and validated as every compile
  // reads it, then each policy's checks.
  const CheckPlan plan = PlanCheck(run.input);
  out.notes = plan.notes;
  if (!plan.status.ok()) {
    out.stop = CheckStop::kInput;
    out.status = plan.status;
    return out;
  }
  const size_t warnings = plan.warnings;
  compiler::HostFacts* host = nullptr;
  Checked c;
  for (const CheckedPolicy& cp : plan.policies) {
    if (!cp.run) {
      c.text << "policy " << cp.subject.name << " (" << cp.subject.where
             << "): valid, no expectations\n";
      continue;
    }
    if (host == nullptr) {
      absl::StatusOr<compiler::HostFacts*> f = facts();
      if (!f.ok()) {
        out.stop = CheckStop::kInput;
        out.status = f.status();
        return out;
      }
      host = *f;
    }
    ExpectOptions e = run.expect;
    e.lint = cp.lint;
    const ExpectRun r = RunExpectations(e, cp.subject.name, cp.subject.expectations, host);
    // The setting notes of each mode compiled, before an error that stopped the run.
    for (const auto& mp : r.plans) {
      for (const ir::Diagnostic& n : SettingNotes(mp->result.plan)) {
        if (c.notes.insert(n.Render()).second) out.setting_notes.push_back(n);
      }
    }
    if (r.failure != ExpectFailure::kNone) {
      out.stop = StopOf(r.failure);
      out.status = r.status;
      return out;
    }
    AddRun(cp, r, &c);
  }
  const bool strict_failed = run.strict && warnings > 0;
  out.report.json = Json{{"file", run.input.file},
                         {"passed", c.counts.passed},
                         {"failed", c.counts.failed},
                         {"unchecked", c.counts.unchecked},
                         {"warnings", plan.shape == CheckShape::kNoPolicy ? 0 : warnings},
                         {"results", c.results},
                         {"lints", c.lints}};
  if (plan.shape != CheckShape::kPolicies) {
    out.valid_line = plan.shape == CheckShape::kConfigOnly ? ValidLine(warnings, run.strict)
                                                           : "valid, but defines no policy";
    out.failed = plan.shape == CheckShape::kConfigOnly && strict_failed;
    out.report.text << run.input.file << ": " << out.valid_line << "\n" << c.text;
    return out;
  }
  out.failed = c.counts.failed > 0 || strict_failed;
  ir::Text& text = out.report.text;
  text << c.text << "check: " << c.counts.passed << " passed, " << c.counts.failed << " failed";
  if (c.counts.unchecked > 0) text << ", " << c.counts.unchecked << " not checkable";
  if (strict_failed) {
    text << "; " << warnings << " config warning"
         << std::string_view(warnings == 1 ? " fails" : "s fail") << " --strict";
  }
  text << "\n";
  return out;
}

}  // namespace cwsc::driver
