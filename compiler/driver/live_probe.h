// Live probes for `cwsc check --live` (docs/verification.md): each
// expectation becomes a real attempt made by a small shell command that
// `cwsc run` starts under the real sandbox on this host, so the kernel has the
// last word. The result is read on the host side where the sandbox could fool
// the probe (a file created in a private tmpfs never reaches the host).
#ifndef CWSC_COMPILER_DRIVER_LIVE_PROBE_H_
#define CWSC_COMPILER_DRIVER_LIVE_PROBE_H_

#include <string>
#include <vector>

#include "backends/verify/expect_eval.h"

namespace cwsc::driver {

struct LiveResult {
  bool probed = false;  // false: nothing ran (`why` says why)
  bool allowed = false;
  std::string why;  // how the verdict was read, or why there is none
};

// LiveProbe runs `run_argv` (a `cwsc run CONFIG ... --` prefix) with a probe
// for `kind` on `path` appended.
LiveResult LiveProbe(const std::vector<std::string>& run_argv, backends::AccessKind kind,
                     const std::string& path);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_LIVE_PROBE_H_
