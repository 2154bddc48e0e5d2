// The three OpenSandbox contracts against a strict test server on 127.0.0.1
// (tests/opensandbox/server.py): real HTTP, real commands on the server side,
// fault injection. Every output and error is checked for the key.
#include "runtime/opensandbox.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "runtime/http_client.h"
#include "tests/runtime/opensandbox_server.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::runtime {
namespace {

using ::testing::HasSubstr;
using testing::kTestExecdToken;
using testing::kTestKey;
using testing::RemotePlan;
using ::testing::StartsWith;
using testing::TestServer;
using Clock = std::chrono::steady_clock;

class OpenSandboxTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new TestServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(server_->ok()) << "test server did not start";
    server_->Control("none");
  }
  void TearDown() override {
    // No output, error or server-visible path may contain the key.
    EXPECT_THAT(out_, ::testing::Not(HasSubstr(kTestKey)));
    EXPECT_THAT(err_, ::testing::Not(HasSubstr(kTestKey)));
    EXPECT_THAT(message_, ::testing::Not(HasSubstr(kTestKey)));
  }

  RemoteRun Run(const ir::LaunchPlan& plan, std::vector<std::string> program,
                std::optional<std::string> key = std::string(kTestKey)) {
    RemoteRun run;
    run.plan = &plan;
    run.api_key = std::move(key);
    run.program = std::move(program);
    run.out = [this](std::string_view s) { out_.append(s); };
    run.err = [this](std::string_view s) { err_.append(s); };
    run.poll_interval_ms = 20;
    run.request_timeout_ms = 3000;
    run.connect_timeout_ms = 2000;
    return run;
  }

  absl::StatusOr<RemoteOutcome> Go(const RemoteRun& run) {
    absl::StatusOr<RemoteOutcome> r = RunRemote(run);
    if (!r.ok()) message_ = std::string(r.status().message());
    return r;
  }

  static TestServer* server_;
  std::string out_, err_, message_;
};

TestServer* OpenSandboxTest::server_ = nullptr;

// ---- Codewhale's contract ---------------------------------------------------

TEST_F(OpenSandboxTest, CodewhaleRunsCommandAndReturnsStreamsAndExitCode) {
  ir::LaunchPlan plan = RemotePlan("codewhale", server_->url() + "/");
  plan.env_set.push_back({"CODEWHALE_SANDBOX", "opensandbox", ir::Origin::Default("marker")});
  auto r = Go(Run(plan, {"sh", "-c", "echo \"out $CODEWHALE_SANDBOX\"; echo err >&2; exit 3"}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(out_, "out opensandbox\n");
  EXPECT_EQ(err_, "err\n");
  nlohmann::json st = server_->State();
  ASSERT_EQ(st["requests"].size(), 1u);
  EXPECT_EQ(st["requests"][0]["path"], "/v1/sandbox/run");  // trailing '/' trimmed
  EXPECT_EQ(st["requests"][0]["body"]["env"]["CODEWHALE_SANDBOX"], "opensandbox");
}

TEST_F(OpenSandboxTest, CodewhaleArgvSurvivesShellQuoting) {
  ir::LaunchPlan plan = RemotePlan("codewhale", server_->url());
  std::vector<std::string> argv = {"printf", "[%s]\\n", "it's",      "a \"b\" $HOME `x` \\",
                                   "",       "*",       "semi;colon"};
  auto r = Go(Run(plan, argv));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(out_, "[it's]\n[a \"b\" $HOME `x` \\]\n[]\n[*]\n[semi;colon]\n");
}

TEST_F(OpenSandboxTest, CodewhaleWithoutKeySendsNoAuthorization) {
  TestServer open_server("");  // rejects any Authorization header
  ASSERT_TRUE(open_server.ok());
  ir::LaunchPlan plan = RemotePlan("codewhale", open_server.url(), false);
  auto r = Go(Run(plan, {"true"}, std::nullopt));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0);
}

TEST_F(OpenSandboxTest, CodewhaleWrongKeyIsHttp401) {
  ir::LaunchPlan plan = RemotePlan("codewhale", server_->url());
  auto r = Go(Run(plan, {"true"}, std::string("wrong-key")));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(message_,
            "OpenSandbox returned HTTP 401: {\"code\": \"401\", \"message\": \"missing or wrong "
            "Authorization\"}");
}

struct FaultCase {
  const char* fault;
  const char* message_start;
};

TEST_F(OpenSandboxTest, CodewhaleFaultsGiveTheSpecifiedErrors) {
  const FaultCase cases[] = {
      {"http500",
       "OpenSandbox returned HTTP 500: {\"code\": \"500\", \"message\": \"injected HTTP 500\"}"},
      {"http400", "OpenSandbox returned HTTP 400: "},
      {"malformed_json", "Failed to parse OpenSandbox response: body is not valid JSON"},
      {"missing_field", "Failed to parse OpenSandbox response: missing field \"exit_code\""},
      {"wrong_type", "Failed to parse OpenSandbox response: field \"exit_code\" is not an integer"},
      {"truncated", "Failed to reach OpenSandbox endpoint: POST http://127.0.0.1:"},
      {"drop", "Failed to reach OpenSandbox endpoint: POST http://127.0.0.1:"},
  };
  ir::LaunchPlan plan = RemotePlan("codewhale", server_->url());
  for (const FaultCase& c : cases) {
    SCOPED_TRACE(c.fault);
    server_->Control(c.fault);
    message_.clear();
    auto r = Go(Run(plan, {"echo", "hi"}));
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(message_, StartsWith(c.message_start));
    EXPECT_THAT(message_, ::testing::Not(HasSubstr(kTestKey)));
  }
}

TEST_F(OpenSandboxTest, CodewhaleTruncatedBodyNamesTheClosedConnection) {
  server_->Control("truncated");
  ir::LaunchPlan plan = RemotePlan("codewhale", server_->url());
  ASSERT_FALSE(Go(Run(plan, {"echo", "hi"})).ok());
  EXPECT_THAT(message_, HasSubstr("connection closed before the response was complete"));
}

TEST_F(OpenSandboxTest, CodewhaleHundredMegabyteResponseIsBounded) {
  server_->Control("big");
  ir::LaunchPlan plan = RemotePlan("codewhale", server_->url());
  RemoteRun run = Run(plan, {"true"});
  run.max_body_bytes = 1 << 20;
  auto r = Go(run);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(message_, StartsWith("Failed to reach OpenSandbox endpoint: POST http://127.0.0.1:"));
  EXPECT_THAT(message_, HasSubstr("response body larger than 1048576 bytes"));
  EXPECT_TRUE(out_.empty());
}

TEST_F(OpenSandboxTest, CodewhaleSlowAndSilentServersHitTheTotalBound) {
  ir::LaunchPlan plan = RemotePlan("codewhale", server_->url());
  for (const char* fault : {"slow", "hang"}) {
    SCOPED_TRACE(fault);
    server_->Control(fault, /*delay=*/10);
    RemoteRun run = Run(plan, {"true"});
    run.codewhale_timeout_ms = 700;  // stands in for the 30 s bound
    auto start = Clock::now();
    auto r = Go(run);
    auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(message_, HasSubstr("no complete response within 700 ms"));
    EXPECT_LT(waited.count(), 5000);
  }
}

TEST_F(OpenSandboxTest, CodewhaleCommandTimeoutAndInterrupt) {
  server_->Control("slow", 10);
  ir::LaunchPlan plan = RemotePlan("codewhale", server_->url());
  RemoteRun run = Run(plan, {"true"});
  run.timeout_ms = 500;
  auto r = Go(run);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->exit_code, 124);

  std::atomic<bool> stop{false};
  RemoteRun run2 = Run(plan, {"true"});
  run2.interrupt = &stop;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
  });
  auto r2 = Go(run2);
  t.join();
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_TRUE(r2->interrupted);
  EXPECT_EQ(r2->exit_code, 130);
}

TEST_F(OpenSandboxTest, UnreachableEndpointIsClear) {
  ir::LaunchPlan plan = RemotePlan("codewhale", "http://127.0.0.1:1");
  ASSERT_FALSE(Go(Run(plan, {"true"})).ok());
  EXPECT_THAT(
      message_,
      StartsWith("Failed to reach OpenSandbox endpoint: POST http://127.0.0.1:1/v1/sandbox/run: "
                 "cannot connect"));
}

// ---- execd --------------------------------------------------------------------

ir::LaunchPlan ExecdPlan(const TestServer& s) { return RemotePlan("execd", s.url()); }

TEST_F(OpenSandboxTest, ExecdStreamsOutputAsItArrivesAndTakesTheExitCode) {
  ir::LaunchPlan plan = ExecdPlan(*server_);
  RemoteRun run = Run(plan, {"sh", "-c", "echo first; sleep 1; echo second >&2; exit 4"},
                      std::string(kTestExecdToken));
  Clock::time_point start = Clock::now(), first_seen;
  run.out = [&](std::string_view s) {
    if (out_.empty()) first_seen = Clock::now();
    out_.append(s);
  };
  auto r = Go(run);
  ASSERT_TRUE(r.ok()) << r.status();
  auto end = Clock::now();
  EXPECT_EQ(r->exit_code, 4);
  EXPECT_EQ(out_, "first\n");
  EXPECT_EQ(err_, "second\n");
  // "first" was passed through before the command finished (streaming).
  EXPECT_LT(first_seen - start, end - start - std::chrono::milliseconds(700));
  nlohmann::json body = server_->State()["requests"][0]["body"];
  EXPECT_EQ(body["command"], "sh -c 'echo first; sleep 1; echo second >&2; exit 4'");
  EXPECT_FALSE(body.contains("timeout"));
}

TEST_F(OpenSandboxTest, ExecdSuccessCwdEnvsAndTimeoutAreSent) {
  ir::LaunchPlan plan = ExecdPlan(*server_);
  plan.remote()->remote_cwd = "/tmp";
  plan.env_set.push_back({"GREETING", "hello there", ir::Origin::Default("t")});
  RemoteRun run = Run(plan, {"sh", "-c", "pwd; echo \"$GREETING\""}, std::string(kTestExecdToken));
  run.timeout_ms = 20000;
  auto r = Go(run);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(out_, "/tmp\nhello there\n");
  nlohmann::json body = server_->State()["requests"][0]["body"];
  EXPECT_EQ(body["cwd"], "/tmp");
  EXPECT_EQ(body["timeout"], 20000);
  EXPECT_EQ(body["envs"]["GREETING"], "hello there");
  EXPECT_TRUE(server_->State()["unknown_fields"].empty());  // nothing execd would ignore
}

TEST_F(OpenSandboxTest, ExecdOutputLinesKeepTheirTerminatorsAndBlankLines) {
  // execd sends each line without its terminator and a blank line as "\n".
  ir::LaunchPlan plan = ExecdPlan(*server_);
  auto r = Go(Run(plan, {"sh", "-c", "printf 'one\\n\\ntwo\\r\\nthree\\rfour\\n\\n'; echo E >&2"},
                  std::string(kTestExecdToken)));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(out_, "one\n\ntwo\nthree\nfour\n\n");
  EXPECT_EQ(err_, "E\n");
  // A last line without a terminator arrives at exit and ends with one.
  out_.clear();
  r = Go(Run(plan, {"printf", "a\\nb"}, std::string(kTestExecdToken)));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(out_, "a\nb\n");
}

TEST_F(OpenSandboxTest, ExecdFailingCommandReturnsAtItsErrorEvent) {
  // execd sends no execution_complete after a failure and closes the stream
  // about 1 s later (the test server too): cwsc stops at the error event.
  ir::LaunchPlan plan = ExecdPlan(*server_);
  auto start = Clock::now();
  auto r = Go(Run(plan, {"sh", "-c", "echo out; exit 3"}, std::string(kTestExecdToken)));
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(out_, "out\n");
  EXPECT_LT(took.count(), 700);
}

TEST_F(OpenSandboxTest, ExecdDeathByASignalIs128PlusItsNumber) {
  ir::LaunchPlan plan = ExecdPlan(*server_);
  for (auto [sig, code] : {std::pair{"KILL", 137}, {"TERM", 143}, {"SEGV", 139}}) {
    SCOPED_TRACE(sig);
    auto r = Go(
        Run(plan, {"sh", "-c", std::string("kill -") + sig + " $$"}, std::string(kTestExecdToken)));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->exit_code, code);
  }
}

TEST_F(OpenSandboxTest, ExecdStartFailureIsAnErrorNotAnExitCode) {
  server_->Control("start_error");  // Go's error text in evalue, digits and all
  ir::LaunchPlan plan = ExecdPlan(*server_);
  ASSERT_FALSE(Go(Run(plan, {"true"}, std::string(kTestExecdToken))).ok());
  EXPECT_EQ(message_,
            "execd reported CommandExecError: fork/exec /usr/lib/x86_64-linux-gnu/bash: no such "
            "file or directory");
}

TEST_F(OpenSandboxTest, ExecdMissingWorkingDirectoryIsAClearError) {
  ir::LaunchPlan plan = ExecdPlan(*server_);
  plan.remote()->remote_cwd = "/nonexistent-cwsc-dir";
  ASSERT_FALSE(Go(Run(plan, {"true"}, std::string(kTestExecdToken))).ok());
  EXPECT_EQ(message_,
            "execd returned HTTP 400 (INVALID_REQUEST_BODY): invalid request, validation error "
            "working directory does not exist: /nonexistent-cwsc-dir: stat /nonexistent-cwsc-dir: "
            "no such file or directory");
}

TEST_F(OpenSandboxTest, ExecdStopsReadingAtExecutionComplete) {
  server_->Control("linger_after_complete");  // the server keeps the stream open
  ir::LaunchPlan plan = ExecdPlan(*server_);
  auto start = Clock::now();
  auto r = Go(Run(plan, {"sh", "-c", "echo done; exit 0"}, std::string(kTestExecdToken)));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(out_, "done\n");
}

TEST_F(OpenSandboxTest, ExecdWrongTokenIsHttp401) {
  ir::LaunchPlan plan = ExecdPlan(*server_);
  ASSERT_FALSE(Go(Run(plan, {"true"}, std::string(kTestKey))).ok());
  EXPECT_EQ(message_,
            "execd returned HTTP 401: Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN "
            "(the key from env CWSC_TEST_OPENSANDBOX_KEY was refused)");
  ir::LaunchPlan no_key = RemotePlan("execd", server_->url(), false);
  ASSERT_FALSE(Go(Run(no_key, {"true"}, std::nullopt)).ok());
  EXPECT_EQ(message_,
            "execd returned HTTP 401: Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN "
            "(no access token was sent: the plan names no key)");
}

TEST_F(OpenSandboxTest, ExecdFaultsGiveClearErrors) {
  const FaultCase cases[] = {
      {"http500", "execd returned HTTP 500 (RUNTIME_ERROR): injected HTTP 500"},
      {"malformed_json", "malformed execd event (not a JSON object): {\"type\": \"init\""},
      {"missing_field", "malformed execd event: missing string field \"type\""},
      {"wrong_type", "malformed execd event: missing string field \"type\""},
      {"truncated", "execd event stream ended before execution_complete"},
      {"drop", "execd command failed: POST http://127.0.0.1:"},
  };
  ir::LaunchPlan plan = ExecdPlan(*server_);
  for (const FaultCase& c : cases) {
    SCOPED_TRACE(c.fault);
    server_->Control(c.fault);
    message_.clear();
    auto r =
        Go(Run(plan, {"sh", "-c", "echo one; sleep 0.2; echo two"}, std::string(kTestExecdToken)));
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(message_, StartsWith(c.message_start));
  }
}

TEST_F(OpenSandboxTest, ExecdLineLargerThanTheEventBoundStreamsThrough) {
  server_->Control("big_event");  // one 100 MiB line without a terminator: one event
  ir::LaunchPlan plan = ExecdPlan(*server_);
  RemoteRun run = Run(plan, {"true"}, std::string(kTestExecdToken));
  run.max_event_bytes = 1 << 20;
  size_t bytes = 0, newlines = 0, others = 0;
  run.out = [&](std::string_view s) {
    bytes += s.size();
    for (char c : s) {
      newlines += c == '\n';
      others += c != '\n' && c != 'y';
    }
  };
  auto r = Go(run);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(bytes, (100u << 20) + 1);
  EXPECT_EQ(newlines, 1u);
  EXPECT_EQ(others, 0u);
}

TEST_F(OpenSandboxTest, ExecdHundredMegabytesOfOutputStreamThrough) {
  server_->Control("big");
  ir::LaunchPlan plan = ExecdPlan(*server_);
  RemoteRun run = Run(plan, {"true"}, std::string(kTestExecdToken));
  size_t bytes = 0, newlines = 0;
  bool only_z = true;
  run.out = [&](std::string_view s) {
    bytes += s.size();
    for (char c : s) newlines += c == '\n';
    only_z = only_z && s.find_first_not_of("z\n") == std::string_view::npos;
  };
  auto r = Go(run);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(bytes, 100u << 20);  // 1600 lines of 64 KiB
  EXPECT_EQ(newlines, 1600u);
  EXPECT_TRUE(only_z);
}

TEST_F(OpenSandboxTest, ExecdServerThatNeverAnswersIsBounded) {
  server_->Control("hang");
  ir::LaunchPlan plan = ExecdPlan(*server_);
  RemoteRun run = Run(plan, {"true"}, std::string(kTestExecdToken));
  run.request_timeout_ms = 800;
  auto start = Clock::now();
  ASSERT_FALSE(Go(run).ok());
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
  EXPECT_THAT(message_, HasSubstr("no response within 800 ms"));
}

TEST_F(OpenSandboxTest, ExecdTimeoutEndsTheCommand) {
  ir::LaunchPlan plan = ExecdPlan(*server_);
  RemoteRun run = Run(plan, {"sh", "-c", "echo started; sleep 30"}, std::string(kTestExecdToken));
  run.timeout_ms = 700;
  auto start = Clock::now();
  auto r = Go(run);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->exit_code, 124);
  EXPECT_EQ(out_, "started\n");
}

TEST_F(OpenSandboxTest, ExecdTimeoutIgnoredByTheServerIsInterruptedByUs) {
  server_->Control("ignore_timeout");
  ir::LaunchPlan plan = ExecdPlan(*server_);
  RemoteRun run = Run(plan, {"sh", "-c", "echo started; sleep 30"}, std::string(kTestExecdToken));
  run.timeout_ms = 500;
  run.grace_ms = 300;
  auto start = Clock::now();
  auto r = Go(run);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->exit_code, 124);
  nlohmann::json st = server_->State();
  ASSERT_EQ(st["interrupts"].size(), 1u);  // DELETE /command?id=... after timeout + grace
  EXPECT_EQ(st["requests"].back()["path"], "/command?id=" + st["interrupts"][0].get<std::string>());
}

TEST_F(OpenSandboxTest, ExecdInterruptSendsDeleteCommand) {
  ir::LaunchPlan plan = ExecdPlan(*server_);
  std::atomic<bool> stop{false};
  RemoteRun run = Run(plan, {"sh", "-c", "echo started; sleep 30"}, std::string(kTestExecdToken));
  run.interrupt = &stop;
  run.out = [&](std::string_view s) {
    out_.append(s);
    stop = true;  // interrupt once the command has started
  };
  auto start = Clock::now();
  auto r = Go(run);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(r->interrupted);
  EXPECT_EQ(r->exit_code, 130);
  nlohmann::json st = server_->State();
  ASSERT_EQ(st["interrupts"].size(), 1u);
  EXPECT_THAT(st["interrupts"][0].get<std::string>(), ::testing::MatchesRegex("[0-9a-f]{32}"));
  EXPECT_EQ(st["requests"].back()["method"], "DELETE");
}

TEST_F(OpenSandboxTest, ExecdRefusedInterruptIsAWarning) {
  // execd answers an interrupt for an id it no longer knows (the command
  // has just ended) with HTTP 500.
  server_->Control("interrupt_refused");
  ir::LaunchPlan plan = ExecdPlan(*server_);
  std::atomic<bool> stop{false};
  RemoteRun run = Run(plan, {"sh", "-c", "echo started; sleep 2"}, std::string(kTestExecdToken));
  run.interrupt = &stop;
  run.out = [&](std::string_view s) {
    out_.append(s);
    stop = true;
  };
  auto r = Go(run);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 130);
  nlohmann::json st = server_->State();
  ASSERT_EQ(st["interrupts"].size(), 1u);
  EXPECT_EQ(err_, "cwsc: could not interrupt remote command " +
                      st["interrupts"][0].get<std::string>() +
                      ": HTTP 500 (RUNTIME_ERROR): error interruptting code context. no such "
                      "session\n");
}

// The test server's execd answers the recorded requests of the real execd
// (tests/opensandbox/transcripts/) as it did: the same status and error
// body, and the same events (ids, timestamps and the relative order of
// stdout and stderr aside: execd does not keep that order either).
TEST_F(OpenSandboxTest, TestServerAnswersAsTheRecordedExecd) {
  using Json = nlohmann::json;
  std::string dir = testing::SourceRoot() + "/tests/opensandbox/transcripts";
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().stem().string();
    if (name == "interrupt_trap_term") continue;  // interrupts: ExecdInterruptSendsDeleteCommand
    SCOPED_TRACE(name);
    Json t = Json::parse(testing::ReadFileOr(entry.path().string()), nullptr, false);
    ASSERT_TRUE(t.is_object());
    const Json& q = t["request"];
    HttpRequest req{q["method"].get<std::string>(),
                    server_->url() + q["path"].get<std::string>(),
                    {{"Content-Type", "application/json"}},
                    ""};
    if (name != "no_token") req.headers.push_back({"X-EXECD-ACCESS-TOKEN", kTestExecdToken});
    if (q["body"].is_string()) req.body = q["body"].get<std::string>();
    if (q["body"].is_object()) req.body = q["body"].dump();
    HttpOptions o;
    o.total_timeout_ms = 10000;
    absl::StatusOr<HttpResponse> r = HttpSend(req, o);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->status, t["status"].get<long>());
    ++compared;
    if (r->status != 200) {
      Json want = Json::parse(t["body"].get<std::string>());
      Json got = Json::parse(r->body, nullptr, false);
      ASSERT_TRUE(got.is_object()) << r->body;
      if (name == "not_json") {  // the parser's own words follow
        EXPECT_EQ(got["code"], want["code"]);
        EXPECT_THAT(got["message"].get<std::string>(),
                    StartsWith("error parsing request, MAYBE invalid body format. "));
      } else {
        EXPECT_EQ(got, want);
      }
      continue;
    }
    // Events: the non-output ones in order; stdout and stderr each in order.
    auto split = [](const std::string& body) {
      std::vector<std::string> kinds, out, err;
      size_t start = 0, pos;
      while ((pos = body.find("\n\n", start)) != std::string::npos) {
        Json e = Json::parse(body.substr(start, pos - start));
        start = pos + 2;
        std::string type = e["type"];
        if (type == "stdout" || type == "stderr") {
          (type == "stdout" ? out : err).push_back(e["text"]);
          continue;
        }
        if (type == "ping") kinds.push_back("ping " + e["text"].get<std::string>());
        if (type == "init" || type == "execution_complete") kinds.push_back(type);
        if (type == "error") kinds.push_back("error " + e["error"].dump());
      }
      return std::vector<std::vector<std::string>>{kinds, out, err};
    };
    EXPECT_EQ(split(r->body), split(t["body"].get<std::string>()));
  }
  EXPECT_EQ(compared, 18);
}

// ---- lifecycle ----------------------------------------------------------------

TEST_F(OpenSandboxTest, LifecycleCreatesWaitsRunsAndDeletes) {
  ir::LaunchPlan plan = RemotePlan("lifecycle", server_->url());
  auto r = Go(Run(plan, {"sh", "-c", "echo in-sandbox; exit 2"}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 2);
  EXPECT_EQ(out_, "in-sandbox\n");
  EXPECT_TRUE(r->sandbox_deleted);
  nlohmann::json st = server_->State();
  ASSERT_EQ(st["sandboxes"].size(), 1u);
  nlohmann::json sb = st["sandboxes"][r->sandbox_id];
  EXPECT_EQ(sb["deleted"], true);
  EXPECT_EQ(sb["request"]["image"]["uri"], "debian:12");
  EXPECT_EQ(sb["request"]["networkPolicy"],
            nlohmann::json::parse(R"({"defaultAction":"deny","egress":[]})"));
  EXPECT_GE(sb["polls"].get<int>(), 3);  // Pending twice, then Running
  std::vector<std::string> steps;
  for (const auto& q : st["requests"])
    steps.push_back(q["method"].get<std::string>() + " " + q["path"].get<std::string>());
  EXPECT_EQ(steps.front(), "POST /v1/sandboxes");
  EXPECT_EQ(steps.back(), "DELETE /v1/sandboxes/" + r->sandbox_id);
  EXPECT_THAT(steps,
              ::testing::Contains("GET /v1/sandboxes/" + r->sandbox_id + "/endpoints/44772"));
  EXPECT_THAT(steps,
              ::testing::Contains("POST /sandboxes/" + r->sandbox_id + "/port/44772/command"));
}

TEST_F(OpenSandboxTest, LifecycleNetworkOnAllowsAndKeepKeepsTheSandbox) {
  ir::LaunchPlan plan = RemotePlan("lifecycle", server_->url());
  plan.policy.network_access = true;
  plan.remote()->keep = true;
  auto r = Go(Run(plan, {"true"}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->sandbox_deleted);
  nlohmann::json sb = server_->State()["sandboxes"][r->sandbox_id];
  EXPECT_EQ(sb["deleted"], false);
  // An allowed network sends no networkPolicy: a server without an egress
  // sidecar refuses any request that carries one.
  EXPECT_FALSE(sb["request"].contains("networkPolicy"));
  EXPECT_EQ(err_, "cwsc: keeping OpenSandbox sandbox " + r->sandbox_id + " (sandbox_keep)\n");
}

TEST_F(OpenSandboxTest, LifecycleServerWithoutEgressSidecar) {
  server_->Control("no_egress_sidecar");  // refuses a create request with networkPolicy
  ir::LaunchPlan open = RemotePlan("lifecycle", server_->url());
  open.policy.network_access = true;
  auto r = Go(Run(open, {"sh", "-c", "echo ran"}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(out_, "ran\n");
  // A blocked network is never given up for an open one: the run fails.
  ir::LaunchPlan closed = RemotePlan("lifecycle", server_->url());
  out_.clear();
  ASSERT_FALSE(Go(Run(closed, {"sh", "-c", "echo ran"})).ok());
  EXPECT_EQ(message_,
            "OpenSandbox lifecycle API (create sandbox) returned HTTP 400: {\"code\": "
            "\"INVALID_REQUEST\", \"message\": \"networkPolicy needs the egress sidecar, which "
            "is not configured\"} (the policy blocks the network: cwsc sent networkPolicy "
            "defaultAction deny, which a server without an egress sidecar refuses; the command "
            "was not run)");
  EXPECT_EQ(out_, "");
  EXPECT_EQ(server_->State()["sandboxes"].size(), 1u);  // only the first run's
}

TEST_F(OpenSandboxTest, LifecycleRefusedEndpointHeadersAreAClearError) {
  server_->Control("endpoint_wrong_token");  // the endpoint's headers do not open execd
  ir::LaunchPlan plan = RemotePlan("lifecycle", server_->url());
  ASSERT_FALSE(Go(Run(plan, {"true"})).ok());
  EXPECT_EQ(message_,
            "execd returned HTTP 401: Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN "
            "(the headers returned with the endpoint were refused)");
  nlohmann::json st = server_->State();
  ASSERT_EQ(st["sandboxes"].size(), 1u);
  for (const auto& [id, sb] : st["sandboxes"].items()) EXPECT_EQ(sb["deleted"], true) << id;
}

TEST_F(OpenSandboxTest, LifecycleStartupFailuresDeleteTheSandbox) {
  ir::LaunchPlan plan = RemotePlan("lifecycle", server_->url());
  server_->Control("never_running");
  RemoteRun run = Run(plan, {"true"});
  run.start_timeout_ms = 400;
  ASSERT_FALSE(Go(run).ok());
  EXPECT_THAT(message_, ::testing::MatchesRegex(
                            "OpenSandbox sandbox sbx-[0-9a-f]+ did not reach Running within 400 ms "
                            "\\(last state Pending\\)"));
  nlohmann::json st = server_->State();
  for (const auto& [id, sb] : st["sandboxes"].items()) EXPECT_EQ(sb["deleted"], true) << id;

  server_->Control("sandbox_failed");
  message_.clear();
  ASSERT_FALSE(Go(Run(plan, {"true"})).ok());
  EXPECT_THAT(message_, ::testing::MatchesRegex(
                            "OpenSandbox sandbox sbx-[0-9a-f]+ is Failed: image_pull_error: image "
                            "not found"));
}

TEST_F(OpenSandboxTest, LifecycleAuthAndResponseFaults) {
  ir::LaunchPlan plan = RemotePlan("lifecycle", server_->url());
  ASSERT_FALSE(Go(Run(plan, {"true"}, std::string("nope"))).ok());
  EXPECT_EQ(message_,
            "OpenSandbox lifecycle API (create sandbox) returned HTTP 401: {\"code\": \"401\", "
            "\"message\": \"missing or wrong OPEN-SANDBOX-API-KEY\"}");
  server_->Control("missing_field");
  ASSERT_FALSE(Go(Run(plan, {"true"})).ok());
  EXPECT_EQ(message_, "OpenSandbox lifecycle API (create sandbox): response has no sandbox id");
  server_->Control("malformed_json");
  ASSERT_FALSE(Go(Run(plan, {"true"})).ok());
  EXPECT_EQ(message_, "OpenSandbox lifecycle API (create sandbox): response is not a JSON object");
}

TEST_F(OpenSandboxTest, LifecycleSlowSilentAndDroppingServersAreBounded) {
  ir::LaunchPlan plan = RemotePlan("lifecycle", server_->url());
  for (const char* fault : {"slow", "hang", "drop"}) {
    SCOPED_TRACE(fault);
    server_->Control(fault, /*delay=*/10);
    RemoteRun run = Run(plan, {"true"});
    run.request_timeout_ms = 600;
    message_.clear();
    auto start = Clock::now();
    ASSERT_FALSE(Go(run).ok());
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
    EXPECT_THAT(message_, StartsWith("OpenSandbox lifecycle API (create sandbox) failed: POST " +
                                     server_->url() + "/v1/sandboxes: "));
    EXPECT_THAT(message_, HasSubstr(std::string(fault) == "drop"
                                        ? "connection closed before the response was complete"
                                        : "no complete response within 600 ms"));
  }
}

TEST_F(OpenSandboxTest, LifecycleInterruptStopsCommandAndDeletesSandbox) {
  ir::LaunchPlan plan = RemotePlan("lifecycle", server_->url());
  std::atomic<bool> stop{false};
  RemoteRun run = Run(plan, {"sh", "-c", "echo up; sleep 30"});
  run.interrupt = &stop;
  run.out = [&](std::string_view s) {
    out_.append(s);
    stop = true;
  };
  auto r = Go(run);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->interrupted);
  EXPECT_TRUE(r->sandbox_deleted);
  nlohmann::json st = server_->State();
  EXPECT_EQ(st["interrupts"].size(), 1u);
  EXPECT_EQ(st["sandboxes"][r->sandbox_id]["deleted"], true);
}

}  // namespace
}  // namespace cwsc::runtime
