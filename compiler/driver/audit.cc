// The access map of `cwsc audit` (compiler/driver/audit.h).
#include "compiler/driver/audit.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "backends/bwrap_flags.h"
#include "compiler/driver/why.h"
#include "ir/diagnostics.h"

namespace cwsc::driver {

absl::StatusOr<Audit> AuditBwrapArgv(const std::vector<std::string>& argv) {
  absl::StatusOr<backends::BwrapChecker> c =
      backends::BwrapChecker::FromArgv(argv, backends::UnknownFlags::kSkip);
  if (!c.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the bwrap command line: ", c.status().message()));
  }
  Audit a;
  a.plan = std::make_unique<ir::LaunchPlan>();
  a.plan->launch = ir::Bwrap{};
  a.art.plan = a.plan.get();
  a.art.target = "bwrap";
  a.art.bwrap = *std::move(c);
  const backends::BwrapView& v = a.art.bwrap->view();
  a.chdir = v.chdir;
  // From the last layer down, each destination once; listed in layer order.
  std::vector<std::string> seen;
  for (int i = static_cast<int>(v.layers.size()) - 1; i >= 0; --i) {
    const std::string& dest = v.layers[static_cast<size_t>(i)].dest;
    std::string norm = compiler::LexicalNormalize(dest);
    if (std::find(seen.begin(), seen.end(), norm) != seen.end()) continue;
    seen.push_back(norm);
    backends::Verdict r = a.art.bwrap->Decide(backends::AccessKind::kRead, norm);
    a.paths.insert(a.paths.begin(), AuditPath{norm, r.detail, r.rule});
  }
  return a;
}

absl::StatusOr<Audit> AuditSbplFile(const std::string& file, const backends::SbplParams& params) {
  absl::StatusOr<std::string> text = ReadText(file);
  if (!text.ok()) return text.status();
  absl::StatusOr<backends::SbplChecker> c = backends::SbplChecker::FromProfile(*text, params, file);
  if (!c.ok()) return c.status();
  Audit a;
  a.file = file;
  a.plan = std::make_unique<ir::LaunchPlan>();
  a.plan->launch = ir::Seatbelt{};
  a.art.plan = a.plan.get();
  a.art.target = "seatbelt";
  a.art.sbpl = *std::move(c);
  a.network = DecideOn(a.art, backends::AccessKind::kNetwork, "");
  for (const auto& [key, value] : params) {
    a.parameters.push_back({key, value, DecideOn(a.art, backends::AccessKind::kRead, value),
                            DecideOn(a.art, backends::AccessKind::kWrite, value)});
  }
  return a;
}

compiler::PathVars AuditVars(const std::optional<std::string>& home,
                             const std::optional<std::string>& workspace,
                             const std::string& chdir) {
  compiler::PathVars vars;
  vars.home = home ? *home : (std::getenv("HOME") ? std::getenv("HOME") : "");
  vars.workspace = workspace ? *workspace : chdir;
  vars.cwd = vars.workspace;
  vars.tmpdir = std::getenv("TMPDIR") && *std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  return vars;
}

absl::StatusOr<std::vector<AuditVerdict>> CheckAudit(const PlanArtifact& art,
                                                     const compiler::PathVars& vars,
                                                     const std::vector<ir::Expectation>& es) {
  std::vector<AuditVerdict> out;
  for (const ir::Expectation& e : es) {
    std::string path = e.path;  // network: "" or HOST:PORT
    if (e.kind != ir::Expectation::Kind::kNetwork) {
      absl::StatusOr<std::string> p = compiler::ExpandPath(e.path, vars);
      if (!p.ok()) {
        return ir::ErrorAt(e.origin.file.str(), e.origin.line, e.origin.col,
                           std::string(p.status().message()));
      }
      path = *p;
    }
    Decision d = DecideOn(art, KindOf(e.kind), path);
    bool pass = d.allowed == e.allowed;
    out.push_back({e, path, std::move(d), pass});
  }
  return out;
}

std::vector<std::string> SkippedFlagWarnings(const Audit& a) {
  std::vector<std::string> out;
  if (!a.art.bwrap) return out;
  for (const backends::SkippedFlag& f : a.art.bwrap->view().skipped) {
    out.push_back(absl::StrCat("bwrap flag '", f.flag, "' is not in the bubblewrap ",
                               backends::kBwrapManualVersion,
                               " manual cwsc reads: skipped with the ", f.args,
                               " argument(s) after it; the map leaves out what it does"));
  }
  return out;
}

namespace {

// BwrapMap adds the map of a bwrap argv: its mounts grouped by access, then
// its symlinks.
void BwrapMap(const Audit& a, Report* r) {
  const backends::BwrapView& v = a.art.bwrap->view();
  r->text << "bwrap: " << v.layers.size() << " mount layers, network "
          << (v.network_isolated ? "isolated" : "shared (the host's)") << "\n";
  r->json["artifact"] = "bwrap";
  r->json["layers"] = v.layers.size();
  r->json["network"] = Json{{"allowed", !v.network_isolated},
                            {"detail", v.network_isolated ? "isolated" : "shared"}};
  for (const char* g : {"writable", "read-only", "device", "private", "hidden", "none"}) {
    bool header = false;
    for (const AuditPath& ap : a.paths) {
      if (ap.access != g) continue;
      if (!header) r->text << g << ":\n";
      header = true;
      r->text << "  " << ap.path << "  (" << ap.rule << ")\n";
    }
  }
  for (const AuditPath& ap : a.paths) {
    r->json["paths"].push_back(Json{{"path", ap.path}, {"access", ap.access}, {"rule", ap.rule}});
  }
  if (!v.symlinks.empty()) r->text << "symlinks:\n";
  r->json["symlinks"] = Json::array();
  for (const backends::Symlink& s : v.symlinks) {
    r->text << "  " << s.dest << " -> " << s.target << "  (--symlink " << s.target << " " << s.dest
            << ")\n";
    r->json["symlinks"].push_back(Json{{"path", s.dest}, {"target", s.target}});
  }
}

// SbplMap adds the map of a Seatbelt profile: its network, then what it
// allows at each parameter's value.
void SbplMap(const Audit& a, Report* r) {
  const Decision& net = a.network;
  r->text << "seatbelt profile " << a.file << ": network " << (net.allowed ? "allowed" : "denied")
          << " (" << net.detail << ")\n";
  r->json["artifact"] = "seatbelt";
  r->json["network"] = Json{{"allowed", net.allowed}, {"detail", net.detail}};
  r->json["parameters"] = Json::array();
  if (!a.parameters.empty()) r->text << "parameters:\n";
  for (const AuditParam& ap : a.parameters) {
    r->text << "  " << ap.key << "=" << ap.value << ": read "
            << (ap.read.allowed ? "allowed" : "denied") << ", write "
            << (ap.write.allowed ? "allowed" : "denied") << "\n";
    r->json["parameters"].push_back(Json{{"key", ap.key},
                                         {"value", ap.value},
                                         {"read", ap.read.allowed},
                                         {"write", ap.write.allowed}});
  }
}

// AddVerdicts adds the expectations decided on the artifact and the line
// that counts them; it returns how many failed.
int AddVerdicts(const std::vector<AuditVerdict>& verdicts, Report* r) {
  int passed = 0, failed = 0;
  r->json["expectations"] = Json::array();
  for (const AuditVerdict& av : verdicts) {
    const ir::Expectation& e = av.expectation;
    const Decision& d = av.decision;
    (av.pass ? passed : failed)++;
    r->json["expectations"].push_back(
        Json{{"expectation", Json{{"kind", ir::ExpectationKindName(e.kind)},
                                  {"path", e.path},
                                  {"expected", e.allowed ? "allowed" : "denied"},
                                  {"file", e.origin.file},
                                  {"line", e.origin.line},
                                  {"col", e.origin.col}}},
             {"path", av.path},
             {"result", av.pass ? "pass" : "fail"},
             {"decision", DecisionJson(KindOf(e.kind), d)}});
    r->text << std::string_view(av.pass ? "pass" : "FAIL") << "  expect "
            << ir::ExpectationKindName(e.kind) << (av.path.empty() ? "" : " ") << av.path << " "
            << (e.allowed ? "allowed" : "denied") << "  (" << e.origin.file.str() << ":"
            << e.origin.line << ":" << e.origin.col << "): " << (d.allowed ? "allowed" : "denied")
            << " by ";
    if (!d.where.empty()) r->text << d.where << ": ";
    r->text << d.rule << "\n";
  }
  r->text << "check: " << passed << " passed, " << failed << " failed\n";
  r->json["passed"] = passed;
  r->json["failed"] = failed;
  return failed;
}

}  // namespace

absl::StatusOr<AuditResult> AuditReport(const Audit& a, const AuditAsk& ask) {
  AuditResult out;
  Report& r = out.report;
  r.json = Json{{"artifact", nullptr},   {"network", nullptr}, {"paths", Json::array()},
                {"parameters", nullptr}, {"why", nullptr},     {"expectations", nullptr}};
  if (a.art.bwrap) {
    BwrapMap(a, &r);
  } else {
    SbplMap(a, &r);
  }
  const compiler::PathVars vars = AuditVars(ask.home, ask.workspace, a.chdir);
  if (ask.why) {
    absl::StatusOr<std::string> p = compiler::ExpandPath(*ask.why, vars);
    if (!p.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--why '", *ask.why, "': ", p.status().message()));
    }
    std::vector<backends::AccessKind> kinds = ask.kinds;
    if (kinds.empty()) kinds = {backends::AccessKind::kRead, backends::AccessKind::kWrite};
    const PathWhy w = ExplainPath(a.art, *p, kinds);
    r.text << RenderWhy(w, a.art.target);
    r.json["why"] = WhyJson(w);
  }
  if (ask.expect) {
    absl::StatusOr<std::vector<ir::Expectation>> es = ExpectationsOf(*ask.expect);
    if (!es.ok()) return es.status();
    absl::StatusOr<std::vector<AuditVerdict>> verdicts = CheckAudit(a.art, vars, *es);
    if (!verdicts.ok()) return verdicts.status();
    out.failed = AddVerdicts(*verdicts, &r);
  }
  return out;
}

}  // namespace cwsc::driver
