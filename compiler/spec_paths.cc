#include "compiler/spec_paths.h"

#include "absl/strings/str_cat.h"
#include "ir/diagnostics.h"
#include "ir/status_macros.h"

namespace cwsc::compiler {

absl::StatusOr<std::string> ExpandSettingPath(const Setting<std::string>& s, const PathVars& vars,
                                              bool lexical) {
  absl::StatusOr<std::string> p = ExpandPath(s.value, vars, lexical);
  if (p.ok()) return p;
  const ir::Origin& o = s.origin;
  std::string msg = absl::StrCat(o.detail.str(), ": ", p.status().message());
  if (o.file.empty()) {
    return ir::ErrorAt(o.Describe(), 0, 0, msg);  // the place is the origin
  }
  return ir::ErrorAt(o.file, o.line, o.col, msg);
}

absl::Status ValidateSpecPaths(const PolicySpec& spec) {
  // Placeholders: the checks are the ones that hold for every host and mode.
  PathVars vars{"/home", "/workspace", "/workspace", "/tmp"};
  for (const auto* list :
       {&spec.sandbox_writable_roots, &spec.bwrap_ro_roots, &spec.bwrap_dev_roots,
        &spec.sandbox_denied_read_paths, &spec.sandbox_read_denylist_exempt}) {
    if (!*list) continue;
    for (const auto& p : (*list)->value) {
      // An absolute path names no variable and no '~': it always expands.
      if (!p.value.empty() && p.value[0] == '/') continue;
      CWSC_RETURN_IF_ERROR(ExpandSettingPath(p, vars).status());
    }
  }
  return absl::OkStatus();
}

}  // namespace cwsc::compiler
