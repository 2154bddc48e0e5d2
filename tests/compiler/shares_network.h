// SharesNetwork says whether a plan's emitted bwrap argv keeps the host
// network (`--share-net`): false for a plan that does not use bubblewrap.
#ifndef CWSC_TESTS_COMPILER_SHARES_NETWORK_H_
#define CWSC_TESTS_COMPILER_SHARES_NETWORK_H_

#include "backends/bwrap.h"
#include "ir/plan.h"

namespace cwsc::testing {

inline bool SharesNetwork(const ir::LaunchPlan& plan) {
  absl::StatusOr<backends::EmittedArgv> argv = backends::EmitBwrapArgv(plan, {});
  if (!argv.ok()) return false;
  for (const backends::EmittedArg& a : *argv) {
    if (a.text == "--share-net") return true;
  }
  return false;
}

}  // namespace cwsc::testing

#endif  // CWSC_TESTS_COMPILER_SHARES_NETWORK_H_
