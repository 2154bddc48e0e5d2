// `cwsc run` (compile against the live host, then execute) and `cwsc exec`
// (execute a plan compiled earlier). docs/runtime.md documents both.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/json_report.h"
#include "ir/plan_json.h"
#include "runtime/execute.h"
#include "runtime/hardening.h"
#include "runtime/host/probe_cache.h"

namespace cwsc::cli {
namespace {

constexpr char kRunUsage[] =
    "usage: cwsc run CONFIG [--mode MODE] [--cwd DIR] [--timeout SECONDS]\n"
    "                [--json (-o FILE | --json-fd N)]\n"
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
    "--json writes the JSON report (docs/cli.md) into -o FILE (replaced, never followed\n"
    "through a symlink) or onto descriptor N (--json-fd), channels the command cannot\n"
    "write; a usage error before the channel is open reports on stdout.\n"
    "Exit status: the command's own (128+N when it died of signal N); 124 timed\n"
    "out; 125 refused or could not start (nothing ran); 126/127 program not\n"
    "executable / not found (unwrapped runs); 2 bad input or usage.\n";

constexpr char kExecUsage[] =
    "usage: cwsc exec PLAN.json [--timeout SECONDS] [--json (-o FILE | --json-fd N)]\n"
    "                 -- PROGRAM ARGS...\n"
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
  if (!absl::SimpleAtod(absl::string_view(text->data(), text->size()), &v) || !(v > 0) || v > 1e9) {
    return absl::InvalidArgumentError(
        absl::StrCat("--timeout: expected a positive number of seconds, got '", *text, "'"));
  }
  return v;
}

std::optional<std::string> Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::optional<std::string>(v) : std::nullopt;
}

// Harden applies docs/behavior.md B-80 to cwsc before it spawns anything.
void Harden(const std::optional<std::string>& startup_mode, bool launcher_plan) {
  std::optional<std::string> mode = Env("CODEWHALE_SANDBOX_MODE");
  if (!mode) mode = startup_mode;
  runtime::NoNewPrivsDecision d =
      runtime::DecideNoNewPrivs(Env("CODEWHALE_NO_NEW_PRIVS"), mode, launcher_plan);
  runtime::HardeningReport r = runtime::HardenProcess(d);
  for (const std::string& w : r.Warnings()) {
    if (JsonReport* report = ActiveReport()) report->Add({"warning", "", w, "", 0, 0});
    std::fprintf(stderr, "cwsc: warning: %s\n", w.c_str());
  }
}

// ResultChannel is where --json writes: a directory opened before the
// command starts (so the command cannot move the file elsewhere by swapping
// a path component) and a name in it, or a descriptor of the caller's.
struct ResultChannel {
  int dir_fd = -1;
  std::string name;
  std::string path;  // as given, for messages
  int fd = -1;
};

bool WriteAllTo(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

absl::StatusOr<ResultChannel> OpenResultChannel(const CommonOptions& o) {
  ResultChannel c;
  if (!o.json) return c;
  if (o.json_fd) {
    int fd = -1;
    if (!absl::SimpleAtoi(*o.json_fd, &fd) || fd < 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--json-fd: expected a descriptor number of 3 or more (0, 1 and 2 are the command's "
          "own), got '",
          *o.json_fd, "'"));
    }
    if (fcntl(fd, F_GETFD) < 0) {
      return absl::InvalidArgumentError(absl::StrCat("--json-fd ", fd, ": not an open descriptor"));
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC);  // never the command's
    c.fd = fd;
    return c;
  }
  const std::string& path = *o.output;
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  c.name = slash == std::string::npos ? path : path.substr(slash + 1);
  c.path = path;
  if (c.name.empty() || c.name == "." || c.name == "..") {
    return absl::InvalidArgumentError(absl::StrCat("-o ", path, ": not a file name"));
  }
  c.dir_fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (c.dir_fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("-o ", path, ": cannot open the directory ", dir, ": ", strerror(errno)));
  }
  return c;
}

// WriteResult writes the line into a new file beside the target and renames
// it over the target: a symlink planted at the name is replaced, never
// followed.
void WriteResult(const ResultChannel& c, const std::string& line) {
  if (c.fd >= 0) {
    if (!WriteAllTo(c.fd, line)) {
      std::fprintf(stderr, "cwsc: error: cannot write the result to --json-fd %d: %s\n", c.fd,
                   strerror(errno));
    }
    return;
  }
  std::string tmp = absl::StrCat(".", c.name, ".cwsc-", getpid());
  int fd =
      openat(c.dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && WriteAllTo(fd, line);
  int err = errno;
  if (fd >= 0) close(fd);
  if (ok && renameat(c.dir_fd, tmp.c_str(), c.dir_fd, c.name.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    if (fd >= 0) unlinkat(c.dir_fd, tmp.c_str(), 0);
    std::fprintf(stderr, "cwsc: error: cannot write %s: %s\n", c.path.c_str(), strerror(err));
  }
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
void DeliverTo(const ResultChannel& channel) {
  if (JsonReport* report = ActiveReport()) {
    report->SetDelivery([channel](const std::string& line) { WriteResult(channel, line); });
  }
}

// CheckProgram validates the `-- PROGRAM ARGS...` part.
bool CheckProgram(const CommonOptions& o, const char* usage) {
  if (o.program.empty()) {
    PrintError("no program given: put it after --");
    std::fputs(usage, stderr);
    return false;
  }
  if (o.output && !o.json) {
    PrintError("-o FILE needs --json");
    return false;
  }
  if (o.json_fd && !o.json) {
    PrintError("--json-fd N needs --json");
    return false;
  }
  if (o.json && o.output && o.json_fd) {
    PrintError("give -o FILE or --json-fd N, not both");
    return false;
  }
  if (o.json && !o.output && !o.json_fd) {
    PrintError(
        "--json needs -o FILE or --json-fd N: the command's own stderr "
        "cannot carry a result it could forge");
    return false;
  }
  return true;
}

}  // namespace

int CmdRun(const Args& args) {
  absl::StatusOr<CommonOptions> o =
      ParseCommonOptions(args, {"--mode", "--cwd", "--timeout", "--json", "--json-fd", "--policy",
                                "--input", "--escalate", "-o", "--output", "--no-project-config"});
  if (!o.ok()) {
    PrintError(o.status());
    std::fputs(kRunUsage, stderr);
    return kExitUsage;
  }
  if (o->help) {
    std::fputs(kRunUsage, stdout);
    return kExitOk;
  }
  if (o->config.empty()) {
    PrintError("missing CONFIG");
    std::fputs(kRunUsage, stderr);
    return kExitUsage;
  }
  if (!CheckProgram(*o, kRunUsage)) return kExitUsage;
  absl::StatusOr<double> timeout = ParseTimeout(o->timeout);
  if (!timeout.ok()) {
    PrintError(timeout.status());
    return kExitUsage;
  }
  absl::StatusOr<ResultChannel> channel = OpenResultChannel(*o);
  if (!channel.ok()) {
    PrintError(channel.status());
    return kExitUsage;
  }
  DeliverTo(*channel);
  absl::StatusOr<compiler::CompileOptions> copts = ToCompileOptions(*o);
  if (!copts.ok()) {
    PrintError(copts.status());
    return kExitUsage;
  }
  std::unique_ptr<compiler::HostFacts> facts = runtime::MakeRuntimeFacts();
  absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(*copts, facts.get());
  if (!r.ok()) {
    PrintError(r.status());
    return kExitUsage;
  }
  PrintNotes(r->notes);
  std::optional<std::string> startup_mode;
  if (r->merged.sandbox_mode) startup_mode = r->merged.sandbox_mode->value;
  Harden(startup_mode, r->plan.kind == ir::PlanKind::kLauncherBwrap);
  runtime::ExecRequest req;
  req.program = o->program;
  req.timeout_seconds = *timeout;
  return Finish(runtime::ExecutePlan(r->plan, req, facts.get()));
}

int CmdExec(const Args& args) {
  absl::StatusOr<CommonOptions> o =
      ParseCommonOptions(args, {"--timeout", "--json", "--json-fd", "-o", "--output"});
  if (!o.ok()) {
    PrintError(o.status());
    std::fputs(kExecUsage, stderr);
    return kExitUsage;
  }
  if (o->help) {
    std::fputs(kExecUsage, stdout);
    return kExitOk;
  }
  if (o->config.empty()) {
    PrintError("missing PLAN.json");
    std::fputs(kExecUsage, stderr);
    return kExitUsage;
  }
  if (!CheckProgram(*o, kExecUsage)) return kExitUsage;
  absl::StatusOr<double> timeout = ParseTimeout(o->timeout);
  if (!timeout.ok()) {
    PrintError(timeout.status());
    return kExitUsage;
  }
  absl::StatusOr<ResultChannel> channel = OpenResultChannel(*o);
  if (!channel.ok()) {
    PrintError(channel.status());
    return kExitUsage;
  }
  DeliverTo(*channel);
  std::ifstream in(o->config, std::ios::binary);
  if (!in) {
    PrintError(absl::StrCat("cannot read ", o->config));
    return kExitUsage;
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<ir::LaunchPlan> plan = ir::PlanFromJson(text.str(), o->config);
  if (!plan.ok()) {
    PrintError(plan.status());
    return kExitUsage;
  }
  // The startup posture of a plan: danger-full-access decided by a
  // sandbox_mode key counts as the startup mode (docs/behavior.md B-80).
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
  return Finish(runtime::ExecutePlan(*plan, req, facts.get()));
}

}  // namespace cwsc::cli
