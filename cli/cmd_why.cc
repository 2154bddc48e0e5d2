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
ir::Text RenderWhy(const PlanArtifact& art, const std::string& path,
                   const std::vector<backends::AccessKind>& kinds, const std::string& context) {
  ir::Text out;
  out << path << " (" << context << "):";
  std::vector<Decision> ds;
  for (backends::AccessKind k : kinds) {
    ds.push_back(DecideOn(art, k, path));
    out << (ds.size() > 1 ? "," : "") << " " << backends::AccessKindName(k) << " "
        << (ds.back().allowed ? "allowed" : "denied");
    if (!ds.back().note.empty()) out << " (" << ds.back().detail << ")";
  }
  out << "\n";
  if (art.bwrap) {
    // An absent deny target decides a read before any mount does.
    for (size_t i = 0; i < ds.size(); ++i) {
      if (ds[i].note.empty()) continue;
      out << "  " << backends::AccessKindName(kinds[i]) << ": " << ds[i].note << "\n";
      if (ds[i].origin) out << "    from " << ds[i].origin->Describe() << "\n";
    }
    std::vector<backends::ChainLink> chain = art.bwrap->Chain(path);
    if (chain.empty()) out << "  no mount covers the path: nothing is visible there\n";
    for (size_t i = 0; i < chain.size(); ++i) {
      const backends::ChainLink& c = chain[i];
      if (i == 0) out << "  decided by:\n";
      if (i == 1) out << "  overrides:\n";
      out << "    layer " << c.layer << ", argv " << c.arg << ": " << c.rule << "  (" << c.effect
          << ")\n";
      if (std::optional<ir::Origin> o = OriginOfArg(art, c.arg)) {
        out << "      from " << o->Describe() << "\n";
      }
    }
    return out;
  }
  for (size_t i = 0; i < ds.size(); ++i) {
    const Decision& d = ds[i];
    out << "  " << backends::AccessKindName(kinds[i]) << ": " << d.detail << " decided by ";
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
  absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(*copts, facts->get());
  if (!r.ok()) {
    PrintError(r.status());
    return kExitUsage;
  }
  std::vector<std::string> unlisted = (*facts)->UnlistedPaths();
  if (o->facts && !unlisted.empty() && !o->unlisted_as_missing) {
    PrintError(ir::ErrorAt(
        *o->facts, 0, 0,
        absl::StrCat("the facts file does not record '", unlisted.front(),
                     "'; record the facts again with `cwsc facts --for CONFIG`, or pass "
                     "--unlisted-as-missing")));
    return kExitUsage;
  }
  const ir::LaunchPlan& plan = r->plan;
  absl::StatusOr<std::string> expanded = compiler::ExpandPath(path, VarsFor(plan, facts->get()));
  if (!expanded.ok()) {
    PrintError(absl::StrCat("PATH '", path, "': ", expanded.status().message()));
    return kExitUsage;
  }
  absl::StatusOr<PlanArtifact> art = ArtifactOf(plan);
  if (!art.ok()) {
    PrintError(art.status());
    return kExitUsage;
  }
  NoteAbsentDenyTargets(&*art, facts->get());
  ir::Text out = RenderWhy(*art, *expanded, kinds,
                           absl::StrCat("mode ", plan.permission_mode, ", ", art->target));
  // What the policy asked for at this path but the plan left out.
  Json notes = Json::array();
  for (backends::AccessKind k : kinds) {
    Decision d = DecideOn(*art, k, *expanded);
    if (!d.note.empty() && std::find(notes.begin(), notes.end(), d.note) == notes.end()) {
      notes.push_back(d.note);
    }
  }
  for (const ir::Skipped& s : plan.skipped) {
    if (!SkipConcerns(s, *expanded)) continue;
    std::string note = absl::StrCat("the plan skipped ", s.what, " ", s.path, ": ", s.reason, " (",
                                    s.origin.Describe(), ")");
    out << "  note: " << note << "\n";
    notes.push_back(note);
  }
  int rc = plan.kind == ir::PlanKind::kRefused ? kExitRefused : kExitOk;
  if (JsonReport* report = ActiveReport()) {
    Json j{{"mode", plan.permission_mode},
           {"plan_kind", ir::PlanKindName(plan.kind)},
           {"target", art->target}};
    j.update(WhyJson(*art, *expanded, kinds));
    j["notes"] = notes;
    if (plan.refusal) {
      report->Add({"error", "refused",
                   absl::StrCat(plan.refusal->reason, " (", plan.refusal->origin.Describe(), ")"),
                   plan.refusal->origin.file, plan.refusal->origin.line, plan.refusal->origin.col});
    }
    report->SetResult(std::move(j));
    return rc;
  }
  PrintText(out);
  return rc;
}

}  // namespace cwsc::cli
