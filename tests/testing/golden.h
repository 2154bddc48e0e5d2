// One golden-file check for every suite. A golden is the exact expected
// output, kept in the tree; CWSC_UPDATE_GOLDENS=1 is the one switch that
// rewrites them (then review `git diff tests/golden`).
//
//   testing::CheckGolden(testing::SourceRoot() + "/tests/golden/seccomp/x.txt", listing);
//
// Check mode (the default): the golden must exist and equal `actual`.
// Update mode: `actual` is written to the golden and the test reports the
// file it rewrote (changed or not); it compares nothing, since the file now
// holds `actual` by construction.
#ifndef CWSC_TESTS_TESTING_GOLDEN_H_
#define CWSC_TESTS_TESTING_GOLDEN_H_

#include <string>

namespace cwsc::testing {

// UpdatingGoldens: CWSC_UPDATE_GOLDENS is set to "1".
bool UpdatingGoldens();

// CheckGolden checks `actual` against the golden at `path` (see above).
void CheckGolden(const std::string& path, const std::string& actual);

}  // namespace cwsc::testing

#endif  // CWSC_TESTS_TESTING_GOLDEN_H_
