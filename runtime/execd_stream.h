// ExecdStream parses the body of execd's `POST /command` response: JSON
// events separated by a blank line (an SSE "data:" prefix is accepted), fed
// in chunks as they arrive. Output events go to the sinks at once; the
// command id, the exit code and the end of the stream are kept.
//
//   ExecdStream s(write_stdout, write_stderr, 16u << 20);
//   for (chunk : body) if (!s.Feed(chunk)) return s.error();
//   if (!s.Finish()) return s.error();
//
// docs/opensandbox.md ("execd") describes the events and what cwsc does
// with each.
#ifndef CWSC_RUNTIME_EXECD_STREAM_H_
#define CWSC_RUNTIME_EXECD_STREAM_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace cwsc::runtime {

class ExecdStream {
 public:
  using Sink = std::function<void(std::string_view)>;
  ExecdStream(Sink out, Sink err, std::size_t max_event);

  // Feed returns false (with error()) when the stream is malformed.
  bool Feed(std::string_view chunk);
  // Finish handles what is left after the connection closed.
  bool Finish();

  const std::string& error() const { return error_; }
  const std::string& command_id() const { return id_; }
  bool complete() const { return complete_; }
  // done: the command has ended (execution_complete or its exit code); execd
  // may keep the connection open, cwsc stops reading.
  bool done() const { return complete_ || exit_code_.has_value(); }
  std::optional<int> exit_code() const { return exit_code_; }

 private:
  static std::string StripBlock(const std::string& block);
  bool Fail(std::string message);
  bool Event(const std::string& block);
  bool StreamText();

  Sink out_, err_;
  std::size_t max_event_;
  std::string buf_;
  size_t scanned_ = 0;     // buf_ holds no "\n\n" before this offset
  std::string streaming_;  // "stdout"/"stderr": buf_ is inside a long event's text
  bool streamed_ = false;  // that text has ended; buf_ holds the rest of its event
  std::string streamed_type_;
  std::string error_;
  std::string id_;
  bool complete_ = false;
  std::optional<int> exit_code_;
};

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_EXECD_STREAM_H_
