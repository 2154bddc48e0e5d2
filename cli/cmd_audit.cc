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

std::string Verdicts(const PlanArtifact& art, const std::string& path) {
  Decision r = DecideOn(art, backends::AccessKind::kRead, path);
  Decision w = DecideOn(art, backends::AccessKind::kWrite, path);
  return absl::StrCat("read ", r.allowed ? "allowed" : "denied", ", write ",
                      w.allowed ? "allowed" : "denied");
}

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
  ir::LaunchPlan plan;  // no plan: decisions come from the artifact alone
  PlanArtifact art;
  art.plan = &plan;
  ir::Text out;
  std::string chdir;
  Json json{{"artifact", nullptr},   {"network", nullptr}, {"paths", Json::array()},
            {"parameters", nullptr}, {"why", nullptr},     {"expectations", nullptr}};
  if (saw_dashdash) {
    absl::StatusOr<backends::BwrapChecker> c =
        backends::BwrapChecker::FromArgv(argv, backends::UnknownFlags::kSkip);
    if (!c.ok()) {
      PrintError(absl::StrCat("the bwrap command line: ", c.status().message()));
      return kExitUsage;
    }
    art.target = "bwrap";
    art.bwrap = *std::move(c);
    const backends::BwrapView& v = art.bwrap->view();
    WarnSkipped(v);
    chdir = v.chdir;
    plan.kind = ir::PlanKind::kLinuxBwrap;
    out << "bwrap: " << v.layers.size() << " mount layers, network "
        << (v.network_isolated ? "isolated" : "shared (the host's)") << "\n";
    json["artifact"] = "bwrap";
    json["layers"] = v.layers.size();
    json["network"] = Json{{"allowed", !v.network_isolated},
                           {"detail", v.network_isolated ? "isolated" : "shared"}};
    std::map<std::string, std::vector<ir::Text>> groups;
    std::vector<std::string> seen;
    for (int i = static_cast<int>(v.layers.size()) - 1; i >= 0; --i) {
      const std::string& dest = v.layers[static_cast<size_t>(i)].dest;
      std::string norm = compiler::LexicalNormalize(dest);
      if (std::find(seen.begin(), seen.end(), norm) != seen.end()) continue;
      seen.push_back(norm);
      backends::Verdict r = art.bwrap->Decide(backends::AccessKind::kRead, norm);
      ir::Text line;
      line << "  " << norm << "  (" << r.rule << ")\n";
      groups[r.detail].insert(groups[r.detail].begin(), std::move(line));
      json["paths"].insert(json["paths"].begin(),
                           Json{{"path", norm}, {"access", r.detail}, {"rule", r.rule}});
    }
    for (const char* g : {"writable", "read-only", "device", "private", "hidden", "none"}) {
      if (!groups.count(g)) continue;
      out << g << ":\n";
      for (const ir::Text& l : groups[g]) out << l;
    }
    if (!v.symlinks.empty()) out << "symlinks:\n";
    json["symlinks"] = Json::array();
    for (const backends::Symlink& s : v.symlinks) {
      out << "  " << s.dest << " -> " << s.target << "  (--symlink " << s.target << " " << s.dest
          << ")\n";
      json["symlinks"].push_back(Json{{"path", s.dest}, {"target", s.target}});
    }
  } else {
    absl::StatusOr<std::string> text = ReadText(*sbpl_file);
    if (!text.ok()) {
      PrintError(text.status());
      return kExitUsage;
    }
    absl::StatusOr<backends::SbplChecker> c =
        backends::SbplChecker::FromProfile(*text, params, *sbpl_file);
    if (!c.ok()) {
      PrintError(c.status());
      return kExitUsage;
    }
    art.target = "seatbelt";
    art.sbpl = *std::move(c);
    plan.kind = ir::PlanKind::kMacosSeatbelt;
    Decision net = DecideOn(art, backends::AccessKind::kNetwork, "");
    out << "seatbelt profile " << *sbpl_file << ": network " << (net.allowed ? "allowed" : "denied")
        << " (" << net.detail << ")\n";
    json["artifact"] = "seatbelt";
    json["network"] = Json{{"allowed", net.allowed}, {"detail", net.detail}};
    json["parameters"] = Json::array();
    if (!params.empty()) out << "parameters:\n";
    for (const auto& [key, value] : params) {
      out << "  " << key << "=" << value << ": " << Verdicts(art, value) << "\n";
      json["parameters"].push_back(
          Json{{"key", key},
               {"value", value},
               {"read", DecideOn(art, backends::AccessKind::kRead, value).allowed},
               {"write", DecideOn(art, backends::AccessKind::kWrite, value).allowed}});
    }
  }
  compiler::PathVars vars;
  vars.home = home ? *home : (std::getenv("HOME") ? std::getenv("HOME") : "");
  vars.workspace = workspace ? *workspace : chdir;
  vars.cwd = vars.workspace;
  vars.tmpdir = std::getenv("TMPDIR") && *std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  if (why) {
    absl::StatusOr<std::string> p = compiler::ExpandPath(*why, vars);
    if (!p.ok()) {
      PrintError(absl::StrCat("--why '", *why, "': ", p.status().message()));
      return kExitUsage;
    }
    if (kinds.empty()) kinds = {backends::AccessKind::kRead, backends::AccessKind::kWrite};
    out << RenderWhy(art, *p, kinds, art.target);
    json["why"] = WhyJson(art, *p, kinds);
  }
  int failed = 0;
  if (expect) {
    absl::StatusOr<std::vector<ir::Expectation>> es = ExpectationsOf(*expect);
    if (!es.ok()) {
      PrintError(es.status());
      return kExitUsage;
    }
    int passed = 0;
    json["expectations"] = Json::array();
    for (const ir::Expectation& e : *es) {
      std::string path = e.path;  // network: "" or HOST:PORT
      if (e.kind != ir::Expectation::Kind::kNetwork) {
        absl::StatusOr<std::string> p = compiler::ExpandPath(e.path, vars);
        if (!p.ok()) {
          PrintError(ir::ErrorAt(e.origin.file.str(), e.origin.line, e.origin.col,
                                 std::string(p.status().message())));
          return kExitUsage;
        }
        path = *p;
      }
      Decision d = DecideOn(art, KindOf(e.kind), path);
      bool pass = d.allowed == e.allowed;
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
