// `cwsc doctor`: which wrapper works here, and why not when it does not.

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/json_report.h"
#include "compiler/facts/host_facts.h"
#include "runtime/doctor.h"
#include "runtime/host/live_facts.h"

namespace cwsc::cli {
int CmdDoctor(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("doctor", args, &parse_rc);
  if (!p) return parse_rc;
  const CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  std::unique_ptr<compiler::HostFacts> facts = runtime::MakeLiveFacts();
  absl::StatusOr<runtime::DoctorReport> r = runtime::RunDoctor(
      o->config.empty() ? "/dev/null" : o->config, facts.get(), runtime::ReadHostSignals());
  if (Failed(r)) return kExitUsage;
  return PrintReport({runtime::DoctorToText(*r), Json::parse(runtime::DoctorToJson(*r))},
                     r->sandbox_available ? kExitOk : kExitCheckFailed);
}

}  // namespace cwsc::cli
