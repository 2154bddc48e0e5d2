// The sandbox's mount table, checked before its command starts. bubblewrap
// 0.8 turns each `--bind-fd` descriptor back into a path, mounts that path,
// and checks the descriptor against the destination afterwards: a command
// in another sandbox that swaps an ancestor of a bind source for a symlink
// at the right moments gets a writable mount of a directory outside placed
// where the symlink led, and the check passes (docs/runtime.md, "Threat
// model"). So the runtime has bwrap stop after its mounts (`--block-fd`),
// reads the sandbox's /proc/PID/mountinfo, and lets the command start only
// when every writable mount is one the plan made, where the plan put it.
//
//   absl::Status s = CheckSandboxMounts(plan, mountinfo_text);
#ifndef CWSC_RUNTIME_MOUNT_CHECK_H_
#define CWSC_RUNTIME_MOUNT_CHECK_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/plan.h"

namespace cwsc::runtime {

// CheckSandboxMounts: OK when, in `mountinfo` (proc(5) format, as the
// sandbox sees its mounts), every mount that is writable is at a
// destination of the plan, or below one of its writable binds or its /dev,
// and every writable bind of the plan is a mount point. FailedPrecondition
// naming the first mount that is not, otherwise.
absl::Status CheckSandboxMounts(const ir::LaunchPlan& plan, absl::string_view mountinfo);

// UnescapeMountPath undoes mountinfo's octal escapes (\040 for a space,
// \011, \012, \134).
std::string UnescapeMountPath(absl::string_view field);

// GateSchedule: when MountGate::Release looks whether the sandbox has
// reached the gate. Each look costs a wake-up and a read of
// /proc/PID/syscall, so the first waits for 80% of `shortest`, the shortest
// time this process's recent sandboxes took to reach it (a process's first
// launch, as every `cwsc run`'s, takes the time the user's last sandbox
// took, kept by runtime/host/probe_cache.h's gate hint); then it looks
// every 100 us, every 200 us after 20 looks. Without either (`shortest`
// 0): at once, then after 50, 100 and every 200 us.
struct GateSchedule {
  explicit GateSchedule(double shortest_seconds);
  long first_wait_us = 0;
  // The pause after look number `looks` (1-based).
  long PauseAfter(int looks) const;
  bool learned = false;
};

// GateMetrics: what the last Release of this process did (tests, bench/).
struct GateMetrics {
  double shortest_seconds = 0;   // what its schedule started from
  long first_wait_us = 0;        // the first pause the schedule chose
  long first_look_after_us = 0;  // observed: from the start of the wait to the first look
  int looks = 0;                 // reads of /proc/PID/syscall
  bool from_hint = false;        // `shortest_seconds` came from the gate hint
};
GateMetrics LastGateMetrics();
// ForgetRecentGateTimes: the next launch is this process's first again (tests).
void ForgetRecentGateTimes();
// RecentGateShortest: the shortest time to the gate of this process's last
// eight sandboxes (seconds), the next schedule's start; 0 before any.
double RecentGateShortest();

// MountGate holds a bwrap run at its gate: bwrap is given `--info-fd` (it
// writes the sandbox's pid there) and `--block-fd` (its sandbox reads one
// byte from it after every mount, before the working directory and the
// command). Release waits until the sandbox is blocked there, checks its
// mount table, and writes the byte only when the check holds.
//
//   absl::StatusOr<MountGate> gate = MountGate::Open();
//   argv.insert(argv.begin() + 1, gate->BwrapArgs()...);   // and ChildFds()
//   ... spawn bwrap ...
//   absl::Status s = gate->Release(plan);   // not OK: kill the sandbox
class MountGate {
 public:
  static absl::StatusOr<MountGate> Open();
  MountGate(MountGate&& other) noexcept;
  MountGate& operator=(MountGate&&) = delete;
  MountGate(const MountGate&) = delete;
  ~MountGate();

  std::vector<std::string> BwrapArgs() const;
  // {descriptor here, number in bwrap}: the two ends bwrap gets.
  std::vector<std::pair<int, int>> ChildFds() const;
  // Release: after bwrap has started. OK too when bwrap ended before its
  // sandbox reached the gate (its own error says why; nothing ran).
  absl::Status Release(const ir::LaunchPlan& plan);

 private:
  MountGate() = default;
  int info_r_ = -1, info_w_ = -1;    // bwrap writes info_w_
  int block_r_ = -1, block_w_ = -1;  // bwrap's sandbox reads block_r_
};

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_MOUNT_CHECK_H_
