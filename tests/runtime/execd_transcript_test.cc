// Responses of the real OpenSandbox execd, recorded on loopback
// (tests/opensandbox/transcripts/*.json: status, headers, body and each chunk
// as it arrived), replayed through cwsc's parser of the event stream and its
// reading of error bodies. Every transcript has an expectation here, and
// every expectation a transcript.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runtime/execd_stream.h"
#include "runtime/opensandbox.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::runtime {
namespace {

using Json = nlohmann::json;
using testing::ReadFileOr;
using testing::SourceRoot;

std::string TranscriptDir() { return SourceRoot() + "/tests/opensandbox/transcripts"; }

Json Load(const std::string& name) {
  return Json::parse(ReadFileOr(TranscriptDir() + "/" + name + ".json"), nullptr, false);
}

// What a local run of the recorded command writes and returns (as far as the
// stream can carry it: docs/opensandbox.md).
struct Stream {
  std::string out, err;
  int exit_code;
};

const std::map<std::string, Stream>& StreamCases() {
  static const auto* cases = new std::map<std::string, Stream>{
      // echo "$FOO"; printf 'a\n\nb\r\nc\rd'; echo E >&2 — "\r\n" and "\r" end a
      // line as "\n" does; the last line gets a terminator.
      {"ok_multiline", {"bar\na\n\nb\nc\nd\n", "E\n", 0}},
      {"exit3", {"out\n", "", 3}},
      {"sigkill_self", {"", "", 128 + 9}},
      {"timeout_1000ms", {"start\n", "", 128 + 9}},  // execd killed it at `timeout`
      {"not_found_program", {"", "bash: line 1: no-such-program-xyz: command not found\n", 127}},
      {"invalid_utf8", {"x\xEF\xBF\xBDy\n", "", 0}},  // byte 0xff arrives as U+FFFD
      {"slow_lines", {"one\ntwo\nthree\n", "", 0}},
      {"timeout_zero", {"", "", 0}},
      {"unknown_field", {"", "", 0}},
      {"interrupt_trap_term", {"started\ngot TERM\n", "", 7}},
  };
  return *cases;
}

// Error responses: the text after "execd returned ".
const std::map<std::string, std::string>& ErrorCases() {
  static const auto* cases = new std::map<std::string, std::string>{
      {"bad_cwd",
       "HTTP 400 (INVALID_REQUEST_BODY): invalid request, validation error working directory does "
       "not exist: /nonexistent: stat /nonexistent: no such file or directory"},
      {"cwd_env_expansion",
       "HTTP 400 (INVALID_REQUEST_BODY): invalid request, validation error cannot resolve working "
       "directory \"$D\": path references undefined environment variables: D"},
      {"delete_missing_id", "HTTP 400 (MISSING_QUERY): missing query parameter 'id'"},
      {"delete_unknown_id",
       "HTTP 500 (RUNTIME_ERROR): error interruptting code context. no such session"},
      {"empty_command",
       "HTTP 400 (INVALID_REQUEST_BODY): invalid request, validation error Key: "
       "'RunCommandRequest.Command' Error:Field validation for 'Command' failed on the "
       "'required' tag"},
      {"gid_without_uid",
       "HTTP 400 (INVALID_REQUEST_BODY): invalid request, validation error uid is required when "
       "gid is provided"},
      {"no_token", "HTTP 401: Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN"},
      {"not_json",
       "HTTP 400 (INVALID_REQUEST_BODY): error parsing request, MAYBE invalid body format. invalid "
       "character 'n' looking for beginning of object key string"},
      {"timeout_negative",
       "HTTP 400 (INVALID_REQUEST_BODY): invalid request, validation error Key: "
       "'RunCommandRequest.TimeoutMs' Error:Field validation for 'TimeoutMs' failed on the 'gte' "
       "tag"},
  };
  return *cases;
}

TEST(ExecdTranscriptTest, EveryTranscriptHasAnExpectationAndEveryExpectationATranscript) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(TranscriptDir())) {
    if (e.path().extension() == ".json") files.push_back(e.path().stem().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> expected;
  for (const auto& [name, c] : StreamCases()) expected.push_back(name);
  for (const auto& [name, c] : ErrorCases()) expected.push_back(name);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(files, expected);
}

// Replay feeds the chunks of a transcript as they arrived (or each split into
// pieces of `piece` bytes) and stops where cwsc stops reading.
struct Replayed {
  std::string out, err, error;
  bool ok = true;
  bool done = false;
  size_t chunks_read = 0;  // arrivals fed before the parser said "done"
  std::optional<int> exit_code;
};

Replayed Replay(const Json& t, size_t piece) {
  Replayed r;
  ExecdStream s([&](std::string_view x) { r.out.append(x); },
                [&](std::string_view x) { r.err.append(x); }, 1 << 20);
  for (const Json& a : t["arrivals"]) {
    const std::string& bytes = a["bytes"].get_ref<const std::string&>();
    ++r.chunks_read;
    for (size_t i = 0; i < bytes.size() && r.ok && !s.done(); i += piece) {
      r.ok = s.Feed(std::string_view(bytes).substr(i, piece));
    }
    if (!r.ok || s.done()) break;
  }
  if (r.ok && !s.done()) r.ok = s.Finish();
  r.error = s.error();
  r.done = s.done();
  r.exit_code = s.exit_code();
  return r;
}

TEST(ExecdTranscriptTest, EventStreamsGiveTheLocalOutputAndExitCode) {
  for (const auto& [name, want] : StreamCases()) {
    Json t = Load(name);
    ASSERT_TRUE(t.is_object()) << name;
    ASSERT_EQ(t["status"], 200) << name;
    // The recorded body is the arrivals, in order.
    std::string joined;
    for (const Json& a : t["arrivals"]) joined += a["bytes"].get<std::string>();
    ASSERT_EQ(joined, t["body"].get<std::string>()) << name;
    for (size_t piece : {size_t{1} << 30, size_t{1}, size_t{7}}) {
      SCOPED_TRACE(name + " in pieces of " + std::to_string(piece));
      Replayed r = Replay(t, piece);
      ASSERT_TRUE(r.ok) << r.error;
      EXPECT_TRUE(r.done);
      EXPECT_EQ(r.out, want.out);
      EXPECT_EQ(r.err, want.err);
      EXPECT_EQ(r.exit_code.value_or(0), want.exit_code);
      // cwsc stops at the last event: execution_complete, or the error event
      // after which execd sends nothing and closes about 1 s later.
      EXPECT_EQ(r.chunks_read, t["arrivals"].size());
    }
  }
}

TEST(ExecdTranscriptTest, ErrorBodiesGiveTheServersMessage) {
  for (const auto& [name, want] : ErrorCases()) {
    SCOPED_TRACE(name);
    Json t = Load(name);
    ASSERT_TRUE(t.is_object());
    ASSERT_NE(t["status"], 200);
    EXPECT_EQ(ExecdErrorText(t["status"].get<long>(), t["body"].get<std::string>()), want);
  }
}

TEST(ExecdTranscriptTest, TheInterruptOfATrappedCommandIsAcceptedWithAnEmptyBody) {
  Json t = Load("interrupt_trap_term");
  ASSERT_TRUE(t.contains("interrupt"));
  EXPECT_EQ(t["interrupt"]["request"]["method"], "DELETE");
  EXPECT_EQ(t["interrupt"]["status"], 200);
  // The command id the interrupt names is the one the init event gave.
  ExecdStream s(nullptr, nullptr, 1 << 20);
  ASSERT_TRUE(s.Feed(t["arrivals"][0]["bytes"].get<std::string>()));
  EXPECT_EQ("/command?id=" + s.command_id(), t["interrupt"]["request"]["path"]);
}

// ---- cases the transcripts do not cover -------------------------------------

struct Parsed {
  std::string out, err, error;
  bool ok = true;
  std::optional<int> exit_code;
};

Parsed Parse(const std::string& body, size_t max_event = 1 << 20, size_t piece = 4093) {
  Parsed p;
  ExecdStream s([&](std::string_view x) { p.out.append(x); },
                [&](std::string_view x) { p.err.append(x); }, max_event);
  for (size_t i = 0; i < body.size() && p.ok && !s.done(); i += piece) {
    p.ok = s.Feed(std::string_view(body).substr(i, piece));
  }
  if (p.ok && !s.done()) p.ok = s.Finish();
  p.error = s.error();
  p.exit_code = s.exit_code();
  return p;
}

std::string ErrorEvent(const std::string& evalue, const std::string& traceback) {
  Json e = {{"type", "error"},
            {"timestamp", 1},
            {"error",
             {{"ename", "CommandExecError"},
              {"evalue", evalue},
              {"traceback", Json::array({traceback})}}}};
  return e.dump() + "\n\n";
}

TEST(ExecdStreamTest, DeathByASignalIs128PlusItsNumber) {
  const std::pair<const char*, int> cases[] = {
      {"signal: killed", 137},
      {"signal: terminated", 143},
      {"signal: interrupt", 130},
      {"signal: hangup", 129},
      {"signal: aborted (core dumped)", 134},
      {"signal: segmentation fault (core dumped)", 139},
      {"signal: user defined signal 1", 138},
      {"signal: broken pipe", 141},
      {"signal: signal 34", 162},  // Go's name for a signal without a name
  };
  for (const auto& [traceback, code] : cases) {
    SCOPED_TRACE(traceback);
    Parsed p = Parse(ErrorEvent("-1", traceback));
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_EQ(p.exit_code, code);
  }
}

TEST(ExecdStreamTest, AnExitCodeIsOnlyAWholeNumber) {
  const std::pair<const char*, const char*> cases[] = {
      // Start failures: Go's error text, whatever digits it holds.
      {"fork/exec /usr/lib/x86_64-linux-gnu/bash: no such file or directory",
       "execd reported CommandExecError: fork/exec /usr/lib/x86_64-linux-gnu/bash: no such file "
       "or directory"},
      {"exit status 3", "execd reported CommandExecError: exit status 3"},
      {"3 ", "execd reported CommandExecError: 3 "},
      {"+3", "execd reported CommandExecError: +3"},
      {"99999999999", "execd reported CommandExecError: 99999999999"},
      {"", "execd reported CommandExecError"},
      {"-2", "execd reported CommandExecError: -2 (traceback: signal: killed)"},
  };
  for (const auto& [evalue, message] : cases) {
    SCOPED_TRACE(evalue);
    Parsed p = Parse(ErrorEvent(evalue, "signal: killed"));
    EXPECT_FALSE(p.ok);
    EXPECT_EQ(p.error, message);
  }
  Parsed p = Parse(ErrorEvent("-1", "exit status 1"));
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "execd reported CommandExecError: -1 (traceback: exit status 1)");
}

TEST(ExecdStreamTest, AnOutputLineLargerThanTheEventBoundStreamsThrough) {
  // 3 MiB in one line (execd sends it as one event) with every kind of escape.
  std::string line;
  while (line.size() < (3u << 20)) line += "ab\"\\/\t\u00e9\U0001F600 z\x7f";
  line[0] = '\x01';
  // As execd writes it: "type" before "text"; ensure_ascii gives \uXXXX
  // escapes and surrogate pairs.
  std::string event =
      "{\"type\":\"stdout\",\"text\":" + Json(line).dump(-1, ' ', true) + ",\"timestamp\":5}";
  std::string body = Json{{"type", "init"}, {"text", "id1"}}.dump() + "\n\n" + event + "\n\n" +
                     Json{{"type", "execution_complete"}}.dump() + "\n\n";
  for (size_t piece : {size_t{1} << 30, size_t{4093}, size_t{1}}) {
    SCOPED_TRACE(piece);
    Parsed p = Parse(body, 1 << 20, piece);
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_TRUE(p.out == line + "\n") << p.out.size() << " bytes";
  }
  // An output event whose text comes before its type cannot be streamed (the
  // sink is not known yet): it keeps the bound, as other events do.
  Parsed late_type = Parse("{\"text\":" + Json(line).dump() + ",\"type\":\"stdout\"}\n\n");
  EXPECT_FALSE(late_type.ok);
  EXPECT_EQ(late_type.error, "execd event larger than 1048576 bytes");
  // Other events keep the bound.
  Json status = {{"type", "status"}, {"text", std::string(2u << 20, 's')}};
  Parsed big = Parse(status.dump() + "\n\n");
  EXPECT_FALSE(big.ok);
  EXPECT_EQ(big.error, "execd event larger than 1048576 bytes");
  // A streamed line that breaks JSON is still an error.
  std::string broken =
      "{\"type\":\"stderr\",\"text\":\"" + std::string(2u << 20, 'e') + "\\q\"}\n\n";
  Parsed bad = Parse(broken);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.error, "malformed execd event: bad escape in the text of a stderr event");
  std::string raw_tab =
      "{\"type\":\"stdout\",\"text\":\"" + std::string(2u << 20, 'e') + "\t\"}\n\n";
  Parsed control = Parse(raw_tab);
  EXPECT_FALSE(control.ok);
  EXPECT_EQ(control.error,
            "malformed execd event: control character in the text of a stdout event");
  // The connection closes in the middle of a streamed line.
  Parsed cut = Parse("{\"type\":\"stdout\",\"text\":\"" + std::string(2u << 20, 'e'));
  EXPECT_FALSE(cut.ok);
  EXPECT_EQ(cut.error, "malformed execd event: the stream ended inside a stdout event");
  EXPECT_EQ(cut.out, std::string(2u << 20, 'e'));  // what arrived was written
}

}  // namespace
}  // namespace cwsc::runtime
