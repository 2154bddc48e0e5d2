// `cwsc run` (compile against the live host, then execute) and `cwsc exec`
// (execute a plan compiled earlier). docs/runtime.md documents both.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "ir/plan_json.h"
#include "runtime/execute.h"
#include "runtime/hardening.h"
#include "runtime/probe_cache.h"

namespace cwsc::cli {
namespace {

constexpr char kRunUsage[] =
    "usage: cwsc run CONFIG [--mode MODE] [--cwd DIR] [--timeout SECONDS] [--json [-o FILE]]\n"
    "                [--policy NAME] [--input toml|dsl] [--escalate MODE]\n"
    "                [--no-project-config] -- PROGRAM ARGS...\n"
    "\n"
    "Compile CONFIG for MODE (default ask) against this host and run PROGRAM under\n"
    "the resulting plan: bubblewrap (linux-bwrap), a launcher in front of it\n"
    "(launcher+bwrap), or unwrapped (none). The environment is cleared, then the\n"
    "plan's allow-list and markers apply; stdin and stdout are the command's own.\n"
    "--timeout ends the whole process tree (TERM, then KILL 2 s later).\n"
    "--no-project-config skips <cwd>/.codewhale/config.toml, as `codewhale serve`\n"
    "and `exec` do (a tool_launcher there otherwise stops the launch).\n"
    "--json prints a result object as the last line of stderr (or into -o FILE).\n"
    "Exit status: the command's own (128+N when it died of signal N); 124 timed\n"
    "out; 125 refused or could not start (nothing ran); 126/127 program not\n"
    "executable / not found (unwrapped runs); 2 bad input or usage.\n";

constexpr char kExecUsage[] =
    "usage: cwsc exec PLAN.json [--timeout SECONDS] [--json [-o FILE]] -- PROGRAM ARGS...\n"
    "\n"
    "Run PROGRAM under a plan compiled earlier (`cwsc compile --target plan`),\n"
    "possibly on another machine. The host facts the plan relies on are checked\n"
    "again first (platform, bubblewrap and its probe, mount sources, deny-list\n"
    "paths, protected directories, working directory); when one no longer holds,\n"
    "nothing runs (exit 125) and the reason is printed. Exit status as for\n"
    "`cwsc run`.\n";

absl::StatusOr<double> ParseTimeout(const std::optional<std::string>& text) {
  if (!text) return 0.0;
  double v = 0;
  if (!absl::SimpleAtod(absl::string_view(text->data(), text->size()), &v) || !(v > 0) ||
      v > 1e9) {
    return absl::InvalidArgumentError(
        absl::StrCat("--timeout: expected a positive number of seconds, got '", *text, "'"));
  }
  return v;
}

std::optional<std::string> Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::optional<std::string>(v) : std::nullopt;
}

// Harden applies reference §12 to cwsc before it spawns anything.
void Harden(const std::optional<std::string>& startup_mode, bool launcher_plan) {
  std::optional<std::string> mode = Env("CODEWHALE_SANDBOX_MODE");
  if (!mode) mode = startup_mode;
  runtime::NoNewPrivsDecision d =
      runtime::DecideNoNewPrivs(Env("CODEWHALE_NO_NEW_PRIVS"), mode, launcher_plan);
  runtime::HardeningReport r = runtime::HardenProcess(d);
  for (const std::string& w : r.Warnings()) std::fprintf(stderr, "cwsc: warning: %s\n", w.c_str());
}

int Finish(const runtime::ExecOutcome& out, const CommonOptions& o) {
  if (o.json) {
    std::string line = runtime::ResultToJson(out) + "\n";
    if (o.output) {
      std::ofstream f(*o.output, std::ios::binary | std::ios::trunc);
      f << line;
      if (!f) {
        std::fprintf(stderr, "cwsc: error: cannot write %s\n", o.output->c_str());
      }
    } else {
      std::fflush(stderr);
      std::fputs(line.c_str(), stderr);
    }
  }
  return out.cwsc_exit_code;
}

// CheckProgram validates the `-- PROGRAM ARGS...` part.
bool CheckProgram(const CommonOptions& o, const char* usage) {
  if (o.program.empty()) {
    std::fputs("cwsc: error: no program given: put it after --\n", stderr);
    std::fputs(usage, stderr);
    return false;
  }
  if (o.output && !o.json) {
    std::fputs("cwsc: error: -o FILE needs --json\n", stderr);
    return false;
  }
  return true;
}

}  // namespace

int CmdRun(const Args& args) {
  absl::StatusOr<CommonOptions> o = ParseCommonOptions(
      args, {"--mode", "--cwd", "--timeout", "--json", "--policy", "--input", "--escalate", "-o",
             "--output", "--no-project-config"});
  if (!o.ok()) {
    PrintError(std::string(o.status().message()));
    std::fputs(kRunUsage, stderr);
    return kExitUsage;
  }
  if (o->help) {
    std::fputs(kRunUsage, stdout);
    return kExitOk;
  }
  if (o->config.empty()) {
    std::fputs("cwsc: error: missing CONFIG\n", stderr);
    std::fputs(kRunUsage, stderr);
    return kExitUsage;
  }
  if (!CheckProgram(*o, kRunUsage)) return kExitUsage;
  absl::StatusOr<double> timeout = ParseTimeout(o->timeout);
  if (!timeout.ok()) {
    PrintError(std::string(timeout.status().message()));
    return kExitUsage;
  }
  absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(*o);
  if (!copts.ok()) {
    PrintError(std::string(copts.status().message()));
    return kExitUsage;
  }
  std::unique_ptr<compiler::HostFacts> facts = runtime::MakeRuntimeFacts();
  absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(*copts, facts.get());
  if (!r.ok()) {
    PrintError(std::string(r.status().message()));
    return kExitUsage;
  }
  PrintNotes(r->notes);
  std::optional<std::string> startup_mode;
  if (r->merged.sandbox_mode) startup_mode = r->merged.sandbox_mode->value;
  Harden(startup_mode, r->plan.kind == ir::PlanKind::kLauncherBwrap);
  runtime::ExecRequest req;
  req.program = o->program;
  req.timeout_seconds = *timeout;
  return Finish(runtime::ExecutePlan(r->plan, req, facts.get()), *o);
}

int CmdExec(const Args& args) {
  absl::StatusOr<CommonOptions> o =
      ParseCommonOptions(args, {"--timeout", "--json", "-o", "--output"});
  if (!o.ok()) {
    PrintError(std::string(o.status().message()));
    std::fputs(kExecUsage, stderr);
    return kExitUsage;
  }
  if (o->help) {
    std::fputs(kExecUsage, stdout);
    return kExitOk;
  }
  if (o->config.empty()) {
    std::fputs("cwsc: error: missing PLAN.json\n", stderr);
    std::fputs(kExecUsage, stderr);
    return kExitUsage;
  }
  if (!CheckProgram(*o, kExecUsage)) return kExitUsage;
  absl::StatusOr<double> timeout = ParseTimeout(o->timeout);
  if (!timeout.ok()) {
    PrintError(std::string(timeout.status().message()));
    return kExitUsage;
  }
  std::ifstream in(o->config, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cwsc: error: cannot read %s\n", o->config.c_str());
    return kExitUsage;
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<ir::LaunchPlan> plan = ir::PlanFromJson(text.str(), o->config);
  if (!plan.ok()) {
    PrintError(std::string(plan.status().message()));
    return kExitUsage;
  }
  // The startup posture of a plan: danger-full-access decided by a
  // sandbox_mode key counts as the startup mode (reference §12).
  std::optional<std::string> startup_mode;
  if (plan->policy.type == ir::PolicyType::kDangerFullAccess &&
      absl::StrContains(plan->policy.origin.detail, "sandbox_mode")) {
    startup_mode = "danger-full-access";
  }
  Harden(startup_mode, plan->kind == ir::PlanKind::kLauncherBwrap);
  std::unique_ptr<compiler::HostFacts> facts = runtime::MakeRuntimeFacts();
  runtime::ExecRequest req;
  req.program = o->program;
  req.timeout_seconds = *timeout;
  return Finish(runtime::ExecutePlan(*plan, req, facts.get()), *o);
}

}  // namespace cwsc::cli
