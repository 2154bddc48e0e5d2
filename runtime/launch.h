// One run of a local plan (linux-bwrap, launcher+bwrap, linux-landlock,
// none), from its exec-time checks to its child's end. `cwsc run` and
// `cwsc exec` (ExecutePlan, runtime/execute.h) and libcwsc's cwsc_spawn
// (SpawnPlan below) both go through LocalLaunch, so an embedding program
// gets every check and hardening of `cwsc run` (docs/embedding.md).
//
//   LaunchRefusal refusal;
//   auto launch = LocalLaunch::Prepare(plan, {.program = {"make"}}, facts, &refusal);
//   if (!launch) return refusal.reason;          // nothing ran
//   SpawnAndWait(launch->request())  ...  launch->Finish(result)
#ifndef CWSC_RUNTIME_LAUNCH_H_
#define CWSC_RUNTIME_LAUNCH_H_

#include <linux/filter.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "compiler/facts/host_facts.h"
#include "ir/plan.h"
#include "runtime/attribution.h"
#include "runtime/bind_fds.h"
#include "runtime/execute.h"
#include "runtime/host/spawn.h"
#include "runtime/landlock.h"
#include "runtime/mount_check.h"
#include "runtime/protected_dirs.h"

namespace cwsc::runtime {

// LaunchRefusal is why nothing ran, and what `cwsc run` exits with for it.
struct LaunchRefusal {
  std::string reason;
  int exit_code = kExitRefused;
};

struct LaunchOptions {
  std::vector<std::string> program;     // PROGRAM ARGS...
  std::vector<std::string> parent_env;  // NAME=VALUE, filtered by the plan's allow-list
  bool require_sandbox = false;         // --require-sandbox
  // At a terminal: the command runs through the foreground shim, so Ctrl-C
  // reaches it and not bwrap first (runtime/foreground.h).
  bool foreground_shim = false;
  double timeout_seconds = 0;  // 0: none
  double kill_grace_seconds = 2;
};

// LocalLaunch holds what the child needs and what must stay held while it
// runs: the protected directories' locks, the opened bind sources, the
// mount gate, the sealed seccomp program, the Landlock ruleset. The plan
// must outlive it.
class LocalLaunch {
 public:
  // Prepare runs the exec-time checks (RecheckPlan and the descriptor
  // checks) and readies the child; nullptr with `refusal` set when the plan
  // may not run (nothing ran). Only local kinds: opensandbox plans are run
  // by ExecuteRemote.
  static std::unique_ptr<LocalLaunch> Prepare(const ir::LaunchPlan& plan,
                                              const LaunchOptions& options,
                                              compiler::HostFacts* facts, LaunchRefusal* refusal);
  LocalLaunch(const LocalLaunch&) = delete;
  LocalLaunch& operator=(const LocalLaunch&) = delete;
  ~LocalLaunch();

  // What to spawn: SpawnAndWait, or StartChild and then after_start.
  const SpawnRequest& request() const { return spawn_; }
  // Warnings for the person running the command (unconfined run, no
  // foreground shim, the Landlock fallback).
  const std::vector<std::string>& warnings() const { return cmd_.warnings; }
  const std::string& sandbox_kind() const { return cmd_.sandbox_kind; }

  // EndHolds lets go of the protected directories and the seccomp
  // descriptor once the child has ended.
  void EndHolds();

  // SpawnFailed is the outcome when the child could not be started.
  ExecOutcome SpawnFailed(const absl::Status& status, const SpawnError& error) const;
  // Finish is the outcome of a child that ran: the gate's refusal (killed
  // at the gate: nothing ran), the timeout, or the sandbox's denial
  // attributed from bwrap's stderr and status.
  ExecOutcome Finish(const SpawnResult& result) const;

 private:
  explicit LocalLaunch(const ir::LaunchPlan& plan) : plan_(plan) {}

  const ir::LaunchPlan& plan_;
  PreparedCommand cmd_;
  std::optional<ProtectedDirs> protected_dirs_;
  std::optional<BindSources> binds_;
  std::optional<MountGate> gate_;
  int filter_fd_ = -1;
  std::optional<LandlockRuleset> ruleset_;
  std::string landlock_bpf_;
  sock_fprog landlock_prog_{};
  SpawnRequest spawn_;
  StderrScanner scanner_;
  std::string gate_refusal_;
};

// ---- libcwsc: a plan's command started without waiting ----------------------

struct PlanSpawnOptions {
  std::vector<std::string> program;
  std::vector<std::string> env;  // the engine's choice; filtered by the plan's allow-list
  ChildStdio stdio;              // -1: /dev/null
  double timeout_seconds = 0;
  double kill_grace_seconds = 2;
  bool require_sandbox = false;
};

// PlanChild is a plan's command started by SpawnPlan: the launch's holds
// and the child, until it has ended. Destroying it ends the child's group
// while it runs. Wait, Signal and Kill may be called from several threads.
class PlanChild {
 public:
  pid_t pid() const { return child_->pid(); }
  int pidfd() const { return child_->pidfd(); }
  // Wait: as StartedChild::Wait; once it is true, outcome() is final.
  bool Wait(int timeout_ms);
  void Signal(int sig) { child_->Signal(sig); }
  void Kill() { child_->Kill(); }
  const ExecOutcome& outcome() const { return outcome_; }
  ~PlanChild();

 private:
  friend absl::StatusOr<std::unique_ptr<PlanChild>> SpawnPlan(const ir::LaunchPlan&,
                                                              const PlanSpawnOptions&,
                                                              compiler::HostFacts*, ExecOutcome*);
  PlanChild() = default;
  std::unique_ptr<LocalLaunch> launch_;
  std::unique_ptr<StartedChild> child_;
  std::mutex mu_;
  bool finished_ = false;
  ExecOutcome outcome_;
};

// SpawnPlan checks and starts a plan's command and returns at once. When
// nothing ran (a refused plan, a failed check, a program that cannot be
// started, an opensandbox or macOS plan) it returns FailedPrecondition with
// the reason, and `*not_run` says the rest (the exit code `cwsc run` would
// give). Nothing is printed; warnings come back in outcome().warnings.
absl::StatusOr<std::unique_ptr<PlanChild>> SpawnPlan(const ir::LaunchPlan& plan,
                                                     const PlanSpawnOptions& options,
                                                     compiler::HostFacts* facts,
                                                     ExecOutcome* not_run);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_LAUNCH_H_
