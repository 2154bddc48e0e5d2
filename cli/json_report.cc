#include "cli/json_report.h"

#include <cstdio>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "cli/cli_parse.h"
#include "cli/version.h"
#include "ir/display.h"

namespace cwsc::cli {
namespace {

// The commands whose output has a JSON form (docs/cli.md, "JSON output").
const char* const kJsonCommands[] = {"compile", "explain", "check", "facts", "doctor", "run",
                                     "exec",    "diff",    "why",   "audit", "fmt"};

std::unique_ptr<JsonReport>& Active() {
  static std::unique_ptr<JsonReport> report;
  return report;
}

const char* SeverityName(ir::Diagnostic::Severity s) {
  switch (s) {
    case ir::Diagnostic::Severity::kError:
      return "error";
    case ir::Diagnostic::Severity::kWarning:
      return "warning";
    case ir::Diagnostic::Severity::kNote:
      return "note";
  }
  return "error";
}

Json OptString(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }
Json OptInt(int v) { return v > 0 ? Json(v) : Json(nullptr); }

}  // namespace

void JsonReport::AddDiagnostic(const ir::Diagnostic& d, const std::string& code) {
  diagnostics_.push_back({SeverityName(d.severity), code, d.message, d.file, d.line, d.col});
}

std::string JsonReport::Render(int exit_code, bool one_line) const {
  Json diagnostics = Json::array();
  bool errors = false;
  for (const ReportDiagnostic& d : diagnostics_) {
    errors = errors || d.severity == "error";
    diagnostics.push_back(Json{{"severity", d.severity},
                               {"code", OptString(d.code)},
                               // Text for people, escaped as on stderr (ir/display.h).
                               {"message", ir::Displayable(d.message)},
                               {"file", OptString(ir::Displayable(d.file))},
                               {"line", OptInt(d.line)},
                               {"col", OptInt(d.col)}});
  }
  Json j{{"cwsc", Json{{"format", "cwsc-report"},
                       {"version", kReportVersion},
                       {"command", command_},
                       {"tool_version", kVersion}}},
         {"ok", !errors && result_.has_value()},
         {"exit_code", exit_code},
         {"result", result_.has_value() ? *result_ : Json(nullptr)},
         {"diagnostics", diagnostics}};
  // Valid JSON whose every byte is inert on a terminal (ir/display.h).
  return ir::TerminalSafeJson(
             j.dump(one_line ? -1 : 2, ' ', false, nlohmann::json::error_handler_t::replace)) +
         "\n";
}

int JsonReport::Finish(int exit_code) {
  // A usage error that printed only the usage text still says what went wrong.
  bool errors = false;
  for (const ReportDiagnostic& d : diagnostics_) errors = errors || d.severity == "error";
  if (exit_code == 2 && !errors && !result_) {
    Add({"error", "usage", "usage error: see `cwsc " + command_ + " --help`", "", 0, 0});
  }
  if (deliver_) {
    deliver_(Render(exit_code, /*one_line=*/true));
    return exit_code;
  }
  std::string text = Render(exit_code, /*one_line=*/false);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return exit_code;
}

bool JsonCommand(const std::string& command) {
  for (const char* c : kJsonCommands) {
    if (command == c) return true;
  }
  return false;
}

void StartReport(const std::string& command, const std::vector<std::string>& args) {
  if (!JsonCommand(command)) return;
  bool json = false;
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") return;
    if (a == "--json") json = true;
  }
  if (!json) return;
  Active() = std::make_unique<JsonReport>(command);
  // A usage error (one line and a hint on stderr) is the report's diagnostic.
  SetUsageErrorObserver([](absl::string_view message) {
    if (JsonReport* report = ActiveReport())
      report->Add({"error", "usage", std::string(message), "", 0, 0});
  });
}

JsonReport* ActiveReport() { return Active().get(); }

int FinishReport(int exit_code) {
  if (!Active()) return exit_code;
  int rc = Active()->Finish(exit_code);
  Active().reset();
  return rc;
}

Json OriginJson(const ir::Origin& o) {
  return Json{{"kind", ir::Origin::KindName(o.kind)},
              {"detail", o.detail},
              {"file", OptString(o.file)},
              {"line", OptInt(o.line)},
              {"col", OptInt(o.col)},
              {"text", o.Describe()}};
}

Json CompileJson(const ir::LaunchPlan& plan, const std::string& target,
                 const backends::EmittedArgv* argv, const std::string& text,
                 const std::string& requests_json) {
  Json j{{"plan_kind", ir::PlanKindName(plan.kind())}, {"target", target}};
  if (argv != nullptr) {
    j["argv"] = backends::Texts(*argv);
  } else if (target == "plan") {
    j["plan"] = Json::parse(text);
  } else if (target == "opensandbox") {
    j["requests"] = Json::parse(requests_json);
  } else {
    j["listing"] = text;
  }
  return j;
}

Json TokensJson(const backends::EmittedArgv& argv) {
  Json out = Json::array();
  for (const backends::EmittedArg& a : argv) {
    out.push_back(Json{{"text", a.text}, {"origin", OriginJson(a.origin)}});
  }
  return out;
}

void PlanNotesJson(const ir::LaunchPlan& plan, Json* out) {
  (*out)["refusal"] = plan.refusal() ? Json{{"reason", plan.refusal()->reason},
                                            {"origin", OriginJson(plan.refusal()->origin)}}
                                     : Json(nullptr);
  Json skipped = Json::array();
  for (const ir::Skipped& s : plan.skipped) {
    skipped.push_back(Json{{"what", s.what},
                           {"path", OptString(s.path)},
                           {"reason", s.reason},
                           {"kind", ir::SkipKindName(s.kind)},
                           {"origin", OriginJson(s.origin)}});
  }
  (*out)["skipped"] = skipped;
  Json warnings = Json::array();
  for (const ir::Warning& w : plan.warnings) {
    warnings.push_back(
        Json{{"code", w.code}, {"message", w.message}, {"origin", OriginJson(w.origin)}});
  }
  (*out)["warnings"] = warnings;
}

Json DecisionJson(backends::AccessKind kind, const Decision& d) {
  return Json{{"access", backends::AccessKindName(kind)},
              {"allowed", d.checkable ? Json(d.allowed) : Json(nullptr)},
              {"checkable", d.checkable},
              {"detail", d.detail},
              {"rule", d.rule},
              {"where", OptString(d.where)},
              {"origin", d.origin ? OriginJson(*d.origin) : Json(nullptr)},
              {"params", d.params}};
}

Json WhyJson(const PathWhy& w) {
  Json decisions = Json::array();
  for (const KindDecision& kd : w.decisions)
    decisions.push_back(DecisionJson(kd.kind, kd.decision));
  Json chain = nullptr;
  if (w.chain) {
    chain = Json::array();
    for (const WhyLink& c : *w.chain) {
      chain.push_back(Json{{"layer", c.link.layer},
                           {"arg", c.link.arg},
                           {"rule", c.link.rule},
                           {"effect", c.link.effect},
                           {"origin", c.origin ? OriginJson(*c.origin) : Json(nullptr)}});
    }
  }
  return Json{{"path", w.path}, {"decisions", decisions}, {"chain", chain}};
}

}  // namespace cwsc::cli
