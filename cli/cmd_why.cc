// `cwsc why PATH POLICY`: the decision for one path and the chain that
// produced it (docs/verification.md). For a bwrap plan: every mount layer
// whose destination covers the path, the deciding one first, each with the
// plan element (config line) that emitted it; for a Seatbelt plan: the
// deciding rule (last match wins) and the parameters it names.
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/json_report.h"
#include "cli/verify.h"
#include "compiler/compile.h"
#include "compiler/paths.h"

namespace cwsc::cli {
namespace {

constexpr char kWhyUsage[] =
    "usage: cwsc why PATH CONFIG [--read|--write|--exec] [--mode MODE] [--facts FILE]\n"
    "                [--cwd DIR] [--policy NAME] [--input toml|dsl] [--unlisted-as-missing]\n"
    "                [--json]\n"
    "\n"
    "Explain the decision for PATH (absolute, or starting with ~, $HOME, $WORKSPACE,\n"
    "$CWD or $TMPDIR) under CONFIG's plan for MODE (default ask): the verdict for\n"
    "reading and writing (or only the access named), the rule that decides it, and\n"
    "every bwrap mount layer it overrides, each with its origin. --json prints the\n"
    "same in the JSON report (docs/cli.md).\n"
    "Exit codes: 0 ok, 2 bad input or usage, 3 plan refused.\n";

const std::vector<std::string> kValueOptions = {"--mode",   "--facts", "--cwd",
                                                "--policy", "--input", "--target"};

}  // namespace

// RenderWhy is shared with `cwsc audit --why`.
std::string RenderWhy(const PlanArtifact& art, const std::string& path,
                      const std::vector<backends::AccessKind>& kinds, const std::string& context) {
  std::string out = absl::StrCat(path, " (", context, "):");
  std::vector<Decision> ds;
  for (backends::AccessKind k : kinds) {
    ds.push_back(DecideOn(art, k, path));
    absl::StrAppend(&out, ds.size() > 1 ? "," : "", " ", backends::AccessKindName(k), " ",
                    ds.back().allowed ? "allowed" : "denied");
  }
  absl::StrAppend(&out, "\n");
  if (art.bwrap) {
    std::vector<backends::ChainLink> chain = art.bwrap->Chain(path);
    if (chain.empty())
      absl::StrAppend(&out, "  no mount covers the path: nothing is visible there\n");
    for (size_t i = 0; i < chain.size(); ++i) {
      const backends::ChainLink& c = chain[i];
      if (i == 0) absl::StrAppend(&out, "  decided by:\n");
      if (i == 1) absl::StrAppend(&out, "  overrides:\n");
      absl::StrAppend(&out, "    layer ", c.layer, ", argv ", c.arg, ": ", c.rule, "  (", c.effect,
                      ")\n");
      if (std::optional<ir::Origin> o = OriginOfArg(art, c.arg)) {
        absl::StrAppend(&out, "      from ", o->Describe(), "\n");
      }
    }
    return out;
  }
  for (size_t i = 0; i < ds.size(); ++i) {
    const Decision& d = ds[i];
    absl::StrAppend(&out, "  ", backends::AccessKindName(kinds[i]), ": ", d.detail, " decided by ",
                    d.where.empty() ? "" : absl::StrCat(d.where, ": "), d.rule, "\n");
    if (d.origin) absl::StrAppend(&out, "    from ", d.origin->Describe(), "\n");
    for (const std::string& p : d.params) absl::StrAppend(&out, "    param ", p, "\n");
  }
  return out;
}

int CmdWhy(const Args& args) {
  std::vector<backends::AccessKind> kinds;
  std::vector<std::string> rest;
  std::string path;
  bool have_path = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--read") {
      kinds.push_back(backends::AccessKind::kRead);
    } else if (a == "--write") {
      kinds.push_back(backends::AccessKind::kWrite);
    } else if (a == "--exec") {
      kinds.push_back(backends::AccessKind::kExec);
    } else if (std::find(kValueOptions.begin(), kValueOptions.end(), a) != kValueOptions.end()) {
      rest.push_back(a);
      if (i + 1 < args.size()) rest.push_back(args[++i]);
    } else if (!have_path && !a.empty() && a[0] != '-') {
      path = a;
      have_path = true;
    } else {
      rest.push_back(a);
    }
  }
  absl::StatusOr<CommonOptions> o =
      ParseCommonOptions(rest, {"--mode", "--facts", "--cwd", "--policy", "--input",
                                "--unlisted-as-missing", "--no-project-config", "--json"});
  if (!o.ok()) {
    PrintError(std::string(o.status().message()));
    std::fputs(kWhyUsage, stderr);
    return kExitUsage;
  }
  if (o->help) {
    std::fputs(kWhyUsage, stdout);
    return kExitOk;
  }
  if (!have_path || o->config.empty()) {
    PrintError(!have_path ? "missing PATH" : "missing CONFIG");
    std::fputs(kWhyUsage, stderr);
    return kExitUsage;
  }
  if (o->unlisted_as_missing && !o->facts) {
    PrintError("--unlisted-as-missing applies to a facts file: give --facts FILE");
    return kExitUsage;
  }
  if (kinds.empty()) kinds = {backends::AccessKind::kRead, backends::AccessKind::kWrite};
  absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(*o);
  if (!copts.ok()) {
    PrintError(std::string(copts.status().message()));
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<compiler::HostFacts>> facts = MakeFacts(*o);
  if (!facts.ok()) {
    PrintError(std::string(facts.status().message()));
    return kExitUsage;
  }
  absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(*copts, facts->get());
  if (!r.ok()) {
    PrintError(std::string(r.status().message()));
    return kExitUsage;
  }
  std::vector<std::string> unlisted = (*facts)->UnlistedPaths();
  if (o->facts && !unlisted.empty() && !o->unlisted_as_missing) {
    PrintError(absl::StrCat(*o->facts, ": error: the facts file does not record '",
                            unlisted.front(),
                            "'; record the facts again with `cwsc facts --for CONFIG`, or pass "
                            "--unlisted-as-missing"));
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
    PrintError(std::string(art.status().message()));
    return kExitUsage;
  }
  std::string out = RenderWhy(*art, *expanded, kinds,
                              absl::StrCat("mode ", plan.permission_mode, ", ", art->target));
  // What the policy asked for at this path but the plan left out.
  Json notes = Json::array();
  for (const ir::Skipped& s : plan.skipped) {
    if (s.path.empty() || !compiler::PathStartsWith(*expanded, s.path)) continue;
    std::string note = absl::StrCat("the plan skipped ", s.what, " ", s.path, ": ", s.reason, " (",
                                    s.origin.Describe(), ")");
    absl::StrAppend(&out, "  note: ", note, "\n");
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
  std::fputs(out.c_str(), stdout);
  return rc;
}

}  // namespace cwsc::cli
