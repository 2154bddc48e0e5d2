// `cwsc diff A B`: a semantic access diff of two policies (compiled for the
// same mode against the same or different facts) or two plan JSON files
// (docs/verification.md). Both artifacts are asked the same questions — read
// and write on every path either plan names (mount sources and destinations,
// roots, protected and denied paths, Seatbelt parameters, the working
// directory), their parents and a child of each — and the network; only the
// answers are compared, so two policies that differ in spelling or order
// give no output. Widening comes first.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "cli/json_report.h"
#include "compiler/compile.h"

namespace cwsc::cli {
namespace {

int Load(const std::string& file, const CommonOptions& o,
         const std::optional<std::string>& facts_file, ir::LaunchPlan* out) {
  if (absl::EndsWith(file, ".json")) {
    absl::StatusOr<ir::LaunchPlan> p = driver::ReadPlanFile(file);
    if (Failed(p)) return kExitUsage;
    *out = *std::move(p);
    return kExitOk;
  }
  CommonOptions side = o;
  side.config = file;
  side.facts = facts_file;
  absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(side);
  if (Failed(copts)) return kExitUsage;
  absl::StatusOr<std::unique_ptr<compiler::HostFacts>> facts = MakeFacts(side);
  if (Failed(facts)) return kExitUsage;
  absl::StatusOr<compiler::CompileResult> r = driver::CompileChecked(
      *copts, facts->get(), {facts_file, o.unlisted_as_missing}, driver::FactsAsker::kDiff);
  if (Failed(r)) return kExitUsage;
  *out = std::move(r->plan);
  return kExitOk;
}

}  // namespace

int CmdDiff(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("diff", args, &parse_rc);
  if (!p) return parse_rc;
  const CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  const bool exit_code = p->Has("--exit-code");
  const std::optional<std::string> facts_b = p->Last("--facts-b");
  const std::vector<std::string>& files = p->positionals;
  if (files.size() != 2) {
    return PrintUsageError("diff",
                           absl::StrCat("diff compares two files (A and B), got ", files.size()));
  }
  if (files[0] == "-" && files[1] == "-") {
    return PrintUsageError("diff", "only one of A and B can be - (stdin is read once)");
  }
  ir::LaunchPlan a, b;
  if (int rc = Load(files[0], *o, o->facts, &a); rc != kExitOk) return rc;
  if (int rc = Load(files[1], *o, facts_b ? facts_b : o->facts, &b); rc != kExitOk) return rc;
  absl::StatusOr<driver::PlanDiff> diff = driver::DiffPlans(a, b);
  if (Failed(diff)) return kExitUsage;
  return PrintReport(driver::DiffReport(files[0], files[1], *diff),
                     exit_code && diff->widened > 0 ? kExitCheckFailed : kExitOk);
}

}  // namespace cwsc::cli
