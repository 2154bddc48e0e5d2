#include "cli/cli_options.h"

#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/json_report.h"
#include "ir/diagnostic_status.h"
#include "runtime/host/live_facts.h"

namespace cwsc::cli {

absl::StatusOr<CommonOptions> ParseCommonOptions(const std::vector<std::string>& args,
                                                 const std::vector<std::string>& allowed) {
  CommonOptions o;
  auto is_allowed = [&](const std::string& name) {
    for (const auto& a : allowed) {
      if (a == name) return true;
    }
    return false;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--") {
      o.saw_dashdash = true;
      o.program.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (a == "--help" || a == "-h") {
      o.help = true;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      std::string name = a, value;
      bool has_value = false;
      if (size_t eq = a.find('='); eq != std::string::npos && absl::StartsWith(a, "--")) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        has_value = true;
      }
      if (!is_allowed(name)) {
        return absl::InvalidArgumentError(absl::StrCat("unknown option '", name, "'"));
      }
      if (name == "--json" || name == "--check") {
        if (has_value) return absl::InvalidArgumentError(absl::StrCat(name, " takes no value"));
        (name == "--json" ? o.json : o.check) = true;
        continue;
      }
      if (name == "--no-project-config") {  // what `codewhale serve`/`exec` do
        if (has_value) return absl::InvalidArgumentError(absl::StrCat(name, " takes no value"));
        o.no_project_config = true;
        continue;
      }
      if (name == "--unlisted-as-missing") {  // docs/facts.md
        if (has_value) return absl::InvalidArgumentError(absl::StrCat(name, " takes no value"));
        o.unlisted_as_missing = true;
        continue;
      }
      if (!has_value) {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError(absl::StrCat("option '", name, "' needs a value"));
        }
        value = args[++i];
      }
      if (name == "--target")
        o.target = value;
      else if (name == "--mode") {
        o.mode = value;
        o.mode_given = true;
      } else if (name == "--facts")
        o.facts = value;
      else if (name == "--cwd")
        o.cwd = value;
      else if (name == "--format")
        o.format = value;
      else if (name == "--policy")
        o.policy = value;
      else if (name == "--input")
        o.input = value;
      else if (name == "--escalate")
        o.escalate = value;
      else if (name == "-o" || name == "--output")
        o.output = value;
      else if (name == "--timeout")
        o.timeout = value;
      else if (name == "--json-fd")
        o.json_fd = value;
      else if (name == "--for")
        o.config = value;
      continue;
    }
    if (!o.config.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", a, "' (put the program after --)"));
    }
    o.config = a;
  }
  return o;
}

absl::StatusOr<std::unique_ptr<compiler::HostFacts>> MakeFacts(const CommonOptions& o) {
  if (o.facts) return compiler::LoadRecordedFacts(*o.facts);
  return runtime::MakeLiveFacts();
}

absl::StatusOr<compiler::CompileOptions> ToCompileOptions(const CommonOptions& o) {
  compiler::CompileOptions c;
  c.config_path = o.config;
  c.mode = o.mode;
  c.mode_origin = o.mode_given ? ir::Origin::Cli(absl::StrCat("--mode ", o.mode))
                               : ir::Origin::Default("permission mode ask");
  c.cwd = o.cwd;
  c.policy_name = o.policy;
  c.escalate = o.escalate;
  c.read_project_config = !o.no_project_config;
  if (o.input) {
    if (*o.input == "toml") {
      c.format = compiler::ConfigFormat::kToml;
    } else if (*o.input == "dsl") {
      c.format = compiler::ConfigFormat::kDsl;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--input: unknown input format '", *o.input, "' (toml or dsl)"));
    }
  }
  return c;
}

void PrintError(const std::string& message) {
  std::string m = message;
  if (m.empty()) m = "unknown error";
  bool located = absl::StrContains(m.substr(0, m.find('\n')), ": error:");
  if (absl::StartsWith(m, "error:")) {
    m = absl::StrCat("cwsc: ", m);
  } else if (!located) {
    m = absl::StrCat("cwsc: error: ", m);
  }
  if (m.back() != '\n') m += '\n';
  if (JsonReport* report = ActiveReport()) report->AddRendered(m);
  std::fputs(m.c_str(), stderr);
}

std::string RenderDiagnostic(const ir::Diagnostic& d) { return d.Render(); }

void PrintError(const absl::Status& status) {
  if (std::optional<std::vector<ir::Diagnostic>> diagnostics = ir::DiagnosticsOf(status)) {
    for (const ir::Diagnostic& d : *diagnostics) {
      if (JsonReport* report = ActiveReport()) report->AddDiagnostic(d);
      std::fputs(RenderDiagnostic(d).c_str(), stderr);
    }
    return;
  }
  PrintError(std::string(status.message()));
}

void PrintNotes(const std::vector<ir::Diagnostic>& notes) {
  for (const auto& n : notes) {
    if (JsonReport* report = ActiveReport()) report->AddDiagnostic(n);
    std::fputs(RenderDiagnostic(n).c_str(), stderr);
  }
}

void PrintWarning(const std::string& code, const std::string& message) {
  if (JsonReport* report = ActiveReport()) report->Add({"warning", code, message, "", 0, 0});
  std::fprintf(stderr, "cwsc: warning [%s]: %s\n", code.c_str(), message.c_str());
}

void PrintNote(const std::string& message) {
  if (JsonReport* report = ActiveReport()) report->Add({"note", "", message, "", 0, 0});
  std::fprintf(stderr, "cwsc: note: %s\n", message.c_str());
}

void PrintRefused(const std::string& reason, const ir::Origin& origin) {
  if (JsonReport* report = ActiveReport()) {
    report->Add({"error", "refused", absl::StrCat(reason, " (", origin.Describe(), ")"),
                 origin.file, origin.line, origin.col});
  }
  std::fprintf(stderr, "cwsc: refused: %s\n  (%s)\n", reason.c_str(), origin.Describe().c_str());
}

}  // namespace cwsc::cli
