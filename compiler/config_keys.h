// Internal to the TOML frontend: how a key of the config-key table
// (compiler/config_key_table.h) is read into the spec, and the warning for
// an unknown key that looks like one. Used by config_toml.cc only.
#ifndef CWSC_COMPILER_CONFIG_KEYS_H_
#define CWSC_COMPILER_CONFIG_KEYS_H_

#include <string>

#include "compiler/config_key_table.h"
#include "compiler/policy_spec.h"
#include "compiler/toml_reader.h"

namespace cwsc::compiler::toml_read {

// HandlerFor is the table row of a key's name or alias, or nullptr.
const ConfigKey* HandlerFor(const std::string& key);

// ReadKey reads the value of `k` (written `key` in messages and origins) into
// `spec`: the row's type says how it is read and checked, its layers whether
// this file (or a profile) may set it.
void ReadKey(Reader& r, PolicySpec& spec, const ConfigKey& k, const std::string& key,
             const toml::node& n);

// IsSandboxKeyName: `key` names a sandbox setting (its name or alias).
bool IsSandboxKeyName(const std::string& key);

// UnknownKeyWarning is the warning for an unknown key `key` (shown as
// `shown`) that looks like a sandbox setting, or "" for an unrelated key.
std::string UnknownKeyWarning(const std::string& shown, const std::string& key, bool table);

}  // namespace cwsc::compiler::toml_read

#endif  // CWSC_COMPILER_CONFIG_KEYS_H_
