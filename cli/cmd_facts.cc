// `cwsc facts`: record the host facts a compile consults.
#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/json_report.h"
#include "ir/constants.h"
#include "runtime/host/live_facts.h"

namespace cwsc::cli {
namespace {

constexpr char kUsage[] =
    "usage: cwsc facts [--for CONFIG] [--mode MODE] [--cwd DIR] [--policy NAME] [-o FILE]\n"
    "                  [--json]\n"
    "\n"
    "Record host facts in the format of docs/facts.md. With --for, compile CONFIG\n"
    "against the live host and record exactly the facts that compile consulted, so\n"
    "`cwsc compile CONFIG --facts FILE` gives byte-identical output on any machine.\n"
    "Without --for, record the platform, user, working directory and bwrap probe.\n"
    "Secrets are recorded as set/unset only. --json prints the JSON report\n"
    "(docs/cli.md) with the facts file's text in it (and writes -o FILE as well).\n";

}  // namespace

int CmdFacts(const Args& args) {
  absl::StatusOr<CommonOptions> o = ParseCommonOptions(
      args, {"--for", "--mode", "--cwd", "--policy", "--input", "-o", "--output", "--json"});
  if (!o.ok()) {
    PrintError(o.status());
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  if (o->help) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (o->config.empty()) {  // these shape the compile of --for CONFIG
    const char* given = o->mode_given        ? "--mode"
                        : o->cwd             ? "--cwd"
                        : !o->policy.empty() ? "--policy"
                        : o->input           ? "--input"
                                             : nullptr;
    if (given != nullptr) {
      PrintError(absl::StrCat(given, " needs --for CONFIG: without it no compile runs"));
      return kExitUsage;
    }
  }
  std::unique_ptr<compiler::HostFacts> live = runtime::MakeLiveFacts();
  compiler::FactsRecorder rec(live.get());
  if (!o->config.empty()) {
    rec.SetUnlistedIsError(true);
    absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(*o);
    if (!copts.ok()) {
      PrintError(copts.status());
      return kExitUsage;
    }
    absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(*copts, &rec);
    if (!r.ok()) {
      PrintError(r.status());
      return kExitUsage;
    }
  } else {
    rec.Platform();
    rec.User();
    rec.Cwd();
    rec.Env("HOME");
    rec.Env("TMPDIR");
    rec.Path(ir::kBwrapPath);
    rec.BwrapProbe();
  }
  absl::StatusOr<std::string> yaml = rec.WriteYaml();
  if (!yaml.ok()) {
    PrintError(yaml.status());
    return kExitUsage;
  }
  if (o->output) {
    std::ofstream out(*o->output, std::ios::binary | std::ios::trunc);
    out << *yaml;
    if (!out.flush()) {
      PrintError(absl::StrCat("cannot write ", *o->output));
      return kExitUsage;
    }
  }
  if (JsonReport* report = ActiveReport()) {
    report->SetResult(Json{{"for", o->config.empty() ? Json(nullptr) : Json(o->config)},
                           {"output", o->output ? Json(*o->output) : Json(nullptr)},
                           {"facts_yaml", *yaml}});
    return kExitOk;
  }
  if (o->output) return kExitOk;
  std::fputs(yaml->c_str(), stdout);
  return kExitOk;
}

}  // namespace cwsc::cli
