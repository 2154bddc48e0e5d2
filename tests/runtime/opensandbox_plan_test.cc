// OpenSandbox selection (compiler/lower_remote.h), the reviewed requests
// (backends/opensandbox.h) with goldens in tests/golden/opensandbox/, the new
// config keys, key reading at run time, and HTTP client edge cases.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backends/opensandbox.h"
#include "compiler/config_toml.h"
#include "compiler/lower_remote.h"
#include "compiler/modes.h"
#include "ir/plan_json.h"
#include "runtime/http_client.h"
#include "runtime/opensandbox.h"
#include "tests/runtime/opensandbox_server.h"
#include "tests/runtime/proc_helpers.h"
#include "tests/testing/golden.h"

namespace cwsc {
namespace {

using compiler::PolicySpec;
using compiler::Setting;
using ::testing::HasSubstr;
using testing::kTestKey;
using ::testing::Not;

Setting<std::string> S(std::string v, const char* key, int line) {
  return {std::move(v), ir::Origin::Config(key, "cfg.toml", line, 1)};
}

// Api is sandbox_opensandbox_api as the frontends parse it.
Setting<ir::Contract> Api(const std::string& v, int line) {
  return {*compiler::ParseContract(v),
          ir::Origin::Config("sandbox_opensandbox_api", "cfg.toml", line, 1)};
}

ir::LaunchPlan BasePlan() {
  ir::LaunchPlan plan;
  plan.platform = ir::Platform::kLinux;
  plan.permission_mode = ir::PermissionMode::kAsk;
  plan.cwd = "/home/dev/proj";
  plan.policy.type = ir::PolicyType::kWorkspaceWrite;
  plan.policy.writable_roots = {"/home/dev/proj"};
  plan.denied_read = {{"/home/dev/.ssh", "~/.ssh", ir::Origin::Default("deny")},
                      {"/home/dev/.aws", "~/.aws", ir::Origin::Default("deny")}};
  plan.env_set = {{"CODEWHALE_SANDBOX", "opensandbox", ir::Origin::Default("marker")}};
  return plan;
}

// Backend is a sandbox_backend setting as the frontends parse it.
compiler::Setting<compiler::SandboxBackend> Backend(const std::string& text) {
  return {{compiler::ParseBackend(text), text},
          ir::Origin::Config("sandbox_backend", "cfg.toml", 1, 1)};
}

PolicySpec Spec(const std::string& backend) {
  PolicySpec spec;
  spec.sandbox_backend = Backend(backend);
  spec.sandbox_url = S("https://sandbox.example.test/", "sandbox_url", 2);
  spec.sandbox_api_key = S(kTestKey, "sandbox_api_key", 3);
  return spec;
}

ir::LaunchPlan Lower(const PolicySpec& spec) {
  ir::LaunchPlan plan = BasePlan();
  compiler::LowerRemote(spec, &plan);
  return plan;
}

// ---- selection ---------------------------------------------------------------

TEST(LowerRemoteTest, BackendSpellingsAreTrimmedAndCaseInsensitive) {
  for (const char* v : {"opensandbox", " OpenSandbox ", "open-sandbox", "OPEN_SANDBOX"}) {
    SCOPED_TRACE(v);
    EXPECT_EQ(compiler::ParseBackend(v), compiler::BackendKind::kOpenSandbox);
    ir::LaunchPlan plan = Lower(Spec(v));
    EXPECT_EQ(plan.kind(), ir::PlanKind::kOpenSandbox);
    ASSERT_TRUE(plan.remote() != nullptr);
    EXPECT_EQ(plan.remote()->contract, ir::Contract::kCodewhale);
    EXPECT_EQ(plan.remote()->url, "https://sandbox.example.test");
  }
  for (const char* v : {"", "none", " NONE "}) {
    EXPECT_EQ(compiler::ParseBackend(v), compiler::BackendKind::kNone);
  }
}

TEST(LowerRemoteTest, UnsupportedBackendIsRefusedNeverLocal) {
  ir::LaunchPlan plan = Lower(Spec("docker"));
  EXPECT_EQ(plan.kind(), ir::PlanKind::kRefused);
  ASSERT_TRUE(plan.refusal() != nullptr);
  EXPECT_EQ(plan.refusal()->reason,
            "unsupported sandbox_backend 'docker': shell execution is refused; choose a supported "
            "backend (opensandbox) or explicitly select none");
  EXPECT_EQ(plan.refusal()->origin.Describe(), "config sandbox_backend at cfg.toml:1:1");
  EXPECT_FALSE(plan.remote() != nullptr);
}

TEST(LowerRemoteTest, UnusableUrlsAreRefusedWithTheReason) {
  struct Case {
    const char* url;
    const char* reason;
  } cases[] = {
      {"ftp://host",
       "sandbox_url 'ftp://host' cannot be used: it must start with http:// or "
       "https://; shell execution is refused"},
      {"http://",
       "sandbox_url 'http://' cannot be used: it has no host; shell execution is refused"},
      {"http://h:99999",
       "sandbox_url 'http://h:99999' cannot be used: its port is not a number "
       "from 1 to 65535; shell execution is refused"},
      {"http://h/x y",
       "sandbox_url 'http://h/x y' cannot be used: it contains a space or control "
       "character; shell execution is refused"},
      {"http://h\xff/",
       "sandbox_url 'http://h\\xff/' cannot be used: it contains a byte "
       "outside ASCII; shell execution is refused"},
      {"http://h/?q=1",
       "sandbox_url 'http://h/?q=1' cannot be used: it must not have a query or "
       "fragment; shell execution is refused"},
      {"http://user:pw-secret@h",
       "sandbox_url (value withheld) cannot be used: it must not "
       "contain user information (set the key with sandbox_api_key); "
       "shell execution is refused"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.url);
    PolicySpec spec = Spec("opensandbox");
    spec.sandbox_url = S(c.url, "sandbox_url", 2);
    ir::LaunchPlan plan = Lower(spec);
    EXPECT_EQ(plan.kind(), ir::PlanKind::kRefused);
    ASSERT_TRUE(plan.refusal() != nullptr);
    EXPECT_EQ(plan.refusal()->reason, c.reason);
    EXPECT_EQ(plan.refusal()->origin.Describe(), "config sandbox_url at cfg.toml:2:1");
    EXPECT_THAT(*ir::PlanToJson(plan), Not(HasSubstr("pw-secret")));
  }
}

TEST(LowerRemoteTest, DefaultUrlAndKeySources) {
  PolicySpec spec;
  spec.sandbox_backend = Backend("opensandbox");
  ir::LaunchPlan plan = Lower(spec);
  ASSERT_EQ(plan.kind(), ir::PlanKind::kOpenSandbox);
  EXPECT_EQ(plan.remote()->url, "http://localhost:8080");
  EXPECT_EQ(plan.remote()->url_origin.kind, ir::Origin::Kind::kDefault);
  EXPECT_EQ(plan.remote()->api_key.Describe(), "");

  spec.sandbox_api_key = Setting<std::string>{"", ir::Origin::Env("CODEWHALE_SANDBOX_API_KEY")};
  EXPECT_EQ(Lower(spec).remote()->api_key.Describe(), "env CODEWHALE_SANDBOX_API_KEY");
  spec.sandbox_api_key.reset();
  spec.sandbox_api_key_env = S("MY_KEY", "backend api_key env", 4);
  EXPECT_EQ(Lower(spec).remote()->api_key.Describe(), "env MY_KEY");
  spec.sandbox_api_key_env.reset();
  spec.sandbox_api_key_file = S("/run/secrets/key", "backend api_key file", 4);
  EXPECT_EQ(Lower(spec).remote()->api_key.Describe(), "file /run/secrets/key");
}

TEST(LowerRemoteTest, PlanRecordsWhereTheKeyComesFromNeverTheKey) {
  ir::LaunchPlan plan = Lower(Spec("opensandbox"));
  EXPECT_EQ(plan.remote()->api_key.Describe(), "config sandbox_api_key at cfg.toml:3:1");
  absl::StatusOr<std::string> json = ir::PlanToJson(plan);
  ASSERT_TRUE(json.ok());
  EXPECT_THAT(*json, Not(HasSubstr(kTestKey)));
  absl::StatusOr<ir::LaunchPlan> back = ir::PlanFromJson(*json, "plan.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back->remote(), *plan.remote());
}

TEST(LowerRemoteTest, NativeApiSettings) {
  PolicySpec spec = Spec("opensandbox");
  spec.sandbox_opensandbox_api = Api("Execd", 4);
  spec.sandbox_execd_url = S("http://10.0.0.5:44772/", "sandbox_execd_url", 5);
  spec.sandbox_remote_cwd = S("/workspace", "sandbox_remote_cwd", 6);
  ir::LaunchPlan plan = Lower(spec);
  ASSERT_EQ(plan.kind(), ir::PlanKind::kOpenSandbox);
  EXPECT_EQ(plan.remote()->contract, ir::Contract::kExecd);
  EXPECT_EQ(plan.remote()->url, "http://10.0.0.5:44772");
  EXPECT_EQ(plan.remote()->url_origin.Describe(), "config sandbox_execd_url at cfg.toml:5:1");
  EXPECT_EQ(plan.remote()->remote_cwd, "/workspace");

  spec.sandbox_opensandbox_api = Api("lifecycle", 4);
  ir::LaunchPlan refused = Lower(spec);
  EXPECT_EQ(refused.kind(), ir::PlanKind::kRefused);
  EXPECT_EQ(refused.refusal()->reason,
            "sandbox_opensandbox_api = \"lifecycle\" needs sandbox_image (the container image to "
            "create the sandbox from); shell execution is refused");
  spec.sandbox_image = S("debian:12", "sandbox_image", 7);
  spec.sandbox_execd_port =
      Setting<int>{8000, ir::Origin::Config("sandbox_execd_port", "cfg.toml", 8, 1)};
  spec.sandbox_keep = Setting<bool>{true, ir::Origin::Config("sandbox_keep", "cfg.toml", 9, 1)};
  plan = Lower(spec);
  ASSERT_EQ(plan.kind(), ir::PlanKind::kOpenSandbox);
  EXPECT_EQ(plan.remote()->url, "https://sandbox.example.test");  // the lifecycle server
  EXPECT_EQ(plan.remote()->image, "debian:12");
  EXPECT_EQ(plan.remote()->execd_port, 8000);
  EXPECT_TRUE(plan.remote()->keep);
}

TEST(LowerRemoteTest, NotEnforcedSaysWhatTheRemoteSideCannotEnforce) {
  ir::LaunchPlan plan = Lower(Spec("opensandbox"));
  EXPECT_THAT(
      plan.remote()->not_enforced,
      ::testing::ElementsAre(
          "writes limited to the writable roots (/home/dev/proj; the remote side decides "
          "what the command may write)",
          "read-only protected directories (.codewhale, .deepseek) under each writable root",
          "read deny list (2 paths: /home/dev/.ssh, /home/dev/.aws)",
          "network blocked (the codewhale contract carries no network policy)",
          "child environment allow-list (the remote side has its own environment; only "
          "the plan's env_set is sent)"));
  // The lifecycle API maps the network stance into networkPolicy: not listed.
  PolicySpec spec = Spec("opensandbox");
  spec.sandbox_opensandbox_api = Api("lifecycle", 4);
  spec.sandbox_image = S("debian:12", "sandbox_image", 5);
  ir::LaunchPlan lifecycle = Lower(spec);
  ASSERT_EQ(lifecycle.kind(), ir::PlanKind::kOpenSandbox);
  for (const std::string& n : lifecycle.remote()->not_enforced) {
    EXPECT_THAT(n, Not(HasSubstr("network")));
  }
}

// ---- config keys -----------------------------------------------------------------

TEST(OpenSandboxConfigTest, NewKeysParseAndBadValuesAreErrors) {
  auto ok = compiler::ReadTomlConfig(
      "sandbox_backend = \"opensandbox\"\nsandbox_opensandbox_api = \"lifecycle\"\n"
      "sandbox_image = \"debian:12\"\nsandbox_execd_port = 44772\nsandbox_keep = true\n"
      "sandboxExecdUrl = \"http://h:1\"\nsandbox_remote_cwd = \"/w\"\n",
      "c.toml", compiler::Layer::kUser);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->spec.sandbox_opensandbox_api->value, ir::Contract::kLifecycle);
  EXPECT_EQ(ok->spec.sandbox_image->value, "debian:12");
  EXPECT_EQ(ok->spec.sandbox_execd_port->value, 44772);
  EXPECT_TRUE(ok->spec.sandbox_keep->value);
  EXPECT_EQ(ok->spec.sandbox_execd_url->value, "http://h:1");
  EXPECT_EQ(ok->spec.sandbox_remote_cwd->origin.Describe(),
            "config sandbox_remote_cwd at c.toml:7:22");

  auto bad_api = compiler::ReadTomlConfig("sandbox_opensandbox_api = \"grpc\"\n", "c.toml",
                                          compiler::Layer::kUser);
  ASSERT_FALSE(bad_api.ok());
  EXPECT_THAT(std::string(bad_api.status().message()),
              HasSubstr("c.toml:1:27: error: 'sandbox_opensandbox_api' must be \"codewhale\", "
                        "\"execd\" or \"lifecycle\", not 'grpc'"));
  auto bad_port =
      compiler::ReadTomlConfig("sandbox_execd_port = 0\n", "c.toml", compiler::Layer::kUser);
  ASSERT_FALSE(bad_port.ok());
  EXPECT_THAT(std::string(bad_port.status().message()),
              HasSubstr("c.toml:1:22: error: 'sandbox_execd_port' must be a port number from 1 to "
                        "65535"));
}

// ---- the key at run time ---------------------------------------------------------

TEST(ReadApiKeyTest, EnvConfigAndFileSources) {
  setenv("CWSC_TEST_OPENSANDBOX_KEY2", kTestKey, 1);
  using Kind = ir::ApiKeySource::Kind;
  const ir::ApiKeySource env_source{Kind::kEnv, "CWSC_TEST_OPENSANDBOX_KEY2", {}};
  auto env = runtime::ReadApiKey(env_source);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->value(), kTestKey);
  unsetenv("CWSC_TEST_OPENSANDBOX_KEY2");
  auto unset = runtime::ReadApiKey(env_source);
  ASSERT_FALSE(unset.ok());
  EXPECT_EQ(unset.status().message(),
            "the plan takes the OpenSandbox API key from env CWSC_TEST_OPENSANDBOX_KEY2, which is "
            "not set");

  char dir[] = "/tmp/cwsc-key-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string cfg = std::string(dir) + "/config.toml";
  std::ofstream(cfg) << "# comment\nsandbox_backend = \"opensandbox\"\nsandbox_api_key = \""
                     << kTestKey << "\"\n";
  const ir::ApiKeySource cfg_source{Kind::kConfig, "",
                                    ir::Origin::Config("sandbox_api_key", cfg, 3, 1)};
  auto from_cfg = runtime::ReadApiKey(cfg_source);
  ASSERT_TRUE(from_cfg.ok()) << from_cfg.status();
  EXPECT_EQ(from_cfg->value(), kTestKey);
  std::string key_file = std::string(dir) + "/key";
  std::ofstream(key_file) << kTestKey << "\n";
  auto from_file = runtime::ReadApiKey({Kind::kFile, key_file, {}});
  ASSERT_TRUE(from_file.ok());
  EXPECT_EQ(from_file->value(), kTestKey);
  std::ofstream(cfg) << "sandbox_backend = \"opensandbox\"\n";
  auto gone = runtime::ReadApiKey(cfg_source);
  ASSERT_FALSE(gone.ok());
  EXPECT_THAT(std::string(gone.status().message()), HasSubstr("no longer sets sandbox_api_key"));
  EXPECT_TRUE(runtime::ReadApiKey(ir::ApiKeySource{}).ok());
  EXPECT_FALSE(runtime::ReadApiKey(ir::ApiKeySource{})->has_value());
  std::remove(cfg.c_str());
  std::remove(key_file.c_str());
  rmdir(dir);
}

TEST(ReadApiKeyTest, RedactReplacesEveryOccurrence) {
  EXPECT_EQ(runtime::Redact("a KEY b KEY", std::string("KEY")), "a [redacted] b [redacted]");
  EXPECT_EQ(runtime::Redact("a KEY", std::nullopt), "a KEY");
}

// ---- HTTP client edge cases -------------------------------------------------------

TEST(HttpClientTest, RejectsOtherSchemesAndHeaderInjection) {
  auto r = runtime::HttpSend({"GET", "file:///etc/passwd", {}, ""}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "GET file:///etc/passwd: only http:// and https:// URLs are supported");
  auto h = runtime::HttpSend({"GET", "http://127.0.0.1:1/", {{"X-A", "v\r\nEvil: 1"}}, ""}, {});
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().message(),
            "GET http://127.0.0.1:1/: header X-A contains a line break or NUL");
  EXPECT_EQ(runtime::RedactUrl("https://u:p@h:1/x?y"), "https://[redacted]@h:1/x?y");
  EXPECT_EQ(runtime::RedactUrl("http://h/a@b"), "http://h/a@b");
}

TEST(HttpClientTest, TlsIsVerifiedAndFailuresAreClear) {
  testing::TestServer server;
  ASSERT_TRUE(server.ok());
  // The test server speaks plain HTTP: a TLS handshake with it must fail.
  runtime::HttpOptions o;
  o.total_timeout_ms = 5000;
  auto r = runtime::HttpSend(
      {"GET", "https://127.0.0.1:" + std::to_string(server.port()) + "/ping", {}, ""}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("TLS failure"));

  // An HTTPS server with a self-signed certificate: verification refuses it.
  char dir[] = "/tmp/cwsc-tls-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  {
    testing::TestServer tls(kTestKey, testing::kTestExecdToken, dir);
    ASSERT_TRUE(tls.ok());
    auto t =
        runtime::HttpSend({"POST",
                           "https://127.0.0.1:" + std::to_string(tls.port()) + "/v1/sandbox/run",
                           {{"Authorization", std::string("Bearer ") + kTestKey}},
                           "{}"},
                          o);
    ASSERT_FALSE(t.ok());
    EXPECT_THAT(std::string(t.status().message()),
                HasSubstr("TLS failure: SSL certificate problem: self-signed certificate"));
    EXPECT_THAT(std::string(t.status().message()), Not(HasSubstr(kTestKey)));
  }
  std::remove((std::string(dir) + "/cert.pem").c_str());
  std::remove((std::string(dir) + "/key.pem").c_str());
  rmdir(dir);
}

// ---- reviewed requests and goldens ------------------------------------------------

void CheckGolden(const std::string& name, const std::string& actual) {
  testing::CheckGolden(testing::SourceRoot() + "/tests/golden/opensandbox/" + name, actual);
}

const std::vector<std::string> kProgram = {"make", "test", "NAME=it's \"quoted\"", "$HOME"};

ir::LaunchPlan GoldenPlan(const char* api) {
  PolicySpec spec = Spec("opensandbox");
  if (std::string(api) != "codewhale") spec.sandbox_opensandbox_api = Api(api, 4);
  spec.sandbox_image = S("debian:12", "sandbox_image", 5);
  spec.sandbox_remote_cwd = S("/workspace", "sandbox_remote_cwd", 6);
  return Lower(spec);
}

TEST(OpenSandboxReviewTest, GoldensForEachContract) {
  for (const char* api : {"codewhale", "execd", "lifecycle"}) {
    SCOPED_TRACE(api);
    ir::LaunchPlan plan = GoldenPlan(api);
    ASSERT_EQ(plan.kind(), ir::PlanKind::kOpenSandbox);
    auto reqs = backends::ReviewRequests(plan, kProgram, std::nullopt);
    std::string text = backends::FormatReviewText(plan, reqs);
    std::string json = backends::FormatReviewJson(plan, reqs);
    CheckGolden(std::string(api) + ".txt", text);
    CheckGolden(std::string(api) + ".json", json);
    EXPECT_THAT(text, Not(HasSubstr(kTestKey)));
    EXPECT_THAT(json, Not(HasSubstr(kTestKey)));
    // Semantic checks beside the goldens.
    nlohmann::json j = nlohmann::json::parse(json);
    const nlohmann::json* run = nullptr;
    for (const auto& q : j["requests"]) {
      if (q["method"] == "POST" && (q["body"].contains("cmd") || q["body"].contains("command")))
        run = &q;
    }
    ASSERT_NE(run, nullptr);
    std::string cmd =
        (*run)["body"].contains("cmd") ? (*run)["body"]["cmd"] : (*run)["body"]["command"];
    EXPECT_EQ(cmd, "make test 'NAME=it'\\''s \"quoted\"' '$HOME'");
    if (std::string(api) == "codewhale") {
      EXPECT_EQ((*run)["url"], "https://sandbox.example.test/v1/sandbox/run");
      EXPECT_EQ((*run)["headers"]["Authorization"],
                "Bearer <redacted: config sandbox_api_key at cfg.toml:3:1>");
      EXPECT_EQ((*run)["body"]["env"]["CODEWHALE_SANDBOX"], "opensandbox");
      EXPECT_EQ((*run)["body"].size(), 2u);
    } else if (std::string(api) == "execd") {
      EXPECT_EQ((*run)["headers"]["X-EXECD-ACCESS-TOKEN"],
                "<redacted: config sandbox_api_key at cfg.toml:3:1>");
      EXPECT_EQ((*run)["body"]["cwd"], "/workspace");
    } else {
      const auto& create = j["requests"][0];
      EXPECT_EQ(create["url"], "https://sandbox.example.test/v1/sandboxes");
      EXPECT_EQ(create["headers"]["OPEN-SANDBOX-API-KEY"],
                "<redacted: config sandbox_api_key at cfg.toml:3:1>");
      EXPECT_EQ(create["body"]["networkPolicy"]["defaultAction"], "deny");
      EXPECT_TRUE(create["body"]["networkPolicy"]["egress"].empty());
      EXPECT_EQ(j["requests"].back()["method"], "DELETE");
    }
  }
}

TEST(OpenSandboxReviewTest, LifecycleSendsNetworkPolicyOnlyForABlockedNetwork) {
  ir::LaunchPlan plan = GoldenPlan("lifecycle");
  plan.policy.network_access = true;
  auto reqs = backends::ReviewRequests(plan, kProgram, std::nullopt);
  nlohmann::json create = nlohmann::json::parse(reqs[0].body);
  EXPECT_FALSE(create.contains("networkPolicy"));
  EXPECT_THAT(backends::FormatReviewText(plan, reqs),
              HasSubstr("# network: allowed (no networkPolicy sent: the service's default)\n"));
}

// The shell-quoted command gives back the exact argv when a POSIX shell reads it.
TEST(OpenSandboxReviewTest, ShellCommandRoundTripsThroughSh) {
  std::vector<std::string> words = {"it's", "",  "a b",         "$(id)",     "`x`", "\\", "\"",
                                    "*",    "~", "line\nbreak", "tab\there", "ünï", "-n", "#"};
  std::vector<std::string> argv = {"printf", "<%s>"};
  argv.insert(argv.end(), words.begin(), words.end());
  std::string cmd = backends::ShellCommand(argv);
  FILE* p = popen(("/bin/sh -c " + backends::ShellCommand({cmd})).c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[256];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0);
  std::string want;
  for (const std::string& w : words) want += "<" + w + ">";
  EXPECT_EQ(out, want);
}

}  // namespace
}  // namespace cwsc
