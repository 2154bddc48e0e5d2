// `cwsc run` (compile against the live host, then execute) and `cwsc exec`
// (execute a plan compiled earlier). docs/runtime.md documents both.
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/driver.h"
#include "cli/json_report.h"
#include "ir/display.h"
#include "ir/plan_json.h"
#include "runtime/execute.h"
#include "runtime/hardening.h"
#include "runtime/host/probe_cache.h"
#include "runtime/result_channel.h"

namespace cwsc::cli {
namespace {

absl::StatusOr<double> ParseTimeout(const std::optional<std::string>& text) {
  if (!text) return 0.0;
  double v = 0;
  if (!absl::SimpleAtod(absl::string_view(text->data(), text->size()), &v) || !(v > 0) || v > 1e9) {
    return absl::InvalidArgumentError(
        absl::StrCat("--timeout: expected a positive number of seconds, got '", *text, "'"));
  }
  return v;
}

// Harden applies docs/behavior.md B-80 to cwsc before it spawns anything
// (runtime/hardening.h) and reports a step that failed.
void Harden(const std::optional<std::string>& startup_mode, bool launcher_plan) {
  for (const std::string& w : runtime::HardenLaunch(startup_mode, launcher_plan)) {
    std::string shown = ir::Displayable(w);
    if (JsonReport* report = ActiveReport()) report->Add({"warning", "", shown, "", 0, 0});
    std::fprintf(stderr, "cwsc: warning: %s\n", shown.c_str());
  }
}

// WriteResult writes the report's line into the channel (runtime/result_channel.h)
// and says what failed.
void WriteResult(const runtime::ResultChannel& c, const std::string& line) {
  int err = 0;
  if (runtime::WriteResult(c, line, &err)) return;
  if (c.fd >= 0) {
    std::fprintf(stderr, "cwsc: error: cannot write the result to --json-fd %d: %s\n", c.fd,
                 strerror(err));
    return;
  }
  ir::Text text;
  text << "cwsc: error: cannot write " << c.path << ": " << strerror(err) << "\n";
  PrintErrText(text);
}

int Finish(const runtime::ExecOutcome& out) {
  if (JsonReport* report = ActiveReport()) {
    for (const std::string& w : out.warnings) report->Add({"warning", "", w, "", 0, 0});
    if (!out.refusal.empty()) report->Add({"error", "refused", out.refusal, "", 0, 0});
    if (!out.error.empty()) report->Add({"error", "spawn", out.error, "", 0, 0});
    report->SetResult(Json::parse(runtime::ResultToJson(out)));
  }
  return out.cwsc_exit_code;
}

// DeliverTo sends the --json report to the channel once it is open: from
// then on, errors are reported there too.
void DeliverTo(const runtime::ResultChannel& channel) {
  if (JsonReport* report = ActiveReport()) {
    report->SetDelivery([channel](const std::string& line) { WriteResult(channel, line); });
  }
}

// StartRun validates the `-- PROGRAM ARGS...` part, the timeout and the
// result channel, and opens the channel: from then on, the --json report
// goes there. It returns 0, or the exit code after printing the error.
int StartRun(const CommonOptions& o, absl::string_view command, double* timeout) {
  if (o.program.empty()) return PrintUsageError(command, "no program given: put it after --");
  if (o.json && o.output && o.json_fd) {
    return PrintUsageError(command, "give -o FILE or --json-fd N, not both");
  }
  if (o.json && !o.output && !o.json_fd) {
    return PrintUsageError(command,
                           "--json needs -o FILE or --json-fd N: the command's own stderr "
                           "cannot carry a result it could forge");
  }
  absl::StatusOr<double> t = ParseTimeout(o.timeout);
  if (!t.ok()) return PrintUsageError(command, t.status().message());
  *timeout = *t;
  absl::StatusOr<runtime::ResultChannel> channel = runtime::OpenResultChannel(o.output, o.json_fd);
  if (Failed(channel)) return kExitUsage;
  DeliverTo(*channel);
  return kExitOk;
}

// Launch hardens cwsc before it spawns anything, runs `plan` with the
// program and reports the outcome; `startup_mode` is the posture a
// sandbox_mode key decided, if one did.
int Launch(const ir::LaunchPlan& plan, const std::optional<std::string>& startup_mode,
           const CommonOptions& o, double timeout, compiler::HostFacts* facts) {
  Harden(startup_mode, plan.kind() == ir::PlanKind::kLauncherBwrap);
  runtime::ExecRequest req;
  req.program = o.program;
  req.timeout_seconds = timeout;
  req.require_sandbox = o.require_sandbox;
  return Finish(runtime::ExecutePlan(plan, req, facts));
}

// KeepUntilExit hands `v` to the end of the process, which leaves with
// _exit once the command's exit code is known (cli/cwsc_main.cc): the
// compile's facts and plan are not freed after the command ended, where
// freeing them (about 0.1 M instructions) would delay the exit status.
template <typename T>
void KeepUntilExit(T v) {
  static std::vector<std::shared_ptr<void>>* kept = new std::vector<std::shared_ptr<void>>();
  kept->push_back(std::make_shared<T>(std::move(v)));
}

}  // namespace

int CmdRun(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("run", args, &parse_rc);
  if (!p) return parse_rc;
  CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  if (int rc = DiscoverConfig("run", &options); rc != kExitOk) return rc;
  double timeout = 0;
  if (int rc = StartRun(*o, "run", &timeout); rc != kExitOk) return rc;
  absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(*o);
  if (Failed(copts)) return kExitUsage;
  std::unique_ptr<compiler::HostFacts> facts = runtime::MakeRuntimeFacts();
  absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(*copts, facts.get());
  if (Failed(r)) return kExitUsage;
  PrintNotes(r->notes);
  for (const ir::Diagnostic& n : driver::SettingNotes(r->plan)) PrintSettingNote(n);
  std::optional<std::string> startup_mode;
  if (r->merged.sandbox_mode) startup_mode = ir::PolicyTypeName(r->merged.sandbox_mode->value.type);
  const int rc = Launch(r->plan, startup_mode, *o, timeout, facts.get());
  KeepUntilExit(std::move(facts));
  KeepUntilExit(*std::move(r));
  return rc;
}

int CmdExec(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("exec", args, &parse_rc);
  if (!p) return parse_rc;
  const CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  if (o->config.empty()) return PrintUsageError("exec", "missing PLAN.json");
  double timeout = 0;
  if (int rc = StartRun(*o, "exec", &timeout); rc != kExitOk) return rc;
  absl::StatusOr<std::string> text = ReadInput(o->config);
  if (Failed(text)) return kExitUsage;
  absl::StatusOr<ir::LaunchPlan> plan = ir::PlanFromJson(*text, InputName(o->config));
  if (Failed(plan)) return kExitUsage;
  // The startup posture of a plan: danger-full-access decided by a
  // sandbox_mode key counts as the startup mode (docs/behavior.md B-80).
  std::unique_ptr<compiler::HostFacts> facts = runtime::MakeRuntimeFacts();
  const int rc = Launch(*plan, runtime::PlanStartupMode(*plan), *o, timeout, facts.get());
  KeepUntilExit(std::move(facts));
  KeepUntilExit(*std::move(plan));
  return rc;
}

}  // namespace cwsc::cli
