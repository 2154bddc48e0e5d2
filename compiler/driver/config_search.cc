#include "compiler/driver/config_search.h"

#include <sys/stat.h>

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace cwsc::driver {
namespace {

std::optional<std::string> EnvVar(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  std::string s(absl::StripAsciiWhitespace(v));
  if (s.empty()) return std::nullopt;
  return s;
}

bool IsRegularFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

ConfigSearch FindUserConfig() {
  ConfigSearch s;
  std::optional<std::string> home = EnvVar("HOME");
  // $CODEWHALE_HOME as the deny list reads it (docs/decisions.md): `~` and
  // $HOME expanded; a value still relative is ignored.
  if (std::optional<std::string> cw = EnvVar("CODEWHALE_HOME")) {
    std::string v = *cw;
    if (home && (v == "~" || absl::StartsWith(v, "~/"))) v = *home + v.substr(1);
    if (home && (v == "$HOME" || absl::StartsWith(v, "$HOME/"))) v = *home + v.substr(5);
    if (absl::StartsWith(v, "/")) {
      s.candidates.push_back(absl::StrCat(absl::StripSuffix(v, "/"), "/config.toml"));
    } else {
      s.note = absl::StrCat(" ($CODEWHALE_HOME '", *cw, "' is not absolute)");
    }
  } else {
    s.note = " ($CODEWHALE_HOME is unset)";
  }
  if (home) {
    s.candidates.push_back(absl::StrCat(*home, "/.codewhale/config.toml"));
    s.candidates.push_back(absl::StrCat(*home, "/.deepseek/config.toml"));
  } else {
    absl::StrAppend(&s.note, " ($HOME is unset)");
  }
  for (const std::string& c : s.candidates) {
    if (IsRegularFile(c)) {
      s.found = c;
      break;
    }
  }
  return s;
}

}  // namespace cwsc::driver
