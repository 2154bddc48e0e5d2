// The fuzz targets (docs/fuzzing.md): one function per untrusted input. Each
// takes arbitrary bytes, feeds them through the same code as cwsc does, and
// checks the invariants that must hold whatever the input; a broken
// invariant aborts. The libFuzzer programs (fuzz/main.cc) and the regression
// test (tests/fuzz/regress_test.cc) call the same functions.
#ifndef CWSC_FUZZ_TARGETS_H_
#define CWSC_FUZZ_TARGETS_H_

#include <string_view>

namespace cwsc::fuzz {

// config_toml: a user config.toml, layered and resolved against recorded facts.
void ConfigToml(std::string_view data);
// dsl: a .cwsp file, compiled against recorded facts, and formatted.
void Dsl(std::string_view data);
// facts: a recorded facts file (YAML or JSON), then a compile against it.
void Facts(std::string_view data);
// plan_json: a plan, read back and put through exec's checks.
void PlanJson(std::string_view data);
// sbpl: a Seatbelt profile, parsed and evaluated.
void Sbpl(std::string_view data);
// opensandbox: a Codewhale /v1/sandbox/run body and an execd event stream.
void OpenSandbox(std::string_view data);
// bwrap_argv: a bubblewrap argv (NUL-separated), read by the mount interpreter.
void BwrapArgv(std::string_view data);

// Check aborts with `what` when `ok` is false.
void Check(bool ok, const char* what);

}  // namespace cwsc::fuzz

#endif  // CWSC_FUZZ_TARGETS_H_
