#include "backends/landlock.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cwsc::backends {
namespace {

// OneLine keeps a value on its line: a newline in a path cannot start a
// line of its own.
std::string OneLine(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string EmitLandlockListing(const ir::Landlock& ll) {
  std::string out = absl::StrCat(
      "# cwsc Landlock ruleset (ABI ", ll.abi,
      "): every handled access no rule grants is refused\n# handled filesystem: ",
      ir::LandlockFsAccessNames(ll.handled_fs),
      "\n# handled network: ", ll.handled_net ? ir::LandlockNetAccessNames(ll.handled_net) : "none",
      ll.handled_net ? " (no port is granted)" : "",
      "\n# scoped: ", ll.scoped ? ir::LandlockScopeNames(ll.scoped) : "none", "\n");
  for (const ir::LandlockRule& r : ll.rules) {
    absl::StrAppend(&out, "allow ", ir::LandlockFsAccessNames(r.access), " beneath ",
                    r.except_names.empty()
                        ? OneLine(r.path)
                        : absl::StrCat("every entry of ", OneLine(r.path), " except ",
                                       OneLine(absl::StrJoin(r.except_names, ", "))),
                    "  # ", OneLine(r.why), " [", OneLine(r.origin.Describe()), "]\n");
  }
  return out;
}

}  // namespace cwsc::backends
