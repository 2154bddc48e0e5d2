// `cwsc audit`: the access map of a sandbox cwsc did not write — any bwrap
// command line, or a Seatbelt profile — read through the same interpreters
// `cwsc check` uses, with `why` for a path and expectations run against it
// (docs/verification.md).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "cli/json_report.h"

namespace cwsc::cli {

int CmdAudit(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("audit", args, &parse_rc);
  if (!p) return parse_rc;
  const std::optional<std::string> sbpl_file = p->Last("--sbpl");
  driver::AuditAsk ask{
      p->Last("--why"), {}, p->Last("--expect"), p->Last("--home"), p->Last("--workspace")};
  backends::SbplParams params;
  ask.kinds = AccessKindsOf(*p);
  for (const auto& [name, value] : p->flags) {
    if (name != "-D") continue;
    size_t eq = value.find('=');
    if (eq == std::string::npos || eq == 0) {
      return PrintUsageError("audit", absl::StrCat("-D ", value, ": expected KEY=VALUE"));
    }
    params[value.substr(0, eq)] = value.substr(eq + 1);
  }
  const std::vector<std::string>& argv = p->program;
  const bool saw_dashdash = p->saw_dashdash;
  if (sbpl_file.has_value() == saw_dashdash) {
    return PrintUsageError(
        "audit", "audit reads either a bwrap command line after -- or a profile with --sbpl FILE");
  }
  absl::StatusOr<driver::Audit> audit =
      saw_dashdash ? driver::AuditBwrapArgv(argv) : driver::AuditSbplFile(*sbpl_file, params);
  if (Failed(audit)) return kExitUsage;
  for (const std::string& w : driver::SkippedFlagWarnings(*audit)) {
    PrintWarning("unknown-bwrap-flag", w);
  }
  absl::StatusOr<driver::AuditResult> r = driver::AuditReport(*audit, ask);
  if (Failed(r)) return kExitUsage;
  return PrintReport(std::move(r->report), r->failed > 0 ? kExitCheckFailed : kExitOk);
}

}  // namespace cwsc::cli
