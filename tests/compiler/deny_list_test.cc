// The read deny list (docs/behavior.md B-50) and its bwrap masks (B-43, B-90).
#include "compiler/deny_list.h"

#include <gtest/gtest.h>

#include "backends/bwrap.h"
#include "tests/compiler/test_facts.h"

namespace cwsc::compiler {
namespace {

using cwsc::testing::CompileText;
using cwsc::testing::FactsBuilder;

std::vector<std::string> Denied(const ir::LaunchPlan& p) {
  std::vector<std::string> out;
  for (const auto& d : p.denied_read) out.push_back(d.path);
  return out;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(DenyList, BuiltinsForLinux) {
  FactsBuilder f;
  auto facts = f.Build();
  auto rules = BuiltinDenyRules(*facts, "linux", "/home/dev");
  std::vector<std::string> paths;
  for (const auto& r : rules) paths.push_back(r.path);
  EXPECT_EQ(paths[0], "/etc/shadow");
  EXPECT_EQ(paths[1], "/etc/sudoers");
  EXPECT_EQ(paths[2], "/etc/ssh");
  for (const char* p : {"/home/dev/.ssh", "/home/dev/.aws", "/home/dev/.config/gcloud",
                        "/home/dev/.netrc", "/home/dev/.codex/auth.json",
                        "/home/dev/.claude/.credentials.json", "/home/dev/.docker/config.json"}) {
    EXPECT_TRUE(Contains(paths, p)) << p;
  }
  EXPECT_FALSE(Contains(paths, "/home/dev/.gitconfig"));
  EXPECT_FALSE(Contains(paths, "/home/dev/.cargo"));
  EXPECT_FALSE(Contains(paths, "/Library/Keychains"));
  auto mac = BuiltinDenyRules(*facts, "macos", "/Users/dev");
  std::vector<std::string> mpaths;
  for (const auto& r : mac) mpaths.push_back(r.path);
  EXPECT_TRUE(Contains(mpaths, "/Library/Keychains"));
  EXPECT_TRUE(Contains(mpaths, "/Users/dev/Library/Keychains"));
}

TEST(DenyList, CodexAndCodewhaleHomes) {
  FactsBuilder f;
  f.Env("CODEX_HOME", "/srv/codex").Env("CODEWHALE_HOME", "/srv/cw");
  auto facts = f.Build();
  std::vector<std::string> paths;
  for (const auto& r : BuiltinDenyRules(*facts, "linux", "/home/dev")) paths.push_back(r.path);
  EXPECT_TRUE(Contains(paths, "/srv/codex/auth.json"));
  EXPECT_TRUE(Contains(paths, "/srv/cw/secrets"));
  EXPECT_TRUE(Contains(paths, "/srv/cw/credentials"));
  EXPECT_FALSE(Contains(paths, "/home/dev/.codex/auth.json"));
}

TEST(DenyList, ExemptionsDropWholeBuiltinRulesOnly) {
  FactsBuilder f;
  auto p = CompileText(
               "sandbox_read_denylist_exempt = [\"~/.ssh\", \"~/.aws/config\"]\n"
               "sandbox_denied_read_paths = [\"~/.ssh/keys\", \"/srv/secret/../vault\"]\n",
               f)
               ->plan;
  std::vector<std::string> d = Denied(p);
  EXPECT_FALSE(Contains(d, "/home/dev/.ssh"));
  EXPECT_TRUE(Contains(d, "/home/dev/.aws"));       // exempting a file below changes nothing
  EXPECT_TRUE(Contains(d, "/home/dev/.ssh/keys"));  // user additions are never exempted
  EXPECT_TRUE(Contains(d, "/srv/vault"));           // lexically normalized
  EXPECT_EQ(d.back(), "/srv/vault");
}

TEST(DenyList, DefaultsOff) {
  FactsBuilder f;
  auto p = CompileText(
               "sandbox_read_denylist_defaults = false\n"
               "sandbox_denied_read_paths = [\"~/private\"]\n",
               f)
               ->plan;
  EXPECT_EQ(Denied(p), std::vector<std::string>{"/home/dev/private"});
  std::string where = p.denied_read[0].origin.Describe();
  EXPECT_EQ(where.rfind("config sandbox_denied_read_paths at /tmp/cwsc-config-", 0), 0u) << where;
  EXPECT_EQ(where.substr(where.size() - 10), ".toml:2:30") << where;
  EXPECT_EQ(p.denied_read[0].origin.detail, "sandbox_denied_read_paths");
  EXPECT_EQ(p.denied_read[0].rule, "~/private");
}

TEST(DenyList, CanonicalSpellingFirst) {
  FactsBuilder f;
  f.Dir("/home/dev/.aws", "/data/aws").Dir("/data/aws");
  auto p = CompileText(
               "sandbox_read_denylist_defaults = false\n"
               "sandbox_denied_read_paths = [\"~/.aws\", \"/data/aws\"]\n",
               f)
               ->plan;
  EXPECT_EQ(Denied(p), (std::vector<std::string>{"/data/aws", "/home/dev/.aws"}));
}

TEST(DenyList, MasksByType) {
  FactsBuilder f;
  f.Dir("/home/dev/.ssh").File("/home/dev/.netrc").Missing("/home/dev/.aws");
  auto p = CompileText(
               "sandbox_read_denylist_defaults = false\n"
               "sandbox_denied_read_paths = [\"~/.ssh\", \"~/.netrc\", \"~/.aws\"]\n",
               f)
               ->plan;
  std::vector<std::string> masks;
  for (const auto& m : p.mounts()) {
    if (m.why.str().rfind("deny read", 0) == 0) {
      masks.push_back(std::string(backends::MountOpFlag(m.op)) + " " + m.source + " " + m.dest);
    }
  }
  EXPECT_EQ(masks, (std::vector<std::string>{"--tmpfs  /home/dev/.ssh",
                                             "--ro-bind /dev/null /home/dev/.netrc"}));
}

TEST(DenyList, BadPathNamesTheKey) {
  FactsBuilder f;
  auto r = CompileText("sandbox_denied_read_paths = [\"relative/x\"]\n", f);
  ASSERT_FALSE(r.ok());
  std::string m(r.status().message());
  EXPECT_EQ(m.substr(m.find(".toml:") + 5),
            ":1:30: error: sandbox_denied_read_paths: path 'relative/x' is relative; use an "
            "absolute path, ~ or a variable\n");
}

}  // namespace
}  // namespace cwsc::compiler
