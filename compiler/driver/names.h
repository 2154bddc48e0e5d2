// The names a front door hands the driver, each with what it means: the
// permission modes, escalations, Linux backends and input formats of a
// compile (compiler::CompileOptions), the targets of `cwsc compile`
// (EmitTarget), of `explain` and of `check`, the output formats
// (CheckFormat, WriteArtifact) and the compiler's stages (ParseStage). The
// CLI's --mode, --escalate, --linux-backend, --input, --target, --format
// and --stage offer exactly these
// (cli/command_table.cc, and from it the man pages and completions), the
// driver's messages list them from here, and tests/driver/driver_test.cc
// checks that the driver takes each name and no other.
#ifndef CWSC_COMPILER_DRIVER_NAMES_H_
#define CWSC_COMPILER_DRIVER_NAMES_H_

#include <span>
#include <string>

#include "absl/strings/string_view.h"

namespace cwsc::driver {

// Named is a name and what it means, for people ("" when obvious).
struct Named {
  absl::string_view name;
  absl::string_view help;
};

inline constexpr Named kModes[] = {
    {"plan", "read-only, network off"},
    {"ask", "the configured policy (the default)"},
    {"auto-review", "the configured policy, reviewed automatically"},
    {"full-access", "no sandbox (danger-full-access)"},
};
// The postures an approved one-shot escalation may ask for (B-12).
inline constexpr Named kEscalations[] = {
    {"workspace-write", "from read-only"},
    {"danger-full-access", "from read-only or workspace-write"},
    {"full-access", "the mode's name for danger-full-access (aliases bypass, yolo)"},
};
inline constexpr Named kLinuxBackends[] = {
    {"auto", "bubblewrap, or Landlock where bubblewrap cannot make namespaces (the default)"},
    {"bwrap", "bubblewrap only"},
    {"landlock", "Landlock and seccomp, without namespaces"},
};
// How a config file is read (compiler::ConfigFormat).
inline constexpr Named kInputs[] = {
    {"toml", "a Codewhale config.toml"},
    {"dsl", "a .cwsp policy"},
};
inline constexpr Named kCompileTargets[] = {
    {"auto", "the artifact of the plan's kind (the default)"},
    {"bwrap", "the bubblewrap argv (exit 4 if the plan does not use bwrap)"},
    {"seatbelt", "the sandbox-exec argv (exit 4 if the plan does not use Seatbelt)"},
    {"opensandbox",
     "the OpenSandbox HTTP request(s), key redacted (exit 4 if the plan is not remote; "
     "--format json for JSON)"},
    {"seccomp", "the bwrap plan's syscall filter as a readable listing (exit 4 if it has none)"},
    {"seccomp-bpf",
     "the same filter as the BPF program bwrap reads on fd 3 (`cwsc compile ... --target "
     "seccomp-bpf > f.bpf`, then `3< f.bpf`)"},
    {"landlock",
     "compile for the Landlock backend (as sandbox_linux_backend = \"landlock\") and print its "
     "ruleset, one line per rule with its origin"},
    {"plan", "the launch plan as canonical JSON"},
};
inline constexpr Named kExplainTargets[] = {
    {"auto", "the argv of the plan's kind (the default)"},
    {"bwrap", "the bubblewrap argv"},
    {"seatbelt", "the sandbox-exec argv, its profile line by line"},
};
inline constexpr Named kCheckTargets[] = {
    {"bwrap", "plans emitting a bubblewrap argv"},
    {"seatbelt", "plans emitting a Seatbelt profile"},
};
inline constexpr Named kFormats[] = {
    {"lines", "one token per line (the default)"},
    {"shell", "one line for POSIX sh, quoted where needed"},
    {"json", "a JSON array"},
    {"nul", "each token followed by a NUL byte"},
    {"sbpl", "the Seatbelt profile text alone"},
    {"script",
     "one sh script that runs the argv with the plan's environment and its seccomp program"},
};
inline constexpr Named kStages[] = {
    {"spec", "the settings the config file gives, as its frontend read them"},
    {"layered",
     "the settings after the environment, the managed and project overlays and the command line"},
    {"policy", "the policy the permission mode resolves to (the plan's \"policy\")"},
    {"plan", "the launch plan (as `compile --target plan`)"},
};

// NameList is the names, "a, b or c".
std::string NameList(std::span<const Named> names);

// IsNamed: `name` is one of `names`.
bool IsNamed(std::span<const Named> names, absl::string_view name);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_NAMES_H_
