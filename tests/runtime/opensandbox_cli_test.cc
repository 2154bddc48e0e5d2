// End to end: the real `cwsc` binary ($CWSC_BIN) against the test server,
// through each contract: compile --target opensandbox / plan, run, exec,
// --json, --timeout and SIGINT. Every output is checked for the key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/runtime/opensandbox_server.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

std::string Bin() {
  const char* b = std::getenv("CWSC_BIN");
  return b != nullptr ? b : "cwsc";
}

class OpenSandboxCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new TestServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(server_->ok());
    server_->Control("none");
  }

  // Config writes a config.toml for `api` with the key for that contract.
  std::string Config(const std::string& api, const std::string& extra = "") {
    std::string key = api == "execd" ? kTestExecdToken : kTestKey;
    std::string text = "sandbox_backend = \"OpenSandbox\"\nsandbox_url = \"" + server_->url() +
                       "/\"\nsandbox_api_key = \"" + key + "\"\n";
    if (api != "codewhale") text += "sandbox_opensandbox_api = \"" + api + "\"\n";
    if (api == "lifecycle") text += "sandbox_image = \"debian:12\"\n";
    text += extra;
    WriteFile(dir_ / "config.toml", text);
    return dir_ / "config.toml";
  }

  RunResult Cwsc(std::vector<std::string> args, std::vector<std::string> env = {}) {
    args.insert(args.begin(), Bin());
    RunResult r = testing::Run(args, "", env, dir_.path());
    for (const std::string* s : {&r.out, &r.err}) {
      EXPECT_THAT(*s, Not(HasSubstr(kTestKey)));
      EXPECT_THAT(*s, Not(HasSubstr(kTestExecdToken)));
    }
    return r;
  }

  static TestServer* server_;
  TempDir dir_;
};

TestServer* OpenSandboxCliTest::server_ = nullptr;

TEST_F(OpenSandboxCliTest, CompileTargetOpenSandboxPrintsTheRedactedRequest) {
  std::string cfg = Config("codewhale");
  RunResult r = Cwsc({"compile", cfg, "--target", "opensandbox", "--", "make", "test", "it's"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# OpenSandbox contract: codewhale\n"
                               "# API key: from config sandbox_api_key at " +
                               cfg + ":3:19 (redacted)\n# total timeout: 30 s\n"));
  EXPECT_THAT(r.out, HasSubstr("# 1. run\nPOST " + server_->url() +
                               "/v1/sandbox/run\n"
                               "Content-Type: application/json\n"
                               "Authorization: Bearer <redacted: config sandbox_api_key at " +
                               cfg + ":3:19>\n\n{\n  \"cmd\": \"make test 'it'\\\\''s'\",\n"));
  RunResult j = Cwsc({"compile", cfg, "--target", "opensandbox", "--format", "json", "--", "true"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["requests"][0]["body"]["cmd"], "true");
  EXPECT_FALSE(doc["not_enforced"].empty());
  // Nothing was sent while compiling.
  EXPECT_TRUE(server_->State()["requests"].empty());
}

TEST_F(OpenSandboxCliTest, CompileTargetOpenSandboxOnALocalPlanIsNotApplicable) {
  WriteFile(dir_ / "local.toml", "sandbox_backend = \"none\"\n");
  RunResult r = Cwsc({"compile", dir_ / "local.toml", "--target", "opensandbox", "--", "true"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, HasSubstr("cwsc: error: --target opensandbox: plan kind "));
}

TEST_F(OpenSandboxCliTest, PlanShowsWhatIsNotEnforcedAndNoKey) {
  RunResult r = Cwsc({"compile", Config("codewhale"), "--target", "plan"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json plan = nlohmann::json::parse(r.out);
  EXPECT_EQ(plan["kind"], "opensandbox");
  const nlohmann::json& remote = plan["launch"]["remote"];
  EXPECT_EQ(remote["contract"], "codewhale");
  EXPECT_EQ(remote["url"], server_->url());
  EXPECT_EQ(remote["api_key"]["kind"], "config");
  EXPECT_EQ(remote["api_key"]["origin"]["detail"], "sandbox_api_key");
  EXPECT_THAT(remote["not_enforced"].dump(), HasSubstr("writes limited to the writable roots"));
  EXPECT_THAT(remote["not_enforced"].dump(), HasSubstr("read deny list"));

  RunResult explain = Cwsc({"explain", Config("codewhale"), "--", "make"});
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_THAT(explain.out, HasSubstr("# plan kind: opensandbox\n"));
  EXPECT_THAT(explain.out, HasSubstr("# url: " + server_->url() + "  (config sandbox_url at " +
                                     (dir_ / "config.toml") + ":2:15)\n"));
  EXPECT_THAT(explain.out,
              HasSubstr("Authorization: Bearer <redacted: config sandbox_api_key at "));
}

TEST_F(OpenSandboxCliTest, RunThroughEachContractBehavesLikeALocalRun) {
  for (const char* api : {"codewhale", "execd", "lifecycle"}) {
    SCOPED_TRACE(api);
    server_->Control("none");
    RunResult r = Cwsc({"run", Config(api), "--json", "-o", dir_ / "result.json", "--", "sh", "-c",
                        "echo \"out $1\"; echo err >&2; exit 5", "sh", "a b"});
    EXPECT_EQ(r.exit_code, 5) << r.err;
    EXPECT_EQ(r.out, "out a b\n");
    ASSERT_THAT(r.err, ::testing::StartsWith("err\n"));
    nlohmann::json result = nlohmann::json::parse(ReadFileOr(dir_ / "result.json"))["result"];
    EXPECT_EQ(result["sandbox_kind"], "opensandbox");
    EXPECT_EQ(result["exit_code"], 5);
    EXPECT_FALSE(result["not_enforced"].empty());
  }
  // The lifecycle run deleted its sandbox.
  nlohmann::json st = server_->State();
  ASSERT_EQ(st["sandboxes"].size(), 1u);
  for (const auto& [id, sb] : st["sandboxes"].items()) EXPECT_EQ(sb["deleted"], true) << id;
}

TEST_F(OpenSandboxCliTest, ExecReadsTheKeyAtRunTime) {
  WriteFile(dir_ / "env.toml",
            "sandbox_backend = \"opensandbox\"\nsandbox_url = \"" + server_->url() + "\"\n");
  std::string key_env = std::string("CODEWHALE_SANDBOX_API_KEY=") + kTestKey;
  RunResult plan = Cwsc({"compile", dir_ / "env.toml", "--target", "plan"}, {key_env});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  nlohmann::json key = nlohmann::json::parse(plan.out)["launch"]["remote"]["api_key"];
  EXPECT_EQ(key["kind"], "env") << plan.out;
  EXPECT_EQ(key["name"], "CODEWHALE_SANDBOX_API_KEY") << plan.out;
  WriteFile(dir_ / "plan.json", plan.out);
  RunResult ok = Cwsc({"exec", dir_ / "plan.json", "--", "echo", "remote"}, {key_env});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "remote\n");
  RunResult missing = RunWithEnv({Bin(), "exec", dir_ / "plan.json", "--", "true"},
                                 {"PATH=/usr/bin:/bin"}, "", dir_.path());
  EXPECT_EQ(missing.exit_code, 125);
  EXPECT_EQ(missing.err,
            "cwsc: the plan takes the OpenSandbox API key from env CODEWHALE_SANDBOX_API_KEY, "
            "which is not set\n");
}

TEST_F(OpenSandboxCliTest, DslPolicyRunsThroughExecdWithAKeyFromTheEnvironment) {
  WriteFile(dir_ / "remote.cwsp",
            "policy remote {\n  mode workspace-write;\n"
            "  backend opensandbox {\n    url \"" +
                server_->url() +
                "/\";\n    api execd;\n"
                "    api_key env \"CWSC_TEST_DSL_TOKEN\";\n"
                "    remote_cwd \"/tmp\";\n  }\n}\n");
  std::string token_env = std::string("CWSC_TEST_DSL_TOKEN=") + kTestExecdToken;
  RunResult r = Cwsc({"run", dir_ / "remote.cwsp", "--", "sh", "-c", "pwd; exit 2"}, {token_env});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "/tmp\n");
  RunResult review = Cwsc({"compile", dir_ / "remote.cwsp", "--target", "opensandbox", "--", "ls"});
  ASSERT_EQ(review.exit_code, 0) << review.err;
  EXPECT_THAT(review.out, HasSubstr("X-EXECD-ACCESS-TOKEN: <redacted: env CWSC_TEST_DSL_TOKEN>\n"));
}

TEST_F(OpenSandboxCliTest, PlanModeSaysTheNetworkBlockIsNotEnforced) {
  RunResult r = Cwsc(
      {"compile", Config("codewhale"), "--mode", "plan", "--target", "opensandbox", "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# not enforced by this backend: read-only filesystem (the remote "
                               "side decides what the command may write)\n"));
  EXPECT_THAT(r.out, HasSubstr("# not enforced by this backend: network blocked (the codewhale "
                               "contract carries no network policy)\n"));
}

TEST_F(OpenSandboxCliTest, UnsupportedBackendRefusesAndNothingIsSent) {
  WriteFile(dir_ / "bad.toml", "sandbox_backend = \"docker\"\n");
  RunResult r = Cwsc({"run", dir_ / "bad.toml", "--", "touch", dir_ / "ran"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_THAT(r.err, HasSubstr("unsupported sandbox_backend 'docker': shell execution is refused"));
  EXPECT_FALSE(Exists(dir_ / "ran"));
}

TEST_F(OpenSandboxCliTest, ServerFailureIsAClearErrorWithExit125) {
  server_->Control("http500");
  RunResult r = Cwsc({"run", Config("codewhale"), "--", "true"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_EQ(r.err,
            "cwsc: OpenSandbox returned HTTP 500: {\"code\": \"500\", \"message\": \"injected HTTP "
            "500\"}\n");
}

// A server's text is hostile too: it reaches stderr escaped, on one line
// (docs/decisions.md, "What cwsc prints is escaped").
TEST_F(OpenSandboxCliTest, AServersTextIsShownEscaped) {
  server_->Control("hostile_body");
  RunResult r = Cwsc({"run", Config("codewhale"), "--", "true"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_EQ(r.err,
            "cwsc: OpenSandbox returned HTTP 500: {\"code\": \"500\", \"message\": "
            "\"-\\x1b[31m\\x0a\\u009b\\xff\"}\n");
}

TEST_F(OpenSandboxCliTest, TimeoutAndSigintEndTheRemoteCommand) {
  std::string cfg = Config("execd");
  auto start = Clock::now();
  RunResult t = Cwsc({"run", cfg, "--timeout", "1", "--", "sh", "-c", "echo up; sleep 30"});
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(15));
  EXPECT_EQ(t.exit_code, 124) << t.err;
  EXPECT_EQ(t.out, "up\n");
  EXPECT_THAT(t.err, HasSubstr("cwsc: timed out after 1 s"));

  for (int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(sig);
    server_->Control("none");
    std::string out = dir_ / ("sig" + std::to_string(sig) + ".out");
    std::string err = dir_ / ("sig" + std::to_string(sig) + ".err");
    std::string bin = Bin();
    Forked child = Fork(
        [&] {
          execl(bin.c_str(), bin.c_str(), "run", cfg.c_str(), "--", "sh", "-c", "echo up; sleep 30",
                static_cast<char*>(nullptr));
          return 127;
        },
        "", out, err);
    ASSERT_TRUE(WaitForFile(out, 10)) << ReadFileOr(err);
    kill(child.pid, sig);
    start = Clock::now();
    int code = child.Wait();
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
    EXPECT_EQ(code, 128 + sig) << ReadFileOr(err);  // as a local run ended by the signal
    EXPECT_EQ(ReadFileOr(out), "up\n");
    EXPECT_EQ(ReadFileOr(err), "cwsc: interrupted; the remote command was interrupted\n");
    nlohmann::json st = server_->State();
    EXPECT_EQ(st["interrupts"].size(), 1u);  // DELETE /command?id=... reached the server
  }
}

}  // namespace
}  // namespace cwsc::testing
