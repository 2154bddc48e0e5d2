// The expectation runner of `cwsc check` (compiler/driver/expect.h).
#include "compiler/driver/expect.h"

#include <unistd.h>

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/config_toml.h"
#include "compiler/dsl_frontend.h"
#include "compiler/resolve.h"
#include "ir/diagnostics.h"

namespace cwsc::driver {

std::vector<std::string> RunArgv(const LiveRun& live, ir::PermissionMode mode,
                                 const std::string& policy) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string bin = n > 0 ? std::string(self, static_cast<size_t>(n)) : "cwsc";
  std::vector<std::string> argv = {
      bin, "run", live.config, "--mode", ir::PermissionModeName(mode), "--timeout", "30"};
  if (!policy.empty()) argv.insert(argv.end(), {"--policy", policy});
  if (live.cwd) argv.insert(argv.end(), {"--cwd", *live.cwd});
  if (live.input) argv.insert(argv.end(), {"--input", *live.input});
  if (live.no_project_config) argv.push_back("--no-project-config");
  argv.push_back("--");
  return argv;
}

ConfigCheck CheckTomlConfig(const std::string& text, const std::string& file,
                            compiler::Layer layer) {
  ConfigCheck out;
  absl::StatusOr<compiler::ConfigLayer> cfg = compiler::ReadTomlConfig(text, file, layer);
  if (!cfg.ok()) {
    out.status = cfg.status();
    return out;
  }
  out.notes = cfg->notes;
  if (absl::Status paths = compiler::ValidateSpecPaths(cfg->spec); !paths.ok()) {
    out.status = paths;
    return out;
  }
  if (layer == compiler::Layer::kManaged && cfg->spec.tool_launcher) {
    const ir::Origin& lo = cfg->spec.tool_launcher->origin;
    std::optional<ir::PolicyType> mode;
    if (cfg->spec.sandbox_mode) mode = cfg->spec.sandbox_mode->value.type;
    if (mode != ir::PolicyType::kWorkspaceWrite && mode != ir::PolicyType::kReadOnly) {
      out.status = ir::ErrorAt(
          lo.file.str(), lo.line, lo.col,
          cfg->spec.sandbox_mode
              ? absl::StrCat("a managed config with 'tool_launcher' must set "
                             "sandbox_mode to workspace-write or read-only, "
                             "not '",
                             cfg->spec.sandbox_mode->value.text, "'; every compile refuses it")
              : "a managed config with 'tool_launcher' must set sandbox_mode "
                "itself (workspace-write or read-only); every compile "
                "refuses it");
      return out;
    }
  }
  for (const auto& n : cfg->notes) out.warnings += n.severity == ir::Diagnostic::Severity::kWarning;
  return out;
}

absl::StatusOr<std::vector<CheckSubject>> DslSubjects(const std::string& text,
                                                      const std::string& file,
                                                      compiler::Layer layer,
                                                      const std::string& policy,
                                                      const std::vector<ir::Expectation>& extra) {
  absl::StatusOr<compiler::DslFile> parsed = compiler::ReadDslFile(text, file, layer);
  if (!parsed.ok()) return parsed.status();
  std::vector<CheckSubject> out;
  bool found = policy.empty();
  for (const compiler::DslPolicy& p : parsed->policies) {
    if (!policy.empty() && p.name != policy) continue;
    found = true;
    CheckSubject s{p.name, absl::StrCat(file, ":", p.line, ":", p.col), p.spec.expectations};
    s.expectations.insert(s.expectations.end(), extra.begin(), extra.end());
    out.push_back(std::move(s));
  }
  if (!found) return ir::ErrorAt(file, 0, 0, absl::StrCat("no policy named '", policy, "'"));
  return out;
}

namespace {

// Runner holds one run: the modes compiled so far and where it stopped.
class Runner {
 public:
  Runner(const ExpectOptions& o, const std::string& policy, compiler::HostFacts* facts,
         ExpectRun* run)
      : o_(o), policy_(policy), facts_(facts), run_(run) {}

  // Plan compiles `mode` once; nullptr when that failed (run_->failure says how).
  const ModePlan* Plan(ir::PermissionMode mode) {
    for (const auto& mp : run_->plans) {
      if (mp->mode == mode) return mp.get();
    }
    compiler::CompileOptions copts = o_.compile;
    const char* name = ir::PermissionModeName(mode);
    copts.mode = name;
    copts.mode_origin = ir::Origin::Cli(absl::StrCat("--mode ", name));
    copts.policy_name = policy_;
    absl::StatusOr<compiler::CompileResult> r =
        CompileChecked(copts, facts_, o_.facts_rule, FactsAsker::kCheck, name);
    if (!r.ok()) return Fail(ExpectFailure::kInput, r.status());
    auto mp = std::make_unique<ModePlan>();
    mp->mode = mode;
    mp->result = *std::move(r);
    ModePlan* p = mp.get();
    run_->plans.push_back(std::move(mp));
    absl::StatusOr<PlanArtifact> art = ArtifactOf(p->result.plan);
    if (!art.ok()) {
      return Fail(ExpectFailure::kInternal,
                  absl::InternalError(absl::StrCat("mode ", name, ": ", art.status().message())));
    }
    p->art = *std::move(art);
    NoteAbsentDenyTargets(&p->art, facts_);
    p->vars = VarsFor(p->result.plan, facts_);
    const std::string& t = p->art.target;
    if (!o_.targets.empty() &&
        std::find(o_.targets.begin(), o_.targets.end(), t) == o_.targets.end()) {
      return Fail(
          ExpectFailure::kNotApplicable,
          absl::InvalidArgumentError(absl::StrCat(
              "--target ", absl::StrJoin(o_.targets, ","), ": mode ", name, " compiles to a ",
              ir::PlanKindName(p->result.plan.kind()), " plan, which emits no such artifact")));
    }
    return p;
  }

  std::nullptr_t Fail(ExpectFailure failure, absl::Status status) {
    run_->failure = failure;
    run_->status = std::move(status);
    return nullptr;
  }

 private:
  const ExpectOptions& o_;
  const std::string& policy_;
  compiler::HostFacts* facts_;
  ExpectRun* run_;
};

}  // namespace

ExpectRun RunExpectations(const ExpectOptions& o, const std::string& policy,
                          const std::vector<ir::Expectation>& expectations,
                          compiler::HostFacts* facts) {
  ExpectRun run;
  Runner runner(o, policy, facts, &run);
  std::vector<ir::PermissionMode> modes = o.modes;
  if (modes.empty()) modes.assign(std::begin(kAllModes), std::end(kAllModes));
  for (const ir::Expectation& e : expectations) {
    ExpectationResult& er = run.expectations.emplace_back();
    er.expectation = e;
    for (ir::PermissionMode mode : modes) {
      if (!e.modes.empty() && std::find(e.modes.begin(), e.modes.end(), mode) == e.modes.end()) {
        continue;
      }
      const ModePlan* mp = runner.Plan(mode);
      if (mp == nullptr) return run;
      std::string path = e.path;  // network: "" or HOST:PORT
      if (e.kind != ir::Expectation::Kind::kNetwork) {
        absl::StatusOr<std::string> p = compiler::ExpandPath(e.path, mp->vars);
        if (!p.ok()) {
          runner.Fail(ExpectFailure::kInput,
                      ir::ErrorAt(e.origin.file.str(), e.origin.line, e.origin.col,
                                  std::string(p.status().message())));
          return run;
        }
        path = *p;
      }
      ExpectVerdict v;
      v.mode = mode;
      v.target = mp->art.target;
      v.path = path;
      v.decision = DecideOn(mp->art, KindOf(e.kind), path);
      const Decision& d = v.decision;
      v.pass = d.checkable && d.allowed == e.allowed;
      if (!d.checkable) {
        ++run.counts.unchecked;
      } else if (v.pass) {
        ++run.counts.passed;
      } else {
        ++run.counts.failed;
      }
      // What the policy asked for at this path but the plan left out.
      if (!d.note.empty()) v.notes.push_back(d.note);
      for (const ir::Skipped& sk : mp->result.plan.skipped) {
        if (e.kind == ir::Expectation::Kind::kNetwork || !SkipConcerns(sk, path)) continue;
        v.notes.push_back(absl::StrCat("the plan skipped ", sk.what, " ", sk.path, ": ", sk.reason,
                                       " (", sk.origin.Describe(), ")"));
      }
      if (o.live && d.checkable) {
        v.live = LiveProbe(RunArgv(*o.live, mode, policy), KindOf(e.kind), path);
        if (v.live->probed && v.live->allowed != d.allowed) {
          v.live_disagrees = true;
          ++run.counts.failed;
        }
      }
      er.verdicts.push_back(std::move(v));
    }
  }
  if (o.lint) {
    for (ir::PermissionMode mode : modes) {
      if (runner.Plan(mode) == nullptr) return run;
    }
  }
  // Lints of every mode compiled, each once with the modes it holds in.
  for (ir::PermissionMode mode : modes) {
    auto it = std::find_if(run.plans.begin(), run.plans.end(),
                           [&](const auto& mp) { return mp->mode == mode; });
    if (it == run.plans.end()) continue;
    const ModePlan& mp = **it;
    for (Lint& l : LintPlan(mp.art, mp.vars, facts)) {
      auto seen = std::find_if(run.lints.begin(), run.lints.end(), [&](const ModeLint& m) {
        return m.lint.code == l.code && m.lint.message == l.message;
      });
      if (seen == run.lints.end()) {
        run.lints.push_back({std::move(l), {mode}});
      } else {
        seen->modes.push_back(mode);
      }
    }
  }
  return run;
}

}  // namespace cwsc::driver
