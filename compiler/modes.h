// The two mode vocabularies every stage reads: the permission mode of a
// launch (plan, ask, auto-review, full-access and their aliases) and the
// configured sandbox_mode (docs/behavior.md B-1, B-10, B-11). Both are
// spelled here once, below the frontends, the layering and the resolver,
// with the two other enum-valued settings the frontends parse once:
// sandbox_linux_backend and sandbox_opensandbox_api.
#ifndef CWSC_COMPILER_MODES_H_
#define CWSC_COMPILER_MODES_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "compiler/policy_spec.h"
#include "ir/plan.h"

namespace cwsc::compiler {

// ParsePermissionMode trims and ASCII-lowercases a permission mode or alias
// (suggest = ask, auto = auto-review, bypass and yolo = full-access); nullopt
// when unknown.
std::optional<ir::PermissionMode> ParsePermissionMode(absl::string_view mode);

// UnknownPermissionModeMessage is the error for a --mode (or a library
// call's mode) that ParsePermissionMode does not know.
std::string UnknownPermissionModeMessage(absl::string_view mode);

// kSandboxModeError is the message for a bad sandbox_mode value ("%s" = value).
std::string InvalidSandboxModeMessage(const std::string& value);

// ParseSandboxMode trims and ASCII-lowercases; returns nullopt unless the
// result is read-only, workspace-write, danger-full-access or external-sandbox.
// The result keeps `value` as written.
std::optional<SandboxMode> ParseSandboxMode(const std::string& value);

// ParseBackend is docs/behavior.md B-71: trim, ASCII-lowercase; "" and "none" are
// local, the three OpenSandbox spellings are remote, anything else unsupported
// (refused when the plan is lowered, compiler/lower_remote.h).
BackendKind ParseBackend(const std::string& value);

// ParseLinuxBackend: "auto", "bwrap" or "landlock", trimmed and ASCII-lowercased.
std::optional<LinuxBackend> ParseLinuxBackend(const std::string& value);

// ParseContract: "codewhale", "execd" or "lifecycle" (the OpenSandbox API of
// sandbox_opensandbox_api), trimmed and ASCII-lowercased.
std::optional<ir::Contract> ParseContract(const std::string& value);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_MODES_H_
