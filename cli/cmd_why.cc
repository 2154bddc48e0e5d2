// `cwsc why PATH POLICY`: the decision for one path and the chain that
// produced it (docs/verification.md). For a bwrap plan: every mount layer
// whose destination covers the path, the deciding one first, each with the
// plan element (config line) that emitted it; for a Seatbelt plan: the
// deciding rule (last match wins) and the parameters it names.
#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "cli/json_report.h"
#include "compiler/compile.h"
#include "compiler/paths.h"
#include "ir/diagnostics.h"

namespace cwsc::cli {
// RenderWhy is shared with `cwsc audit --why`.
ir::Text RenderWhy(const PathWhy& w, const std::string& context) {
  ir::Text out;
  out << w.path << " (" << context << "):";
  for (size_t i = 0; i < w.decisions.size(); ++i) {
    const Decision& d = w.decisions[i].decision;
    out << (i > 0 ? "," : "") << " " << backends::AccessKindName(w.decisions[i].kind) << " "
        << (d.allowed ? "allowed" : "denied");
    if (!d.note.empty()) out << " (" << d.detail << ")";
  }
  out << "\n";
  if (w.chain) {
    // An absent deny target decides a read before any mount does.
    for (const KindDecision& kd : w.decisions) {
      if (kd.decision.note.empty()) continue;
      out << "  " << backends::AccessKindName(kd.kind) << ": " << kd.decision.note << "\n";
      if (kd.decision.origin) out << "    from " << kd.decision.origin->Describe() << "\n";
    }
    if (w.chain->empty()) out << "  no mount covers the path: nothing is visible there\n";
    for (size_t i = 0; i < w.chain->size(); ++i) {
      const WhyLink& c = (*w.chain)[i];
      if (i == 0) out << "  decided by:\n";
      if (i == 1) out << "  overrides:\n";
      out << "    layer " << c.link.layer << ", argv " << c.link.arg << ": " << c.link.rule << "  ("
          << c.link.effect << ")\n";
      if (c.origin) out << "      from " << c.origin->Describe() << "\n";
    }
    return out;
  }
  for (const KindDecision& kd : w.decisions) {
    const Decision& d = kd.decision;
    out << "  " << backends::AccessKindName(kd.kind) << ": " << d.detail << " decided by ";
    if (!d.where.empty()) out << d.where << ": ";
    out << d.rule << "\n";
    if (d.origin) out << "    from " << d.origin->Describe() << "\n";
    for (const std::string& p : d.params) out << "    param " << p << "\n";
  }
  return out;
}

int CmdWhy(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("why", args, &parse_rc);
  if (!p) return parse_rc;
  CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  std::vector<backends::AccessKind> kinds;
  for (const auto& [name, value] : p->flags) {
    if (name == "--read") kinds.push_back(backends::AccessKind::kRead);
    if (name == "--write") kinds.push_back(backends::AccessKind::kWrite);
    if (name == "--exec") kinds.push_back(backends::AccessKind::kExec);
  }
  if (p->positionals.empty()) return PrintUsageError("why", "missing PATH");
  const std::string path = p->positionals[0];
  options.config = p->positionals.size() > 1 ? p->positionals[1] : "";
  if (int rc = DiscoverConfig("why", &options); rc != kExitOk) return rc;
  if (o->unlisted_as_missing && !o->facts) {
    return PrintUsageError("why",
                           "--unlisted-as-missing applies to a facts file: give --facts FILE");
  }
  if (kinds.empty()) kinds = {backends::AccessKind::kRead, backends::AccessKind::kWrite};
  absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(*o);
  if (!copts.ok()) {
    PrintError(copts.status());
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<compiler::HostFacts>> facts = MakeFacts(*o);
  if (!facts.ok()) {
    PrintError(facts.status());
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<WhyPlan>> w =
      PlanForWhy(*copts, facts->get(), {o->facts, o->unlisted_as_missing}, path);
  if (!w.ok()) {
    PrintError(w.status());
    return kExitUsage;
  }
  const ir::LaunchPlan& plan = (*w)->result.plan;
  const PlanArtifact* art = &(*w)->art;
  const PathWhy why = ExplainPath(*art, (*w)->path, kinds);
  ir::Text out = RenderWhy(
      why, absl::StrCat("mode ", ir::PermissionModeName(plan.permission_mode), ", ", art->target));
  // What the policy asked for at this path but the plan left out.
  Json notes = why.notes;
  for (const std::string& note : why.skipped) {
    out << "  note: " << note << "\n";
    notes.push_back(note);
  }
  int rc = plan.refusal() ? kExitRefused : kExitOk;
  if (JsonReport* report = ActiveReport()) {
    Json j{{"mode", ir::PermissionModeName(plan.permission_mode)},
           {"plan_kind", ir::PlanKindName(plan.kind())},
           {"target", art->target}};
    j.update(WhyJson(why));
    j["notes"] = notes;
    if (plan.refusal()) {
      report->Add(
          {"error", "refused",
           absl::StrCat(plan.refusal()->reason, " (", plan.refusal()->origin.Describe(), ")"),
           plan.refusal()->origin.file, plan.refusal()->origin.line, plan.refusal()->origin.col});
    }
    report->SetResult(std::move(j));
    return rc;
  }
  PrintText(out);
  return rc;
}

}  // namespace cwsc::cli
