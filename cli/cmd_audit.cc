// `cwsc audit`: the access map of a sandbox cwsc did not write — any bwrap
// command line, or a Seatbelt profile — read through the same interpreters
// `cwsc check` uses, with `why` for a path and expectations run against it
// (docs/verification.md).
#include <cstdio>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/bwrap_flags.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "cli/json_report.h"
#include "compiler/dsl_frontend.h"
#include "compiler/paths.h"
#include "ir/diagnostics.h"

namespace cwsc::cli {
namespace {

// WarnSkipped names each flag of a newer bwrap that the audit skipped: what
// it does is missing from the map, so the reader must know it is there.
void WarnSkipped(const backends::BwrapView& v) {
  for (const backends::SkippedFlag& f : v.skipped) {
    PrintWarning(
        "unknown-bwrap-flag",
        absl::StrCat("bwrap flag '", f.flag, "' is not in the bubblewrap ",
                     backends::kBwrapManualVersion, " manual cwsc reads: skipped with the ", f.args,
                     " argument(s) after it; the map leaves out what it does"));
  }
}

}  // namespace

int CmdAudit(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("audit", args, &parse_rc);
  if (!p) return parse_rc;
  const std::optional<std::string> sbpl_file = p->Last("--sbpl"), why = p->Last("--why"),
                                   expect = p->Last("--expect"), home = p->Last("--home"),
                                   workspace = p->Last("--workspace");
  backends::SbplParams params;
  std::vector<backends::AccessKind> kinds;
  for (const auto& [name, value] : p->flags) {
    if (name == "--read") kinds.push_back(backends::AccessKind::kRead);
    if (name == "--write") kinds.push_back(backends::AccessKind::kWrite);
    if (name == "--exec") kinds.push_back(backends::AccessKind::kExec);
    if (name != "-D") continue;
    size_t eq = value.find('=');
    if (eq == std::string::npos || eq == 0) {
      return PrintUsageError("audit", absl::StrCat("-D ", value, ": expected KEY=VALUE"));
    }
    params[value.substr(0, eq)] = value.substr(eq + 1);
  }
  const std::vector<std::string>& argv = p->program;
  const bool saw_dashdash = p->saw_dashdash;
  if (!kinds.empty() && !why) {
    return PrintUsageError(
        "audit", "--read, --write and --exec choose what --why explains: give --why PATH");
  }
  if (!params.empty() && !sbpl_file) {
    return PrintUsageError("audit", "-D KEY=VALUE sets a parameter of a --sbpl profile");
  }
  if (sbpl_file.has_value() == saw_dashdash) {
    return PrintUsageError(
        "audit", "audit reads either a bwrap command line after -- or a profile with --sbpl FILE");
  }
  ir::Text out;
  Json json{{"artifact", nullptr},   {"network", nullptr}, {"paths", Json::array()},
            {"parameters", nullptr}, {"why", nullptr},     {"expectations", nullptr}};
  absl::StatusOr<driver::Audit> audit =
      saw_dashdash ? driver::AuditBwrapArgv(argv) : driver::AuditSbplFile(*sbpl_file, params);
  if (!audit.ok()) {
    PrintError(audit.status());
    return kExitUsage;
  }
  const PlanArtifact& art = audit->art;
  if (saw_dashdash) {
    const backends::BwrapView& v = art.bwrap->view();
    WarnSkipped(v);
    out << "bwrap: " << v.layers.size() << " mount layers, network "
        << (v.network_isolated ? "isolated" : "shared (the host's)") << "\n";
    json["artifact"] = "bwrap";
    json["layers"] = v.layers.size();
    json["network"] = Json{{"allowed", !v.network_isolated},
                           {"detail", v.network_isolated ? "isolated" : "shared"}};
    for (const char* g : {"writable", "read-only", "device", "private", "hidden", "none"}) {
      bool header = false;
      for (const driver::AuditPath& ap : audit->paths) {
        if (ap.access != g) continue;
        if (!header) out << g << ":\n";
        header = true;
        out << "  " << ap.path << "  (" << ap.rule << ")\n";
      }
    }
    for (const driver::AuditPath& ap : audit->paths) {
      json["paths"].push_back(Json{{"path", ap.path}, {"access", ap.access}, {"rule", ap.rule}});
    }
    if (!v.symlinks.empty()) out << "symlinks:\n";
    json["symlinks"] = Json::array();
    for (const backends::Symlink& s : v.symlinks) {
      out << "  " << s.dest << " -> " << s.target << "  (--symlink " << s.target << " " << s.dest
          << ")\n";
      json["symlinks"].push_back(Json{{"path", s.dest}, {"target", s.target}});
    }
  } else {
    const Decision& net = audit->network;
    out << "seatbelt profile " << *sbpl_file << ": network " << (net.allowed ? "allowed" : "denied")
        << " (" << net.detail << ")\n";
    json["artifact"] = "seatbelt";
    json["network"] = Json{{"allowed", net.allowed}, {"detail", net.detail}};
    json["parameters"] = Json::array();
    if (!audit->parameters.empty()) out << "parameters:\n";
    for (const driver::AuditParam& ap : audit->parameters) {
      out << "  " << ap.key << "=" << ap.value << ": read "
          << (ap.read.allowed ? "allowed" : "denied") << ", write "
          << (ap.write.allowed ? "allowed" : "denied") << "\n";
      json["parameters"].push_back(Json{{"key", ap.key},
                                        {"value", ap.value},
                                        {"read", ap.read.allowed},
                                        {"write", ap.write.allowed}});
    }
  }
  const compiler::PathVars vars = driver::AuditVars(home, workspace, audit->chdir);
  if (why) {
    absl::StatusOr<std::string> p = compiler::ExpandPath(*why, vars);
    if (!p.ok()) {
      PrintError(absl::StrCat("--why '", *why, "': ", p.status().message()));
      return kExitUsage;
    }
    if (kinds.empty()) kinds = {backends::AccessKind::kRead, backends::AccessKind::kWrite};
    const PathWhy w = ExplainPath(art, *p, kinds);
    out << RenderWhy(w, art.target);
    json["why"] = WhyJson(w);
  }
  int failed = 0;
  if (expect) {
    absl::StatusOr<std::vector<ir::Expectation>> es = ExpectationsOf(*expect);
    if (!es.ok()) {
      PrintError(es.status());
      return kExitUsage;
    }
    absl::StatusOr<std::vector<driver::AuditVerdict>> verdicts = driver::CheckAudit(art, vars, *es);
    if (!verdicts.ok()) {
      PrintError(verdicts.status());
      return kExitUsage;
    }
    int passed = 0;
    json["expectations"] = Json::array();
    for (const driver::AuditVerdict& av : *verdicts) {
      const ir::Expectation& e = av.expectation;
      const std::string& path = av.path;
      const Decision& d = av.decision;
      const bool pass = av.pass;
      (pass ? passed : failed)++;
      json["expectations"].push_back(
          Json{{"expectation", Json{{"kind", ir::ExpectationKindName(e.kind)},
                                    {"path", e.path},
                                    {"expected", e.allowed ? "allowed" : "denied"},
                                    {"file", e.origin.file},
                                    {"line", e.origin.line},
                                    {"col", e.origin.col}}},
               {"path", path},
               {"result", pass ? "pass" : "fail"},
               {"decision", DecisionJson(KindOf(e.kind), d)}});
      out << std::string_view(pass ? "pass" : "FAIL") << "  expect "
          << ir::ExpectationKindName(e.kind) << (path.empty() ? "" : " ") << path << " "
          << (e.allowed ? "allowed" : "denied") << "  (" << e.origin.file.str() << ":"
          << e.origin.line << ":" << e.origin.col << "): " << (d.allowed ? "allowed" : "denied")
          << " by ";
      if (!d.where.empty()) out << d.where << ": ";
      out << d.rule << "\n";
    }
    out << "check: " << passed << " passed, " << failed << " failed\n";
    json["passed"] = passed;
    json["failed"] = failed;
  }
  int rc = failed > 0 ? kExitCheckFailed : kExitOk;
  if (JsonReport* report = ActiveReport()) {
    report->SetResult(std::move(json));
    return rc;
  }
  PrintText(out);
  return rc;
}

}  // namespace cwsc::cli
