// `cwsc diff A B`: a semantic access diff of two policies (compiled for the
// same mode against the same or different facts) or two plan JSON files
// (docs/verification.md). Both artifacts are asked the same questions — read
// and write on every path either plan names (mount sources and destinations,
// roots, protected and denied paths, Seatbelt parameters, the working
// directory), their parents and a child of each — and the network; only the
// answers are compared, so two policies that differ in spelling or order
// give no output. Widening comes first.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "cli/json_report.h"
#include "compiler/compile.h"
#include "compiler/paths.h"
#include "ir/diagnostics.h"
#include "ir/plan_json.h"

namespace cwsc::cli {
namespace {

constexpr char kChild[] = "cwsc-diff-probe";

struct Side {
  ir::LaunchPlan plan;
  PlanArtifact art;
};

int Load(const std::string& file, const CommonOptions& o,
         const std::optional<std::string>& facts_file, Side* out) {
  if (absl::EndsWith(file, ".json")) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      PrintError(ir::ErrorAt(file, 0, 0, "cannot read the file"));
      return kExitUsage;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    absl::StatusOr<ir::LaunchPlan> p = ir::PlanFromJson(ss.str(), file);
    if (!p.ok()) {
      PrintError(p.status());
      return kExitUsage;
    }
    out->plan = *std::move(p);
  } else {
    CommonOptions side = o;
    side.config = file;
    side.facts = facts_file;
    absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(side);
    if (!copts.ok()) {
      PrintError(copts.status());
      return kExitUsage;
    }
    absl::StatusOr<std::unique_ptr<compiler::HostFacts>> facts = MakeFacts(side);
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
    if (facts_file && !unlisted.empty() && !o.unlisted_as_missing) {
      PrintError(ir::ErrorAt(*facts_file, 0, 0,
                             absl::StrCat("the facts file does not record '", unlisted.front(),
                                          "'; record the facts again with `cwsc facts --for "
                                          "CONFIG`, or pass --unlisted-as-missing")));
      return kExitUsage;
    }
    out->plan = std::move(r->plan);
  }
  return kExitOk;
}

void AddWithFamily(const std::string& p, std::set<std::string>* out) {
  if (p.empty() || p[0] != '/') return;
  std::string n = compiler::LexicalNormalize(p);
  out->insert(n);
  out->insert(compiler::ParentPath(n));
  out->insert(compiler::JoinPath(n, kChild));
}

std::set<std::string> ProbePaths(const ir::LaunchPlan& p, const PlanArtifact& art) {
  std::set<std::string> out = {"/"};
  for (const ir::Mount& m : p.mounts) {
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

std::string Because(const Decision& d) {
  std::string out = d.where.empty() ? d.rule : absl::StrCat(d.where, ": ", d.rule);
  std::string rule;
  bool space = false;
  for (char ch : out) {  // one line
    if (ch == '\n' || ch == ' ' || ch == '\t') {
      space = !rule.empty();
      continue;
    }
    if (space) rule += ' ';
    space = false;
    rule += ch;
  }
  if (rule.size() > 100) rule = rule.substr(0, 97) + "...";
  if (d.origin) absl::StrAppend(&rule, "; from ", d.origin->Describe());
  return rule;
}

struct Change {
  std::string what;  // "write /srv/out", "network"
  std::string path;
  backends::AccessKind kind;
  bool widened;
  ir::Text line;
  std::string rule_key;  // the deciding rule of the side that explains it
  Json json;             // the change in the JSON report
};

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
  if (o->unlisted_as_missing && !o->facts && !facts_b) {
    return PrintUsageError(
        "diff",
        "--unlisted-as-missing applies to a facts file: give --facts FILE or --facts-b FILE");
  }
  if (files.size() != 2) {
    return PrintUsageError("diff",
                           absl::StrCat("diff compares two files (A and B), got ", files.size()));
  }
  if (files[0] == "-" && files[1] == "-") {
    return PrintUsageError("diff", "only one of A and B can be - (stdin is read once)");
  }
  Side a, b;
  if (int rc = Load(files[0], *o, o->facts, &a); rc != kExitOk) return rc;
  if (int rc = Load(files[1], *o, facts_b ? facts_b : o->facts, &b); rc != kExitOk) return rc;
  for (Side* s : {&a, &b}) {
    absl::StatusOr<PlanArtifact> art = ArtifactOf(s->plan);
    if (!art.ok()) {
      PrintError(art.status());
      return kExitUsage;
    }
    s->art = *std::move(art);
    s->art.plan = &s->plan;
  }
  std::set<std::string> probes = ProbePaths(a.plan, a.art);
  for (const std::string& p : ProbePaths(b.plan, b.art)) probes.insert(p);

  std::vector<Change> changes;
  auto compare = [&](backends::AccessKind kind, const std::string& path) {
    Decision da = DecideOn(a.art, kind, path), db = DecideOn(b.art, kind, path);
    if (!da.checkable || !db.checkable || da.allowed == db.allowed) return;
    Change c;
    c.kind = kind;
    c.path = path;
    c.widened = db.allowed;
    c.what = path.empty() ? "network" : absl::StrCat(backends::AccessKindName(kind), " ", path);
    // A widening is explained by B's rule, a narrowing too (what B now does).
    c.line << "  " << c.what << ": " << (da.allowed ? "allowed" : "denied") << " -> "
           << (db.allowed ? "allowed" : "denied") << " (" << da.detail << " -> " << db.detail
           << ")\n    B: " << Because(db) << "\n    A: " << Because(da) << "\n";
    c.rule_key = absl::StrCat(db.rule, "|", da.rule);
    c.json = Json{{"access", backends::AccessKindName(kind)},
                  {"path", path.empty() ? Json(nullptr) : Json(path)},
                  {"change", c.widened ? "widened" : "narrowed"},
                  {"a", DecisionJson(kind, da)},
                  {"b", DecisionJson(kind, db)}};
    changes.push_back(std::move(c));
  };
  compare(backends::AccessKind::kNetwork, "");
  for (const std::string& p : probes) {
    compare(backends::AccessKind::kWrite, p);
    compare(backends::AccessKind::kRead, p);
  }
  // A change below a path that changed the same way for the same rules adds nothing.
  std::vector<const Change*> shown;
  for (const Change& c : changes) {
    bool covered = false;
    for (const Change& d : changes) {
      if (&d == &c || d.kind != c.kind || d.widened != c.widened || d.rule_key != c.rule_key ||
          d.path.empty() || !StrictlyInside(c.path, d.path)) {
        continue;
      }
      covered = true;
      break;
    }
    if (!covered) shown.push_back(&c);
  }
  ir::Text out;
  int widened = 0, narrowed = 0;
  Json json_changes = Json::array(), json_other = Json::array();
  for (bool wide : {true, false}) {
    bool header = false;
    for (const Change* c : shown) {
      if (c->widened != wide) continue;
      if (!header) {
        if (wide) {
          out << "widened (B allows what A did not):\n";
        } else {
          out << "narrowed (B denies what A allowed):\n";
        }
        header = true;
      }
      (wide ? widened : narrowed)++;
      out << c->line;
      json_changes.push_back(c->json);
    }
  }
  std::vector<ir::Text> other;
  if (a.plan.kind != b.plan.kind) {
    other.emplace_back() << "  plan kind: " << ir::PlanKindName(a.plan.kind) << " -> "
                         << ir::PlanKindName(b.plan.kind) << "\n";
    json_other.push_back(Json{{"what", "plan_kind"},
                              {"a", ir::PlanKindName(a.plan.kind)},
                              {"b", ir::PlanKindName(b.plan.kind)}});
  }
  if (a.plan.launcher != b.plan.launcher) {
    other.emplace_back() << "  launcher: [" << absl::StrJoin(a.plan.launcher, " ") << "] -> ["
                         << absl::StrJoin(b.plan.launcher, " ") << "]\n";
    json_other.push_back(
        Json{{"what", "launcher"}, {"a", a.plan.launcher}, {"b", b.plan.launcher}});
  }
  if (a.plan.wrapper.path != b.plan.wrapper.path) {
    other.emplace_back() << "  wrapper: " << a.plan.wrapper.path << " -> " << b.plan.wrapper.path
                         << "\n";
    json_other.push_back(
        Json{{"what", "wrapper"}, {"a", a.plan.wrapper.path}, {"b", b.plan.wrapper.path}});
  }
  if (a.art.target == "opensandbox" || b.art.target == "opensandbox") {
    other.push_back(ir::Text("  a remote sandbox: its file and network access is not compared\n"));
  }
  if (!other.empty()) {
    out << "other changes:\n";
    for (const ir::Text& l : other) out << l;
  }
  if (out.empty()) {
    out << "no access changes\n";
  } else {
    out << "diff: " << widened << " widened, " << narrowed << " narrowed\n";
  }
  int rc = exit_code && widened > 0 ? kExitCheckFailed : kExitOk;
  if (JsonReport* report = ActiveReport()) {
    report->SetResult(Json{
        {"a", files[0]},
        {"b", files[1]},
        {"widened", widened},
        {"narrowed", narrowed},
        {"changes", json_changes},
        {"other", json_other},
        {"remote_not_compared", a.art.target == "opensandbox" || b.art.target == "opensandbox"}});
    return rc;
  }
  PrintText(out);
  return rc;
}

}  // namespace cwsc::cli
