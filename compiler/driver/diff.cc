// The semantic access diff of two plans (compiler/driver/diff.h).
#include "compiler/driver/diff.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "compiler/paths.h"
#include "ir/diagnostics.h"
#include "ir/plan_json.h"

namespace cwsc::driver {
namespace {

constexpr char kChild[] = "cwsc-diff-probe";

void AddWithFamily(const std::string& p, std::set<std::string>* out) {
  if (p.empty() || p[0] != '/') return;
  std::string n = compiler::LexicalNormalize(p);
  out->insert(n);
  out->insert(compiler::ParentPath(n));
  out->insert(compiler::JoinPath(n, kChild));
}

}  // namespace

absl::StatusOr<ir::LaunchPlan> ReadPlanFile(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return ir::ErrorAt(file, 0, 0, "cannot read the file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ir::PlanFromJson(ss.str(), file);
}

std::set<std::string> ProbePaths(const ir::LaunchPlan& p, const PlanArtifact& art) {
  std::set<std::string> out = {"/"};
  for (const ir::Mount& m : p.mounts()) {
    AddWithFamily(m.dest, &out);
    if (m.source != "/dev/null") AddWithFamily(m.source, &out);
  }
  for (const ir::Root& r : p.roots) {
    AddWithFamily(r.path, &out);
    AddWithFamily(r.canonical, &out);
    for (const ir::Protected& pr : r.protected_paths) {
      AddWithFamily(pr.path, &out);
      AddWithFamily(pr.canonical, &out);
    }
  }
  for (const ir::DeniedPath& d : p.denied_read) AddWithFamily(d.path, &out);
  for (const ir::Skipped& s : p.skipped) AddWithFamily(s.path, &out);
  if (art.sbpl) {  // the profile's parameters, as sandbox-exec gets them
    for (const auto& [key, value] : art.sbpl->params()) AddWithFamily(value, &out);
  }
  AddWithFamily(p.cwd, &out);
  return out;
}

absl::StatusOr<PlanDiff> DiffPlans(const ir::LaunchPlan& a, const ir::LaunchPlan& b) {
  absl::StatusOr<PlanArtifact> art_a = ArtifactOf(a);
  if (!art_a.ok()) return art_a.status();
  art_a->plan = &a;
  absl::StatusOr<PlanArtifact> art_b = ArtifactOf(b);
  if (!art_b.ok()) return art_b.status();
  art_b->plan = &b;
  std::set<std::string> probes = ProbePaths(a, *art_a);
  for (const std::string& p : ProbePaths(b, *art_b)) probes.insert(p);

  std::vector<AccessChange> changes;
  auto compare = [&](backends::AccessKind kind, const std::string& path) {
    Decision da = DecideOn(*art_a, kind, path), db = DecideOn(*art_b, kind, path);
    if (!da.checkable || !db.checkable || da.allowed == db.allowed) return;
    changes.push_back({kind, path, db.allowed, std::move(da), std::move(db)});
  };
  compare(backends::AccessKind::kNetwork, "");
  for (const std::string& p : probes) {
    compare(backends::AccessKind::kWrite, p);
    compare(backends::AccessKind::kRead, p);
  }
  // A widening is explained by B's rule, a narrowing too (what B now does):
  // a change is covered by one above it with the same rules on both sides.
  auto rule_key = [](const AccessChange& c) { return absl::StrCat(c.b.rule, "|", c.a.rule); };
  PlanDiff diff;
  for (bool wide : {true, false}) {
    for (const AccessChange& c : changes) {
      if (c.widened != wide) continue;
      bool covered = false;
      for (const AccessChange& d : changes) {
        if (&d == &c || d.kind != c.kind || d.widened != c.widened || rule_key(d) != rule_key(c) ||
            d.path.empty() || !StrictlyInside(c.path, d.path)) {
          continue;
        }
        covered = true;
        break;
      }
      if (covered) continue;
      (wide ? diff.widened : diff.narrowed)++;
      diff.changes.push_back(c);
    }
  }
  if (a.kind() != b.kind()) diff.plan_kind = {a.kind(), b.kind()};
  std::vector<std::string> launcher_a =
      a.bwrap() ? a.bwrap()->launcher : std::vector<std::string>();
  std::vector<std::string> launcher_b =
      b.bwrap() ? b.bwrap()->launcher : std::vector<std::string>();
  if (launcher_a != launcher_b) diff.launcher = {std::move(launcher_a), std::move(launcher_b)};
  if (a.wrapper.path != b.wrapper.path) diff.wrapper = {a.wrapper.path, b.wrapper.path};
  diff.remote_not_compared = art_a->target == "opensandbox" || art_b->target == "opensandbox";
  return diff;
}

}  // namespace cwsc::driver
