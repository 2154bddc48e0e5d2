#include "compiler/layers.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/config_key_table.h"
#include "compiler/config_toml.h"
#include "compiler/dsl_frontend.h"
#include "compiler/facts/config_secrets.h"
#include "compiler/modes.h"
#include "compiler/paths.h"
#include "ir/constants.h"
#include "ir/diagnostics.h"
#include "ir/status_macros.h"

namespace cwsc::compiler {
namespace {

using ir::Diagnostic;
using ir::Origin;

// EnvValue returns the primary variable if set, else the legacy one, with its name.
std::optional<std::pair<std::string, std::string>> EnvValue(HostFacts& facts,
                                                            const std::string& primary,
                                                            const std::string& legacy) {
  if (auto v = facts.Env(primary)) return std::make_pair(primary, *v);
  if (auto v = facts.Env(legacy)) return std::make_pair(legacy, *v);
  return std::nullopt;
}

int Rank(ir::PolicyType mode) {
  if (mode == ir::PolicyType::kReadOnly) return 2;
  if (mode == ir::PolicyType::kWorkspaceWrite) return 1;
  return 0;
}

std::string Norm(const std::string& s) {
  return absl::AsciiStrToLower(absl::StripAsciiWhitespace(s));
}

// EnvBool reads a boolean override (CODEWHALE_PREFER_BWRAP): an empty or
// blank value is unset; "1"/"true" = true; anything else false, with a warning.
void EnvBool(HostFacts& facts, const ConfigKey& k, PolicySpec& spec,
             std::vector<Diagnostic>* notes) {
  std::optional<std::pair<std::string, std::string>> set;
  for (std::string_view name : {k.env.name, k.env.legacy}) {
    auto v = facts.Env(std::string(name));
    if (v && !absl::StripAsciiWhitespace(*v).empty()) {
      set = std::make_pair(std::string(name), *v);
      break;
    }
  }
  if (!set) return;
  std::string v = Norm(set->second);
  spec.*std::get<std::optional<Setting<bool>> PolicySpec::*>(k.field) =
      Setting<bool>{v == "1" || v == "true", Origin::Env(set->first)};
  if (v != "1" && v != "true" && v != "0" && v != "false" && notes != nullptr) {
    notes->push_back(Diagnostic{Diagnostic::Severity::kWarning, "", 0, 0,
                                absl::StrCat(set->first, "='", set->second,
                                             "' is read as false (only 1 or true "
                                             "mean true): bubblewrap is not used"),
                                ""});
  }
  if (k.env.legacy_deprecated && set->first == k.env.legacy && notes != nullptr) {
    notes->push_back(Diagnostic{Diagnostic::Severity::kWarning, "", 0, 0,
                                absl::StrCat(std::string(k.env.legacy),
                                             " is deprecated and will be removed in "
                                             "0.10.0; use ",
                                             std::string(k.env.name)),
                                ""});
  }
}

// The one boolean override is prefer_bwrap, whose warning EnvBool words.
constexpr bool OnlyPreferBwrapIsABoolOverride() {
  for (const ConfigKey& k : kConfigKeys) {
    if (k.type == KeyType::kBool && !k.env.name.empty() && k.name != "prefer_bwrap") return false;
  }
  return true;
}
static_assert(OnlyPreferBwrapIsABoolOverride(), "EnvBool's warning speaks of bubblewrap only");

}  // namespace

// The overrides are the config-key table's env column (docs/config.md "Env
// overrides"); the primary name wins when both are set.
absl::StatusOr<PolicySpec> EnvOverrides(HostFacts& facts, std::vector<Diagnostic>* notes) {
  PolicySpec spec;
  for (const ConfigKey& k : ConfigKeys()) {
    if (k.env.name.empty()) continue;
    const std::string name(k.env.name), legacy(k.env.legacy);
    switch (k.type) {
      case KeyType::kBool:
        EnvBool(facts, k, spec, notes);
        break;
      case KeyType::kSecret:
        // The key itself is never read here: only whether it is set (the runtime reads it).
        for (const std::string& var : {name, legacy}) {
          if (facts.EnvIsSet(var)) {
            spec.*std::get<std::optional<Setting<std::string>> PolicySpec::*>(k.field) =
                Setting<std::string>{"", Origin::Env(var)};
            break;
          }
        }
        break;
      case KeyType::kString:
        if (auto v = EnvValue(facts, name, legacy)) {
          spec.*std::get<std::optional<Setting<std::string>> PolicySpec::*>(k.field) =
              Setting<std::string>{v->second, Origin::Env(v->first)};
        }
        break;
      case KeyType::kSandboxBackend:
        if (auto v = EnvValue(facts, name, legacy)) {
          spec.*std::get<std::optional<Setting<SandboxBackend>> PolicySpec::*>(k.field) =
              Setting<SandboxBackend>{{ParseBackend(v->second), v->second}, Origin::Env(v->first)};
        }
        break;
      case KeyType::kSandboxMode:
        if (auto v = EnvValue(facts, name, legacy)) {
          std::optional<SandboxMode> mode = ParseSandboxMode(v->second);
          if (!mode) {
            return ir::ErrorAt(absl::StrCat("env ", v->first), 0, 0,
                               InvalidSandboxModeMessage(v->second));
          }
          spec.*std::get<std::optional<Setting<SandboxMode>> PolicySpec::*>(k.field) =
              Setting<SandboxMode>{*std::move(mode), Origin::Env(v->first)};
        }
        break;
      default:
        break;  // no other type has an override (tests/compiler/config_key_table_test.cc)
    }
  }
  return spec;
}

absl::StatusOr<ManagedLayer> ReadManagedLayer(HostFacts& facts, const PolicySpec& merged,
                                              std::vector<Diagnostic>* notes) {
  ManagedLayer out;
  std::string path;
  if (merged.managed_config_path) {
    path = merged.managed_config_path->value;
    if (path == "~" || absl::StartsWith(path, "~/")) {
      std::string home = facts.Env("HOME").value_or(facts.User().home);
      path = home + path.substr(1);
    }
    out.from_env_or_default = merged.managed_config_path->origin.kind == Origin::Kind::kEnv;
  } else {
    path = kDefaultManagedConfigPath;
    if (facts.Path(path).type == FileType::kMissing) path = kLegacyManagedConfigPath;
    out.from_env_or_default = true;
  }
  const PathInfo& info = facts.Path(path);
  if (info.type == FileType::kMissing) return out;
  auto text = facts.ReadFile(path);
  if (!text) {
    return ir::ErrorAt(path, 0, 0,
                       "the managed config exists but cannot be read (it must be a regular file "
                       "of at most 64 KiB)");
  }
  ConfigLayer layer;
  if (absl::EndsWith(path, ".cwsp")) {  // a managed policy in the DSL (docs/dsl.md)
    CWSC_ASSIGN_OR_RETURN(DslResult dsl, ReadDslPolicy(*text, path, "", Layer::kManaged));
    layer.spec = std::move(dsl.spec);
    layer.spec.expectations.clear();  // the user policy's expectations are the ones checked
  } else {
    CWSC_ASSIGN_OR_RETURN(layer, ReadTomlConfig(*text, path, Layer::kManaged));
  }
  if (notes != nullptr) notes->insert(notes->end(), layer.notes.begin(), layer.notes.end());
  out.path = path;
  out.spec = std::move(layer.spec);
  return out;
}

bool Requirements::Allows(ir::PolicyType mode) const {
  if (path.empty() || allowed.empty()) return true;
  return std::find(allowed.begin(), allowed.end(), mode) != allowed.end();
}

std::string Requirements::Describe() const {
  return absl::StrCat(path, " allows ",
                      absl::StrJoin(allowed, ", ", [](std::string* out, ir::PolicyType t) {
                        out->append(ir::PolicyTypeName(t));
                      }));
}

absl::StatusOr<Requirements> ReadRequirements(HostFacts& facts, const PolicySpec& merged) {
  Requirements out;
  std::string path;
  if (merged.requirements_path) {
    path = std::string(absl::StripAsciiWhitespace(merged.requirements_path->value));
    if (path == "~" || absl::StartsWith(path, "~/")) {
      std::string home = facts.Env("HOME").value_or(facts.User().home);
      path = home + path.substr(1);
    }
  } else {
    path = kDefaultRequirementsPath;
    if (facts.Path(path).type == FileType::kMissing) path = kLegacyRequirementsPath;
  }
  if (path.empty() || facts.Path(path).type == FileType::kMissing) return out;
  auto text = facts.ReadFile(path);
  if (!text) {
    return ir::ErrorAt(path, 0, 0,
                       "the requirements file exists but cannot be read (it must be a regular "
                       "file of at most 64 KiB)");
  }
  CWSC_ASSIGN_OR_RETURN(RequirementsFile file, ParseRequirements(*text, path));
  out.path = path;
  out.allowed = std::move(file.allowed);
  out.origin = file.origin;
  return out;
}

bool ProjectModeAllowed(std::optional<ir::PolicyType> current, ir::PolicyType project) {
  if (project == ir::PolicyType::kExternalSandbox) {
    return current == ir::PolicyType::kExternalSandbox;
  }
  if (!current) return Rank(project) >= 2;
  return Rank(project) >= Rank(*current);
}

absl::Status ApplyProjectLayer(HostFacts& facts, const std::string& cwd, PolicySpec& merged,
                               std::vector<Diagnostic>* notes) {
  std::string path;
  for (const char* dir : ir::kConfigDirNames) {
    std::string p = JoinPath(JoinPath(cwd, dir), "config.toml");
    if (facts.Path(p).type != FileType::kMissing || facts.Path(p).is_symlink) {
      path = p;
      break;
    }
  }
  if (path.empty()) return absl::OkStatus();
  auto warn = [&](const std::string& msg) {
    if (notes) notes->push_back(Diagnostic{Diagnostic::Severity::kWarning, path, 0, 0, msg, ""});
  };
  if (facts.Path(path).is_symlink) {
    warn("ignoring the project config: it is a symlink");
    return absl::OkStatus();
  }
  auto text = facts.ReadFile(path);
  if (!text) {
    warn("ignoring the project config: it cannot be read");
    return absl::OkStatus();
  }
  CWSC_ASSIGN_OR_RETURN(ConfigLayer layer, ReadTomlConfig(*text, path, Layer::kProject));
  if (layer.spec.tool_launcher) {
    const Origin& o = layer.spec.tool_launcher->origin;
    return ir::ErrorAt(o.file, o.line, o.col,
                       "'tool_launcher' in a project config stops an interactive launch; only a "
                       "trusted managed config may set it",
                       ir::SourceLineAt(MaskSecrets(*text), o.line));
  }
  if (layer.spec.sandbox_mode) {
    std::optional<ir::PolicyType> current;
    if (merged.sandbox_mode) current = merged.sandbox_mode->value.type;
    if (ProjectModeAllowed(current, layer.spec.sandbox_mode->value.type)) {
      merged.sandbox_mode = layer.spec.sandbox_mode;
    } else {
      warn(absl::StrCat("ignoring sandbox_mode '", layer.spec.sandbox_mode->value.text,
                        "': project config can only tighten the user's sandbox mode."));
    }
  }
  return absl::OkStatus();
}

}  // namespace cwsc::compiler
