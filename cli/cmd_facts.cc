// `cwsc facts`: record the host facts a compile consults.
#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "ir/constants.h"
#include "runtime/host/live_facts.h"

namespace cwsc::cli {
int CmdFacts(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("facts", args, &parse_rc);
  if (!p) return parse_rc;
  const CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
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
      std::fprintf(stderr, "cwsc: error: cannot write %s\n", o->output->c_str());
      return kExitUsage;
    }
    return kExitOk;
  }
  std::fputs(yaml->c_str(), stdout);
  return kExitOk;
}

}  // namespace cwsc::cli
