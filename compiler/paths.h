// Lexical path helpers shared by the resolver: normalization, component-wise
// prefix tests and ordering (as Rust's PathBuf orders paths: by component,
// so "/a/b" < "/a.b"), and expansion of a leading `~` or variable.
#ifndef CWSC_COMPILER_PATHS_H_
#define CWSC_COMPILER_PATHS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cwsc::compiler {

// LexicalNormalize collapses "//", "." and ".." without touching the
// filesystem; "/.." stays "/". Relative input stays relative.
std::string LexicalNormalize(absl::string_view path);

// PathComponents splits an absolute or relative path into its components.
std::vector<std::string> PathComponents(absl::string_view path);

// PathStartsWith is true when `prefix` is `path` or one of its ancestors,
// comparing whole components.
bool PathStartsWith(absl::string_view path, absl::string_view prefix);

// JoinPath appends `rel` to `base` with one separator.
std::string JoinPath(absl::string_view base, absl::string_view rel);

// IsPlainPath: `path` is absolute and lexically normal already (no empty,
// "." or ".." component, no trailing separator but in "/" itself).
bool IsPlainPath(absl::string_view path);

// ParentPath is the lexical parent ("/" for "/" and "/x").
std::string ParentPath(absl::string_view path);

// PathLess orders paths component by component.
bool PathLess(absl::string_view a, absl::string_view b);

// PathSortKey is a byte string whose plain (memcmp) order is PathLess's order:
// a 0 byte for an absolute path (1 for a relative one), then the components
// separated by 0 bytes, which no path holds. Sorting many paths by their keys,
// made once each, costs a memcmp per comparison.
std::string PathSortKey(absl::string_view path);
// AppendPathSortKey appends PathSortKey(path) to *out (many keys in one buffer).
void AppendPathSortKey(absl::string_view path, std::string* out);

// PathVars are the values a leading variable in a policy path expands to.
struct PathVars {
  std::string home;       // $HOME and ~
  std::string workspace;  // $WORKSPACE
  std::string cwd;        // $CWD
  std::string tmpdir;     // $TMPDIR; empty when unset
};

// ExpandPath expands a leading "~", "~/", "$HOME", "$WORKSPACE", "$CWD" or
// "$TMPDIR" (also "${NAME}"). Any other "$NAME" at the start is an error;
// a relative result is an error. The result is lexically normalized unless
// `lexical` is false: then a ".." stays for realpath to apply after the
// symlinks before it (the paths docs/behavior.md B-41 canonicalizes).
absl::StatusOr<std::string> ExpandPath(absl::string_view raw, const PathVars& vars,
                                       bool lexical = true);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_PATHS_H_
