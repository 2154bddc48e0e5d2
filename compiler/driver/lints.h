// Lints of a compiled plan, read through its artifact where the question is
// about access (docs/verification.md lists every code). `cwsc check` prints
// them, `compile` warns with them and `explain` lists them; none changes an
// exit code.
#ifndef CWSC_COMPILER_DRIVER_LINTS_H_
#define CWSC_COMPILER_DRIVER_LINTS_H_

#include <string>
#include <vector>

#include "compiler/driver/verify.h"
#include "compiler/facts/host_facts.h"
#include "ir/display.h"

namespace cwsc::driver {

struct Lint {
  std::string code;   // stable: "deny-shadowed", "git-writable", ...
  ir::Origin origin;  // where to fix it
  std::string message;
  std::string fix;
  bool operator==(const Lint&) const = default;
};

// LintPlan checks one mode's plan and artifact; `vars` expands home paths.
std::vector<Lint> LintPlan(const PlanArtifact& art, const compiler::PathVars& vars,
                           compiler::HostFacts* facts);

// LintsOf reads `plan`'s artifact back and lints it against the facts it
// was compiled with; none when its own interpreter cannot read the artifact
// (emitting it reports that).
std::vector<Lint> LintsOf(const ir::LaunchPlan& plan, compiler::HostFacts* facts);

// RenderLintWarning is how `compile` prints a lint on stderr:
//   FILE:LINE:COL: warning [CODE]: MESSAGE
//     fix: FIX
// (`cwsc: warning [CODE]: MESSAGE (ORIGIN)` when no config line caused it).
// Every part is a value, shown escaped (ir::Text).
ir::Text RenderLintWarning(const Lint& l);

// Location renders "file:line:col" or the origin's description.
std::string LintLocation(const ir::Origin& o);

}  // namespace cwsc::driver

#endif  // CWSC_COMPILER_DRIVER_LINTS_H_
