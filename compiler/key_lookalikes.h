// Keys that look like sandbox settings but are not keys cwsc reads: other
// agents' spellings (Codex, Gemini CLI, Claude Code) and plausible guesses.
// A Codewhale config that says `network_access = false` keeps its network
// unless something says the key is ignored; the TOML reader warns for each
// with the key to set instead (docs/config.md "Look-alike keys" lists the
// table; tests/compiler/config_toml_test.cc compares the two).
#ifndef CWSC_COMPILER_KEY_LOOKALIKES_H_
#define CWSC_COMPILER_KEY_LOOKALIKES_H_

#include <span>

#include "absl/strings/string_view.h"

namespace cwsc::compiler {

struct LookAlike {
  // word = false: the whole key, compared without case ("network_access").
  // word = true: any key holding this word, words being split at '_', '-'
  // and lower-to-upper case changes ("sandbox_network", "sandboxNetwork").
  absl::string_view name;
  bool word;
  absl::string_view from;  // whose key it is ("Codex"), or "" for a guess
  absl::string_view use;   // the key cwsc reads
  absl::string_view how;   // how to say it when the value means something else, or ""
};

// LookAlikes is the table, whole keys first; a key matches its first row.
std::span<const LookAlike> LookAlikes();

// LookAlikeFor returns the row an unknown key matches: its whole-key row, else
// (unless `whole_only`) the row of its first word in the table, else nullptr.
const LookAlike* LookAlikeFor(absl::string_view key, bool whole_only = false);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_KEY_LOOKALIKES_H_
