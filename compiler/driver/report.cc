#include "compiler/driver/report.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "backends/argv_format.h"
#include "backends/seatbelt.h"

namespace cwsc::driver {
namespace {

Json OptString(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }
Json OptInt(int v) { return v > 0 ? Json(v) : Json(nullptr); }

// ExplainArgv adds each token of `art`, as `--format shell` quotes it,
// with the plan element that emitted it; a Seatbelt profile token line by
// line, each with its origin.
void ExplainArgv(const ir::LaunchPlan& plan, const Artifact& art, Report* r) {
  ir::Text& out = r->text;
  r->json["target"] = art.target;
  r->json["tokens"] = TokensJson(art.argv);
  // Each token as `--format shell` quotes it, then escaped for the terminal:
  // a token with a control character or invalid UTF-8 shows it as `\xNN`.
  size_t width = 0;
  std::vector<ir::Text> quoted;
  for (const auto& a : art.argv) {
    quoted.emplace_back() << backends::ShellQuote(a.text);
    width = std::max(width, std::min<size_t>(quoted.back().size(), 48));
  }
  absl::StatusOr<backends::EmittedArgv> profile =
      plan.seatbelt() && art.argv.size() > 2 && art.argv[1].text == "-p"
          ? backends::EmitSeatbeltProfile(plan)
          : absl::StatusOr<backends::EmittedArgv>(absl::NotFoundError(""));
  for (size_t i = 0; i < art.argv.size(); ++i) {
    if (i == 2 && profile.ok()) {
      out << "# profile (-p), " << art.argv[2].text.size() << " bytes:\n";
      r->json["profile"] = TokensJson(*profile);
      for (const auto& line : *profile) {
        if (line.text.empty()) continue;
        ir::Text l;
        l << "  " << line.text;
        if (l.size() < 72) l.Spaces(72 - l.size());
        out << l << "  # " << line.origin.Describe() << "\n";
      }
      continue;
    }
    out << quoted[i];
    if (quoted[i].size() < width) out.Spaces(width - quoted[i].size());
    out << "  # " << art.argv[i].origin.Describe() << "\n";
  }
}

// Lines adds a text of lines of its own (a remote plan's review text, a
// ruleset), each escaped.
void Lines(const std::string& text, ir::Text* out) {
  for (absl::string_view line : absl::StrSplit(absl::StripSuffix(text, "\n"), '\n')) {
    *out << line << "\n";
  }
}

// Because is the rule behind a decision on one line, cut at 100 characters,
// and the plan element that emitted it.
std::string Because(const Decision& d) {
  std::string rule = OneLine(d.where.empty() ? d.rule : absl::StrCat(d.where, ": ", d.rule), 100);
  if (d.origin) absl::StrAppend(&rule, "; from ", d.origin->Describe());
  return rule;
}

// DiffOther adds what differs besides the accesses.
void DiffOther(const PlanDiff& diff, Report* r) {
  Json& json_other = r->json["other"];
  std::vector<ir::Text> other;
  if (diff.plan_kind) {
    const auto& [ka, kb] = *diff.plan_kind;
    other.emplace_back() << "  plan kind: " << ir::PlanKindName(ka) << " -> "
                         << ir::PlanKindName(kb) << "\n";
    json_other.push_back(
        Json{{"what", "plan_kind"}, {"a", ir::PlanKindName(ka)}, {"b", ir::PlanKindName(kb)}});
  }
  if (diff.launcher) {
    const auto& [la, lb] = *diff.launcher;
    other.emplace_back() << "  launcher: [" << absl::StrJoin(la, " ") << "] -> ["
                         << absl::StrJoin(lb, " ") << "]\n";
    json_other.push_back(Json{{"what", "launcher"}, {"a", la}, {"b", lb}});
  }
  if (diff.wrapper) {
    const auto& [wa, wb] = *diff.wrapper;
    other.emplace_back() << "  wrapper: " << wa << " -> " << wb << "\n";
    json_other.push_back(Json{{"what", "wrapper"}, {"a", wa}, {"b", wb}});
  }
  if (diff.remote_not_compared) {
    other.push_back(ir::Text("  a remote sandbox: its file and network access is not compared\n"));
  }
  if (!other.empty()) {
    r->text << "other changes:\n";
    for (const ir::Text& l : other) r->text << l;
  }
}

}  // namespace

std::string OneLine(const std::string& text, size_t width) {
  std::string out;
  bool space = false;
  for (char ch : text) {
    if (ch == '\n' || ch == ' ' || ch == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
  }
  if (out.size() > width) out = out.substr(0, width - 3) + "...";
  return out;
}

std::vector<ir::Diagnostic> SettingNotes(const ir::LaunchPlan& plan) {
  std::vector<ir::Diagnostic> out;
  for (const ir::Skipped& s : plan.skipped) {
    if (s.kind != ir::SkipKind::kSetting) continue;
    std::string message =
        absl::StrCat("skipped ", s.what, s.path.empty() ? "" : " ", s.path, ": ", s.reason);
    const ir::Origin& o = s.origin;
    if (o.file.empty()) absl::StrAppend(&message, " (", o.Describe(), ")");
    out.push_back(ir::Diagnostic{ir::Diagnostic::Severity::kNote, o.file.str(), o.line, o.col,
                                 std::move(message), ""});
  }
  return out;
}

Json OriginJson(const ir::Origin& o) {
  return Json{{"kind", ir::Origin::KindName(o.kind)},
              {"detail", o.detail},
              {"file", OptString(o.file)},
              {"line", OptInt(o.line)},
              {"col", OptInt(o.col)},
              {"text", o.Describe()}};
}

Json TokensJson(const backends::EmittedArgv& argv) {
  Json out = Json::array();
  for (const backends::EmittedArg& a : argv) {
    out.push_back(Json{{"text", a.text}, {"origin", OriginJson(a.origin)}});
  }
  return out;
}

void PlanNotesJson(const ir::LaunchPlan& plan, Json* out) {
  (*out)["refusal"] = plan.refusal() ? Json{{"reason", plan.refusal()->reason},
                                            {"origin", OriginJson(plan.refusal()->origin)}}
                                     : Json(nullptr);
  Json skipped = Json::array();
  for (const ir::Skipped& s : plan.skipped) {
    skipped.push_back(Json{{"what", s.what},
                           {"path", OptString(s.path)},
                           {"reason", s.reason},
                           {"kind", ir::SkipKindName(s.kind)},
                           {"origin", OriginJson(s.origin)}});
  }
  (*out)["skipped"] = skipped;
  Json warnings = Json::array();
  for (const ir::Warning& w : plan.warnings) {
    warnings.push_back(
        Json{{"code", w.code}, {"message", w.message}, {"origin", OriginJson(w.origin)}});
  }
  (*out)["warnings"] = warnings;
}

Json DecisionJson(backends::AccessKind kind, const Decision& d) {
  return Json{{"access", backends::AccessKindName(kind)},
              {"allowed", d.checkable ? Json(d.allowed) : Json(nullptr)},
              {"checkable", d.checkable},
              {"detail", d.detail},
              {"rule", d.rule},
              {"where", OptString(d.where)},
              {"origin", d.origin ? OriginJson(*d.origin) : Json(nullptr)},
              {"params", d.params}};
}

Json CompileJson(const ir::LaunchPlan& plan, const Artifact& art) {
  Json j{{"plan_kind", ir::PlanKindName(plan.kind())}, {"target", art.target}};
  if (art.is_argv) {
    j["argv"] = backends::Texts(art.argv);
  } else if (art.target == "plan") {
    j["plan"] = Json::parse(art.text);
  } else if (art.target == "opensandbox") {
    j["requests"] = Json::parse(art.json);
  } else {
    j["listing"] = art.text;
  }
  return j;
}

Json WhyJson(const PathWhy& w) {
  Json decisions = Json::array();
  for (const KindDecision& kd : w.decisions)
    decisions.push_back(DecisionJson(kd.kind, kd.decision));
  Json chain = nullptr;
  if (w.chain) {
    chain = Json::array();
    for (const WhyLink& c : *w.chain) {
      chain.push_back(Json{{"layer", c.link.layer},
                           {"arg", c.link.arg},
                           {"rule", c.link.rule},
                           {"effect", c.link.effect},
                           {"origin", c.origin ? OriginJson(*c.origin) : Json(nullptr)}});
    }
  }
  return Json{{"path", w.path}, {"decisions", decisions}, {"chain", chain}};
}

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

Report WhyReport(const ir::LaunchPlan& plan, const PlanArtifact& art, const PathWhy& w) {
  Report r;
  r.text = RenderWhy(
      w, absl::StrCat("mode ", ir::PermissionModeName(plan.permission_mode), ", ", art.target));
  // What the policy asked for at this path but the plan left out.
  Json notes = w.notes;
  for (const std::string& note : w.skipped) {
    r.text << "  note: " << note << "\n";
    notes.push_back(note);
  }
  r.json = Json{{"mode", ir::PermissionModeName(plan.permission_mode)},
                {"plan_kind", ir::PlanKindName(plan.kind())},
                {"target", art.target}};
  r.json.update(WhyJson(w));
  r.json["notes"] = notes;
  return r;
}

bool ExplainShows(const ir::LaunchPlan& plan, const Artifact& art) {
  // A remote plan's requests and a Landlock ruleset are their plans' own
  // artifacts; any other text (the plan JSON, a listing) is not explained.
  return art.is_argv || (plan.remote() && art.target == "opensandbox") ||
         (plan.landlock() && art.target == "landlock");
}

Report ExplainReport(const ir::LaunchPlan& plan, const Artifact* art,
                     const std::vector<Lint>& lints, const std::string& discovered) {
  Report r;
  ir::Text& out = r.text;
  if (!discovered.empty()) out << "# config: " << discovered << " (no CONFIG given: discovered)\n";
  out << "# plan kind: " << ir::PlanKindName(plan.kind()) << "\n# policy: " << plan.posture_label
      << "\n";
  r.json = Json{{"plan_kind", ir::PlanKindName(plan.kind())},
                {"policy", plan.posture_label},
                {"target", nullptr},
                {"tokens", Json::array()},
                {"profile", nullptr},
                {"remote", nullptr}};
  if (art == nullptr) {
    out << "# refused: " << plan.refusal()->reason << "\n#   (" << plan.refusal()->origin.Describe()
        << ")\n";
  } else if (!art->is_argv && plan.remote()) {
    // The remote request has no argv tokens: its URL's origin, then the request.
    out << "# url: " << plan.remote()->url << "  (" << plan.remote()->url_origin.Describe()
        << ")\n";
    Lines(art->text, &out);
    r.json["remote"] = Json{{"url", plan.remote()->url},
                            {"url_origin", OriginJson(plan.remote()->url_origin)},
                            {"requests", Json::parse(art->json)}};
    r.json["target"] = art->target;
  } else if (!art->is_argv) {
    // A Landlock ruleset has no argv tokens: each rule line carries its
    // origin (its paths are the host's).
    Lines(art->text, &out);
    r.json["target"] = art->target;
  } else {
    ExplainArgv(plan, *art, &r);
  }
  for (const auto& s : plan.skipped) {
    out << "# skipped " << s.what << (s.path.empty() ? "" : " ") << s.path << ": " << s.reason
        << "  (" << s.origin.Describe() << ")\n";
  }
  for (const auto& w : plan.warnings) {
    out << "# warning [" << w.code << "]: " << w.message << "\n";
  }
  for (const Lint& l : lints) {
    out << "# lint [" << l.code << "] at " << LintLocation(l.origin) << ": " << l.message
        << "; fix: " << l.fix << "\n";
  }
  PlanNotesJson(plan, &r.json);
  return r;
}

Report DiffReport(const std::string& a, const std::string& b, const PlanDiff& diff) {
  Report r;
  ir::Text& out = r.text;
  r.json = Json{{"a", a},
                {"b", b},
                {"widened", diff.widened},
                {"narrowed", diff.narrowed},
                {"changes", Json::array()},
                {"other", Json::array()},
                {"remote_not_compared", diff.remote_not_compared}};
  std::optional<bool> group;  // widened changes come first, each group under its header
  for (const AccessChange& c : diff.changes) {
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
    r.json["changes"].push_back(Json{{"access", backends::AccessKindName(c.kind)},
                                     {"path", c.path.empty() ? Json(nullptr) : Json(c.path)},
                                     {"change", c.widened ? "widened" : "narrowed"},
                                     {"a", DecisionJson(c.kind, da)},
                                     {"b", DecisionJson(c.kind, db)}});
  }
  DiffOther(diff, &r);
  if (out.empty()) {
    out << "no access changes\n";
  } else {
    out << "diff: " << diff.widened << " widened, " << diff.narrowed << " narrowed\n";
  }
  return r;
}

}  // namespace cwsc::driver
