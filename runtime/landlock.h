// The runtime half of a linux-landlock plan (docs/runtime.md, "The Landlock
// backend"): the ruleset is built in cwsc (landlock_create_ruleset and
// landlock_add_rule through syscall(2)), handed to the child as a
// descriptor, and the child applies it with no_new_privs, its capabilities
// dropped, and the seccomp program, just before exec (runtime/host/spawn.h,
// SpawnRequest::confine).
//
//   absl::StatusOr<LandlockRuleset> rs = BuildLandlockRuleset(*plan.landlock());
//   spawn.confine.landlock_fd = rs->fd();
#ifndef CWSC_RUNTIME_LANDLOCK_H_
#define CWSC_RUNTIME_LANDLOCK_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/plan.h"

namespace cwsc::runtime {

// HostLandlockAbi: the running kernel's Landlock ABI version; 0 when the
// kernel has no Landlock (or it is disabled).
int HostLandlockAbi();

// LandlockRuleset owns a ruleset descriptor (close-on-exec).
class LandlockRuleset {
 public:
  explicit LandlockRuleset(int fd) : fd_(fd) {}
  LandlockRuleset(LandlockRuleset&& o) noexcept : rules_added(o.rules_added), fd_(o.fd_) {
    o.fd_ = -1;
  }
  LandlockRuleset& operator=(LandlockRuleset&&) = delete;
  ~LandlockRuleset();
  int fd() const { return fd_; }
  int rules_added = 0;  // path-beneath rules the kernel accepted

 private:
  int fd_ = -1;
};

// BuildLandlockRuleset makes the ruleset of `ll`: it handles exactly the
// plan's rights (so a plan made for a newer ABI fails here, closed), then
// adds each rule; an `except_names` rule is expanded into one rule per entry
// of its directory, read now. A rule whose path is missing is left out.
// Paths are opened following no symlink: a rule reached through one is
// refused when it grants more than reading, and left out otherwise.
// FailedPrecondition names the rule or the ABI that did not fit.
absl::StatusOr<LandlockRuleset> BuildLandlockRuleset(const ir::Landlock& ll);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_LANDLOCK_H_
