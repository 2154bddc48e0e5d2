#include "compiler/overlay.h"

#include <variant>

#include "compiler/config_key_table.h"
#include "ir/field_table.h"

namespace cwsc::compiler {
namespace {

// The PolicySpec fields no config key sets: the DSL's other sources of the
// API key (they move with sandbox_api_key) and the user policy's
// expectations (not layered). Every other field is a row of the config-key
// table, whose type gives its merge rule; a field in neither would be
// dropped silently by layering, so the two are checked against the struct.
inline constexpr size_t kFieldsBesideKeys = 3;
static_assert(ir::FieldCount<PolicySpec>() == std::size(kConfigKeys) + kFieldsBesideKeys,
              "a PolicySpec field is neither a config key nor one of the fields beside them");

// NonEmpty: a list with an entry (only lists merge as lists).
template <typename T>
bool NonEmpty(const T& value) {
  if constexpr (requires { value.empty(); }) {
    return !value.empty();
  } else {
    return true;
  }
}

}  // namespace

void Overlay(PolicySpec& base, const PolicySpec& top) {
  bool names_key = top.sandbox_api_key || top.sandbox_api_key_env || top.sandbox_api_key_file;
  for (const ConfigKey& k : ConfigKeys()) {
    std::visit(
        [&](auto member) {
          auto& below = base.*member;
          const auto& above = top.*member;
          switch (MergeOf(k.type)) {
            case Merge::kScalar:
              if (above) below = above;
              break;
            case Merge::kList:
              if (above && NonEmpty(above->value)) below = above;
              break;
            case Merge::kApiKey:
              if (names_key) below = above;
              break;
          }
        },
        k.field);
  }
  if (names_key) {
    base.sandbox_api_key_env = top.sandbox_api_key_env;
    base.sandbox_api_key_file = top.sandbox_api_key_file;
  }
}

}  // namespace cwsc::compiler
