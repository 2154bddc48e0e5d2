// Internal to the .cwsp frontend: the semantic pass (LowerDslTree), which
// checks a parse tree and lowers every policy block to a PolicySpec.
// Included only by dsl_frontend.cc and dsl_lower.cc.
#ifndef CWSC_COMPILER_DSL_LOWER_H_
#define CWSC_COMPILER_DSL_LOWER_H_

#include <string>

#include "compiler/dsl_policy.h"
#include "compiler/dsl_sink.h"
#include "compiler/policy_spec.h"

namespace antlr4 {
class ParserRuleContext;
}  // namespace antlr4

namespace cwsc::compiler {

// kDslStatementList names every statement, for messages.
inline constexpr const char* kDslStatementList =
    "mode, network, writable, read_only, device, deny read, exempt read, deny_defaults, tmp, "
    "slash_tmp, tmpdir, protect, wrapper, linux_backend, require_sandbox, backend, launcher, "
    "managed_config or expect";

// LowerDslTree checks the parse tree of a whole file (a FileContext) and
// appends each policy to `out`; errors go to `sink`.
void LowerDslTree(antlr4::ParserRuleContext* file_tree, const std::string& file, Layer layer,
                  DslSink* sink, DslFile* out);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_DSL_LOWER_H_
