// What `cwsc compile` writes for a target and `--format` (docs/cli.md,
// "Targets and formats"): which forms a target takes, and the bytes of the
// chosen one, with what the printed artifact needs besides itself. The
// result is a value; cli/cmd_compile.cc writes it.
#ifndef CWSC_COMPILER_DRIVER_FORMAT_H_
#define CWSC_COMPILER_DRIVER_FORMAT_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "compiler/driver/emit.h"
#include "ir/plan.h"

namespace cwsc::driver {

// CheckFormat says, before any compile, why `--format FORMAT` cannot go with
// `--target TARGET` (a target that prints no argv takes none; an unknown
// form), or OK.
absl::Status CheckFormat(const std::string& target, const std::optional<std::string>& format);

// Written is what compile writes on stdout: `output`, then `note` on stderr
// (what the argv needs besides itself: the environment and the seccomp
// program on its descriptor), or why there is nothing to write.
struct Written {
  std::string output;
  std::string note;
  EmitFailure failure = EmitFailure::kNone;  // kInput (exit 2) or kNotApplicable (exit 4)
  absl::Status status;
};

// WriteArtifact renders `art`, emitted from `plan` for the option
// `--target TARGET`, in `format` (checked by CheckFormat; none: the plan
// kind's form, a Seatbelt argv as one shell line). JSON is terminal safe
// (ir/display.h); `version` goes into a launch script's header.
Written WriteArtifact(const ir::LaunchPlan& plan, const Artifact& art, const std::string& target,
                      const std::optional<std::string>& format, absl::string_view version);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_FORMAT_H_
