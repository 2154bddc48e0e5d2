// Output forms of an argv: `lines` (one token per line; the golden-review
// form), `shell` (one POSIX-sh line that round-trips every byte), `json` (an
// array of strings) and `nul` (NUL-terminated tokens for programs).
//
//   FormatArgv({"echo", "a b"}, ArgvFormat::kShell)  ->  "echo 'a b'\n"
#ifndef CWSC_BACKENDS_ARGV_FORMAT_H_
#define CWSC_BACKENDS_ARGV_FORMAT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cwsc::backends {

enum class ArgvFormat { kLines, kShell, kJson, kNul };

std::optional<ArgvFormat> ParseArgvFormat(absl::string_view name);

// ShellQuote quotes one token for POSIX sh: bare when it is made only of
// safe characters, else in single quotes with ' written as '\''.
std::string ShellQuote(absl::string_view token);

// FormatArgv renders argv. `lines` fails when a token holds a newline (it
// would be ambiguous), `json` when a token is not valid UTF-8.
absl::StatusOr<std::string> FormatArgv(const std::vector<std::string>& argv, ArgvFormat format);

// IsValidUtf8 checks UTF-8 well-formedness (no overlongs or surrogates).
bool IsValidUtf8(absl::string_view s);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_ARGV_FORMAT_H_
