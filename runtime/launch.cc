#include "runtime/launch.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/bwrap.h"
#include "backends/seccomp_filter.h"
#include "ir/constants.h"
#include "runtime/foreground.h"
#include "runtime/host/probe_cache.h"

namespace cwsc::runtime {
namespace {

using ir::LaunchPlan;

// RequireSandboxRefusal: a `none` plan whose policy asks for a sandbox,
// under --require-sandbox.
std::string RequireSandboxRefusal(const LaunchPlan& plan) {
  std::string cause;
  for (const ir::Skipped& s : plan.skipped) {
    if (s.kind != ir::SkipKind::kLocalWrapper) continue;
    cause =
        absl::StrCat(" (", s.path.empty() ? s.reason : absl::StrCat(s.path, ": ", s.reason), ")");
  }
  return absl::StrCat(
      "the plan runs the command unconfined although the policy is ",
      ir::PolicyTypeName(plan.policy.type), cause,
      ", and --require-sandbox forbids that; compile the plan where a sandbox wrapper works "
      "(`cwsc doctor` names the cause and its fix), or leave out --require-sandbox to run it "
      "unconfined with a warning");
}

// SealedFilterFd emits the plan's seccomp program into a sealed anonymous
// file, positioned at 0 (bwrap reads from the current offset), numbered
// above the descriptors the child will use.
absl::StatusOr<int> SealedFilterFd(const ir::SyscallFilter& filter) {
  absl::StatusOr<std::string> bpf = backends::EmitSeccompBpf(filter);
  if (!bpf.ok()) return bpf.status();
  int fd = memfd_create("cwsc-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return absl::InternalError(absl::StrCat("memfd_create: ", strerror(errno)));
  size_t done = 0;
  while (done < bpf->size()) {
    ssize_t n = write(fd, bpf->data() + done, bpf->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      return absl::InternalError(absl::StrCat("writing the seccomp program: ", strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  lseek(fd, 0, SEEK_SET);
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 64);
  close(fd);
  if (high < 0) return absl::InternalError(absl::StrCat("fcntl: ", strerror(errno)));
  return high;
}

}  // namespace

std::unique_ptr<LocalLaunch> LocalLaunch::Prepare(const LaunchPlan& plan,
                                                  const LaunchOptions& options,
                                                  compiler::HostFacts* facts,
                                                  LaunchRefusal* refusal) {
  auto refuse = [&](std::string reason, int code = kExitRefused) {
    refusal->reason = std::move(reason);
    refusal->exit_code = code;
    return nullptr;
  };
  const bool unconfined = std::holds_alternative<ir::Unconfined>(plan.launch);
  if (options.require_sandbox && unconfined && plan.policy.ShouldSandbox()) {
    return refuse(RequireSandboxRefusal(plan), kExitNoSandbox);
  }
  std::unique_ptr<LocalLaunch> launch(new LocalLaunch(plan));
  absl::StatusOr<PreparedCommand> cmd = PrepareCommand(plan, options.program, options.parent_env);
  if (!cmd.ok()) {
    return refuse(std::string(cmd.status().message()),
                  RefusedForWantOfASandbox(plan) ? kExitNoSandbox : kExitRefused);
  }
  launch->cmd_ = *std::move(cmd);
  PreparedCommand& c = launch->cmd_;
  // Protected directories are held before anything is checked: another
  // run's placeholder that this plan saw as a directory cannot be removed
  // under it any more, and one removed since the compile is made again
  // (runtime/protected_dirs.h). Removed when the run is over: a run leaves
  // no directory in a root.
  const ir::Bwrap* bwrap = plan.bwrap();
  // bwrap that cwsc starts itself, not through a launcher (which closes
  // inherited descriptors and runs as another user).
  const bool direct_bwrap = bwrap != nullptr && bwrap->launcher.empty();
  if (bwrap) launch->protected_dirs_.emplace(plan);
  absl::Status check = RecheckPlan(plan, facts);
  if (!check.ok()) return refuse(std::string(check.message()));
  // bwrap binds what cwsc opened and checked, not what a path names later
  // (runtime/bind_fds.h). A launcher (sudo) closes inherited descriptors:
  // its plans keep paths (docs/runtime.md, "Threat model").
  if (direct_bwrap) {
    absl::StatusOr<BindSources> opened = OpenBindSources(plan, *facts);
    if (!opened.ok()) return refuse(std::string(opened.status().message()));
    launch->binds_.emplace(std::move(*opened));
    absl::StatusOr<backends::EmittedArgv> argv =
        backends::EmitBwrapArgv(plan, options.program, launch->binds_->fds());
    if (!argv.ok()) return refuse(std::string(argv.status().message()));
    c.argv = backends::Texts(*argv);
  }
  // At a terminal, Ctrl-C must reach the command and not end bwrap first.
  if (direct_bwrap && options.foreground_shim) {
    std::string why = AddForegroundShim(&c.argv);
    if (!why.empty()) {
      c.warnings.push_back(absl::StrCat(
          "Ctrl-C will end the sandbox before the command can handle it (no foreground shim: ", why,
          ")"));
    }
  }
  // A bwrap sandbox waits at a gate after its mounts until cwsc has checked
  // them (runtime/mount_check.h): bwrap 0.8 mounts a descriptor's path.
  SpawnRequest& spawn = launch->spawn_;
  if (direct_bwrap) {
    absl::StatusOr<MountGate> g = MountGate::Open();
    if (!g.ok()) return refuse(std::string(g.status().message()));
    launch->gate_.emplace(std::move(*g));
    std::vector<std::string> args = launch->gate_->BwrapArgs();
    c.argv.insert(c.argv.begin() + 1, args.begin(), args.end());
  }
  spawn.argv = c.argv;
  spawn.env = c.env;
  spawn.cwd = c.cwd;
  spawn.timeout_seconds = options.timeout_seconds;
  spawn.kill_grace_seconds = options.kill_grace_seconds;
  spawn.spare_direct_child = direct_bwrap;
  LocalLaunch* self = launch.get();
  if (bwrap) {
    spawn.stderr_sink = [self](std::string_view s) { self->scanner_.Feed(s); };
  }
  for (int fd : launch->binds_ ? launch->binds_->fds() : std::vector<int>{}) {
    if (fd >= 0) spawn.inherit_fds.push_back({fd, fd});
  }
  if (launch->gate_) {
    for (const auto& fds : launch->gate_->ChildFds()) spawn.inherit_fds.push_back(fds);
    spawn.after_start = [self](int) {
      absl::Status s = self->gate_->Release(self->plan_);
      if (!s.ok()) self->gate_refusal_ = std::string(s.message());
      return s.ok();
    };
  }
  // The seccomp program travels to bwrap on its own descriptor, sealed.
  if (direct_bwrap && bwrap->syscall_filter) {
    absl::StatusOr<int> fd = SealedFilterFd(*bwrap->syscall_filter);
    if (!fd.ok()) return refuse(std::string(fd.status().message()));
    launch->filter_fd_ = *fd;
    spawn.inherit_fds.push_back({*fd, backends::kSeccompFd});
  }
  // A linux-landlock plan: the ruleset built here, applied by the child
  // with the seccomp program just before exec.
  if (const auto* landlock = std::get_if<ir::LandlockLaunch>(&plan.launch)) {
    absl::StatusOr<LandlockRuleset> rs = BuildLandlockRuleset(landlock->ruleset);
    if (!rs.ok()) return refuse(std::string(rs.status().message()));
    launch->ruleset_.emplace(std::move(*rs));
    absl::StatusOr<std::string> bpf = backends::EmitSeccompBpf(landlock->syscall_filter);
    if (!bpf.ok()) return refuse(std::string(bpf.status().message()));
    launch->landlock_bpf_ = *std::move(bpf);
    launch->landlock_prog_.len =
        static_cast<unsigned short>(launch->landlock_bpf_.size() / sizeof(sock_filter));
    launch->landlock_prog_.filter = reinterpret_cast<sock_filter*>(launch->landlock_bpf_.data());
    spawn.confine.enabled = true;
    spawn.confine.landlock_fd = launch->ruleset_->fd();
    spawn.confine.seccomp_program = &launch->landlock_prog_;
  }
  return launch;
}

void LocalLaunch::EndHolds() {
  protected_dirs_.reset();
  if (filter_fd_ >= 0) close(filter_fd_);
  filter_fd_ = -1;
}

LocalLaunch::~LocalLaunch() { EndHolds(); }

ExecOutcome LocalLaunch::SpawnFailed(const absl::Status& status, const SpawnError& error) const {
  ExecOutcome out;
  out.sandbox_kind = cmd_.sandbox_kind;
  out.error = std::string(status.message());
  if (error.exec_errno != 0 && std::holds_alternative<ir::Unconfined>(plan_.launch)) {
    out.cwsc_exit_code = ExitCodeForExecErrno(error.exec_errno);
  } else {
    out.cwsc_exit_code = kExitRefused;  // the wrapper itself could not start
  }
  return out;
}

ExecOutcome LocalLaunch::Finish(const SpawnResult& r) const {
  ExecOutcome out;
  out.sandbox_kind = cmd_.sandbox_kind;
  if (!gate_refusal_.empty()) {  // killed at the gate: nothing ran
    out.refusal = gate_refusal_;
    out.cwsc_exit_code = kExitRefused;
    return out;
  }
  out.ran = true;
  out.exit_code = r.exit_code;
  out.signal = r.signal;
  out.timed_out = r.timed_out;
  out.cwsc_exit_code = r.timed_out ? kExitTimedOut : r.exit_code;
  if (r.timed_out || !plan_.bwrap()) return out;
  Denial d = AttributeDenial(out.sandbox_kind, r.exit_code, scanner_.Summary());
  if (d.exec_exit != 0) {  // the program could not be started inside the sandbox
    out.ran = false;
    out.error = d.exec_message;
    out.cwsc_exit_code = d.exec_exit;
    return out;
  }
  out.sandbox_denied = d.denied;
  out.denial_message = d.message;
  // bwrap itself failed: a cached probe verdict must not be trusted again.
  if (d.denied && absl::StartsWith(d.message, "Bubblewrap could not create")) {
    ForgetProbeVerdict();
  }
  return out;
}

// ---- SpawnPlan -----------------------------------------------------------------

absl::StatusOr<std::unique_ptr<PlanChild>> SpawnPlan(const LaunchPlan& plan,
                                                     const PlanSpawnOptions& options,
                                                     compiler::HostFacts* facts,
                                                     ExecOutcome* not_run) {
  *not_run = ExecOutcome();
  not_run->sandbox_kind = ir::PlanKindName(plan.kind());
  auto fail = [&](std::string reason, int code) {
    not_run->refusal = reason;
    not_run->cwsc_exit_code = code;
    return absl::FailedPreconditionError(reason);
  };
  if (plan.remote()) {
    return fail(
        "opensandbox plans run on a remote OpenSandbox server: `cwsc run` sends them there; "
        "cwsc_spawn starts local plans only",
        kExitRefused);
  }
  LaunchOptions launch_options;
  launch_options.program = options.program;
  launch_options.parent_env = options.env;
  launch_options.require_sandbox = options.require_sandbox;
  launch_options.timeout_seconds = options.timeout_seconds;
  launch_options.kill_grace_seconds = options.kill_grace_seconds;
  LaunchRefusal refusal;
  std::unique_ptr<PlanChild> child(new PlanChild());
  child->launch_ = LocalLaunch::Prepare(plan, launch_options, facts, &refusal);
  if (!child->launch_) return fail(refusal.reason, refusal.exit_code);
  LocalLaunch& launch = *child->launch_;
  SpawnError err;
  absl::StatusOr<std::unique_ptr<StartedChild>> started =
      StartChild(launch.request(), options.stdio, &err);
  if (!started.ok()) {
    *not_run = launch.SpawnFailed(started.status(), err);
    return absl::FailedPreconditionError(not_run->error);
  }
  child->child_ = *std::move(started);
  if (launch.request().after_start && !launch.request().after_start(child->child_->pid())) {
    child->child_->Kill();
  }
  child->outcome_.sandbox_kind = launch.sandbox_kind();
  child->outcome_.warnings = launch.warnings();
  return child;
}

bool PlanChild::Wait(int timeout_ms) {
  if (!child_->Wait(timeout_ms)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  if (!finished_) {
    launch_->EndHolds();
    std::vector<std::string> warnings = std::move(outcome_.warnings);
    outcome_ = launch_->Finish(child_->result());
    outcome_.warnings = std::move(warnings);
    finished_ = true;
  }
  return true;
}

PlanChild::~PlanChild() {
  child_.reset();  // ends the group when it still runs
  launch_.reset();
}

}  // namespace cwsc::runtime
