// The edit distance behind the did-you-mean of unknown configuration keys.
#ifndef CWSC_COMPILER_EDIT_DISTANCE_H_
#define CWSC_COMPILER_EDIT_DISTANCE_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace cwsc::compiler {

// EditDistance is the optimal-string-alignment distance between `a` and `b`
// (insertions, deletions, substitutions, and a swap of two neighbouring
// characters, each counting once: "sandbox_mdoe" is 1 from "sandbox_mode"),
// or `cap` when it is `cap` or more. Every key of a config that is not a
// sandbox key is measured against every known key on each `cwsc run`, so the
// lengths alone settle most pairs, three rows stand for the matrix, and the
// search stops once two rows in a row reach `cap`.
size_t EditDistance(absl::string_view a, absl::string_view b, size_t cap);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_EDIT_DISTANCE_H_
