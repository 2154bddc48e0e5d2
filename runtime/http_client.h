// HttpSend performs one HTTP(S) request with libcurl: TLS verification on,
// no redirects, http/https only, connect and total timeouts, a bounded
// response body, and an optional streaming sink and cancel flag.
//
//   HttpRequest req{"POST", "http://127.0.0.1:8080/v1/sandbox/run",
//                   {{"Content-Type", "application/json"}}, body};
//   HttpOptions opt;  opt.total_timeout_ms = 30000;
//   absl::StatusOr<HttpResponse> r = HttpSend(req, opt);
//
// Error messages name the method and the URL (user information redacted) and
// what failed; they never contain a header value, so a key sent in a header
// cannot leak through an error.
#ifndef CWSC_RUNTIME_HTTP_CLIENT_H_
#define CWSC_RUNTIME_HTTP_CLIENT_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace cwsc::runtime {

struct HttpRequest {
  std::string method = "GET";  // GET, POST, DELETE
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // name, value
  std::string body;            // sent for POST (may be empty)
};

// BodySink receives the body of a 2xx response as it arrives; returning false
// aborts the transfer (HttpSend then returns the sink's error, see below).
using BodySink = std::function<bool(std::string_view chunk)>;

struct HttpOptions {
  long connect_timeout_ms = 10000;
  long total_timeout_ms = 30000;          // 0 = no total bound
  long response_timeout_ms = 0;           // until the status line arrives; 0 = none
  std::size_t max_body_bytes = 64u << 20; // buffered bodies (and error bodies)
  BodySink sink;                          // set: 2xx bodies stream here, unbuffered
  std::string* sink_error = nullptr;      // message the sink left when it aborted
  const std::atomic<bool>* cancel = nullptr;  // becomes true: abort (Cancelled)
};

struct HttpResponse {
  long status = 0;
  std::string body;  // empty when a sink consumed it
  std::vector<std::pair<std::string, std::string>> headers;  // lower-case names
};

// HttpSend returns the response for any HTTP status (the caller judges it),
// or: Unavailable (cannot connect / connection dropped), DeadlineExceeded
// (connect or total timeout), ResourceExhausted (body over the bound),
// Cancelled (cancel flag), InvalidArgument (bad URL or scheme), Internal
// (sink error).
absl::StatusOr<HttpResponse> HttpSend(const HttpRequest& request, const HttpOptions& options);

// RedactUrl drops any user information ("user:pass@") from a URL for messages.
std::string RedactUrl(const std::string& url);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_HTTP_CLIENT_H_
