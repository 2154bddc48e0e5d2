// The user config a command reads when it is given none, found as
// Codewhale finds it (docs/config.md): $CODEWHALE_HOME/config.toml, then
// ~/.codewhale/config.toml, then ~/.deepseek/config.toml, the first that
// is a regular file. The front door says what to do when there is none.
//
//   driver::ConfigSearch s = driver::FindUserConfig();
//   if (!s.found) ... "looked for " + join(s.candidates) + s.note
#ifndef CWSC_COMPILER_DRIVER_CONFIG_SEARCH_H_
#define CWSC_COMPILER_DRIVER_CONFIG_SEARCH_H_

#include <optional>
#include <string>
#include <vector>

namespace cwsc::driver {

struct ConfigSearch {
  std::optional<std::string> found;     // the first candidate that is a regular file
  std::vector<std::string> candidates;  // where it looked, in order
  // Why a place was left out: " ($CODEWHALE_HOME is unset)",
  // " ($CODEWHALE_HOME 'x' is not absolute)", " ($HOME is unset)".
  std::string note;
};

// FindUserConfig looks with this process's environment ($CODEWHALE_HOME
// with `~` and $HOME expanded; a value still relative is left out).
ConfigSearch FindUserConfig();

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_CONFIG_SEARCH_H_
