// The command line of `cwsc`, in one place: every command with its synopsis,
// summary, description, positional arguments, every flag (name, value name,
// help, the values it takes) and its exit status. The parser
// (cli/cli_parse.h), `cwsc --help`, `cwsc help CMD` / `cwsc CMD --help`, the
// man pages and the shell completions (cli/cli_docs.h) are all made from it,
// so they cannot drift apart (docs/cli.md, docs/decisions.md).
//
// Everything here is constexpr: the table costs nothing at start-up, which
// every `cwsc run` launch pays (docs/runtime.md).
//
// To add a flag to a command: define it once (like kMode) and add it to the
// command's flag list; help, man page and completions follow.
#ifndef CWSC_CLI_COMMAND_TABLE_H_
#define CWSC_CLI_COMMAND_TABLE_H_

#include <span>

#include "absl/strings/string_view.h"
#include "compiler/driver/names.h"

namespace cwsc::cli {

// What a value (of a flag or a positional argument) completes to.
enum class ValueKind {
  kNone,     // a switch: no value
  kFile,     // a file name
  kDir,      // a directory name
  kWord,     // free text (no completion)
  kChoice,   // one of Flag::choices
  kCommand,  // a command name (`cwsc help COMMAND`)
};

// One allowed value of a flag, with what it means ("" when obvious); the
// names of targets, formats and stages are the driver's
// (compiler/driver/names.h).
using Choice = driver::Named;

struct Flag {
  absl::string_view name;        // "--mode", or "-o"
  absl::string_view alias;       // another spelling ("--output"), or ""
  absl::string_view value_name;  // "MODE"; "" for a switch
  ValueKind kind;                // kNone exactly when value_name is ""
  absl::string_view help;        // one sentence, no trailing period
  std::span<const Choice> choices = {};
  bool repeatable = false;  // given more than once, every value counts
  // The flags of which one must be given with this one (those the command
  // has), else the parser's usage error: "NAME VALUE needs --facts FILE:
  // needs_why" (cli_parse.h).
  std::span<const absl::string_view> needs = {};
  absl::string_view needs_why = "";

  bool TakesValue() const { return kind != ValueKind::kNone; }
};

// Needing is `f` as a command takes it that needs one of `needs`.
constexpr Flag Needing(Flag f, std::span<const absl::string_view> needs, absl::string_view why) {
  f.needs = needs;
  f.needs_why = why;
  return f;
}

struct Positional {
  absl::string_view name;  // "CONFIG"
  ValueKind kind;          // what it completes to
  bool optional = false;   // shown as [NAME]
  bool variadic = false;   // NAME... (the last one only)
};

struct Command {
  absl::string_view name;
  absl::string_view summary;   // one line for `cwsc --help` and the man page NAME
  absl::string_view synopsis;  // after "cwsc NAME "; lines separated by '\n'
  // Paragraphs separated by a blank line; no hard line breaks inside one.
  absl::string_view description;
  std::span<const Positional> positionals;
  std::span<const Flag> flags;
  bool takes_program = false;     // accepts `-- PROGRAM ARGS...`
  absl::string_view exit_status;  // one paragraph
};

// Commands lists every command in the order of `cwsc --help`.
std::span<const Command> Commands();

// FindCommand returns the command named `name`, or nullptr.
const Command* FindCommand(absl::string_view name);

// FindFlag returns the flag of `c` spelled `name` (or its alias), or nullptr.
const Flag* FindFlag(const Command& c, absl::string_view name);

// The help flag every command takes (listed in help, man pages, completions).
const Flag& HelpFlag();

// The program's one-paragraph description (`cwsc --help`, cwsc(1)).
absl::string_view ProgramDescription();

}  // namespace cwsc::cli

#endif  // CWSC_CLI_COMMAND_TABLE_H_
