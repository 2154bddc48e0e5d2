// Parity: every examples/<name>.cwsp and its examples/<name>.toml twin
// compile to the identical plan (canonical JSON), for every permission mode,
// on each recorded facts file and on the live host. Origins may differ only
// in where they point (file:line:col) and in how the setting is spelled (the
// DSL statement vs the TOML key, compared through a fixed table). The DSL
// plan also carries the policy's expectations. The formatted policy compiles
// to the same plan as the original.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "compiler/compile.h"
#include "compiler/dsl_format.h"
#include "compiler/dsl_frontend.h"
#include "compiler/facts/host_facts.h"
#include "ir/plan_json.h"
#include "runtime/host/live_facts.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::compiler {
namespace {

using ::cwsc::testing::ReadFileOr;
using ::cwsc::testing::SourceRoot;

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// The TOML key each DSL statement stands for (origin details).
const std::map<std::string, std::string>& DslToToml() {
  static const std::map<std::string, std::string> m = {
      {"mode", "sandbox_mode"},
      {"network", "sandbox_network_access"},
      {"writable", "sandbox_writable_roots"},
      {"read_only", "bwrap_ro_roots"},
      {"device", "bwrap_dev_roots"},
      {"deny read", "sandbox_denied_read_paths"},
      {"exempt read", "sandbox_read_denylist_exempt"},
      {"deny_defaults", "sandbox_read_denylist_defaults"},
      {"protect", "sandbox_protected_names"},
      {"wrapper bwrap prefer", "prefer_bwrap"},
      {"linux_backend", "sandbox_linux_backend"},
      {"require_sandbox", "sandbox_require"},
      {"backend", "sandbox_backend"},
      {"backend url", "sandbox_url"},
      {"backend api", "sandbox_opensandbox_api"},
      {"backend execd_url", "sandbox_execd_url"},
      {"backend image", "sandbox_image"},
      {"backend execd_port", "sandbox_execd_port"},
      {"backend keep", "sandbox_keep"},
      {"backend remote_cwd", "sandbox_remote_cwd"},
      {"managed_config", "managed_config_path"},
      {"launcher", "tool_launcher"},
  };
  return m;
}

// SettingName maps an origin detail from either frontend to one spelling.
std::string SettingName(const std::string& detail) {
  // `tmp private` sets both exclusions; the plan cannot tell which field an
  // origin came from, so both TOML keys and every tmp form compare equal.
  if (detail.rfind("tmp ", 0) == 0 || detail.rfind("slash_tmp ", 0) == 0 ||
      detail.rfind("tmpdir ", 0) == 0 || detail == "sandbox_exclude_slash_tmp" ||
      detail == "sandbox_exclude_tmpdir") {
    return "sandbox_exclude_*";
  }
  auto it = DslToToml().find(detail);
  return it == DslToToml().end() ? detail : it->second;
}

// Normalize rewrites config origins to {kind, setting} and drops the
// expectations (TOML has none); everything else must match byte for byte.
Json Normalize(const Json& j) {
  if (j.is_object()) {
    if (j.contains("kind") && j.contains("detail") && j["kind"] == "config") {
      return Json{{"kind", "config"}, {"setting", SettingName(j["detail"].get<std::string>())}};
    }
    Json out = Json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "expectations") continue;
      out[it.key()] = Normalize(it.value());
    }
    return out;
  }
  if (j.is_array()) {
    Json out = Json::array();
    for (const Json& v : j) out.push_back(Normalize(v));
    return out;
  }
  return j;
}

struct Compiled {
  std::string normalized;
  Json plan;
};

Compiled CompileWith(const fs::path& config, const std::string& mode, HostFacts* facts) {
  CompileOptions o;
  o.config_path = config.string();
  o.mode = mode;
  absl::StatusOr<CompileResult> r = CompileConfig(o, facts);
  EXPECT_TRUE(r.ok()) << config << ": " << r.status();
  if (!r.ok()) return {};
  absl::StatusOr<std::string> json = ir::PlanToJson(r->plan);
  EXPECT_TRUE(json.ok());
  Json plan = Json::parse(*json);
  return {Normalize(plan).dump(1), plan};
}

Compiled Compile(const fs::path& config, const std::string& mode, const std::string& facts_file) {
  std::unique_ptr<HostFacts> facts;
  if (facts_file.empty()) {
    facts = runtime::MakeLiveFacts();
  } else {
    absl::StatusOr<std::unique_ptr<HostFacts>> f = LoadRecordedFacts(facts_file);
    EXPECT_TRUE(f.ok()) << f.status();
    if (!f.ok()) return {};
    facts = std::move(*f);
  }
  return CompileWith(config, mode, facts.get());
}

// CompileBoth compiles `a` and `b` on the same host. Recorded facts answer
// the same every time; the live host does not: other programs (the suites
// run in parallel, and every `cwsc run` makes and removes placeholders in
// /tmp) change it between two compiles, and the plans would differ for
// that alone. So on the live host `a` is compiled through a recorder, and
// `b` on the facts it recorded: one snapshot of the host for both. `b`
// must ask nothing `a` did not (`unlisted: error`), or it fails.
std::pair<Compiled, Compiled> CompileBoth(const fs::path& a, const fs::path& b,
                                          const std::string& mode, const std::string& facts) {
  if (!facts.empty()) return {Compile(a, mode, facts), Compile(b, mode, facts)};
  std::unique_ptr<HostFacts> live = runtime::MakeLiveFacts();
  FactsRecorder recorder(live.get());
  recorder.SetUnlistedIsError(true);
  Compiled first = CompileWith(a, mode, &recorder);
  absl::StatusOr<std::string> yaml = recorder.WriteYaml();
  EXPECT_TRUE(yaml.ok()) << yaml.status();
  if (!yaml.ok()) return {};
  absl::StatusOr<std::unique_ptr<HostFacts>> snapshot = ParseRecordedFacts(*yaml, "snapshot");
  EXPECT_TRUE(snapshot.ok()) << snapshot.status();
  if (!snapshot.ok()) return {};
  Compiled second = CompileWith(b, mode, snapshot->get());
  EXPECT_EQ((*snapshot)->UnlistedPaths(), std::vector<std::string>{}) << b;
  return {first, second};
}

std::vector<std::string> Pairs() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(SourceRoot()) / "examples")) {
    if (e.path().extension() != ".cwsp") continue;
    fs::path toml = e.path();
    toml.replace_extension(".toml");
    if (fs::exists(toml)) out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> FactsFiles() {
  std::vector<std::string> out = {""};  // "" = the live host
  for (const auto& e : fs::directory_iterator(fs::path(SourceRoot()) / "examples" / "facts")) {
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class DslParity : public ::testing::TestWithParam<std::string> {};

TEST_P(DslParity, TomlAndDslCompileToTheSamePlan) {
  fs::path dsl = fs::path(SourceRoot()) / "examples" / (GetParam() + ".cwsp");
  fs::path toml = fs::path(SourceRoot()) / "examples" / (GetParam() + ".toml");
  size_t expectations = 0;
  {
    absl::StatusOr<DslResult> r = ReadDslPolicy(ReadFileOr(dsl.string()), dsl.string(), "");
    ASSERT_TRUE(r.ok()) << r.status();
    expectations = r->spec.expectations.size();
  }
  for (const std::string& facts : FactsFiles()) {
    for (const char* mode : {"plan", "ask", "auto-review", "full-access"}) {
      SCOPED_TRACE(
          absl::StrCat(GetParam(), " mode ", mode, " facts ", facts.empty() ? "live" : facts));
      auto [a, b] = CompileBoth(toml, dsl, mode, facts);
      ASSERT_FALSE(a.normalized.empty());
      EXPECT_EQ(a.normalized, b.normalized);
      // The DSL plan carries the expectations, each pointing into the .cwsp.
      ASSERT_EQ(b.plan["expectations"].size(), expectations);
      EXPECT_TRUE(a.plan["expectations"].empty());
      for (const Json& e : b.plan["expectations"]) {
        EXPECT_EQ(e["origin"]["file"], dsl.string());
      }
    }
  }
}

TEST_P(DslParity, FormattedPolicyCompilesToTheSamePlan) {
  fs::path dsl = fs::path(SourceRoot()) / "examples" / (GetParam() + ".cwsp");
  std::string text = ReadFileOr(dsl.string());
  // Reflow the file first (token-aware, so comments stay intact), so the
  // formatter has work to do.
  absl::StatusOr<std::vector<DslToken>> tokens = LexDsl(text, dsl.string());
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  std::string messy;
  for (const DslToken& t : *tokens) {
    messy += t.text;
    if (t.kind == DslToken::Kind::kSemi) messy += "   \n\n\n  ";
    if (t.kind == DslToken::Kind::kLBrace) messy += " ";
  }
  ASSERT_NE(messy, text);
  absl::StatusOr<std::string> formatted = FormatDsl(messy, dsl.string());
  ASSERT_TRUE(formatted.ok()) << formatted.status();
  fs::path tmp = fs::temp_directory_path() /
                 ("cwsc_fmt_" + std::to_string(getpid()) + "_" + GetParam() + ".cwsp");
  std::ofstream(tmp, std::ios::binary) << *formatted;
  for (const std::string& facts : FactsFiles()) {
    auto [a, b] = CompileBoth(dsl, tmp, "ask", facts);
    ASSERT_FALSE(a.normalized.empty());
    EXPECT_EQ(a.normalized, b.normalized);
    EXPECT_EQ(a.plan["expectations"].size(), b.plan["expectations"].size());
  }
  fs::remove(tmp);
}

INSTANTIATE_TEST_SUITE_P(Examples, DslParity, ::testing::ValuesIn(Pairs()), [](const auto& info) {
  std::string n = info.param;
  for (char& c : n) {
    if (c == '-') c = '_';
  }
  return n;
});

TEST(DslParityTable, EveryPairIsTested) {
  // A .cwsp example without a .toml twin would silently skip parity.
  std::vector<std::string> pairs = Pairs();
  EXPECT_GE(pairs.size(), 3u);
  for (const auto& e : fs::directory_iterator(fs::path(SourceRoot()) / "examples")) {
    if (e.path().extension() != ".cwsp") continue;
    if (ReadFileOr(e.path().string()).find("policy ") == std::string::npos) continue;
    bool multi = ReadDslPolicy(ReadFileOr(e.path().string()), "x.cwsp", "")
                     .status()
                     .message()
                     .find("several policies") != std::string::npos;
    if (multi) continue;  // multi-policy examples are compiled by the CLI tests
    EXPECT_NE(std::find(pairs.begin(), pairs.end(), e.path().stem().string()), pairs.end())
        << e.path() << " has no .toml twin";
  }
}

TEST(DslParityNormalize, DetectsARealDifference) {
  // The normalization must not hide a changed value or a changed setting.
  Json a = Json::parse(R"({"x": {"kind": "config", "detail": "writable", "file": "a.cwsp",
                            "line": 3, "col": 1}, "v": 1})");
  Json b = Json::parse(R"({"x": {"kind": "config", "detail": "sandbox_writable_roots",
                            "file": "a.toml", "line": 9, "col": 2}, "v": 1})");
  Json c = Json::parse(R"({"x": {"kind": "config", "detail": "bwrap_ro_roots", "file": "a.toml",
                            "line": 9, "col": 2}, "v": 1})");
  Json d = Json::parse(R"({"x": {"kind": "config", "detail": "writable", "file": "a.cwsp",
                            "line": 3, "col": 1}, "v": 2})");
  EXPECT_EQ(Normalize(a), Normalize(b));
  EXPECT_NE(Normalize(a), Normalize(c));
  EXPECT_NE(Normalize(a), Normalize(d));
}

}  // namespace
}  // namespace cwsc::compiler
