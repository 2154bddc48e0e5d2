// Overlay: one PolicySpec over another, field by field, each by its merge
// rule (a set scalar wins, a non-empty list wins, the API key's sources move
// together). The layering stage (compiler/layers.h) stacks the config layers
// with it; the TOML frontend puts a selected profile over the top level.
#ifndef CWSC_COMPILER_OVERLAY_H_
#define CWSC_COMPILER_OVERLAY_H_

#include "compiler/policy_spec.h"

namespace cwsc::compiler {

// Overlay applies `top` over `base`: a set scalar wins; a list wins when non-empty.
void Overlay(PolicySpec& base, const PolicySpec& top);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_OVERLAY_H_
