// A compile as the front doors run it: the compiler against the given facts,
// then the missing-facts rule (docs/facts.md): a facts file from `cwsc facts
// --for` records every path its compile asked about, so another path means
// the policy changed since, and the compile fails unless unrecorded paths
// are to be treated as missing.
#ifndef CWSC_COMPILER_DRIVER_COMPILE_H_
#define CWSC_COMPILER_DRIVER_COMPILE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/compile.h"
#include "compiler/facts/host_facts.h"

namespace cwsc::driver {

// Who asks about the unrecorded paths: the error says so, and what to do.
enum class FactsAsker {
  kCompile,  // `cwsc compile` and `explain`
  kCheck,    // `cwsc check`, for one mode
  kDiff,     // `cwsc diff`, for one side
  kWhy,      // `cwsc why`
  kLibrary,  // libcwsc's compile (the option is cwsc_options_set_unlisted_as_missing)
};

// MissingFactsMessage is the error of the rule for `unlisted` (not empty):
// the first unrecorded path, how many more, who asked (`mode` for kCheck)
// and how to proceed.
std::string MissingFactsMessage(const std::vector<std::string>& unlisted, FactsAsker asker,
                                const std::string& mode = "");

// FactsRule is what the rule needs to know of the facts: the file they were
// read from (none: live facts, the rule does not apply) and whether
// unrecorded paths count as missing (--unlisted-as-missing).
struct FactsRule {
  std::optional<std::string> facts_file;
  bool unlisted_as_missing = false;
};

// CompileChecked compiles `options` against `facts`, then applies the rule:
// its error is placed at the facts file (`FILE: error: the facts file does
// not record ...`). A compile error is returned as the compiler gave it.
absl::StatusOr<compiler::CompileResult> CompileChecked(const compiler::CompileOptions& options,
                                                       compiler::HostFacts* facts,
                                                       const FactsRule& rule, FactsAsker asker,
                                                       const std::string& mode = "");

// RecordFacts is `cwsc facts` (docs/facts.md): with `options`, the facts
// its compile consults on `live`, a path it did not ask an error when read
// back; without, this host's platform, user, working directory, HOME,
// TMPDIR, bubblewrap and its probe. The facts file's YAML; a compile error
// as the compiler gave it.
absl::StatusOr<std::string> RecordFacts(const std::optional<compiler::CompileOptions>& options,
                                        compiler::HostFacts* live);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_COMPILE_H_
