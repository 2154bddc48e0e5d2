// `cwsc doctor`: which wrapper works here, and why not when it does not.
#include <cstdio>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/json_report.h"
#include "compiler/facts/host_facts.h"
#include "runtime/doctor.h"
#include "runtime/host/live_facts.h"

namespace cwsc::cli {
namespace {

constexpr char kDoctorUsage[] =
    "usage: cwsc doctor [CONFIG] [--json]\n"
    "\n"
    "Report which sandbox wrapper works on this host after resolving the\n"
    "preference (prefer_bwrap, CODEWHALE_PREFER_BWRAP), and why not when it does\n"
    "not: /usr/bin/bwrap missing, not a regular executable file, or its probe\n"
    "failing with bwrap's own message, with the host cause and its scoped fix\n"
    "(AppArmor user-namespace restriction, user namespaces disabled, an\n"
    "unprivileged container). Also: the no-new-privs state, the selected\n"
    "backend and the effective policy of every permission mode for CONFIG\n"
    "(default: an empty config). The probe always runs afresh.\n"
    "Exit codes: 0 a sandbox is available, 1 none is, 2 bad input or usage.\n";

}  // namespace

int CmdDoctor(const Args& args) {
  absl::StatusOr<CommonOptions> o = ParseCommonOptions(args, {"--json"});
  if (!o.ok()) {
    PrintError(o.status());
    std::fputs(kDoctorUsage, stderr);
    return kExitUsage;
  }
  if (o->help) {
    std::fputs(kDoctorUsage, stdout);
    return kExitOk;
  }
  if (!o->program.empty()) {
    PrintError("doctor takes no program");
    return kExitUsage;
  }
  std::unique_ptr<compiler::HostFacts> facts = runtime::MakeLiveFacts();
  absl::StatusOr<runtime::DoctorReport> r = runtime::RunDoctor(
      o->config.empty() ? "/dev/null" : o->config, facts.get(), runtime::ReadHostSignals());
  if (!r.ok()) {
    PrintError(r.status());
    return kExitUsage;
  }
  int rc = r->sandbox_available ? kExitOk : kExitCheckFailed;
  if (JsonReport* report = ActiveReport()) {
    report->SetResult(Json::parse(runtime::DoctorToJson(*r)));
    return rc;
  }
  std::fputs(runtime::DoctorToText(*r).c_str(), stdout);
  return rc;
}

}  // namespace cwsc::cli
