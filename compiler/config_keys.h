// Internal to the TOML frontend: the table of the config keys it reads
// (docs/behavior.md B-1 and the cwsc extensions, each with its camelCase
// alias) and the warning for an unknown key that looks like one. Used by
// config_toml.cc only.
#ifndef CWSC_COMPILER_CONFIG_KEYS_H_
#define CWSC_COMPILER_CONFIG_KEYS_H_

#include <functional>
#include <string>

#include "compiler/policy_spec.h"
#include "compiler/toml_reader.h"

namespace cwsc::compiler::toml_read {

// KeyHandler stores one key's value into the spec.
struct KeyHandler {
  const char* name;
  const char* alias;  // camelCase alias or nullptr
  std::function<void(Reader&, PolicySpec&, const std::string&, const toml::node&)> read;
};

// HandlerFor is the handler of a key's name or alias, or nullptr.
const KeyHandler* HandlerFor(const std::string& key);

// IsSandboxKeyName: `key` names a sandbox setting (its name or alias).
bool IsSandboxKeyName(const std::string& key);

// UnknownKeyWarning is the warning for an unknown key `key` (shown as
// `shown`) that looks like a sandbox setting, or "" for an unrelated key.
std::string UnknownKeyWarning(const std::string& shown, const std::string& key, bool table);

}  // namespace cwsc::compiler::toml_read

#endif  // CWSC_COMPILER_CONFIG_KEYS_H_
