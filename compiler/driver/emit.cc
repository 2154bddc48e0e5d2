// Target dispatch: which backend emits what for --target (compiler/driver/emit.h).
#include "compiler/driver/emit.h"

#include "absl/strings/str_cat.h"
#include "backends/bwrap.h"
#include "backends/landlock.h"
#include "backends/opensandbox.h"
#include "backends/seatbelt.h"
#include "backends/seccomp_filter.h"
#include "compiler/driver/names.h"
#include "compiler/driver/verify.h"
#include "ir/plan_json.h"

namespace cwsc::driver {
namespace {

Emitted Fail(EmitFailure failure, absl::Status status) {
  Emitted e;
  e.failure = failure;
  e.status = std::move(status);
  return e;
}

Emitted NotApplicable(const std::string& message) {
  return Fail(EmitFailure::kNotApplicable, absl::InvalidArgumentError(message));
}

// WrapperWhy is why the plan has no local wrapper (": REASON"), or "".
std::string WrapperWhy(const ir::LaunchPlan& plan) {
  std::string why;
  for (const auto& s : plan.skipped) {
    if (s.kind == ir::SkipKind::kLocalWrapper) why = absl::StrCat(": ", s.reason);
  }
  return why;
}

}  // namespace

Emitted EmitTarget(const ir::LaunchPlan& plan, const std::string& target,
                   const std::vector<std::string>& program) {
  Emitted e;
  Artifact* out = &e.artifact;
  out->target = target;
  if (target == "plan") {
    absl::StatusOr<std::string> json = ir::PlanToJson(plan);
    if (!json.ok()) return Fail(EmitFailure::kInput, json.status());
    out->text = *json;
    return e;
  }
  if (plan.refusal()) return Fail(EmitFailure::kRefused, absl::OkStatus());
  std::string t = target;
  if (t == "auto") {
    t = std::visit(ir::Overloaded{[](const ir::Bwrap&) { return "bwrap"; },
                                  [](const ir::Seatbelt&) { return "seatbelt"; },
                                  [](const ir::Unconfined&) { return "none"; },
                                  [](const ir::Remote&) { return "opensandbox"; },
                                  [](const ir::LandlockLaunch&) { return "landlock"; },
                                  [](const ir::Refusal&) { return "refused"; }},
                   plan.launch);
  }
  out->target = t;
  if (t == "none") {
    std::string why;
    for (const auto& s : plan.skipped) {
      if (s.kind == ir::SkipKind::kLocalWrapper) why = s.reason;
    }
    out->note = absl::StrCat("plan kind none: the command runs without an OS sandbox",
                             why.empty() ? "" : ": ", why);
    out->is_argv = true;
    for (const std::string& a : program) out->argv.push_back({a, ir::Origin::Cli("program")});
    return e;
  }
  if (t == "bwrap" || t == "seatbelt") {
    absl::StatusOr<backends::EmittedArgv> argv = t == "bwrap"
                                                     ? backends::EmitBwrapArgv(plan, program)
                                                     : backends::EmitSeatbeltArgv(plan, program);
    if (!argv.ok()) {
      return NotApplicable(
          absl::StrCat("--target ", t, ": ", argv.status().message(), WrapperWhy(plan)));
    }
    out->is_argv = true;
    out->argv = *std::move(argv);
    return e;
  }
  if (t == "opensandbox") {  // the HTTP request(s) for review, key redacted
    if (!plan.remote()) {
      return NotApplicable(absl::StrCat("--target opensandbox: plan kind ",
                                        ir::PlanKindName(plan.kind()),
                                        " does not use OpenSandbox"));
    }
    if (absl::Status s = backends::CheckRemoteProgram(program); !s.ok()) {
      return Fail(EmitFailure::kInput, s);
    }
    std::vector<backends::RemoteRequest> reqs =
        backends::ReviewRequests(plan, program, std::nullopt);
    out->text = backends::FormatReviewText(plan, reqs);
    out->json = backends::FormatReviewJson(plan, reqs);
    return e;
  }
  if (t == "landlock") {
    if (!plan.landlock()) {
      return NotApplicable(absl::StrCat("--target landlock: plan kind ",
                                        ir::PlanKindName(plan.kind()), " has no Landlock ruleset",
                                        WrapperWhy(plan)));
    }
    out->text = backends::EmitLandlockListing(*plan.landlock());
    return e;
  }
  if (t == "seccomp" || t == "seccomp-bpf") {
    if (!plan.syscall_filter()) {
      return NotApplicable(absl::StrCat("--target ", t, ": plan kind ",
                                        ir::PlanKindName(plan.kind()), " has no syscall filter"));
    }
    absl::StatusOr<std::string> bpf = EmitCheckedSeccompBpf(*plan.syscall_filter());
    if (!bpf.ok()) {
      return Fail(EmitFailure::kInternal,
                  absl::InternalError(absl::StrCat("--target ", t, ": ", bpf.status().message())));
    }
    if (t == "seccomp-bpf") {
      out->text = *bpf;
      return e;
    }
    absl::StatusOr<std::string> listing = backends::EmitSeccompListing(*plan.syscall_filter());
    if (!listing.ok()) {
      return Fail(EmitFailure::kInternal, absl::InternalError(absl::StrCat(
                                              "--target seccomp: ", listing.status().message())));
    }
    out->text = *listing;
    return e;
  }
  return Fail(EmitFailure::kUnknownTarget,
              absl::InvalidArgumentError(absl::StrCat("unknown --target '", target, "' (",
                                                      NameList(kCompileTargets), ")")));
}

}  // namespace cwsc::driver
