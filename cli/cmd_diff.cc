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

int Load(const std::string& file, const CommonOptions& o,
         const std::optional<std::string>& facts_file, ir::LaunchPlan* out) {
  if (absl::EndsWith(file, ".json")) {
    absl::StatusOr<ir::LaunchPlan> p = ReadPlanFile(file);
    if (!p.ok()) {
      PrintError(p.status());
      return kExitUsage;
    }
    *out = *std::move(p);
    return kExitOk;
  }
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
  absl::StatusOr<compiler::CompileResult> r =
      CompileChecked(*copts, facts->get(), {facts_file, o.unlisted_as_missing}, FactsAsker::kDiff);
  if (!r.ok()) {
    PrintError(r.status());
    return kExitUsage;
  }
  *out = std::move(r->plan);
  return kExitOk;
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
  ir::LaunchPlan a, b;
  if (int rc = Load(files[0], *o, o->facts, &a); rc != kExitOk) return rc;
  if (int rc = Load(files[1], *o, facts_b ? facts_b : o->facts, &b); rc != kExitOk) return rc;
  absl::StatusOr<PlanDiff> diff = DiffPlans(a, b);
  if (!diff.ok()) {
    PrintError(diff.status());
    return kExitUsage;
  }
  ir::Text out;
  Json json_changes = Json::array(), json_other = Json::array();
  std::optional<bool> group;  // widened changes come first, each group under its header
  for (const AccessChange& c : diff->changes) {
    if (group != c.widened) {
      if (c.widened) {
        out << "widened (B allows what A did not):\n";
      } else {
        out << "narrowed (B denies what A allowed):\n";
      }
      group = c.widened;
    }
    const Decision& da = c.a;
    const Decision& db = c.b;
    std::string what =
        c.path.empty() ? "network" : absl::StrCat(backends::AccessKindName(c.kind), " ", c.path);
    // A widening is explained by B's rule, a narrowing too (what B now does).
    out << "  " << what << ": " << (da.allowed ? "allowed" : "denied") << " -> "
        << (db.allowed ? "allowed" : "denied") << " (" << da.detail << " -> " << db.detail
        << ")\n    B: " << Because(db) << "\n    A: " << Because(da) << "\n";
    json_changes.push_back(Json{{"access", backends::AccessKindName(c.kind)},
                                {"path", c.path.empty() ? Json(nullptr) : Json(c.path)},
                                {"change", c.widened ? "widened" : "narrowed"},
                                {"a", DecisionJson(c.kind, da)},
                                {"b", DecisionJson(c.kind, db)}});
  }
  const int widened = diff->widened, narrowed = diff->narrowed;
  std::vector<ir::Text> other;
  if (diff->plan_kind) {
    const auto& [ka, kb] = *diff->plan_kind;
    other.emplace_back() << "  plan kind: " << ir::PlanKindName(ka) << " -> "
                         << ir::PlanKindName(kb) << "\n";
    json_other.push_back(
        Json{{"what", "plan_kind"}, {"a", ir::PlanKindName(ka)}, {"b", ir::PlanKindName(kb)}});
  }
  if (diff->launcher) {
    const auto& [la, lb] = *diff->launcher;
    other.emplace_back() << "  launcher: [" << absl::StrJoin(la, " ") << "] -> ["
                         << absl::StrJoin(lb, " ") << "]\n";
    json_other.push_back(Json{{"what", "launcher"}, {"a", la}, {"b", lb}});
  }
  if (diff->wrapper) {
    const auto& [wa, wb] = *diff->wrapper;
    other.emplace_back() << "  wrapper: " << wa << " -> " << wb << "\n";
    json_other.push_back(Json{{"what", "wrapper"}, {"a", wa}, {"b", wb}});
  }
  if (diff->remote_not_compared) {
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
    report->SetResult(Json{{"a", files[0]},
                           {"b", files[1]},
                           {"widened", widened},
                           {"narrowed", narrowed},
                           {"changes", json_changes},
                           {"other", json_other},
                           {"remote_not_compared", diff->remote_not_compared}});
    return rc;
  }
  PrintText(out);
  return rc;
}

}  // namespace cwsc::cli
