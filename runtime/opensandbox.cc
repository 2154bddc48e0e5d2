#include "runtime/opensandbox.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/opensandbox.h"
#include "compiler/config_toml.h"
#include "runtime/opensandbox_contracts.h"

namespace cwsc::runtime {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxBodyInMessage = 2048;

void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

namespace remote {

Io::Io(const RemoteRun& run) : out(run.out), err(run.err) {
  if (!out) out = [](std::string_view s) { WriteAll(1, s); };
  if (!err) err = [](std::string_view s) { WriteAll(2, s); };
}

bool Interrupted(const RemoteRun& run) { return run.interrupt != nullptr && run.interrupt->load(); }

HttpRequest ToHttp(const RemoteRequest& r) {
  HttpRequest h{r.method, r.url, {}, r.body};
  for (const RemoteHeader& hd : r.headers) h.headers.emplace_back(hd.name, hd.value);
  return h;
}

HttpOptions BaseOptions(const RemoteRun& run, long total_ms) {
  HttpOptions o;
  o.connect_timeout_ms = run.connect_timeout_ms;
  o.total_timeout_ms = total_ms;
  o.max_body_bytes = run.max_body_bytes;
  o.cancel = run.interrupt;
  return o;
}

std::string BodyExcerpt(const std::string& body) {
  // The bytes as the server sent them: a message is escaped where it is shown
  // (ir::Displayable), so an ESC reads `\x1b` there, as every value does.
  std::string out = body.substr(0, kMaxBodyInMessage);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (body.size() > kMaxBodyInMessage) absl::StrAppend(&out, "... (", body.size(), " bytes)");
  return out;
}

bool Is2xx(long status) { return status >= 200 && status < 300; }

}  // namespace remote

using remote::BodyExcerpt;
using remote::Io;
using remote::RunCodewhale;
using remote::RunExecd;
using remote::RunLifecycle;

std::string ExecdErrorText(long status, const std::string& body) {
  Json j = Json::parse(body, nullptr, false);
  if (j.is_object() && j.size() == 1 && j.contains("error") && j["error"].is_string()) {
    return absl::StrCat("HTTP ", status, ": ", BodyExcerpt(j["error"].get<std::string>()));
  }
  if (j.is_object() && j.contains("message") && j["message"].is_string()) {
    std::string code;
    if (j.contains("code") && j["code"].is_string() && !j["code"].get<std::string>().empty()) {
      code = absl::StrCat(" (", BodyExcerpt(j["code"].get<std::string>()), ")");
    }
    return absl::StrCat("HTTP ", status, code, ": ", BodyExcerpt(j["message"].get<std::string>()));
  }
  return absl::StrCat("HTTP ", status, ": ", BodyExcerpt(body));
}

std::string Redact(std::string text, const std::optional<std::string>& secret) {
  if (!secret || secret->empty()) return text;
  size_t pos = 0;
  while ((pos = text.find(*secret, pos)) != std::string::npos) {
    text.replace(pos, secret->size(), "[redacted]");
    pos += 10;
  }
  return text;
}

absl::StatusOr<RemoteOutcome> RunRemote(const RemoteRun& run) {
  if (run.plan == nullptr || !run.plan->remote()) {
    return absl::InvalidArgumentError("the plan is not an OpenSandbox plan");
  }
  if (run.program.empty()) return absl::InvalidArgumentError("no program to run");
  if (absl::Status s = backends::CheckRemoteProgram(run.program); !s.ok()) return s;
  Io io(run);
  const ir::Remote& rm = *run.plan->remote();
  absl::StatusOr<RemoteOutcome> r;
  if (rm.contract == ir::Contract::kCodewhale) {
    r = RunCodewhale(run, io);
  } else if (rm.contract == ir::Contract::kExecd) {
    r = RunExecd(run, io, rm.url, backends::ExecdAuth(run.api_key),
                 rm.api_key.kind == ir::ApiKeySource::Kind::kNone
                     ? std::string("no access token was sent: the plan names no key")
                     : absl::StrCat("the key from ", rm.api_key.Describe(), " was refused"));
  } else {
    r = RunLifecycle(run, io);
  }
  if (!r.ok()) {
    return absl::Status(r.status().code(), Redact(std::string(r.status().message()), run.api_key));
  }
  return r;
}

namespace {

absl::StatusOr<std::optional<std::string>> ReadKeyFromEnv(const ir::ApiKeySource& source) {
  const char* v = std::getenv(source.name.c_str());
  if (v == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the plan takes the OpenSandbox API key from ", source.Describe(), ", which is not set"));
  }
  return std::optional<std::string>(v);
}

// ReadKeyFromFile reads a .cwsp policy's `api_key file "PATH"`.
absl::StatusOr<std::optional<std::string>> ReadKeyFromFile(const std::string& path) {
  std::ifstream key_file(path, std::ios::binary);
  if (!key_file) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read the OpenSandbox API key file ", path));
  }
  std::stringstream ks;
  ks << key_file.rdbuf();
  std::string key = ks.str();
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r' || key.back() == ' ')) {
    key.pop_back();
  }
  if (key.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the OpenSandbox API key file ", path, " is empty"));
  }
  return std::optional<std::string>(key);
}

// ReadKeyFromConfig re-reads the config layer that set sandbox_api_key.
absl::StatusOr<std::optional<std::string>> ReadKeyFromConfig(const ir::Origin& origin) {
  const std::string& file = origin.file;
  std::ifstream in(file, std::ios::binary);
  if (file.empty() || !in) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot re-read the OpenSandbox API key: cannot open ", file));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  compiler::Layer layer = origin.kind == ir::Origin::Kind::kManaged   ? compiler::Layer::kManaged
                          : origin.kind == ir::Origin::Kind::kProject ? compiler::Layer::kProject
                                                                      : compiler::Layer::kUser;
  absl::StatusOr<compiler::ConfigLayer> cfg = compiler::ReadTomlConfig(ss.str(), file, layer);
  if (!cfg.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot re-read the OpenSandbox API key from ", file));
  }
  if (!cfg->spec.sandbox_api_key) {
    return absl::FailedPreconditionError(
        absl::StrCat("the plan takes the OpenSandbox API key from ", file,
                     ", which no longer sets sandbox_api_key"));
  }
  return std::optional<std::string>(cfg->spec.sandbox_api_key->value);
}

}  // namespace

absl::StatusOr<std::optional<std::string>> ReadApiKey(const ir::ApiKeySource& source) {
  using Kind = ir::ApiKeySource::Kind;
  switch (source.kind) {
    case Kind::kNone:
      return std::optional<std::string>();
    case Kind::kEnv:
      return ReadKeyFromEnv(source);
    case Kind::kFile:
      return ReadKeyFromFile(source.name);
    case Kind::kConfig:
      return ReadKeyFromConfig(source.origin);
  }
  return std::optional<std::string>();
}

}  // namespace cwsc::runtime
