// RunCaptured runs a short helper program for a probe (the bwrap probe, the
// launcher's `id` and wrapped `/bin/true`): a cleared environment, stdin on
// /dev/null, cwd "/", its own process group, stdout and stderr captured (at
// most 64 KiB each), and killed with its group after a 10 s deadline.
#ifndef CWSC_RUNTIME_HOST_RUN_CAPTURED_H_
#define CWSC_RUNTIME_HOST_RUN_CAPTURED_H_

#include <string>
#include <vector>

namespace cwsc::runtime {

struct Captured {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;    // -1 when killed or not started
  std::string out, err;  // stdout, stderr (each at most 64 KiB)
  std::string spawn_error;
};

Captured RunCaptured(const std::vector<std::string>& argv);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_HOST_RUN_CAPTURED_H_
