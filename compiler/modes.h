// The two mode vocabularies every stage reads: the permission mode of a
// launch (plan, ask, auto-review, full-access and their aliases) and the
// configured sandbox_mode (docs/behavior.md B-1, B-10, B-11). Both are
// spelled here once, below the frontends, the layering and the resolver.
#ifndef CWSC_COMPILER_MODES_H_
#define CWSC_COMPILER_MODES_H_

#include <optional>
#include <string>

namespace cwsc::compiler {

// NormalizeMode maps a permission mode or alias to its canonical name
// ("plan", "ask", "auto-review", "full-access"), or nullopt when unknown.
std::optional<std::string> NormalizeMode(const std::string& mode);

// kSandboxModeError is the message for a bad sandbox_mode value ("%s" = value).
std::string InvalidSandboxModeMessage(const std::string& value);

// NormalizeSandboxMode trims and ASCII-lowercases; returns nullopt unless the
// result is read-only, workspace-write, danger-full-access or external-sandbox.
std::optional<std::string> NormalizeSandboxMode(const std::string& value);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_MODES_H_
