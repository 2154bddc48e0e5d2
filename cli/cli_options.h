// The options shared by `compile`, `explain`, `check`, `facts` and `run`:
//   CONFIG [--target T] [--mode M] [--facts FILE] [--cwd DIR] [--format F]
//          [--policy NAME] [--input toml|dsl] [--escalate MODE] [-o FILE]
//          [--no-project-config]
//          [-- PROGRAM ARGS...]
// Both `--opt value` and `--opt=value` are accepted.
#ifndef CWSC_CLI_CLI_OPTIONS_H_
#define CWSC_CLI_CLI_OPTIONS_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/compile.h"
#include "compiler/facts/host_facts.h"
#include "ir/diagnostics.h"
#include "ir/origin.h"

namespace cwsc::cli {

struct CommonOptions {
  bool help = false;
  std::string config;  // positional CONFIG (may be empty where optional)
  std::string target = "auto";
  std::string mode = "ask";
  bool mode_given = false;
  std::optional<std::string> facts;  // --facts FILE
  std::optional<std::string> cwd;
  std::optional<std::string> format;  // --format
  std::string policy;                 // --policy NAME (DSL)
  std::optional<std::string> input;   // --input toml|dsl
  std::optional<std::string> escalate;
  std::optional<std::string> output;   // -o FILE
  std::optional<std::string> timeout;  // --timeout SECONDS (run/exec)
  bool json = false;                   // --json (run/exec/doctor)
  std::optional<std::string> json_fd;  // --json-fd N (run/exec): the result's own channel
  bool check = false;                  // --check (fmt)
  bool no_project_config = false;      // --no-project-config (serve/exec style launch)
  bool unlisted_as_missing = false;    // --unlisted-as-missing (recorded facts)
  std::vector<std::string> program;    // after --
  bool saw_dashdash = false;
};

// ParseCommonOptions parses args; `allowed` lists the option names this
// command accepts (e.g. {"--target", "--mode"}). Errors are usage errors.
absl::StatusOr<CommonOptions> ParseCommonOptions(const std::vector<std::string>& args,
                                                 const std::vector<std::string>& allowed);

// MakeFacts returns recorded facts for --facts, else live facts.
absl::StatusOr<std::unique_ptr<compiler::HostFacts>> MakeFacts(const CommonOptions& o);

// ToCompileOptions fills the compiler's options from the parsed ones.
absl::StatusOr<compiler::CompileOptions> ToCompileOptions(const CommonOptions& o);

// PrintError prints a failed status to stderr: the diagnostics it carries
// (ir/diagnostic_status.h), rendered here, or else its message as below.
void PrintError(const absl::Status& status);

// PrintError prints a message to stderr with a "cwsc: error: " prefix and a
// trailing newline. A message that already names its place (a status made
// without diagnostics, such as the "too many errors" list) is printed as is.
void PrintError(const std::string& message);

// RenderDiagnostic is how cwsc shows one diagnostic.
std::string RenderDiagnostic(const ir::Diagnostic& d);

// PrintNotes prints compile notes and warnings to stderr.
void PrintNotes(const std::vector<ir::Diagnostic>& notes);

// PrintWarning prints `cwsc: warning [CODE]: MESSAGE` (a plan's warning).
void PrintWarning(const std::string& code, const std::string& message);
// PrintNote prints `cwsc: note: MESSAGE`.
void PrintNote(const std::string& message);
// PrintRefused prints `cwsc: refused: REASON` and the origin on the next line.
void PrintRefused(const std::string& reason, const ir::Origin& origin);

// Every Print* above also records what it prints in the --json report
// (cli/json_report.h) when one is running.

}  // namespace cwsc::cli

#endif  // CWSC_CLI_CLI_OPTIONS_H_
