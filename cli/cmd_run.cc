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
#include "ir/display.h"
#include "ir/plan_json.h"
#include "runtime/execute.h"
#include "runtime/hardening.h"
#include "runtime/host/probe_cache.h"

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
    std::string shown = ir::Displayable(w);
    if (JsonReport* report = ActiveReport()) report->Add({"warning", "", shown, "", 0, 0});
    std::fprintf(stderr, "cwsc: warning: %s\n", shown.c_str());
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
    ir::Text line;
    line << "cwsc: error: cannot write " << c.path << ": " << strerror(err) << "\n";
    PrintErrText(line);
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

// CheckProgram validates the `-- PROGRAM ARGS...` part and the result
// channel; it returns 0, or the usage exit code after printing the error.
int CheckProgram(const CommonOptions& o, absl::string_view command) {
  if (o.program.empty()) return PrintUsageError(command, "no program given: put it after --");
  if (o.output && !o.json) return PrintUsageError(command, "-o FILE needs --json");
  if (o.json_fd && !o.json) return PrintUsageError(command, "--json-fd N needs --json");
  if (o.json && o.output && o.json_fd) {
    return PrintUsageError(command, "give -o FILE or --json-fd N, not both");
  }
  if (o.json && !o.output && !o.json_fd) {
    return PrintUsageError(command,
                           "--json needs -o FILE or --json-fd N: the command's own stderr "
                           "cannot carry a result it could forge");
  }
  return kExitOk;
}

}  // namespace

int CmdRun(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("run", args, &parse_rc);
  if (!p) return parse_rc;
  CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  if (int rc = DiscoverConfig("run", &options); rc != kExitOk) return rc;
  if (int rc = CheckProgram(*o, "run"); rc != kExitOk) return rc;
  absl::StatusOr<double> timeout = ParseTimeout(o->timeout);
  if (!timeout.ok()) {
    return PrintUsageError("run", timeout.status().message());
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
  for (const ir::Diagnostic& n : SettingNotes(r->plan)) PrintSettingNote(n);
  std::optional<std::string> startup_mode;
  if (r->merged.sandbox_mode) startup_mode = r->merged.sandbox_mode->value;
  Harden(startup_mode, r->plan.kind == ir::PlanKind::kLauncherBwrap);
  runtime::ExecRequest req;
  req.program = o->program;
  req.timeout_seconds = *timeout;
  req.require_sandbox = o->require_sandbox;
  return Finish(runtime::ExecutePlan(r->plan, req, facts.get()));
}

int CmdExec(const Args& args) {
  int parse_rc = kExitOk;
  std::optional<ParsedArgs> p = ParseOrExit("exec", args, &parse_rc);
  if (!p) return parse_rc;
  const CommonOptions options = CommonOptionsOf(*p);
  const CommonOptions* o = &options;
  if (o->config.empty()) return PrintUsageError("exec", "missing PLAN.json");
  if (int rc = CheckProgram(*o, "exec"); rc != kExitOk) return rc;
  absl::StatusOr<double> timeout = ParseTimeout(o->timeout);
  if (!timeout.ok()) {
    return PrintUsageError("exec", timeout.status().message());
  }
  absl::StatusOr<ResultChannel> channel = OpenResultChannel(*o);
  if (!channel.ok()) {
    PrintError(channel.status());
    return kExitUsage;
  }
  DeliverTo(*channel);
  absl::StatusOr<std::string> text;
  if (o->config == "-") {
    text = ReadInput("-");
    if (!text.ok()) {
      PrintError(text.status());
      return kExitUsage;
    }
  } else {
    std::ifstream in(o->config, std::ios::binary);
    if (!in) {
      PrintError(absl::StrCat("cannot read ", o->config));
      return kExitUsage;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  absl::StatusOr<ir::LaunchPlan> plan = ir::PlanFromJson(*text, InputName(o->config));
  if (!plan.ok()) {
    PrintError(plan.status());
    return kExitUsage;
  }
  // The startup posture of a plan: danger-full-access decided by a
  // sandbox_mode key counts as the startup mode (docs/behavior.md B-80).
  std::optional<std::string> startup_mode;
  if (plan->policy.type == ir::PolicyType::kDangerFullAccess &&
      absl::StrContains(plan->policy.origin.detail.str(), "sandbox_mode")) {
    startup_mode = "danger-full-access";
  }
  Harden(startup_mode, plan->kind == ir::PlanKind::kLauncherBwrap);
  std::unique_ptr<compiler::HostFacts> facts = runtime::MakeRuntimeFacts();
  runtime::ExecRequest req;
  req.program = o->program;
  req.timeout_seconds = *timeout;
  req.require_sandbox = o->require_sandbox;
  return Finish(runtime::ExecutePlan(*plan, req, facts.get()));
}

}  // namespace cwsc::cli
