// The options shared by the commands, filled from what the table-driven
// parser (cli/cli_parse.h) accepted for one command (cli/command_table.h).
#ifndef CWSC_CLI_CLI_OPTIONS_H_
#define CWSC_CLI_CLI_OPTIONS_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/verify/expect_eval.h"
#include "cli/cli_parse.h"
#include "compiler/compile.h"
#include "compiler/driver/report.h"
#include "compiler/facts/host_facts.h"
#include "ir/diagnostics.h"
#include "ir/display.h"
#include "ir/origin.h"
#include "ir/plan.h"

namespace cwsc::cli {

struct CommonOptions {
  bool help = false;
  std::string config;              // positional CONFIG (may be empty where optional)
  bool config_discovered = false;  // config found by DiscoverConfig, not given
  std::string target = "auto";
  std::string mode = "ask";
  bool mode_given = false;
  std::optional<std::string> facts;  // --facts FILE
  std::optional<std::string> cwd;
  std::optional<std::string> format;  // --format
  std::string policy;                 // --policy NAME (DSL)
  std::optional<std::string> input;   // --input toml|dsl
  std::optional<std::string> escalate;
  std::optional<std::string> stage;          // --stage (explain)
  std::optional<std::string> output;         // -o FILE
  std::optional<std::string> timeout;        // --timeout SECONDS (run/exec)
  bool json = false;                         // --json (run/exec/doctor)
  std::optional<std::string> json_fd;        // --json-fd N (run/exec): the result's own channel
  bool check = false;                        // --check (fmt)
  bool no_project_config = false;            // --no-project-config (serve/exec style launch)
  bool unlisted_as_missing = false;          // --unlisted-as-missing (recorded facts)
  bool require_sandbox = false;              // --require-sandbox (compile/run/exec)
  std::optional<std::string> linux_backend;  // --linux-backend auto|bwrap|landlock
  std::vector<std::string> program;          // after --
  bool saw_dashdash = false;
};

// CommonOptionsOf fills the shared options from parsed arguments: CONFIG is
// the first positional argument (or --for), each option its last value.
CommonOptions CommonOptionsOf(const ParsedArgs& p);

// AccessKindsOf is what --read, --write and --exec ask, in the order given.
std::vector<backends::AccessKind> AccessKindsOf(const ParsedArgs& p);

// ReadInput reads a whole input file; `-` is stdin, read once (a second
// ReadInput("-") returns the same text). Errors name the file.
absl::StatusOr<std::string> ReadInput(const std::string& path);

// InputName is how diagnostics name an input: "<stdin>" for `-`.
std::string InputName(const std::string& path);

// DiscoverConfig fills o->config when no CONFIG was given, as Codewhale finds
// its config (compiler/driver/config_search.h: $CODEWHALE_HOME/config.toml,
// ~/.codewhale/config.toml, then the legacy ~/.deepseek/config.toml, the
// first regular file). It returns 0, or prints a usage error listing the
// places searched and returns 2.
int DiscoverConfig(absl::string_view command, CommonOptions* o);

// MakeFacts returns recorded facts for --facts, else live facts.
absl::StatusOr<std::unique_ptr<compiler::HostFacts>> MakeFacts(const CommonOptions& o);

// ToCompileOptions fills the compiler's options from the parsed ones.
absl::StatusOr<compiler::CompileOptions> ToCompileOptions(const CommonOptions& o);

// PrintError prints a failed status to stderr: the diagnostics it carries
// (ir/diagnostic_status.h), rendered here (an error that names no file as
// `cwsc: error: MESSAGE`, and the closing line of a list that stopped at the
// error limit), or else its message as below. Nothing is read back out of a
// message: an error with a place is a diagnostic (ir::ErrorAt).
void PrintError(const absl::Status& status);

// Failed prints the error of `s` (PrintError) when it is not OK, and says
// so; the command then exits with the usage code:
//   if (Failed(plan)) return kExitUsage;
bool Failed(const absl::Status& s);
template <typename T>
bool Failed(const absl::StatusOr<T>& s) {
  return Failed(s.status());
}

// PrintError prints a message of cwsc's own, one line: "cwsc: error: " and
// the message, escaped (ir/display.h).
void PrintError(const std::string& message);

// PrintNotes prints compile notes and warnings to stderr.
void PrintNotes(const std::vector<ir::Diagnostic>& notes);

// PrintSettingNote prints one of a plan's setting notes (compiler/driver/report.h,
// SettingNotes): `cwsc: note: ...` when it has no file.
void PrintSettingNote(const ir::Diagnostic& note);

// PrintWarning prints `cwsc: warning [CODE]: MESSAGE` (a plan's warning).
void PrintWarning(const std::string& code, const std::string& message);
// PrintNote prints `cwsc: note: MESSAGE`.
void PrintNote(const std::string& message);
// PrintRefused prints `cwsc: refused: REASON` and the origin on the next line.
void PrintRefused(const std::string& reason, const ir::Origin& origin);

// WriteFileReplacing writes `text` into a new file beside `path`, renamed
// over it (runtime/result_channel.h: a symlink at `path` is replaced, never
// written through); false after printing `PATH: error: cannot write the
// file` (and the reason, when the write itself failed).
bool WriteFileReplacing(const std::string& path, const std::string& text);

// WriteOut writes `bytes` (an artifact as its format gives it) to stdout
// and returns `rc`, or 2 after an error when stdout cannot take them.
int WriteOut(std::string_view bytes, int rc);
// PrintReport prints a driver report: its JSON as the --json report's
// result, else its text (`why`, `check`, `diff`, `audit`, `explain`,
// `doctor`) on stdout, as WriteOut. A report's text is an ir::Text: every
// value in it was escaped as it was added (docs/decisions.md, "What cwsc
// prints is escaped").
int PrintReport(driver::Report report, int rc);
// PrintErrText writes lines of cwsc's own for people to stderr (a lint).
void PrintErrText(const ir::Text& text);

// Every Print* above also records what it prints in the --json report
// (cli/json_report.h) when one is running.

}  // namespace cwsc::cli

#endif  // CWSC_CLI_CLI_OPTIONS_H_
