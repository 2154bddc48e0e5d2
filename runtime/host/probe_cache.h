// MakeRuntimeFacts returns live host facts whose bubblewrap probe verdict is
// cached between cwsc processes of the same user, so `cwsc run` does not pay
// for a second bwrap start on every launch. Only a passing probe is cached,
// for at most one hour, and only while everything that decides the probe's
// outcome is unchanged: boot id, kernel release, uid/gid, the user and mount
// namespaces, /usr/bin/bwrap's identity (device, inode, size, mtime, mode)
// and the user-namespace sysctls. A wrong "ok" fails closed: bwrap then
// reports its own error and nothing runs unsandboxed. CWSC_PROBE_CACHE=0
// disables the cache. The file lives in $XDG_RUNTIME_DIR/cwsc (or
// /tmp/cwsc-<uid>), a 0700 directory owned by the user; anything else is
// not trusted and the probe simply runs.
//
//   std::unique_ptr<compiler::HostFacts> facts = MakeRuntimeFacts();
//   facts->BwrapProbe();   // cached verdict or a real probe
#ifndef CWSC_RUNTIME_HOST_PROBE_CACHE_H_
#define CWSC_RUNTIME_HOST_PROBE_CACHE_H_

#include <memory>
#include <optional>
#include <string>

#include "compiler/facts/host_facts.h"

namespace cwsc::runtime {

std::unique_ptr<compiler::HostFacts> MakeRuntimeFacts();

// ProbeCacheKey describes the host state a probe verdict depends on.
std::string ProbeCacheKey();

// ProbeCacheFile is the cache file path, or nullopt when no trusted
// directory is available.
std::optional<std::string> ProbeCacheFile();

// ForgetProbeVerdict removes the cached verdict (after bwrap failed to set
// up a sandbox despite it).
void ForgetProbeVerdict();

// The gate hint: how long the last bwrap sandbox of this user took from
// bwrap's report of its pid to cwsc's mount gate (runtime/mount_check.h),
// that is, to make its mounts. Kept beside the probe verdict (`gate-time`),
// so that a new cwsc process's first launch waits about that long before
// it looks, instead of looking at once and every 50-200 us. A hint only:
// a wrong or planted value costs one launch some time, never a check.
// ReadGateHint returns 0 when there is none (the cache disabled or
// untrusted, no file, not a regular file, not a number of microseconds in
// 1..kGateHintMaxUs).
inline constexpr long kGateHintMaxUs = 50000;
double ReadGateHint();
// WriteGateHint keeps `seconds` as the hint, unless the hint this launch
// started from (`kept_seconds`, 0 for none) is within an eighth of it.
void WriteGateHint(double seconds, double kept_seconds = 0);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_HOST_PROBE_CACHE_H_
