// FactsRecorder: passes every question on and writes out exactly the facts a
// compile consulted, in the format compiler/facts/facts_recorded.cc reads back.
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>

#include "absl/strings/str_format.h"
#include "compiler/facts/config_secrets.h"
#include "compiler/facts/host_facts.h"

namespace cwsc::compiler {

struct FactsRecorder::Record {
  bool platform = false, user = false, cwd = false;
  std::string platform_v, cwd_v;
  UserInfo user_v;
  std::map<std::string, std::optional<std::string>> env;
  std::map<std::string, bool> secrets;
  std::map<std::string, PathInfo> paths;
  std::map<std::string, std::optional<std::string>> files;
  std::optional<ProbeResult> bwrap, seatbelt;
  std::optional<int> landlock;
  bool darwin = false;
  std::optional<std::string> darwin_v;
  std::optional<LauncherUser> launcher_user;
  std::optional<ProbeResult> launcher_probe;
};

FactsRecorder::FactsRecorder(HostFacts* inner) : inner_(inner), rec_(std::make_unique<Record>()) {}
FactsRecorder::~FactsRecorder() = default;

std::string FactsRecorder::Platform() {
  rec_->platform = true;
  return rec_->platform_v = inner_->Platform();
}
UserInfo FactsRecorder::User() {
  rec_->user = true;
  return rec_->user_v = inner_->User();
}
std::string FactsRecorder::Cwd() {
  rec_->cwd = true;
  return rec_->cwd_v = inner_->Cwd();
}
std::optional<std::string> FactsRecorder::Env(absl::string_view name) {
  auto v = inner_->Env(name);
  rec_->env[std::string(name)] = v;
  return v;
}
bool FactsRecorder::EnvIsSet(absl::string_view name) {
  bool v = inner_->EnvIsSet(name);
  rec_->secrets[std::string(name)] = v;
  return v;
}
const PathInfo& FactsRecorder::Path(absl::string_view path) {
  const PathInfo& v = inner_->Path(path);
  rec_->paths[std::string(path)] = v;
  return v;
}
std::optional<std::string> FactsRecorder::ReadFile(absl::string_view path) {
  auto v = inner_->ReadFile(path);
  // A config file may hold the OpenSandbox API key: the facts file keeps
  // only that it is set (compiler/facts/config_secrets.h); the compile sees it all.
  rec_->files[std::string(path)] = v ? std::optional<std::string>(RedactSecrets(*v)) : std::nullopt;
  return v;
}
ProbeResult FactsRecorder::BwrapProbe() { return *(rec_->bwrap = inner_->BwrapProbe()); }
int FactsRecorder::LandlockAbi() { return *(rec_->landlock = inner_->LandlockAbi()); }
ProbeResult FactsRecorder::SeatbeltProbe() { return *(rec_->seatbelt = inner_->SeatbeltProbe()); }
std::optional<std::string> FactsRecorder::DarwinUserCacheDir() {
  rec_->darwin = true;
  return rec_->darwin_v = inner_->DarwinUserCacheDir();
}

LauncherUser FactsRecorder::LauncherUserOf(const std::vector<std::string>& launcher) {
  return *(rec_->launcher_user = inner_->LauncherUserOf(launcher));
}
ProbeResult FactsRecorder::LauncherProbe(const std::vector<std::string>& launcher,
                                         const std::vector<std::string>& bwrap_argv) {
  return *(rec_->launcher_probe = inner_->LauncherProbe(launcher, bwrap_argv));
}

namespace {

bool ValidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    }
    i += n;
  }
  return true;
}

void EmitProbe(YAML::Emitter& out, const ProbeResult& p) {
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "ran" << YAML::Value << p.ran << YAML::Key
      << "ok" << YAML::Value << p.ok << YAML::Key << "exit_code" << YAML::Value << p.exit_code
      << YAML::Key << "message" << YAML::Value << YAML::DoubleQuoted << p.message << YAML::EndMap;
}

}  // namespace

absl::StatusOr<std::string> FactsRecorder::WriteYaml() const {
  const Record& r = *rec_;
  // Every string must be UTF-8: YAML cannot carry arbitrary bytes.
  std::vector<const std::string*> strings = {&r.platform_v, &r.cwd_v, &r.user_v.name,
                                             &r.user_v.home};
  for (const auto& [k, v] : r.env) {
    strings.push_back(&k);
    if (v) strings.push_back(&*v);
  }
  for (const auto& [k, v] : r.paths) {
    strings.push_back(&k);
    strings.push_back(&v.canonical);
    strings.push_back(&v.target);
  }
  for (const auto& [k, v] : r.files) {
    strings.push_back(&k);
    if (v) strings.push_back(&*v);
  }
  for (const std::string* s : strings) {
    if (!ValidUtf8(*s)) {
      return absl::InvalidArgumentError(
          "a consulted path or value is not valid UTF-8; it cannot be recorded in a facts file");
    }
  }
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "cwsc_facts" << YAML::Value << 1;
  // A compile that asks about a path this file does not record is an error
  // (the policy changed since): docs/facts.md.
  if (unlisted_is_error_) out << YAML::Key << "unlisted" << YAML::Value << "error";
  if (r.platform) out << YAML::Key << "platform" << YAML::Value << r.platform_v;
  if (r.user) {
    out << YAML::Key << "user" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "uid"
        << YAML::Value << r.user_v.uid << YAML::Key << "gid" << YAML::Value << r.user_v.gid
        << YAML::Key << "groups" << YAML::Value << YAML::Flow << r.user_v.groups << YAML::Key
        << "name" << YAML::Value << YAML::DoubleQuoted << r.user_v.name << YAML::Key << "home"
        << YAML::Value << YAML::DoubleQuoted << r.user_v.home << YAML::EndMap;
  }
  if (r.cwd) out << YAML::Key << "cwd" << YAML::Value << YAML::DoubleQuoted << r.cwd_v;
  if (!r.env.empty()) {
    out << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
    for (const auto& [k, v] : r.env) {
      out << YAML::Key << k << YAML::Value;
      if (v) {
        out << YAML::DoubleQuoted << *v;
      } else {
        out << YAML::Null;
      }
    }
    out << YAML::EndMap;
  }
  if (!r.secrets.empty()) {
    out << YAML::Key << "secrets_set" << YAML::Value << YAML::BeginMap;
    for (const auto& [k, v] : r.secrets) out << YAML::Key << k << YAML::Value << v;
    out << YAML::EndMap;
  }
  if (!r.paths.empty()) {
    out << YAML::Key << "paths" << YAML::Value << YAML::BeginMap;
    for (const auto& [k, v] : r.paths) {
      out << YAML::Key << YAML::DoubleQuoted << k << YAML::Value << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "type" << YAML::Value << FileTypeName(v.type);
      if (v.is_symlink) out << YAML::Key << "symlink" << YAML::Value << true;
      if (!v.target.empty()) {
        out << YAML::Key << "target" << YAML::Value << YAML::DoubleQuoted << v.target;
      }
      if (v.type != FileType::kMissing) {
        out << YAML::Key << "canonical" << YAML::Value << YAML::DoubleQuoted << v.canonical
            << YAML::Key << "mode" << YAML::Value << YAML::DoubleQuoted
            << absl::StrFormat("%04o", v.mode) << YAML::Key << "uid" << YAML::Value << v.uid
            << YAML::Key << "gid" << YAML::Value << v.gid;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  bool any_file = false;
  for (const auto& [k, v] : r.files) any_file = any_file || v.has_value();
  if (any_file) {
    out << YAML::Key << "files" << YAML::Value << YAML::BeginMap;
    for (const auto& [k, v] : r.files) {
      if (v) out << YAML::Key << YAML::DoubleQuoted << k << YAML::Value << YAML::DoubleQuoted << *v;
    }
    out << YAML::EndMap;
  }
  if (r.bwrap) {
    out << YAML::Key << "bwrap_probe" << YAML::Value;
    EmitProbe(out, *r.bwrap);
  }
  if (r.landlock) out << YAML::Key << "landlock_abi" << YAML::Value << *r.landlock;
  if (r.seatbelt) {
    out << YAML::Key << "seatbelt_probe" << YAML::Value;
    EmitProbe(out, *r.seatbelt);
  }
  if (r.launcher_user || r.launcher_probe) {
    // One record for both questions (docs/facts.md): uid/gids when the user
    // query succeeded, `ok` for the whole probe, the first failure's message.
    const LauncherUser* u = r.launcher_user ? &*r.launcher_user : nullptr;
    const ProbeResult* p = r.launcher_probe ? &*r.launcher_probe : nullptr;
    bool user_ok = u != nullptr && u->ok;
    std::string message = u != nullptr && !u->ok ? u->message : p != nullptr ? p->message : "";
    out << YAML::Key << "launcher_probe" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
        << "ran" << YAML::Value << (u != nullptr ? u->ran : p->ran) << YAML::Key << "ok"
        << YAML::Value << (user_ok && p != nullptr && p->ok);
    if (user_ok) {
      out << YAML::Key << "uid" << YAML::Value << u->uid << YAML::Key << "gids" << YAML::Value
          << YAML::Flow << u->gids;
    }
    out << YAML::Key << "message" << YAML::Value << YAML::DoubleQuoted << message << YAML::EndMap;
  }
  if (r.darwin && r.darwin_v) {
    out << YAML::Key << "darwin_user_cache_dir" << YAML::Value << YAML::DoubleQuoted << *r.darwin_v;
  }
  out << YAML::EndMap;
  if (!out.good()) return absl::InternalError(out.GetLastError());
  return std::string("# cwsc host facts (docs/facts.md)\n") + out.c_str() + "\n";
}

}  // namespace cwsc::compiler
