// Target dispatch (docs/cli.md, "Targets and formats"): which backend emits
// what a plan becomes for `--target` (auto: the plan kind's own), as the
// value `cwsc compile` and `cwsc explain` write out: an argv with the origin
// of each token, or a text (the plan JSON, a listing, a BPF program, the
// OpenSandbox requests).
#ifndef CWSC_COMPILER_DRIVER_EMIT_H_
#define CWSC_COMPILER_DRIVER_EMIT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "backends/emitted.h"
#include "ir/plan.h"

namespace cwsc::driver {

// Artifact is what a target produced: an argv with origins, or a text.
struct Artifact {
  backends::EmittedArgv argv;
  bool is_argv = false;
  std::string text;    // for non-argv targets (plan JSON, listings, the BPF program)
  std::string json;    // opensandbox: the requests as JSON (--format json)
  std::string target;  // the target that emitted it ("auto" resolved)
  // Target none: what the front door says first (the command runs without
  // an OS sandbox, and why), else "".
  std::string note;
};

// How emitting failed; the front door maps it to an exit code and message.
enum class EmitFailure {
  kNone,
  kInput,          // `status` (exit 2)
  kRefused,        // the plan is refused: its refusal says why (exit 3)
  kNotApplicable,  // the target does not apply to the plan (exit 4)
  kInternal,       // the emitted program disagrees with its intent (exit 1)
  kUnknownTarget,  // a usage error of the command (exit 2)
};

struct Emitted {
  Artifact artifact;
  EmitFailure failure = EmitFailure::kNone;
  absl::Status status;
};

// EmitTarget builds the artifact of `plan` for `target` ("auto", "bwrap",
// "seatbelt", "opensandbox", "seccomp", "seccomp-bpf", "landlock", "plan";
// "none" by auto for a plan without an OS sandbox), with `program` as the
// command it runs.
Emitted EmitTarget(const ir::LaunchPlan& plan, const std::string& target,
                   const std::vector<std::string>& program);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_EMIT_H_
