// CompileConfig is the compiler's facade: it reads the user's config (TOML,
// or the .cwsp DSL by extension), layers env overrides, the managed overlay
// and the project overlay (read through HostFacts), resolves the permission
// mode into a policy and lowers everything into a LaunchPlan.
//
//   auto facts = runtime::MakeLiveFacts();
//   CompileOptions o; o.config_path = "examples/workspace.toml"; o.mode = "ask";
//   absl::StatusOr<CompileResult> r = CompileConfig(o, facts.get());
//
// A bad input gives InvalidArgument whose message is the rendered
// `file:line:col: error: ...` diagnostics.
#ifndef CWSC_COMPILER_COMPILE_H_
#define CWSC_COMPILER_COMPILE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/facts/host_facts.h"
#include "compiler/modes.h"
#include "compiler/policy_spec.h"
#include "ir/diagnostics.h"
#include "ir/plan.h"

namespace cwsc::compiler {

// ConfigFormat picks the frontend; kAuto decides by file extension
// (".cwsp" is the DSL, anything else is TOML).
enum class ConfigFormat { kAuto, kToml, kDsl };

struct CompileOptions {
  std::string config_path;  // the user config file
  // The config's text when it does not come from config_path (`cwsc compile
  // -` reads stdin; config_path then names it, "<stdin>", in diagnostics).
  std::optional<std::string> config_text;
  ConfigFormat format = ConfigFormat::kAuto;
  std::string mode = "ask";  // permission mode, raw (aliases accepted)
  ir::Origin mode_origin = ir::Origin::Default("permission mode ask");
  std::optional<std::string> cwd;       // --cwd; default: facts->Cwd()
  std::string policy_name;              // DSL: which named policy (--policy)
  std::optional<std::string> escalate;  // approved per-command escalation target
  bool read_project_config = true;      // false for serve/exec style launches
  // --require-sandbox: sandbox_require = true on top of every layer.
  bool require_sandbox = false;
  // --linux-backend NAME: sandbox_linux_backend = NAME on top of every layer.
  std::optional<std::string> linux_backend;
  // --target landlock: sandbox_linux_backend = "landlock" on top of that.
  bool force_landlock = false;
};

struct CompileResult {
  ir::LaunchPlan plan;
  PolicySpec merged;                  // merged layers (holds the API key for the runtime)
  std::vector<ir::Diagnostic> notes;  // warnings and notes (ignored keys, ...)
};

absl::StatusOr<CompileResult> CompileConfig(const CompileOptions& options, HostFacts* facts);

// ParsedConfig is the user config read and parsed once (the frontend's
// part of CompileConfig), so an embedding engine can compile it for many
// commands without parsing again (lib/cwsc.h):
//
//   absl::StatusOr<ParsedConfig> p = ParseConfigText(text, "inline.toml", ConfigFormat::kToml, "");
//   absl::StatusOr<CompileResult> r = CompileParsed(*p, options, facts.get());
struct ParsedConfig {
  std::string path;  // the name errors and origins carry
  std::string text;  // the source (for the caret line of a later error)
  PolicySpec user;
  std::vector<ir::Diagnostic> notes;
};

// ParseConfigText parses `text` as a config named `path`; kAuto decides by
// the extension of `path`. `policy_name` selects a .cwsp policy.
absl::StatusOr<ParsedConfig> ParseConfigText(std::string text, const std::string& path,
                                             ConfigFormat format, const std::string& policy_name);
// ReadConfig reads and parses options.config_path (with its format and policy name).
absl::StatusOr<ParsedConfig> ReadConfig(const CompileOptions& options);
// CompileParsed is CompileConfig after the frontend: options.config_path,
// format and policy_name are not read again.
absl::StatusOr<CompileResult> CompileParsed(const ParsedConfig& parsed,
                                            const CompileOptions& options, HostFacts* facts);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_COMPILE_H_
