// The OpenSandbox API key never leaves the config file: not in a config
// error (message, excerpt or caret line) of any kind, not in a facts file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "compiler/facts/config_secrets.h"
#include "compiler/config_toml.h"
#include "tests/compiler/test_facts.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc {
namespace {

using compiler::Layer;
using compiler::ReadTomlConfig;

std::string ErrorOf(const std::string& text, Layer layer = Layer::kUser) {
  auto r = ReadTomlConfig(text, "c.toml", layer);
  if (r.ok()) return "";
  return std::string(r.status().message());
}

// Every way a config with the key can be wrong: the error names the place,
// never the key's value.
TEST(Secrets, NoConfigErrorShowsTheKey) {
  const std::vector<std::string> bad = {
      "sandbox_api_key = \"SECRETSECRET\" trailing\n",
      "sandbox_api_key = \"SECRETSECRET\"\nsandbox_api_key = \"SECRETSECRET2\"\n",
      "sandbox_api_key = \"SECRETSECRET\"\nsandboxApiKey = \"SECRETSECRET2\"\n",
      "sandboxApiKey = \"SECRETSECRET2\"\nsandbox_api_key = \"SECRETSECRET\"\n",
      "sandbox_api_key = \"SECRETSECRET\n",
      "sandbox_api_key = 'SECRETSECRET\n",
      "sandbox_api_key = \"\"\"SECRETSECRET\nMORESECRETSECRET\n",
      "sandbox_api_key = '''SECRETSECRET\nMORESECRETSECRET\n",
      "sandbox_api_key = \"SECRET\\qSECRET\"\n",
      "sandbox_api_key = \"SECRET\x01SECRET\"\n",
      "sandbox_api_key = SECRETSECRET\n",
      "sandbox_api_key = 12345678901\n",
      "sandbox_api_key = [\"SECRETSECRET\"]\n",
      "sandbox_api_key = \"SECRETSECRET\"\nsandbox_mode = \"sometimes\"\n",
      "[profiles.x]\nsandbox_api_key = \"SECRETSECRET\"\nsandbox_api_key = \"SECRETSECRET\"\n",
      "x = { sandbox_api_key = \"SECRETSECRET\", sandbox_api_key = \"SECRETSECRET\" }\n",
      "\"sandbox_api_key\" = \"SECRETSECRET\" x\n",
      "sandbox_api_key=\"SECRETSECRET\"=\n",
  };
  for (const std::string& text : bad) {
    for (Layer layer : {Layer::kUser, Layer::kManaged, Layer::kProject}) {
      std::string err = ErrorOf(text, layer);
      EXPECT_NE(err, "") << text;
      EXPECT_EQ(err.find("SECRET"), std::string::npos) << text << "\n" << err;
      EXPECT_EQ(err.find("12345678901"), std::string::npos) << text << "\n" << err;
      EXPECT_EQ(err.find("c.toml:"), 0u) << err;
    }
  }
}

TEST(Secrets, ErrorTextsOnTheKeyLine) {
  EXPECT_EQ(ErrorOf("sandbox_api_key = \"SECRETSECRET\" trailing\n"),
            "c.toml:1:34: error: malformed TOML: Error while parsing key-value pair: expected a "
            "comment or whitespace, saw 't'\n"
            "  sandbox_api_key = \"************\" trailing\n"
            "                                   ^\n");
  EXPECT_EQ(ErrorOf("sandbox_mode = \"read-only\"\nsandbox_api_key = \"SECRETSECRET\n"),
            "c.toml:2:32: error: malformed TOML in the value of 'sandbox_api_key' (the value is "
            "not shown)\n"
            "  sandbox_api_key = \"************\n"
            "                                 ^\n");
  EXPECT_EQ(ErrorOf("sandbox_api_key = \"A\"\nsandbox_api_key = \"SECRETSECRET\"\n"),
            "c.toml:2:19: error: malformed TOML: Error while parsing key-value pair: cannot "
            "redefine existing string 'sandbox_api_key'\n"
            "  sandbox_api_key = \"************\"\n"
            "                    ^\n");
  EXPECT_EQ(ErrorOf("sandbox_api_key = \"SECRETSECRET\"\nsandboxApiKey = \"SECRETSECRET2\"\n"),
            "c.toml:2:17: error: 'sandboxApiKey' repeats 'sandbox_api_key' (the same setting)\n"
            "  sandboxApiKey = \"*************\"\n"
            "                  ^\n");
}

TEST(Secrets, RedactKeepsLinesAndValidity) {
  EXPECT_EQ(compiler::MaskSecrets("x = 1\nsandbox_api_key = '''AB\nC'''\n"),
            "x = 1\nsandbox_api_key = '''**\n*'''\n");
  EXPECT_EQ(compiler::RedactSecrets("a = 1\nsandbox_api_key = \"S\" # c\nb = 2\n"),
            "a = 1\nsandbox_api_key = \"<redacted>\" # c\nb = 2\n");
  EXPECT_EQ(compiler::RedactSecrets("sandboxApiKey = \"\"\"S\nT\"\"\"\nb = 2\n"),
            "sandboxApiKey = \"<redacted>\"\n\nb = 2\n");
  EXPECT_EQ(compiler::RedactSecrets("sandbox_api_key = \"S\\\"T\"\n"),
            "sandbox_api_key = \"<redacted>\"\n");
  EXPECT_EQ(compiler::RedactSecrets("sandbox_mode = \"read-only\"\n"), "sandbox_mode = \"read-only\"\n");
  auto r = ReadTomlConfig(compiler::RedactSecrets("sandbox_api_key = 'S'\nsandbox_url = \"u\"\n"),
                          "c.toml", Layer::kUser);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->spec.sandbox_api_key->value, "<redacted>");
}

// `cwsc facts --for` records the managed and project files with the key
// withheld, and the facts still compile to the same plan.
TEST(Secrets, FactsFileNeverHoldsTheKey) {
  testing::TempDir t;
  std::string ws = t / "ws";
  testing::WriteFile(t / "user.toml", "sandbox_mode = \"workspace-write\"\n");
  testing::WriteFile(t / "managed.toml",
                     "sandbox_api_key = \"MANAGEDSECRET\"\nsandbox_backend = \"opensandbox\"\n");
  mkdir(ws.c_str(), 0755);
  mkdir((ws + "/.codewhale").c_str(), 0755);
  testing::WriteFile(ws + "/.codewhale/config.toml",
                     "sandbox_mode = \"read-only\"\nsandboxApiKey = '''PROJECTSECRET\n'''\n");
  std::string bin = std::getenv("CWSC_BIN") ? std::getenv("CWSC_BIN") : "cwsc";
  std::vector<std::string> env = {"CODEWHALE_MANAGED_CONFIG_PATH=" + t / "managed.toml"};
  testing::RunResult f = testing::Run(
      {bin, "facts", "--for", t / "user.toml", "--cwd", ws, "-o", t / "f.yaml"}, "", env);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  std::string yaml = testing::ReadFileOr(t / "f.yaml");
  EXPECT_EQ(yaml.find("SECRET"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("sandbox_api_key = \\\"<redacted>\\\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("sandboxApiKey = \\\"<redacted>\\\""), std::string::npos) << yaml;
  testing::RunResult live = testing::Run(
      {bin, "compile", t / "user.toml", "--cwd", ws, "--target", "plan"}, "", env);
  testing::RunResult rec = testing::Run(
      {bin, "compile", t / "user.toml", "--cwd", ws, "--target", "plan", "--facts", t / "f.yaml"});
  EXPECT_EQ(live.exit_code, 0) << live.err;
  EXPECT_EQ(live.out, rec.out);
  EXPECT_EQ(live.out.find("SECRET"), std::string::npos);
}

}  // namespace
}  // namespace cwsc
