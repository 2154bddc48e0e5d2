// The live launcher probe (docs/launcher.md "Probe"): the launcher's user
// and groups through `<launcher...> /usr/bin/id -u` and `-G`, then one
// `<launcher...> /usr/bin/bwrap ... -- /bin/true` with the deny masks. Each
// run has a cleared environment, stdin on /dev/null, cwd "/" and a 10 s
// deadline; the launcher's own error (e.g. `sudo: a password is required`)
// becomes the message.

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/constants.h"
#include "runtime/host/launcher_probe.h"
#include "runtime/host/spawn.h"

namespace cwsc::runtime {
namespace {

using compiler::LauncherUser;
using compiler::ProbeResult;

// Failure turns a failed run into one line: the launcher's first stderr line
// when it printed one, else the exit status.
std::string Failure(const Captured& c) {
  if (!c.spawn_error.empty()) return c.spawn_error;
  if (c.timed_out) return "timed out after 10 s";
  std::string first = c.err.substr(0, c.err.find('\n'));
  if (!first.empty()) return first;
  return absl::StrCat("exit status ", c.exit_code);
}

std::vector<std::string> With(const std::vector<std::string>& launcher,
                              std::initializer_list<const char*> tail) {
  std::vector<std::string> argv = launcher;
  for (const char* t : tail) argv.push_back(t);
  return argv;
}

}  // namespace

LauncherUser RunLauncherUserProbe(const std::vector<std::string>& launcher) {
  LauncherUser u;
  if (launcher.empty() || launcher[0].empty() || launcher[0][0] != '/') {
    u.message = absl::StrCat("the launcher's first program '", launcher.empty() ? "" : launcher[0],
                             "' is not an absolute path");
    return u;
  }
  Captured id_u = RunCaptured(With(launcher, {ir::kIdPath, "-u"}));
  u.ran = id_u.started;
  if (id_u.exit_code != 0) {
    u.message = Failure(id_u);
    return u;
  }
  std::string text(absl::StripAsciiWhitespace(id_u.out));
  if (!absl::SimpleAtoi(text, &u.uid)) {
    u.message = absl::StrCat("`id -u` through the launcher printed '", text.substr(0, 80),
                             "', not a user id");
    return u;
  }
  Captured id_g = RunCaptured(With(launcher, {ir::kIdPath, "-G"}));
  if (id_g.exit_code != 0) {
    u.message = Failure(id_g);
    return u;
  }
  std::string groups(absl::StripAsciiWhitespace(id_g.out));
  for (absl::string_view g : absl::StrSplit(groups, ' ', absl::SkipEmpty())) {
    uint32_t gid = 0;
    if (!absl::SimpleAtoi(g, &gid)) {
      u.message = absl::StrCat("`id -G` through the launcher printed '", groups.substr(0, 80),
                               "', not group ids");
      u.gids.clear();
      return u;
    }
    u.gids.push_back(gid);
  }
  if (u.gids.empty()) {
    u.message = "`id -G` through the launcher printed no group ids";
    return u;
  }
  std::sort(u.gids.begin(), u.gids.end());
  u.gids.erase(std::unique(u.gids.begin(), u.gids.end()), u.gids.end());
  u.ok = true;
  return u;
}

ProbeResult RunLauncherBwrapProbe(const std::vector<std::string>& launcher,
                                  const std::vector<std::string>& bwrap_argv) {
  ProbeResult r;
  std::vector<std::string> argv = launcher;
  argv.insert(argv.end(), bwrap_argv.begin(), bwrap_argv.end());
  if (argv.empty() || argv[0].empty() || argv[0][0] != '/') {
    r.message = "the launcher's first program is not an absolute path";
    return r;
  }
  Captured c = RunCaptured(argv);
  r.ran = c.started;
  r.exit_code = c.exit_code;
  r.ok = c.exit_code == 0 && c.spawn_error.empty() && !c.timed_out;
  if (!r.ok) r.message = Failure(c);
  return r;
}

}  // namespace cwsc::runtime
