// The decision for one path and the chain behind it (`cwsc why`, `cwsc
// audit --why`; docs/verification.md): each access asked about, decided on
// the artifact, and for a bwrap argv every mount layer whose destination
// covers the path, the deciding one first, with the plan element (config
// line) that emitted it. report.h renders it as text and JSON (WhyReport).
#ifndef CWSC_COMPILER_DRIVER_WHY_H_
#define CWSC_COMPILER_DRIVER_WHY_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/verify/expect_eval.h"
#include "compiler/compile.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/verify.h"
#include "compiler/facts/host_facts.h"

namespace cwsc::driver {

struct KindDecision {
  backends::AccessKind kind;
  Decision decision;
};

// WhyLink is a mount layer covering the path and the plan element behind it.
struct WhyLink {
  backends::ChainLink link;
  std::optional<ir::Origin> origin;  // none: the argv was not cwsc's (audit)
};

struct PathWhy {
  std::string path;
  std::vector<KindDecision> decisions;  // one per access asked, in that order
  // bwrap: every layer covering the path, the deciding one first; empty when
  // no mount covers it. nullopt for another artifact.
  std::optional<std::vector<WhyLink>> chain;
  // The decisions' notes (an absent deny target), each once.
  std::vector<std::string> notes;
  // What the plan skipped at the path or above it ("the plan skipped ...").
  std::vector<std::string> skipped;
};

// ExplainPath decides each of `kinds` at `path` (expanded) on `art`.
PathWhy ExplainPath(const PlanArtifact& art, const std::string& path,
                    const std::vector<backends::AccessKind>& kinds);

// WhyPlan is the plan `cwsc why` asks about and its artifact.
struct WhyPlan {
  compiler::CompileResult result;
  PlanArtifact art;  // art.plan is &result.plan
  std::string path;  // the PATH asked about, its variables expanded
};

// PlanForWhy compiles `options` (with the missing-facts rule), expands
// `path` against the plan's variables ("PATH 'P': ..." when it does not
// expand) and reads the artifact back, denied paths missing on the host noted.
absl::StatusOr<std::unique_ptr<WhyPlan>> PlanForWhy(const compiler::CompileOptions& options,
                                                    compiler::HostFacts* facts,
                                                    const FactsRule& rule, const std::string& path);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_WHY_H_
