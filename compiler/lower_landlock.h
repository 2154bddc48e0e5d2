// LowerLandlock lowers a sandboxed policy into the ruleset of a
// linux-landlock plan (docs/runtime.md, "The Landlock backend"): reads
// everywhere except the deny list and the host's device nodes, writes only
// beneath the writable roots, TCP refused and abstract unix sockets and
// signals scoped with the network off, for the rights the host's ABI has.
// What a Landlock ruleset cannot express without namespaces is listed in
// the plan's `skipped` (kind `landlock`), never dropped in silence.
//
//   LowerLandlock(facts, spec, /*abi=*/7, &plan);   // plan.kind() is linux-landlock
//   // plan.landlock()->rules[0]: every entry of / except dev, home -> execute|read_file|read_dir
#ifndef CWSC_COMPILER_LOWER_LANDLOCK_H_
#define CWSC_COMPILER_LOWER_LANDLOCK_H_

#include "compiler/facts/host_facts.h"
#include "compiler/policy_spec.h"
#include "ir/plan.h"

namespace cwsc::compiler {

// LandlockHandledFs: the filesystem rights a ruleset handles on `abi`.
uint64_t LandlockHandledFs(int abi);

// LandlockNamespaceFailure: bwrap's probe message says it could not make a
// namespace (so Landlock, which needs none, is the fallback).
bool LandlockNamespaceFailure(const std::string& probe_message);

void LowerLandlock(HostFacts& facts, const PolicySpec& spec, int abi, ir::LaunchPlan* plan);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_LOWER_LANDLOCK_H_
