// The access map of `cwsc audit` (compiler/driver/audit.h).
#include "compiler/driver/audit.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "ir/diagnostics.h"

namespace cwsc::driver {

absl::StatusOr<Audit> AuditBwrapArgv(const std::vector<std::string>& argv) {
  absl::StatusOr<backends::BwrapChecker> c =
      backends::BwrapChecker::FromArgv(argv, backends::UnknownFlags::kSkip);
  if (!c.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the bwrap command line: ", c.status().message()));
  }
  Audit a;
  a.plan = std::make_unique<ir::LaunchPlan>();
  a.plan->launch = ir::Bwrap{};
  a.art.plan = a.plan.get();
  a.art.target = "bwrap";
  a.art.bwrap = *std::move(c);
  const backends::BwrapView& v = a.art.bwrap->view();
  a.chdir = v.chdir;
  // From the last layer down, each destination once; listed in layer order.
  std::vector<std::string> seen;
  for (int i = static_cast<int>(v.layers.size()) - 1; i >= 0; --i) {
    const std::string& dest = v.layers[static_cast<size_t>(i)].dest;
    std::string norm = compiler::LexicalNormalize(dest);
    if (std::find(seen.begin(), seen.end(), norm) != seen.end()) continue;
    seen.push_back(norm);
    backends::Verdict r = a.art.bwrap->Decide(backends::AccessKind::kRead, norm);
    a.paths.insert(a.paths.begin(), AuditPath{norm, r.detail, r.rule});
  }
  return a;
}

absl::StatusOr<Audit> AuditSbplFile(const std::string& file, const backends::SbplParams& params) {
  absl::StatusOr<std::string> text = ReadText(file);
  if (!text.ok()) return text.status();
  absl::StatusOr<backends::SbplChecker> c = backends::SbplChecker::FromProfile(*text, params, file);
  if (!c.ok()) return c.status();
  Audit a;
  a.plan = std::make_unique<ir::LaunchPlan>();
  a.plan->launch = ir::Seatbelt{};
  a.art.plan = a.plan.get();
  a.art.target = "seatbelt";
  a.art.sbpl = *std::move(c);
  a.network = DecideOn(a.art, backends::AccessKind::kNetwork, "");
  for (const auto& [key, value] : params) {
    a.parameters.push_back({key, value, DecideOn(a.art, backends::AccessKind::kRead, value),
                            DecideOn(a.art, backends::AccessKind::kWrite, value)});
  }
  return a;
}

compiler::PathVars AuditVars(const std::optional<std::string>& home,
                             const std::optional<std::string>& workspace,
                             const std::string& chdir) {
  compiler::PathVars vars;
  vars.home = home ? *home : (std::getenv("HOME") ? std::getenv("HOME") : "");
  vars.workspace = workspace ? *workspace : chdir;
  vars.cwd = vars.workspace;
  vars.tmpdir = std::getenv("TMPDIR") && *std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  return vars;
}

absl::StatusOr<std::vector<AuditVerdict>> CheckAudit(const PlanArtifact& art,
                                                     const compiler::PathVars& vars,
                                                     const std::vector<ir::Expectation>& es) {
  std::vector<AuditVerdict> out;
  for (const ir::Expectation& e : es) {
    std::string path = e.path;  // network: "" or HOST:PORT
    if (e.kind != ir::Expectation::Kind::kNetwork) {
      absl::StatusOr<std::string> p = compiler::ExpandPath(e.path, vars);
      if (!p.ok()) {
        return ir::ErrorAt(e.origin.file.str(), e.origin.line, e.origin.col,
                           std::string(p.status().message()));
      }
      path = *p;
    }
    Decision d = DecideOn(art, KindOf(e.kind), path);
    bool pass = d.allowed == e.allowed;
    out.push_back({e, path, std::move(d), pass});
  }
  return out;
}

}  // namespace cwsc::driver
