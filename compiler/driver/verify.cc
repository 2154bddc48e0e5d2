#include "compiler/driver/verify.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/bwrap.h"
#include "backends/landlock.h"
#include "backends/seatbelt.h"
#include "backends/seccomp_filter.h"
#include "backends/verify/seccomp_eval.h"
#include "compiler/dsl_frontend.h"
#include "ir/diagnostics.h"

namespace cwsc::driver {

absl::StatusOr<std::string> EmitCheckedSeccompBpf(const ir::SyscallFilter& filter) {
  absl::StatusOr<std::string> bpf = backends::EmitSeccompBpf(filter);
  if (!bpf.ok()) return bpf.status();
  absl::Status checked = backends::CheckSeccompProgram(filter, *bpf);
  if (!checked.ok() && !absl::IsUnimplemented(checked)) return checked;
  return bpf;
}

absl::StatusOr<PlanArtifact> ArtifactOf(const ir::LaunchPlan& plan) {
  PlanArtifact art;
  art.plan = &plan;
  return std::visit(
      ir::Overloaded{
          [&](const ir::Bwrap&) -> absl::StatusOr<PlanArtifact> {
            art.target = "bwrap";
            absl::StatusOr<backends::EmittedArgv> argv = backends::EmitBwrapArgv(plan, {});
            if (!argv.ok()) return argv.status();
            art.bwrap_argv = *std::move(argv);
            absl::StatusOr<backends::BwrapChecker> c =
                backends::BwrapChecker::FromArgv(backends::Texts(art.bwrap_argv));
            if (!c.ok()) {
              return absl::InternalError(
                  absl::StrCat("the emitted bwrap argv is not understood: ", c.status().message()));
            }
            art.bwrap = *std::move(c);
            return art;
          },
          [&](const ir::Seatbelt&) -> absl::StatusOr<PlanArtifact> {
            art.target = "seatbelt";
            absl::StatusOr<backends::EmittedArgv> argv = backends::EmitSeatbeltArgv(plan, {});
            if (!argv.ok()) return argv.status();
            absl::StatusOr<backends::EmittedArgv> lines = backends::EmitSeatbeltProfile(plan);
            if (!lines.ok()) return lines.status();
            art.profile_lines = *std::move(lines);
            art.sbpl_argv = *argv;
            absl::StatusOr<backends::SbplChecker> c =
                backends::SbplChecker::FromSandboxExecArgv(backends::Texts(*argv));
            if (!c.ok()) {
              return absl::InternalError(absl::StrCat(
                  "the emitted Seatbelt profile is not understood: ", c.status().message()));
            }
            art.sbpl = *std::move(c);
            return art;
          },
          [&](const ir::LandlockLaunch& landlock) -> absl::StatusOr<PlanArtifact> {
            art.target = "landlock";
            std::string listing = backends::EmitLandlockListing(landlock.ruleset);
            absl::StatusOr<backends::LandlockChecker> c =
                backends::LandlockChecker::FromListing(listing);
            if (!c.ok()) {
              return absl::InternalError(absl::StrCat(
                  "the emitted Landlock listing is not understood: ", c.status().message()));
            }
            art.landlock = *std::move(c);
            art.landlock_lines = absl::StrSplit(listing, '\n');
            return art;
          },
          [&](const ir::Unconfined&) -> absl::StatusOr<PlanArtifact> {
            art.target = "none";
            return art;
          },
          [&](const ir::Refusal&) -> absl::StatusOr<PlanArtifact> {
            art.target = "refused";
            return art;
          },
          [&](const ir::Remote&) -> absl::StatusOr<PlanArtifact> {
            art.target = "opensandbox";
            return art;
          }},
      plan.launch);
}

std::vector<ir::DeniedPath> MissingDenyTargets(const ir::LaunchPlan& plan,
                                               compiler::HostFacts* facts) {
  std::vector<ir::DeniedPath> out;
  for (const ir::DeniedPath& d : plan.denied_read) {
    if (facts->Path(d.path).type == compiler::FileType::kMissing) out.push_back(d);
  }
  return out;
}

void NoteAbsentDenyTargets(PlanArtifact* art, const std::vector<ir::DeniedPath>& missing) {
  art->absent_denied.clear();
  if (!art->bwrap) return;
  for (const ir::DeniedPath& d : missing) {
    backends::Access a = art->bwrap->view().Find(d.path).access;
    if (a != backends::Access::kHidden && a != backends::Access::kPrivate) {
      art->absent_denied.push_back(d);
    }
  }
}

void NoteAbsentDenyTargets(PlanArtifact* art, compiler::HostFacts* facts) {
  NoteAbsentDenyTargets(art, MissingDenyTargets(*art->plan, facts));
}

namespace {

// AbsentDecision: a read or exec at or below an absent deny target. The
// verdict is a denial with the rule behind it, and the note says what holds
// once the target exists, since this argv would not hide it then.
std::optional<Decision> AbsentDecision(const PlanArtifact& art, backends::AccessKind kind,
                                       const std::string& path) {
  if (kind != backends::AccessKind::kRead && kind != backends::AccessKind::kExec) {
    return std::nullopt;
  }
  for (const ir::DeniedPath& d : art.absent_denied) {
    if (!compiler::PathStartsWith(path, d.path)) continue;
    Decision out;
    out.allowed = false;
    out.detail = "absent";
    out.rule = absl::StrCat("deny read ", d.rule);
    out.origin = d.origin;
    out.note = absl::StrCat(
        "absent: nothing to read now; the rule ", d.rule, " hides ", d.path.str(),
        " when it exists (this argv has no mask for it: a plan compiled after it appears masks "
        "it, and `cwsc run` and `cwsc exec` refuse this plan if it appears first)");
    return out;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ir::Origin> OriginOfArg(const PlanArtifact& art, int arg) {
  if (arg < 0 || static_cast<size_t>(arg) >= art.bwrap_argv.size()) return std::nullopt;
  return art.bwrap_argv[static_cast<size_t>(arg)].origin;
}

bool SkipConcerns(const ir::Skipped& s, const std::string& path) {
  if (s.path.empty() || !compiler::PathStartsWith(path, s.path)) return false;
  if (s.what != "directory listing" || path == s.path) return true;
  size_t slash = path.rfind('/');
  return (slash == 0 ? std::string("/") : path.substr(0, slash)) == s.path;
}

Decision DecideOn(const PlanArtifact& art, backends::AccessKind kind, const std::string& path) {
  Decision d;
  const ir::LaunchPlan& plan = *art.plan;
  if (art.bwrap) {
    backends::Verdict v = art.bwrap->Decide(kind, path);
    if (v.allowed) {
      if (std::optional<Decision> absent = AbsentDecision(art, kind, path)) return *absent;
    }
    d.allowed = v.allowed;
    d.detail = v.detail;
    d.rule = v.rule;
    if (v.layer >= 0) {
      d.where = absl::StrCat("layer ", v.layer, ", argv ", v.arg);
    } else if (v.arg >= 0) {
      d.where = absl::StrCat("argv ", v.arg);
    }
    d.origin = OriginOfArg(art, v.arg);
    return d;
  }
  if (art.sbpl) {
    backends::Verdict v = art.sbpl->Decide(kind, path);
    d.allowed = v.allowed;
    d.detail = v.detail;
    d.rule = v.rule;
    if (v.line > 0) {
      d.where = absl::StrCat("profile line ", v.line);
      if (static_cast<size_t>(v.line) <= art.profile_lines.size()) {
        d.origin = art.profile_lines[static_cast<size_t>(v.line - 1)].origin;
      }
    }
    // The parameters the rule names whose path covers the one asked about
    // (every one for a network rule), each once, with the origin of its
    // -DKEY=VALUE token.
    std::vector<std::string> keys;
    for (const std::string& key : backends::ParamsIn(v.rule)) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
    for (const std::string& key : keys) {
      auto it = art.sbpl->params().find(key);
      if (it == art.sbpl->params().end()) continue;
      if (kind != backends::AccessKind::kNetwork && !compiler::PathStartsWith(path, it->second)) {
        continue;
      }
      std::string origin;
      for (const backends::EmittedArg& a : art.sbpl_argv) {
        if (absl::StartsWith(a.text, absl::StrCat("-D", key, "="))) origin = a.origin.Describe();
      }
      d.params.push_back(absl::StrCat(key, "=", it->second, origin.empty() ? "" : " (", origin,
                                      origin.empty() ? "" : ")"));
    }
    return d;
  }
  if (art.landlock) {
    backends::Verdict v = art.landlock->Decide(kind, path);
    d.allowed = v.allowed;
    d.rule = v.rule;
    d.detail = v.detail;
    if (v.line > 0) {
      d.where = absl::StrCat("ruleset line ", v.line);
      // The rule's origin is the bracketed text at the end of its line;
      // find the plan rule with the same text instead.
      const std::string& line = art.landlock_lines[static_cast<size_t>(v.line - 1)];
      int index = 0;
      for (size_t i = 0; i < static_cast<size_t>(v.line - 1); ++i) {
        if (absl::StartsWith(art.landlock_lines[i], "allow ")) ++index;
      }
      if (absl::StartsWith(line, "allow ") && plan.landlock() &&
          static_cast<size_t>(index) < plan.landlock()->rules.size()) {
        d.origin = plan.landlock()->rules[static_cast<size_t>(index)].origin;
      }
    }
    // A path the read grant leaves out for a deny rule: the deny rule is
    // what decided, and its origin is the one to show.
    if (!v.allowed && !v.detail.empty()) {
      for (const ir::DeniedPath& dp : plan.denied_read) {
        if (!compiler::PathStartsWith(path, dp.path)) continue;
        d.detail = absl::StrCat(v.detail, " (deny read ", dp.rule, ")");
        d.origin = dp.origin;
        break;
      }
    }
    return d;
  }
  if (art.target == "refused") {
    d.allowed = false;
    d.detail = "refused";
    d.rule = absl::StrCat("plan refused: ", plan.refusal() ? plan.refusal()->reason : "");
    if (plan.refusal()) d.origin = plan.refusal()->origin;
    return d;
  }
  if (art.target == "opensandbox") {
    d.checkable = false;
    d.detail = "remote";
    d.rule =
        "a remote sandbox: its access is enforced by the server, not by an artifact "
        "cwsc can read";
    return d;
  }
  // kind none: the command runs without an OS sandbox; everything is allowed.
  d.allowed = true;
  d.detail = "unsandboxed";
  d.rule = absl::StrCat("plan kind none: no OS sandbox (policy ",
                        ir::PolicyTypeName(plan.policy.type), ")");
  d.origin = plan.policy.origin;
  return d;
}

compiler::PathVars VarsFor(const ir::LaunchPlan& plan, compiler::HostFacts* facts) {
  compiler::PathVars v;
  v.home = facts->Env("HOME").value_or("");
  if (v.home.empty()) v.home = facts->User().home;
  v.workspace = plan.cwd;
  v.cwd = plan.cwd;
  v.tmpdir = facts->Env("TMPDIR").value_or("");
  if (v.tmpdir.empty()) v.tmpdir = "/tmp";
  return v;
}

backends::AccessKind KindOf(ir::Expectation::Kind kind) {
  switch (kind) {
    case ir::Expectation::Kind::kRead:
      return backends::AccessKind::kRead;
    case ir::Expectation::Kind::kWrite:
      return backends::AccessKind::kWrite;
    case ir::Expectation::Kind::kExec:
      return backends::AccessKind::kExec;
    case ir::Expectation::Kind::kNetwork:
      return backends::AccessKind::kNetwork;
    case ir::Expectation::Kind::kCreate:
      return backends::AccessKind::kCreate;
  }
  return backends::AccessKind::kRead;
}

bool StrictlyInside(const std::string& path, const std::string& dir) {
  return compiler::PathStartsWith(path, dir) &&
         compiler::LexicalNormalize(path) != compiler::LexicalNormalize(dir);
}

absl::StatusOr<std::string> ReadText(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return ir::ErrorAt(file, 0, 0, "cannot read the file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ExpectationsOf reads --expect FILE: the expectations of every policy in it.
absl::StatusOr<std::vector<ir::Expectation>> ExpectationsOf(const std::string& file) {
  if (!absl::EndsWith(file, ".cwsp")) {
    return ir::ErrorAt(file, 0, 0, "--expect reads a .cwsp file (policies with expect lines)");
  }
  absl::StatusOr<std::string> text = ReadText(file);
  if (!text.ok()) return text.status();
  absl::StatusOr<compiler::DslFile> parsed =
      compiler::ReadDslFile(*text, file, compiler::Layer::kUser);
  if (!parsed.ok()) return parsed.status();
  std::vector<ir::Expectation> out;
  for (const compiler::DslPolicy& p : parsed->policies) {
    out.insert(out.end(), p.spec.expectations.begin(), p.spec.expectations.end());
  }
  if (out.empty()) {
    return ir::ErrorAt(file, 0, 0, "--expect: the file has no expectations");
  }
  return out;
}

}  // namespace cwsc::driver
