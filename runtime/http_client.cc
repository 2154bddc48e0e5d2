#include "runtime/http_client.h"

#include <dlfcn.h>

// libcurl is loaded with dlopen on the first request (see Api() below), so the
// calls go through function pointers and the header's type-check macros,
// which wrap the direct calls, are switched off.
#define CURL_DISABLE_TYPECHECK 1
#define CURL_DISABLE_DEPRECATION 1  // CURLOPT_PROTOCOLS is the fallback for libcurl < 7.85
#include <curl/curl.h>

#include <chrono>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace cwsc::runtime {
namespace {

// CurlApi is the part of libcurl cwsc uses. Only OpenSandbox plans need
// HTTP, so libcurl (and the ~30 libraries it pulls in) is loaded on the first
// request instead of at every start of cwsc (docs/runtime.md "Performance", docs/opensandbox.md "Bounds").
struct CurlApi {
  CURLcode (*global_init)(long);
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  void (*easy_cleanup)(CURL*);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

template <typename F>
bool Bind(void* lib, const char* name, F* fn, std::string* missing) {
  *fn = reinterpret_cast<F>(dlsym(lib, name));
  if (*fn == nullptr && missing->empty()) *missing = name;
  return *fn != nullptr;
}

absl::StatusOr<CurlApi> LoadCurl() {
  constexpr const char* kNames[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"};
  void* lib = nullptr;
  std::string why;
  for (const char* name : kNames) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) break;
    if (why.empty()) why = dlerror();
  }
  if (lib == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("OpenSandbox needs libcurl (Debian package libcurl4): ", why));
  }
  CurlApi api{};
  std::string missing;
  Bind(lib, "curl_global_init", &api.global_init, &missing);
  Bind(lib, "curl_easy_init", &api.easy_init, &missing);
  Bind(lib, "curl_easy_setopt", &api.easy_setopt, &missing);
  Bind(lib, "curl_easy_perform", &api.easy_perform, &missing);
  Bind(lib, "curl_easy_getinfo", &api.easy_getinfo, &missing);
  Bind(lib, "curl_easy_cleanup", &api.easy_cleanup, &missing);
  Bind(lib, "curl_easy_strerror", &api.easy_strerror, &missing);
  Bind(lib, "curl_slist_append", &api.slist_append, &missing);
  Bind(lib, "curl_slist_free_all", &api.slist_free_all, &missing);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("libcurl lacks ", missing));
  }
  api.global_init(CURL_GLOBAL_DEFAULT);
  return api;  // the library stays loaded for the life of the process
}

// Api loads libcurl once (thread-safe) and returns it, or why it cannot.
const absl::StatusOr<CurlApi>& Api() {
  static const absl::StatusOr<CurlApi> api = LoadCurl();
  return api;
}

struct Transfer {
  const CurlApi* api = nullptr;
  CURL* curl = nullptr;
  const HttpOptions* options = nullptr;
  HttpResponse* response = nullptr;
  bool too_large = false;
  bool sink_failed = false;
  bool cancelled = false;
  bool no_response = false;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  long status = 0;
  t->api->easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
  if (t->options->sink && status >= 200 && status < 300) {
    if (!t->options->sink(std::string_view(data, n))) {
      t->sink_failed = true;
      return 0;
    }
    return n;
  }
  if (t->response->body.size() + n > t->options->max_body_bytes) {
    t->too_large = true;
    return 0;
  }
  t->response->body.append(data, n);
  return n;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  std::string_view line(data, n);
  if (line.substr(0, 5) == "HTTP/") {  // a new response (after 100 Continue)
    t->response->headers.clear();
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string name = absl::AsciiStrToLower(std::string(line.substr(0, colon)));
  std::string value(absl::StripAsciiWhitespace(
      absl::string_view(line.data() + colon + 1, line.size() - colon - 1)));
  if (t->response->headers.size() < 200) t->response->headers.emplace_back(name, value);
  return n;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->options->cancel != nullptr && t->options->cancel->load()) {
    t->cancelled = true;
    return 1;
  }
  if (t->options->response_timeout_ms > 0) {
    long status = 0;
    t->api->easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
    auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - t->start).count();
    if (status == 0 && waited > t->options->response_timeout_ms) {
      t->no_response = true;
      return 1;
    }
  }
  return 0;
}

struct CurlDeleter {
  void operator()(CURL* c) const { Api()->easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { Api()->slist_free_all(l); }
};

bool HasHeaderChars(const std::string& s) {
  for (char c : s) {
    if (c == '\r' || c == '\n' || c == '\0') return true;
  }
  return false;
}

}  // namespace

std::string RedactUrl(const std::string& url) {
  size_t scheme = url.find("://");
  size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  size_t end = url.find_first_of("/?#", start);
  if (end == std::string::npos) end = url.size();
  size_t at = url.rfind('@', end);
  if (at == std::string::npos || at < start) return url;
  return url.substr(0, start) + "[redacted]@" + url.substr(at + 1);
}

absl::StatusOr<HttpResponse> HttpSend(const HttpRequest& request, const HttpOptions& options) {
  const std::string where = absl::StrCat(request.method, " ", RedactUrl(request.url));
  if (request.url.rfind("http://", 0) != 0 && request.url.rfind("https://", 0) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": only http:// and https:// URLs are supported"));
  }
  if (HasHeaderChars(request.url)) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": URL contains a line break"));
  }
  if (!Api().ok()) return Api().status();
  const CurlApi& api = *Api();
  std::unique_ptr<CURL, CurlDeleter> curl(api.easy_init());
  if (!curl) return absl::InternalError(absl::StrCat(where, ": cannot initialise libcurl"));

  HttpResponse response;
  Transfer t{&api, curl.get(), &options, &response};
  char errbuf[CURL_ERROR_SIZE] = {0};
  CURL* c = curl.get();
  api.easy_setopt(c, CURLOPT_URL, request.url.c_str());
  api.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  api.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  // http and https only (CURLOPT_PROTOCOLS_STR since libcurl 7.85).
  if (api.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK) {
    api.easy_setopt(c, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
  }
  api.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  api.easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  api.easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  api.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, options.connect_timeout_ms);
  api.easy_setopt(c, CURLOPT_TIMEOUT_MS, options.total_timeout_ms);
  api.easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
  api.easy_setopt(c, CURLOPT_WRITEDATA, &t);
  api.easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
  api.easy_setopt(c, CURLOPT_HEADERDATA, &t);
  api.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  api.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, OnProgress);
  api.easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  api.easy_setopt(c, CURLOPT_USERAGENT, "cwsc/0.1");

  if (request.method == "POST") {
    api.easy_setopt(c, CURLOPT_POST, 1L);
    api.easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
    api.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else if (request.method == "DELETE") {
    api.easy_setopt(c, CURLOPT_CUSTOMREQUEST, "DELETE");
  } else if (request.method != "GET") {
    return absl::InvalidArgumentError(absl::StrCat(where, ": unsupported method"));
  }

  curl_slist* raw = nullptr;
  for (const auto& [name, value] : request.headers) {
    if (HasHeaderChars(name) || HasHeaderChars(value) || name.find(':') != std::string::npos) {
      api.slist_free_all(raw);
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": header ", name, " contains a line break or NUL"));
    }
    // "Name;" sends a header with an empty value; "Name: " would be dropped.
    std::string line = value.empty() ? name + ";" : name + ": " + value;
    raw = api.slist_append(raw, line.c_str());
  }
  raw = api.slist_append(raw, "Expect:");  // no 100-continue round trip
  std::unique_ptr<curl_slist, SlistDeleter> headers(raw);
  api.easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());

  CURLcode rc = api.easy_perform(c);
  if (rc == CURLE_OK) {
    api.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
    return response;
  }
  std::string detail = errbuf[0] != 0 ? std::string(errbuf) : api.easy_strerror(rc);
  if (t.no_response) {
    return absl::DeadlineExceededError(absl::StrCat(
        where, ": no response within ", options.response_timeout_ms, " ms"));
  }
  if (t.cancelled || rc == CURLE_ABORTED_BY_CALLBACK) {
    return absl::CancelledError(absl::StrCat(where, ": interrupted"));
  }
  if (t.too_large) {
    return absl::ResourceExhaustedError(absl::StrCat(
        where, ": response body larger than ", options.max_body_bytes, " bytes"));
  }
  if (t.sink_failed) {
    std::string why = options.sink_error != nullptr && !options.sink_error->empty()
                          ? *options.sink_error
                          : std::string("response stream rejected");
    return absl::InternalError(absl::StrCat(where, ": ", why));
  }
  switch (rc) {
    case CURLE_OPERATION_TIMEDOUT: {
      curl_off_t connect_us = 0;
      api.easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &connect_us);
      if (connect_us == 0) {
        return absl::DeadlineExceededError(absl::StrCat(
            where, ": no connection within ", options.connect_timeout_ms, " ms"));
      }
      return absl::DeadlineExceededError(absl::StrCat(
          where, ": no complete response within ", options.total_timeout_ms, " ms"));
    }
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return absl::UnavailableError(absl::StrCat(where, ": cannot connect: ", detail));
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
      return absl::UnavailableError(
          absl::StrCat(where, ": connection closed before the response was complete: ", detail));
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
      return absl::UnavailableError(absl::StrCat(where, ": TLS failure: ", detail));
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return absl::InvalidArgumentError(absl::StrCat(where, ": bad URL: ", detail));
    default:
      return absl::UnavailableError(absl::StrCat(where, ": ", detail));
  }
}

}  // namespace cwsc::runtime
