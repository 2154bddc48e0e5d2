// The Landlock backend's review form: a linux-landlock plan's ruleset as
// text, one line per rule with its origin (`cwsc compile --target
// landlock`). The runtime builds the ruleset itself (runtime/landlock.h).
//
//   std::string text = EmitLandlockListing(*plan.landlock());
//   // "allow execute|read_file|read_dir beneath every entry of / except dev, home  # ..."
#ifndef CWSC_BACKENDS_LANDLOCK_H_
#define CWSC_BACKENDS_LANDLOCK_H_

#include <string>

#include "ir/plan.h"

namespace cwsc::backends {

std::string EmitLandlockListing(const ir::Landlock& ll);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_LANDLOCK_H_
