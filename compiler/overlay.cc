#include "compiler/overlay.h"

#include <tuple>
#include <type_traits>

#include "ir/field_table.h"

namespace cwsc::compiler {
namespace {

template <typename T>
void Take(std::optional<Setting<T>>& base, const std::optional<Setting<T>>& top) {
  if (top) base = top;
}

void TakeList(std::optional<Setting<PathList>>& base, const std::optional<Setting<PathList>>& top) {
  if (top && !top->value.empty()) base = top;
}

// Merge is how a higher layer's value of one PolicySpec field replaces the
// value below it.
enum class Merge {
  kScalar,      // a set value wins
  kList,        // a non-empty list wins
  kApiKey,      // the key's sources move together: a layer naming any replaces all
  kNotLayered,  // the user policy's own (its expectations)
};

template <Merge K, typename M>
struct SpecRule {
  static constexpr Merge kMerge = K;
  ir::FieldRef<PolicySpec, M> field;
};

template <Merge K, typename M>
constexpr SpecRule<K, M> Rule(const char* name, M PolicySpec::*member) {
  return {{name, member}};
}

// One rule per PolicySpec field; a field missing here would be dropped
// silently by layering, so the table is checked against the struct.
constexpr auto kSpecRules = std::make_tuple(
    Rule<Merge::kScalar>("sandbox_mode", &PolicySpec::sandbox_mode),
    Rule<Merge::kScalar>("prefer_bwrap", &PolicySpec::prefer_bwrap),
    Rule<Merge::kList>("bwrap_ro_roots", &PolicySpec::bwrap_ro_roots),
    Rule<Merge::kList>("bwrap_dev_roots", &PolicySpec::bwrap_dev_roots),
    Rule<Merge::kScalar>("sandbox_backend", &PolicySpec::sandbox_backend),
    Rule<Merge::kScalar>("sandbox_url", &PolicySpec::sandbox_url),
    Rule<Merge::kApiKey>("sandbox_api_key", &PolicySpec::sandbox_api_key),
    Rule<Merge::kScalar>("sandbox_network_access", &PolicySpec::sandbox_network_access),
    Rule<Merge::kScalar>("managed_config_path", &PolicySpec::managed_config_path),
    Rule<Merge::kScalar>("requirements_path", &PolicySpec::requirements_path),
    Rule<Merge::kScalar>("sandbox_read_denylist_defaults",
                         &PolicySpec::sandbox_read_denylist_defaults),
    Rule<Merge::kList>("sandbox_denied_read_paths", &PolicySpec::sandbox_denied_read_paths),
    Rule<Merge::kList>("sandbox_read_denylist_exempt", &PolicySpec::sandbox_read_denylist_exempt),
    Rule<Merge::kScalar>("tool_launcher", &PolicySpec::tool_launcher),
    Rule<Merge::kList>("sandbox_writable_roots", &PolicySpec::sandbox_writable_roots),
    Rule<Merge::kScalar>("sandbox_exclude_tmpdir", &PolicySpec::sandbox_exclude_tmpdir),
    Rule<Merge::kScalar>("sandbox_exclude_slash_tmp", &PolicySpec::sandbox_exclude_slash_tmp),
    Rule<Merge::kList>("sandbox_protected_names", &PolicySpec::sandbox_protected_names),
    Rule<Merge::kScalar>("sandbox_require", &PolicySpec::sandbox_require),
    Rule<Merge::kScalar>("sandbox_linux_backend", &PolicySpec::sandbox_linux_backend),
    Rule<Merge::kScalar>("sandbox_opensandbox_api", &PolicySpec::sandbox_opensandbox_api),
    Rule<Merge::kScalar>("sandbox_execd_url", &PolicySpec::sandbox_execd_url),
    Rule<Merge::kScalar>("sandbox_image", &PolicySpec::sandbox_image),
    Rule<Merge::kScalar>("sandbox_execd_port", &PolicySpec::sandbox_execd_port),
    Rule<Merge::kScalar>("sandbox_keep", &PolicySpec::sandbox_keep),
    Rule<Merge::kScalar>("sandbox_remote_cwd", &PolicySpec::sandbox_remote_cwd),
    Rule<Merge::kApiKey>("sandbox_api_key_env", &PolicySpec::sandbox_api_key_env),
    Rule<Merge::kApiKey>("sandbox_api_key_file", &PolicySpec::sandbox_api_key_file),
    Rule<Merge::kNotLayered>("expectations", &PolicySpec::expectations));

static_assert(ir::FieldCount<PolicySpec>() == std::tuple_size_v<decltype(kSpecRules)>,
              "a PolicySpec field has no layering rule in kSpecRules");

}  // namespace

void Overlay(PolicySpec& base, const PolicySpec& top) {
  bool names_key = top.sandbox_api_key || top.sandbox_api_key_env || top.sandbox_api_key_file;
  ir::ForEachField(kSpecRules, [&](const auto& rule) {
    using R = std::decay_t<decltype(rule)>;
    auto& below = base.*(rule.field.member);
    const auto& above = top.*(rule.field.member);
    if constexpr (R::kMerge == Merge::kScalar) {
      Take(below, above);
    } else if constexpr (R::kMerge == Merge::kList) {
      TakeList(below, above);
    } else if constexpr (R::kMerge == Merge::kApiKey) {
      if (names_key) below = above;
    }
  });
}

}  // namespace cwsc::compiler
