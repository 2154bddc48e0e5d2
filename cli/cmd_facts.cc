// `cwsc facts`: record the host facts a compile consults.
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/json_report.h"
#include "compiler/driver/compile.h"
#include "runtime/host/live_facts.h"

namespace cwsc::cli {
int CmdFacts(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("facts", args, &parse_rc);
  if (!p) return parse_rc;
  const CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  // --mode, --cwd, --policy and --input need --for (cli/command_table.cc).
  std::optional<compiler::CompileOptions> copts;
  if (!o->config.empty()) {
    absl::StatusOr<compiler::CompileOptions> c = ToCompileOptions(*o);
    if (Failed(c)) return kExitUsage;
    copts = *std::move(c);
  }
  std::unique_ptr<compiler::HostFacts> live = runtime::MakeLiveFacts();
  absl::StatusOr<std::string> yaml = driver::RecordFacts(copts, live.get());
  if (Failed(yaml)) return kExitUsage;
  if (o->output && !WriteFileReplacing(*o->output, *yaml)) return kExitUsage;
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
