// `cwsc why PATH POLICY`: the decision for one path and the chain that
// produced it (docs/verification.md). For a bwrap plan: every mount layer
// whose destination covers the path, the deciding one first, each with the
// plan element (config line) that emitted it; for a Seatbelt plan: the
// deciding rule (last match wins) and the parameters it names.
#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "cli/json_report.h"
#include "compiler/compile.h"
#include "compiler/paths.h"
#include "ir/diagnostics.h"

namespace cwsc::cli {

int CmdWhy(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("why", args, &parse_rc);
  if (!p) return parse_rc;
  CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  std::vector<backends::AccessKind> kinds = AccessKindsOf(*p);
  if (p->positionals.empty()) return PrintUsageError("why", "missing PATH");
  const std::string path = p->positionals[0];
  options.config = p->positionals.size() > 1 ? p->positionals[1] : "";
  if (int rc = DiscoverConfig("why", &options); rc != kExitOk) return rc;
  if (kinds.empty()) kinds = {backends::AccessKind::kRead, backends::AccessKind::kWrite};
  absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(*o);
  if (Failed(copts)) return kExitUsage;
  absl::StatusOr<std::unique_ptr<compiler::HostFacts>> facts = MakeFacts(*o);
  if (Failed(facts)) return kExitUsage;
  absl::StatusOr<std::unique_ptr<driver::WhyPlan>> w =
      driver::PlanForWhy(*copts, facts->get(), {o->facts, o->unlisted_as_missing}, path);
  if (Failed(w)) return kExitUsage;
  const ir::LaunchPlan& plan = (*w)->result.plan;
  const driver::PlanArtifact* art = &(*w)->art;
  JsonReport* report = ActiveReport();
  if (report && plan.refusal()) {
    report->Add({"error", "refused",
                 absl::StrCat(plan.refusal()->reason, " (", plan.refusal()->origin.Describe(), ")"),
                 plan.refusal()->origin.file, plan.refusal()->origin.line,
                 plan.refusal()->origin.col});
  }
  return PrintReport(driver::WhyReport(plan, *art, driver::ExplainPath(*art, (*w)->path, kinds)),
                     plan.refusal() ? kExitRefused : kExitOk);
}

}  // namespace cwsc::cli
