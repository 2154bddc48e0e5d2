// A library that starts a process, for host_boundary_self_test: the host
// boundary check must reject it in place of a pure layer.
#include <unistd.h>

namespace cwsc::testing {

pid_t StartsAProcess();

pid_t StartsAProcess() { return fork(); }

}  // namespace cwsc::testing
