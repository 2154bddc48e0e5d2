// The decision for one path and the chain behind it (compiler/driver/why.h).
#include "compiler/driver/why.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace cwsc::driver {

PathWhy ExplainPath(const PlanArtifact& art, const std::string& path,
                    const std::vector<backends::AccessKind>& kinds) {
  PathWhy w;
  w.path = path;
  for (backends::AccessKind k : kinds) {
    w.decisions.push_back({k, DecideOn(art, k, path)});
    const std::string& note = w.decisions.back().decision.note;
    if (!note.empty() && std::find(w.notes.begin(), w.notes.end(), note) == w.notes.end()) {
      w.notes.push_back(note);
    }
  }
  if (art.bwrap) {
    w.chain.emplace();
    for (const backends::ChainLink& c : art.bwrap->Chain(path)) {
      w.chain->push_back({c, OriginOfArg(art, c.arg)});
    }
  }
  if (art.plan != nullptr) {
    for (const ir::Skipped& s : art.plan->skipped) {
      if (!SkipConcerns(s, path)) continue;
      w.skipped.push_back(absl::StrCat("the plan skipped ", s.what, " ", s.path, ": ", s.reason,
                                       " (", s.origin.Describe(), ")"));
    }
  }
  return w;
}

absl::StatusOr<std::unique_ptr<WhyPlan>> PlanForWhy(const compiler::CompileOptions& options,
                                                    compiler::HostFacts* facts,
                                                    const FactsRule& rule,
                                                    const std::string& path) {
  absl::StatusOr<compiler::CompileResult> r =
      CompileChecked(options, facts, rule, FactsAsker::kWhy);
  if (!r.ok()) return r.status();
  auto w = std::make_unique<WhyPlan>();
  w->result = *std::move(r);
  const ir::LaunchPlan& plan = w->result.plan;
  absl::StatusOr<std::string> expanded = compiler::ExpandPath(path, VarsFor(plan, facts));
  if (!expanded.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("PATH '", path, "': ", expanded.status().message()));
  }
  w->path = *expanded;
  absl::StatusOr<PlanArtifact> art = ArtifactOf(plan);
  if (!art.ok()) return art.status();
  w->art = *std::move(art);
  w->art.plan = &plan;
  NoteAbsentDenyTargets(&w->art, facts);
  return w;
}

}  // namespace cwsc::driver
