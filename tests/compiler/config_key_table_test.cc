// The config-key table (compiler/config_key_table.h): docs/config.md lists
// exactly its keys, aliases and environment overrides, and every row is
// reachable through each way the table says it can be set: the TOML reader
// (by name and by alias), the .cwsp DSL and the environment.
#include "compiler/config_key_table.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "compiler/config_toml.h"
#include "compiler/dsl_frontend.h"
#include "compiler/layers.h"
#include "tests/compiler/test_facts.h"

namespace cwsc::compiler {
namespace {

std::string ConfigDocs() {
  const char* root = std::getenv("CWSC_SOURCE_ROOT");
  std::ifstream in(std::string(root ? root : ".") + "/docs/config.md");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Section is the text of docs/config.md from `heading` to the next "## ".
std::string Section(const std::string& docs, const std::string& heading) {
  size_t at = docs.find("\n" + heading + "\n");
  if (at == std::string::npos) return "";
  size_t end = docs.find("\n## ", at + heading.size() + 1);
  return docs.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// IsSet: the row's field of `spec` holds a value.
bool IsSet(const PolicySpec& spec, const ConfigKey& k) {
  return std::visit([&](auto member) { return (spec.*member).has_value(); }, k.field);
}

// The layer a row is read in: the user config unless only the managed one may set it.
Layer FileLayerOf(const ConfigKey& k) {
  return k.AllowedIn(Layer::kUser) ? Layer::kUser : Layer::kManaged;
}

// docs/config.md "Keys": each table row `| \`name\` (\`alias\`) | type | ...`
// names a key of the table, with its alias, and every key has a row.
TEST(ConfigKeyTable, DocsListEveryKeyAndNoOther) {
  std::string keys = Section(ConfigDocs(), "## Keys (behavior.md B-1)");
  ASSERT_FALSE(keys.empty()) << "docs/config.md has no \"## Keys (behavior.md B-1)\" section";
  std::map<std::string, std::string> documented;  // key -> alias
  std::regex row(R"(\n\| `([A-Za-z_]+)`(?: \(`([A-Za-z]+)`\))? \|)");
  for (std::sregex_iterator it(keys.begin(), keys.end(), row), end; it != end; ++it) {
    documented[(*it)[1]] = (*it)[2];
  }
  for (const ConfigKey& k : ConfigKeys()) {
    auto it = documented.find(std::string(k.name));
    if (it == documented.end()) {
      ADD_FAILURE() << "docs/config.md \"Keys\" has no row for the key " << k.name;
      continue;
    }
    EXPECT_EQ(it->second, k.alias) << "docs/config.md gives " << k.name << " the alias '"
                                   << it->second << "'; the table says " << k.alias;
  }
  for (const auto& [name, alias] : documented) {
    EXPECT_NE(FindConfigKey(name), nullptr)
        << "docs/config.md \"Keys\" lists " << name << ", which the config-key table lacks";
  }
  EXPECT_GE(documented.size(), 20u);
}

// docs/config.md "Env overrides": a row `| \`CODEWHALE_X\` (\`DEEPSEEK_…\`) |
// \`key\` ...` for each override of the table, and none for another key.
TEST(ConfigKeyTable, DocsListEveryEnvOverrideAndNoOther) {
  std::string env = Section(ConfigDocs(), "## Env overrides (behavior.md B-2)");
  ASSERT_FALSE(env.empty()) << "docs/config.md has no \"## Env overrides\" section";
  std::map<std::string, std::string> documented;  // variable -> the key its row names first
  std::regex row(R"(\n\| `([A-Z_]+)` \(`DEEPSEEK_[^`]*`\) \| `([a-z_]+)`)");
  for (std::sregex_iterator it(env.begin(), env.end(), row), end; it != end; ++it) {
    documented[(*it)[1]] = (*it)[2];
  }
  for (const ConfigKey& k : ConfigKeys()) {
    if (k.env.name.empty()) continue;
    auto it = documented.find(std::string(k.env.name));
    if (it == documented.end()) {
      ADD_FAILURE() << "docs/config.md \"Env overrides\" has no row `" << k.env.name
                    << "` (`DEEPSEEK_…`) | `" << k.name << "`";
      continue;
    }
    EXPECT_EQ(it->second, k.name) << k.env.name;
  }
  for (const auto& [var, key] : documented) {
    const ConfigKey* k = FindConfigKey(key);
    EXPECT_TRUE(k != nullptr && k->env.name == var)
        << "docs/config.md says " << var << " overrides " << key << "; the table does not";
  }
}

// Every key is read by the TOML reader, by its name and by its alias, in a
// layer its row allows.
TEST(ConfigKeyTable, EveryKeyIsReadFromToml) {
  for (const ConfigKey& k : ConfigKeys()) {
    for (std::string_view spelling : {k.name, k.alias}) {
      std::string text = std::string(spelling) + " = " + std::string(k.example) + "\n";
      auto r = ReadTomlConfig(text, "c.toml", FileLayerOf(k));
      ASSERT_TRUE(r.ok()) << text << r.status();
      EXPECT_TRUE(IsSet(r->spec, k)) << text;
      EXPECT_TRUE(r->notes.empty()) << text;
    }
  }
}

// A key only the managed config may set is an error in a user config.
TEST(ConfigKeyTable, ManagedOnlyKeysAreRefusedInAUserConfig) {
  int managed_only = 0;
  for (const ConfigKey& k : ConfigKeys()) {
    if (k.AllowedIn(Layer::kUser)) continue;
    ++managed_only;
    std::string text = std::string(k.name) + " = " + std::string(k.example) + "\n";
    auto r = ReadTomlConfig(text, "c.toml", Layer::kUser);
    EXPECT_FALSE(r.ok()) << text;
  }
  EXPECT_GE(managed_only, 1);
}

// Every row with a DSL spelling: that statement sets the same field.
TEST(ConfigKeyTable, EveryDslSpellingSetsTheKeysField) {
  int rows = 0;
  for (const ConfigKey& k : ConfigKeys()) {
    if (k.dsl.empty()) continue;
    ++rows;
    std::string text = "policy p {\n  " + std::string(k.dsl) + "\n}\n";
    auto r = ReadDslPolicy(text, "p.cwsp", "p", FileLayerOf(k));
    ASSERT_TRUE(r.ok()) << text << r.status();
    EXPECT_TRUE(IsSet(r->spec, k)) << text;
  }
  EXPECT_GE(rows, 20);
}

// Every environment override sets its key, from its name and its legacy name.
TEST(ConfigKeyTable, EveryEnvOverrideSetsItsKey) {
  int rows = 0;
  for (const ConfigKey& k : ConfigKeys()) {
    if (k.env.name.empty()) continue;
    ++rows;
    std::string value(k.example);
    if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.size() - 2);
    if (k.type == KeyType::kBool) value = "1";
    for (std::string_view var : {k.env.name, k.env.legacy}) {
      // An API key variable is recorded as set, never with its value.
      std::string yaml = k.type == KeyType::kSecret
                             ? cwsc::testing::FactsBuilder().Yaml() + "secrets_set:\n  " +
                                   std::string(var) + ": true\n"
                             : cwsc::testing::FactsBuilder().Env(std::string(var), value).Yaml();
      auto facts = ParseRecordedFacts(yaml, "facts.yaml");
      ASSERT_TRUE(facts.ok()) << facts.status();
      auto spec = EnvOverrides(**facts, nullptr);
      ASSERT_TRUE(spec.ok()) << var << spec.status();
      EXPECT_TRUE(IsSet(*spec, k)) << var;
    }
  }
  EXPECT_GE(rows, 7);
}

}  // namespace
}  // namespace cwsc::compiler
