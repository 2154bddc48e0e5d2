// The .cwsp policy-language frontend: parses a file (grammar/Policy.g4),
// checks its meaning and lowers each named policy to the same PolicySpec the
// TOML frontend produces, with an Origin (kind config, detail = the DSL
// statement, file:line:col) on every setting. Expectations (`expect ...`)
// are carried along in PolicySpec::expectations. docs/dsl.md is the reference.
//
//   absl::StatusOr<DslResult> r = ReadDslPolicy(text, "agent.cwsp", "agent");
//   if (!r.ok()) std::cerr << r.status().message();  // file:line:col: error: ...
//
// Every error is reported, up to ir::Diagnostics::kMaxErrors, rendered
// gcc-style with the source line and a caret. This header and its users do
// not see ANTLR: only dsl_frontend.cc and dsl_lower.cc include its headers.
#ifndef CWSC_COMPILER_DSL_FRONTEND_H_
#define CWSC_COMPILER_DSL_FRONTEND_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/dsl_policy.h"
#include "compiler/dsl_text.h"
#include "compiler/policy_spec.h"
#include "ir/diagnostics.h"

namespace cwsc::compiler {

// DslResult is the policy a compile selected.
struct DslResult {
  std::string policy_name;
  PolicySpec spec;                        // spec.expectations holds the expectations
  std::vector<std::string> all_policies;  // names of every policy in the file
};

// ReadDslFile parses and checks a whole file. `layer` is the config layer the
// file stands for; only kManaged may set `launcher`.
absl::StatusOr<DslFile> ReadDslFile(const std::string& text, const std::string& file,
                                    Layer layer = Layer::kUser);

// ReadDslPolicy reads a file and selects `policy_name`; an empty name selects
// the only policy of a file that has exactly one.
absl::StatusOr<DslResult> ReadDslPolicy(const std::string& text, const std::string& file,
                                        const std::string& policy_name, Layer layer = Layer::kUser);

// DslToken is one lexical token, comments and white space included; the
// formatter works on these so it needs no parser types.
struct DslToken {
  enum class Kind {
    kKeyword,
    kWord,
    kString,
    kLBrace,
    kRBrace,
    kLBrack,
    kRBrack,
    kSemi,
    kComma,
    kLineComment,
    kBlockComment,
    kSpace,
    kBad
  };
  Kind kind = Kind::kBad;
  std::string text;
  int line = 0;  // 1-based
  int col = 0;   // 1-based, in code points
};

// CheckDslSyntax parses a file and reports syntax errors only.
absl::Status CheckDslSyntax(const std::string& text, const std::string& file);

// LexDsl splits a file into tokens (after the same pre-check as ReadDslFile).
absl::StatusOr<std::vector<DslToken>> LexDsl(const std::string& text, const std::string& file);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_DSL_FRONTEND_H_
