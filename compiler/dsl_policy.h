// The value of the .cwsp frontend: a file's policies, each lowered to the
// PolicySpec the TOML frontend produces, in source order. The parser
// (compiler/dsl_frontend.h) returns it; the semantic pass
// (compiler/dsl_lower.h) fills it.
#ifndef CWSC_COMPILER_DSL_POLICY_H_
#define CWSC_COMPILER_DSL_POLICY_H_

#include <string>
#include <vector>

#include "compiler/policy_spec.h"

namespace cwsc::compiler {

// DslPolicy is one `policy NAME { ... }` block, lowered.
struct DslPolicy {
  std::string name;
  std::string parent;  // `extends` target; empty when none
  int line = 0;        // position of the policy's name
  int col = 0;
  PolicySpec spec;  // parent's settings first, then its own
};

// DslFile is a whole .cwsp file: every policy in source order.
struct DslFile {
  std::vector<DslPolicy> policies;
};

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_DSL_POLICY_H_
