// The live launcher probe (docs/launcher.md, "Probe"), used by
// MakeLiveFacts(): `<launcher...> /usr/bin/id -u` and `-G`, and
// `<launcher...> <bwrap_argv>`, each with a cleared environment, stdin on
// /dev/null, cwd "/" and a 10 s deadline.
#ifndef CWSC_RUNTIME_HOST_LAUNCHER_PROBE_H_
#define CWSC_RUNTIME_HOST_LAUNCHER_PROBE_H_

#include <string>
#include <vector>

#include "compiler/facts/host_facts.h"

namespace cwsc::runtime {

compiler::LauncherUser RunLauncherUserProbe(const std::vector<std::string>& launcher);
compiler::ProbeResult RunLauncherBwrapProbe(const std::vector<std::string>& launcher,
                                            const std::vector<std::string>& bwrap_argv);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_HOST_LAUNCHER_PROBE_H_
