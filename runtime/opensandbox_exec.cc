// ExecuteRemote: the runtime's entry for opensandbox plans (see opensandbox.h).
#include <signal.h>

#include <atomic>
#include <cmath>
#include <cstdio>

#include "ir/display.h"
#include "runtime/opensandbox.h"

namespace cwsc::runtime {
namespace {

std::atomic<bool> g_interrupt{false};
std::atomic<int> g_signal{0};

void OnSignal(int sig) {
  g_signal.store(sig);
  g_interrupt.store(true);
}

// SignalGuard turns SIGINT/SIGTERM/SIGHUP into g_interrupt while it lives.
class SignalGuard {
 public:
  SignalGuard() {
    g_interrupt.store(false);
    g_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~SignalGuard() {
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction old_[3];
};

}  // namespace

ExecOutcome ExecuteRemote(const ir::LaunchPlan& plan, const ExecRequest& request) {
  ExecOutcome out;
  out.sandbox_kind = ir::PlanKindName(plan.kind());
  if (plan.remote()) out.not_enforced = plan.remote()->not_enforced;
  auto fail = [&](const std::string& message, bool ran) {
    out.error = message;
    out.ran = ran;
    out.cwsc_exit_code = kExitRefused;
    std::fprintf(stderr, "cwsc: %s\n", ir::Displayable(message).c_str());
    return out;
  };
  if (!plan.remote()) return fail("the opensandbox plan has no remote endpoint", false);
  absl::StatusOr<std::optional<std::string>> key = ReadApiKey(plan.remote()->api_key);
  if (!key.ok()) return fail(std::string(key.status().message()), false);

  SignalGuard guard;
  RemoteRun run;
  run.plan = &plan;
  run.api_key = *key;
  run.program = request.program;
  if (request.timeout_seconds > 0) {
    run.timeout_ms = static_cast<int64_t>(std::ceil(request.timeout_seconds * 1000));
  }
  run.interrupt = &g_interrupt;
  std::fflush(stdout);
  std::fflush(stderr);
  absl::StatusOr<RemoteOutcome> r = RunRemote(run);
  if (!r.ok()) return fail(std::string(r.status().message()), false);
  out.ran = true;
  out.exit_code = r->exit_code;
  out.timed_out = r->timed_out;
  out.cwsc_exit_code = r->exit_code;
  if (r->timed_out) {
    std::fprintf(stderr, "cwsc: timed out after %g s; the remote command was interrupted\n",
                 request.timeout_seconds);
    out.cwsc_exit_code = kExitTimedOut;
  } else if (r->interrupted) {
    // As a local run ended by the same signal: 128+N (130 for SIGINT).
    int sig = g_signal.load() != 0 ? g_signal.load() : SIGINT;
    std::fprintf(stderr, "cwsc: interrupted; the remote command was interrupted\n");
    out.signal = sig;
    out.exit_code = 128 + sig;
    out.cwsc_exit_code = 128 + sig;
  }
  return out;
}

}  // namespace cwsc::runtime
