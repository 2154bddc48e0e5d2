// `cwsc check`: validate a policy or config file and list the expectations
// each policy carries. Evaluating them against the emitted artifacts is the
// job of a later version of this command (docs/dsl.md, "Expectations").
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "compiler/config_toml.h"
#include "compiler/dsl_frontend.h"
#include "compiler/resolve.h"

namespace cwsc::cli {
namespace {

constexpr char kCheckUsage[] =
    "usage: cwsc check FILE [--policy NAME] [--input toml|dsl] [--managed]\n"
    "\n"
    "Validate FILE (a .cwsp policy or a Codewhale config.toml) and list the\n"
    "expectations of each policy (or of --policy NAME). --managed checks FILE\n"
    "as a managed config (which may set `launcher`).\n"
    "Exit codes: 0 valid, 2 bad input or usage.\n";

std::string Verdict(const ir::Expectation& e) { return e.allowed ? "allowed" : "denied"; }

void PrintPolicy(const compiler::DslPolicy& p, const std::string& file) {
  size_t n = p.spec.expectations.size();
  std::printf("policy %s (%s:%d:%d): valid, %zu expectation%s\n", p.name.c_str(), file.c_str(),
              p.line, p.col, n, n == 1 ? "" : "s");
  for (const ir::Expectation& e : p.spec.expectations) {
    std::string what = ir::ExpectationKindName(e.kind);
    if (e.kind != ir::Expectation::Kind::kNetwork) {
      what += " " + compiler::QuoteForMessage(e.path);
    }
    std::printf("  expect %s %s  (%s:%d:%d)\n", what.c_str(), Verdict(e).c_str(),
                e.origin.file.c_str(), e.origin.line, e.origin.col);
  }
}

}  // namespace

int CmdCheck(const Args& args) {
  std::vector<std::string> rest;
  bool managed = false;
  for (const std::string& a : args) {
    if (a == "--managed") {
      managed = true;
    } else {
      rest.push_back(a);
    }
  }
  absl::StatusOr<CommonOptions> o = ParseCommonOptions(rest, {"--policy", "--input"});
  if (!o.ok()) {
    PrintError(o.status());
    std::fputs(kCheckUsage, stderr);
    return kExitUsage;
  }
  if (o->help) {
    std::fputs(kCheckUsage, stdout);
    return kExitOk;
  }
  if (o->config.empty()) {
    std::fputs(kCheckUsage, stderr);
    return kExitUsage;
  }
  const std::string& file = o->config;
  bool dsl = o->input ? *o->input == "dsl" : absl::EndsWith(file, ".cwsp");
  if (o->input && *o->input != "dsl" && *o->input != "toml") {
    PrintError(absl::StrCat("--input: unknown input format '", *o->input, "' (toml or dsl)"));
    return kExitUsage;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    PrintError(ir::ErrorAt(file, 0, 0, "cannot read the file"));
    return kExitUsage;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  compiler::Layer layer = managed ? compiler::Layer::kManaged : compiler::Layer::kUser;

  if (!dsl) {
    if (!o->policy.empty()) {
      PrintError(ir::ErrorAt(file, 0, 0, "--policy selects a policy of a .cwsp file"));
      return kExitUsage;
    }
    absl::StatusOr<compiler::ConfigLayer> cfg = compiler::ReadTomlConfig(text, file, layer);
    if (!cfg.ok()) {
      PrintError(cfg.status());
      return kExitUsage;
    }
    PrintNotes(cfg->notes);
    // What every compile checks, in every mode (paths), and what every compile
    // of a managed launcher file refuses (docs/launcher.md).
    if (absl::Status paths = compiler::ValidateSpecPaths(cfg->spec); !paths.ok()) {
      PrintError(paths);
      return kExitUsage;
    }
    if (managed && cfg->spec.tool_launcher) {
      const ir::Origin& o = cfg->spec.tool_launcher->origin;
      std::string mode =
          cfg->spec.sandbox_mode
              ? compiler::NormalizeSandboxMode(cfg->spec.sandbox_mode->value).value_or("")
              : "";
      if (mode != "workspace-write" && mode != "read-only") {
        PrintError(ir::ErrorAt(
            o.file, o.line, o.col,
            cfg->spec.sandbox_mode
                ? absl::StrCat("a managed config with 'tool_launcher' must set "
                               "sandbox_mode to workspace-write or read-only, "
                               "not '",
                               cfg->spec.sandbox_mode->value, "'; every compile refuses it")
                : "a managed config with 'tool_launcher' must set sandbox_mode "
                  "itself (workspace-write or read-only); every compile "
                  "refuses it"));
        return kExitUsage;
      }
    }
    size_t warnings = 0;
    for (const auto& n : cfg->notes) warnings += n.severity == ir::Diagnostic::Severity::kWarning;
    if (warnings > 0) {
      std::printf(
          "%s: valid config with %zu warning%s; no expectations (only .cwsp policies carry "
          "them)\n",
          file.c_str(), warnings, warnings == 1 ? "" : "s");
      return kExitOk;
    }
    std::printf("%s: valid config; no expectations (only .cwsp policies carry them)\n",
                file.c_str());
    return kExitOk;
  }

  absl::StatusOr<compiler::DslFile> parsed = compiler::ReadDslFile(text, file, layer);
  if (!parsed.ok()) {
    PrintError(parsed.status());
    return kExitUsage;
  }
  bool found = o->policy.empty();
  for (const compiler::DslPolicy& p : parsed->policies) {
    if (!o->policy.empty() && p.name != o->policy) continue;
    found = true;
    PrintPolicy(p, file);
  }
  if (!found) {
    PrintError(ir::ErrorAt(file, 0, 0, absl::StrCat("no policy named '", o->policy, "'")));
    return kExitUsage;
  }
  if (parsed->policies.empty()) std::printf("%s: valid, but defines no policy\n", file.c_str());
  std::printf("expectations are listed, not evaluated yet\n");
  return kExitOk;
}

}  // namespace cwsc::cli
