#include "runtime/execd_stream.h"

#include <csignal>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace cwsc::runtime {
namespace {

using Json = nlohmann::json;

// Past this size an output event whose text has begun is streamed instead of
// buffered (execd sends a whole line as one event, of any length).
constexpr std::size_t kStreamTextAfter = 64u << 10;

// Printable is a short excerpt of an event for messages: control characters
// become '?', trailing blank lines go.
std::string Printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 200)) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u < 0x20 && c != '\n' && c != '\t') ? '?' : c;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// SignalNumber reads Go's os.ProcessState text for a death by a signal
// ("signal: killed", "signal: segmentation fault (core dumped)", "signal:
// signal 34"): the signal's number, 0 if the text is not one.
int SignalNumber(std::string text) {
  if (text.rfind("signal: ", 0) != 0) return 0;
  text.erase(0, 8);
  const std::string core = " (core dumped)";
  size_t len = text.size();
  if (len > core.size() && text.compare(len - core.size(), core.size(), core) == 0) {
    text.erase(len - core.size());
  }
  // Go's names of the Linux signals (syscall.Signal.String), by number.
  static const char* const kNames[] = {
      "",
      "hangup",
      "interrupt",
      "quit",
      "illegal instruction",
      "trace/breakpoint trap",
      "aborted",
      "bus error",
      "floating point exception",
      "killed",
      "user defined signal 1",
      "segmentation fault",
      "user defined signal 2",
      "broken pipe",
      "alarm clock",
      "terminated",
      "stack fault",
      "child exited",
      "continued",
      "stopped (signal)",
      "stopped",
      "stopped (tty input)",
      "stopped (tty output)",
      "urgent I/O condition",
      "CPU time limit exceeded",
      "file size limit exceeded",
      "virtual timer expired",
      "profiling timer expired",
      "window changed",
      "I/O possible",
      "power failure",
      "bad system call",
  };
  for (int n = 1; n < static_cast<int>(std::size(kNames)); ++n) {
    if (text == kNames[n]) return n;
  }
  int n = 0;
  if (text.rfind("signal ", 0) == 0 && absl::SimpleAtoi(text.substr(7), &n) && n > 0 && n < 128) {
    return n;
  }
  return 0;
}

// WholeNumber: evalue is an exit code only when it matches ^-?[0-9]+$.
bool WholeNumber(const std::string& s, int* out) {
  size_t digits = s.size() > 0 && s[0] == '-' ? 1 : 0;
  if (digits == s.size()) return false;
  for (size_t i = digits; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return absl::SimpleAtoi(s, out);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Hex4 reads the four hex digits at s[0..3]; -1 if they are not.
long Hex4(std::string_view s) {
  long v = 0;
  for (int i = 0; i < 4; ++i) {
    int d = HexDigit(s[i]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

void AppendUtf8(std::string* out, long cp) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// OutputPrefix matches the start of an output event as execd writes it,
// {"type":"stdout","text":" (blanks allowed between tokens), and returns its
// length with the type in *type; 0 when `buf` does not start so.
size_t OutputPrefix(std::string_view buf, std::string* type) {
  size_t i = 0;
  auto blanks = [&] {
    while (i < buf.size() && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n')) ++i;
  };
  auto token = [&](std::string_view t) {
    blanks();
    if (buf.substr(i, t.size()) != t) return false;
    i += t.size();
    return true;
  };
  if (buf.rfind("data:", 0) == 0) i = 5;
  if (!token("{") || !token("\"type\"") || !token(":")) return 0;
  if (token("\"stdout\"")) {
    *type = "stdout";
  } else if (token("\"stderr\"")) {
    *type = "stderr";
  } else {
    return 0;
  }
  if (!token(",") || !token("\"text\"") || !token(":") || !token("\"")) return 0;
  return i;
}

}  // namespace

ExecdStream::ExecdStream(Sink out, Sink err, std::size_t max_event)
    : out_(std::move(out)), err_(std::move(err)), max_event_(max_event) {}

bool ExecdStream::Feed(std::string_view chunk) {
  if (done()) return true;  // the command has ended: anything after is ignored
  if (chunk.find('\r') == std::string_view::npos) {
    buf_.append(chunk);
  } else {
    for (char c : chunk) {
      if (c != '\r') buf_ += c;
    }
  }
  while (!done()) {
    if (!streaming_.empty()) {
      if (!StreamText()) return false;
      if (!streaming_.empty()) return true;  // the text goes on in the next chunk
    }
    // Resume the search where the last Feed stopped (minus one for a split "\n\n").
    size_t from = scanned_ > 0 ? scanned_ - 1 : 0;
    size_t pos = buf_.find("\n\n", from);
    if (pos == std::string::npos) {
      scanned_ = buf_.size();
      if (buf_.size() > kStreamTextAfter && !streamed_) {
        size_t text_at = OutputPrefix(buf_, &streaming_);
        if (text_at > 0) {
          buf_.erase(0, text_at);
          scanned_ = 0;
          continue;
        }
      }
      if (buf_.size() > max_event_) {
        return Fail(absl::StrCat("execd event larger than ", max_event_, " bytes"));
      }
      return true;
    }
    std::string block = buf_.substr(0, pos);
    buf_.erase(0, pos + 2);
    scanned_ = 0;
    if (streamed_) {
      // The rest of a streamed output event: its text was written, the line
      // ends here ("text":"" makes Event write the terminator).
      std::string type = streamed_type_;
      streamed_ = false;
      if (!Event(absl::StrCat("{\"type\":\"", type, "\",\"text\":\"\"", block))) return false;
      continue;
    }
    if (!Event(block)) return false;
  }
  return true;
}

// StreamText decodes the text of a streamed output event from buf_ up to its
// closing quote (or as far as buf_ goes), writing it to the sink.
bool ExecdStream::StreamText() {
  std::string text;
  size_t i = 0;
  const size_t n = buf_.size();
  bool closed = false;
  while (i < n) {
    char c = buf_[i];
    if (c == '"') {
      closed = true;
      ++i;
      break;
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      return Fail(absl::StrCat("malformed execd event: control character in the text of a ",
                               streaming_, " event"));
    }
    if (c != '\\') {
      text += c;
      ++i;
      continue;
    }
    if (i + 1 >= n) break;  // the escape goes on in the next chunk
    char e = buf_[i + 1];
    const char* simple = nullptr;
    switch (e) {
      case '"':
        simple = "\"";
        break;
      case '\\':
        simple = "\\";
        break;
      case '/':
        simple = "/";
        break;
      case 'b':
        simple = "\b";
        break;
      case 'f':
        simple = "\f";
        break;
      case 'n':
        simple = "\n";
        break;
      case 'r':
        simple = "\r";
        break;
      case 't':
        simple = "\t";
        break;
      default:
        break;
    }
    if (simple != nullptr) {
      text += simple;
      i += 2;
      continue;
    }
    if (e != 'u') {
      return Fail(absl::StrCat("malformed execd event: bad escape in the text of a ", streaming_,
                               " event"));
    }
    if (i + 6 > n) break;
    long cp = Hex4(std::string_view(buf_).substr(i + 2, 4));
    if (cp < 0) {
      return Fail(absl::StrCat("malformed execd event: bad escape in the text of a ", streaming_,
                               " event"));
    }
    size_t used = 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: a low one should follow
      if (i + 12 > n && (i + 6 >= n || buf_[i + 6] == '\\') && (i + 7 >= n || buf_[i + 7] == 'u')) {
        break;  // wait for the rest of the pair
      }
      long low = -1;
      if (i + 12 <= n && buf_[i + 6] == '\\' && buf_[i + 7] == 'u') {
        low = Hex4(std::string_view(buf_).substr(i + 8, 4));
      }
      if (low >= 0xDC00 && low <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        used = 12;
      } else {
        cp = 0xFFFD;  // a lone surrogate, as a JSON decoder replaces it
      }
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      cp = 0xFFFD;
    }
    AppendUtf8(&text, cp);
    i += used;
  }
  buf_.erase(0, i);
  if (!text.empty()) (streaming_ == "stdout" ? out_ : err_)(text);
  if (closed) {
    streamed_ = true;
    streamed_type_ = streaming_;
    streaming_.clear();
  }
  return true;
}

bool ExecdStream::Finish() {
  if (done()) return true;
  if (!streaming_.empty() || streamed_) {
    return Fail(absl::StrCat("malformed execd event: the stream ended inside a ",
                             streaming_.empty() ? streamed_type_ : streaming_, " event"));
  }
  if (!StripBlock(buf_).empty() && !Event(buf_)) return false;
  buf_.clear();
  scanned_ = 0;
  return true;
}

std::string ExecdStream::StripBlock(const std::string& block) {
  if (!block.empty() && block[0] == '{') return block;  // execd's plain JSON form
  std::string data;
  std::istringstream in(block);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == ':') continue;  // SSE comment
    if (line.rfind("data:", 0) == 0) {
      line.erase(0, 5);
      if (!line.empty() && line[0] == ' ') line.erase(0, 1);
    } else if (line.rfind("event:", 0) == 0 || line.rfind("id:", 0) == 0 ||
               line.rfind("retry:", 0) == 0) {
      continue;
    }
    data += line;
    data += '\n';
  }
  return data;
}

bool ExecdStream::Fail(std::string message) {
  error_ = std::move(message);
  return false;
}

bool ExecdStream::Event(const std::string& block) {
  std::string data = StripBlock(block);
  if (data.empty()) return true;
  Json e = Json::parse(data, nullptr, false);
  if (e.is_discarded() || !e.is_object()) {
    return Fail(absl::StrCat("malformed execd event (not a JSON object): ", Printable(data)));
  }
  if (!e.contains("type") || !e["type"].is_string()) {
    return Fail("malformed execd event: missing string field \"type\"");
  }
  const std::string& type = e["type"].get_ref<const std::string&>();
  if (type == "init") {
    if (e.contains("text") && e["text"].is_string()) id_ = e["text"].get<std::string>();
    return true;
  }
  if (type == "stdout" || type == "stderr") {
    if (!e.contains("text") || !e["text"].is_string()) {
      return Fail(absl::StrCat("malformed execd event: ", type, " event without string \"text\""));
    }
    // One event is one line without its terminator ("\n", "\r\n" or "\r");
    // a blank line is sent as "\n".
    std::string line = e["text"].get<std::string>();
    if (line != "\n") line += '\n';
    (type == "stdout" ? out_ : err_)(line);
    return true;
  }
  if (type == "error") {
    if (!e.contains("error") || !e["error"].is_object()) {
      return Fail("malformed execd event: error event without an \"error\" object");
    }
    const Json& err = e["error"];
    auto field = [&](const char* name) {
      return err.contains(name) && err[name].is_string() ? err[name].get<std::string>() : "";
    };
    std::string ename = field("ename");
    std::string evalue = field("evalue");
    std::string traceback;  // its first line: Go's text of how the command ended
    if (err.contains("traceback") && err["traceback"].is_array() && !err["traceback"].empty() &&
        err["traceback"][0].is_string()) {
      traceback = err["traceback"][0].get<std::string>();
    }
    int code = 0;
    if (ename == "CommandExecError" && WholeNumber(evalue, &code)) {
      // evalue is the exit code; -1 is a death by the signal the traceback names.
      if (code >= 0) {
        exit_code_ = code;
        return true;
      }
      int sig = code == -1 ? SignalNumber(traceback) : 0;
      if (sig > 0) {
        exit_code_ = 128 + sig;
        return true;
      }
      return Fail(absl::StrCat("execd reported CommandExecError: ", evalue,
                               " (traceback: ", traceback, ")"));
    }
    return Fail(absl::StrCat("execd reported ", ename.empty() ? "an error" : ename,
                             evalue.empty() ? "" : ": ", evalue));
  }
  if (type == "execution_complete") complete_ = true;
  return true;  // ping, status, result, execution_count: nothing to do
}

}  // namespace cwsc::runtime
