// Recorded host facts: answers read from a YAML (or JSON) facts file, the
// format documented in docs/facts.md. Anything the file does not list is
// absent: an unlisted path is missing, an unlisted variable unset, an
// unlisted probe not run.
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <memory_resource>
#include <set>
#include <sstream>

#include "absl/container/node_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "compiler/facts/host_facts.h"
#include "ir/diagnostics.h"

namespace cwsc::compiler {
namespace {

// BadFacts is thrown inside the parser and turned into a located error.
struct BadFacts {
  YAML::Mark mark;
  std::string message;
};

[[noreturn]] void Fail(const YAML::Node& n, const std::string& message) {
  throw BadFacts{n.Mark(), message};
}

void ExpectMap(const YAML::Node& n, const std::string& what) {
  if (!n.IsMap()) Fail(n, absl::StrCat(what, " must be a mapping"));
}

std::string Str(const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar()) Fail(n, absl::StrCat(what, " must be a string"));
  return n.Scalar();
}

uint32_t Uint(const YAML::Node& n, const std::string& what, int base = 10) {
  if (!n.IsScalar()) Fail(n, absl::StrCat(what, " must be a number"));
  const std::string& s = n.Scalar();
  uint64_t v = 0;
  bool ok = false;
  if (base == 8) {
    ok = !s.empty() && s.size() <= 6 && s.find_first_not_of("01234567") == std::string::npos;
    if (ok) v = std::stoull(s, nullptr, 8);
  } else {
    ok = absl::SimpleAtoi(s, &v) && v <= 0xffffffffu;
  }
  if (!ok)
    Fail(n, absl::StrCat(what, " must be ",
                         base == 8 ? "an octal mode like \"0755\"" : "a non-negative integer"));
  return static_cast<uint32_t>(v);
}

bool Bool(const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar() || (n.Scalar() != "true" && n.Scalar() != "false")) {
    Fail(n, absl::StrCat(what, " must be true or false"));
  }
  return n.Scalar() == "true";
}

void CheckKeys(const YAML::Node& n, std::initializer_list<const char*> allowed,
               const std::string& what) {
  for (const auto& kv : n) {
    std::string key = Str(kv.first, "a key");
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) Fail(kv.first, absl::StrCat("unknown key '", key, "' in ", what));
  }
}

ProbeResult ReadProbe(const YAML::Node& n, const std::string& what) {
  ExpectMap(n, what);
  CheckKeys(n, {"ran", "ok", "exit_code", "message"}, what);
  ProbeResult r;
  if (n["ran"]) r.ran = Bool(n["ran"], what + ".ran");
  if (n["ok"]) r.ok = Bool(n["ok"], what + ".ok");
  if (n["exit_code"]) {
    if (!n["exit_code"].IsScalar()) Fail(n["exit_code"], what + ".exit_code must be an integer");
    int v = 0;
    if (!absl::SimpleAtoi(n["exit_code"].Scalar(), &v)) {
      Fail(n["exit_code"], what + ".exit_code must be an integer");
    }
    r.exit_code = v;
  }
  if (n["message"]) r.message = Str(n["message"], what + ".message");
  if (r.ok && !r.ran) Fail(n, what + " cannot be ok without having run");
  return r;
}

// RecordedLauncher is the `launcher_probe` record: `uid`/`gids` are present
// when the user query succeeded; `ok` is the verdict of the whole probe.
struct RecordedLauncher {
  bool present = false;
  bool ran = false;
  bool ok = false;
  std::optional<uint32_t> uid;
  std::vector<uint32_t> gids;
  std::string message;
};

class RecordedFacts : public HostFacts {
 public:
  std::string platform = "linux";
  UserInfo user;
  std::string cwd = "/";
  std::map<std::string, std::optional<std::string>> env;
  std::map<std::string, bool> secrets;
  // The paths the file lists, and each unlisted path asked since (missing),
  // which gets its answer here too: one per path and per facts object, so
  // an answer names one path (PathInfo::record keeps its record) and two
  // facts objects share none. Nodes: an answer stays where it is while
  // more are added. Answers and their paths' texts are kept in blocks of
  // their own (`answers`), not one allocation each: they live as long as
  // the facts, and an unlisted one is made during a compile, among its
  // short-lived allocations, where one by one they would scatter every
  // later compile's allocations (ir/consulted.h, ConsultedArena). Never
  // erased: an answer is not given back before the facts are.
  std::pmr::monotonic_buffer_resource answers;
  struct PathHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return absl::Hash<absl::string_view>()(absl::string_view(s.data(), s.size()));
    }
  };
  struct PathEq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  absl::node_hash_map<std::pmr::string, PathInfo, PathHash, PathEq,
                      std::pmr::polymorphic_allocator<std::pair<const std::pmr::string, PathInfo>>>
      paths{0, PathHash(), PathEq(), &answers};  // found by string_view
  std::map<std::string, std::string> files;
  ProbeResult bwrap, seatbelt;
  std::optional<std::string> darwin_cache;
  int landlock_abi = 0;
  RecordedLauncher launcher;
  bool unlisted_is_error = false;  // `unlisted: error` (files written by `cwsc facts`)
  std::set<std::string> unlisted;

  std::string Platform() override { return platform; }
  LauncherUser LauncherUserOf(const std::vector<std::string>&) override {
    LauncherUser u;
    if (!launcher.present) {
      u.message = "the facts file has no launcher_probe";
      return u;
    }
    u.ran = launcher.ran;
    u.ok = launcher.uid.has_value();
    if (u.ok) {
      u.uid = *launcher.uid;
      u.gids = launcher.gids;
    } else {
      u.message = launcher.message;
    }
    return u;
  }
  ProbeResult LauncherProbe(const std::vector<std::string>&,
                            const std::vector<std::string>&) override {
    ProbeResult r;
    r.ran = launcher.present && launcher.ran && launcher.uid.has_value();
    r.ok = r.ran && launcher.ok;
    r.exit_code = r.ok ? 0 : -1;
    r.message = r.ok ? "" : launcher.message;
    if (!launcher.present) r.message = "the facts file has no launcher_probe";
    return r;
  }
  UserInfo User() override { return user; }
  std::string Cwd() override { return cwd; }
  std::optional<std::string> Env(absl::string_view name) override {
    auto it = env.find(std::string(name));
    return it == env.end() ? std::nullopt : it->second;
  }
  bool EnvIsSet(absl::string_view name) override {
    auto it = secrets.find(std::string(name));
    return it != secrets.end() && it->second;
  }
  const PathInfo& Path(absl::string_view path) override {
    auto [it, unlisted_now] = paths.try_emplace(std::string_view(path.data(), path.size()));
    if (unlisted_now && unlisted_is_error) unlisted.insert(std::string(path));
    return it->second;
  }
  std::vector<std::string> UnlistedPaths() const override {
    return std::vector<std::string>(unlisted.begin(), unlisted.end());
  }
  std::optional<std::string> ReadFile(absl::string_view path) override {
    auto it = files.find(std::string(path));
    if (it == files.end()) return std::nullopt;
    return it->second;
  }
  ProbeResult BwrapProbe() override { return bwrap; }
  int LandlockAbi() override { return landlock_abi; }
  ProbeResult SeatbeltProbe() override { return seatbelt; }
  std::optional<std::string> DarwinUserCacheDir() override { return darwin_cache; }
};

std::unique_ptr<RecordedFacts> ReadFacts(const YAML::Node& root) {
  auto f = std::make_unique<RecordedFacts>();
  ExpectMap(root, "the facts file");
  CheckKeys(
      root,
      {"cwsc_facts", "unlisted", "platform", "user", "cwd", "env", "secrets_set", "paths", "files",
       "bwrap_probe", "seatbelt_probe", "darwin_user_cache_dir", "launcher_probe", "landlock_abi"},
      "the facts file");
  if (!root["cwsc_facts"]) Fail(root, "missing 'cwsc_facts: 1' (format version)");
  if (Uint(root["cwsc_facts"], "cwsc_facts") != 1) {
    Fail(root["cwsc_facts"], "unsupported facts format version (this cwsc reads 1)");
  }
  if (root["unlisted"]) {
    std::string u = Str(root["unlisted"], "unlisted");
    if (u != "missing" && u != "error") Fail(root["unlisted"], "unlisted must be missing or error");
    f->unlisted_is_error = u == "error";
  }
  if (root["platform"]) {
    f->platform = Str(root["platform"], "platform");
    if (f->platform != "linux" && f->platform != "macos" && f->platform != "windows") {
      Fail(root["platform"], "platform must be linux, macos or windows");
    }
  }
  if (const YAML::Node u = root["user"]) {
    ExpectMap(u, "user");
    CheckKeys(u, {"uid", "gid", "groups", "name", "home"}, "user");
    if (u["uid"]) f->user.uid = Uint(u["uid"], "user.uid");
    if (u["gid"]) f->user.gid = Uint(u["gid"], "user.gid");
    if (u["groups"]) {
      if (!u["groups"].IsSequence()) Fail(u["groups"], "user.groups must be a list");
      for (const auto& g : u["groups"]) f->user.groups.push_back(Uint(g, "a group id"));
    }
    if (u["name"]) f->user.name = Str(u["name"], "user.name");
    if (u["home"]) f->user.home = Str(u["home"], "user.home");
  }
  if (root["cwd"]) f->cwd = Str(root["cwd"], "cwd");
  if (const YAML::Node e = root["env"]) {
    ExpectMap(e, "env");
    for (const auto& kv : e) {
      std::string name = Str(kv.first, "a variable name");
      if (kv.second.IsNull()) {
        f->env[name] = std::nullopt;
      } else {
        f->env[name] = Str(kv.second, "env." + name);
      }
    }
  }
  if (const YAML::Node s = root["secrets_set"]) {
    ExpectMap(s, "secrets_set");
    for (const auto& kv : s) {
      f->secrets[Str(kv.first, "a variable name")] = Bool(kv.second, "secrets_set value");
    }
  }
  if (const YAML::Node ps = root["paths"]) {
    ExpectMap(ps, "paths");
    for (const auto& kv : ps) {
      std::string path = Str(kv.first, "a path");
      if (path.empty() || path[0] != '/') Fail(kv.first, "paths keys must be absolute paths");
      const YAML::Node& n = kv.second;
      ExpectMap(n, "paths entry");
      CheckKeys(n, {"type", "symlink", "target", "canonical", "mode", "uid", "gid"},
                "a paths entry");
      PathInfo info;
      if (!n["type"]) Fail(n, "paths entry needs a 'type'");
      std::optional<FileType> t = ParseFileType(Str(n["type"], "type"));
      if (!t) {
        Fail(n["type"],
             "type must be missing, file, directory, char-device, block-device or other");
      }
      info.type = *t;
      if (n["symlink"]) info.is_symlink = Bool(n["symlink"], "symlink");
      if (n["target"]) {
        // What the link says (readlink): the walk that looks for planted
        // symlinks follows it (ResolvePath).
        info.target = Str(n["target"], "target");
        if (!info.is_symlink) Fail(n["target"], "only a symlink has a target");
        if (info.target.empty()) Fail(n["target"], "a symlink's target cannot be empty");
      }
      if (n["canonical"]) {
        info.canonical = Str(n["canonical"], "canonical");
        // realpath(3) answers absolute paths; a relative one would reach the
        // plan as a relative bind source or destination.
        if (!info.canonical.empty() && info.canonical[0] != '/') {
          Fail(n["canonical"], "canonical must be an absolute path");
        }
      }
      if (n["mode"]) info.mode = Uint(n["mode"], "mode", 8);
      if (n["uid"]) info.uid = Uint(n["uid"], "uid");
      if (n["gid"]) info.gid = Uint(n["gid"], "gid");
      if (info.type == FileType::kMissing && !info.canonical.empty()) {
        Fail(n, "a missing path cannot have a canonical form");
      }
      f->paths.insert_or_assign(std::string_view(path), info);
    }
  }
  if (const YAML::Node fs = root["files"]) {
    ExpectMap(fs, "files");
    for (const auto& kv : fs) f->files[Str(kv.first, "a path")] = Str(kv.second, "file content");
  }
  if (root["bwrap_probe"]) f->bwrap = ReadProbe(root["bwrap_probe"], "bwrap_probe");
  if (root["seatbelt_probe"]) f->seatbelt = ReadProbe(root["seatbelt_probe"], "seatbelt_probe");
  if (root["landlock_abi"]) {
    uint32_t abi = Uint(root["landlock_abi"], "landlock_abi");
    if (abi > 1000) Fail(root["landlock_abi"], "landlock_abi must be a Landlock ABI version");
    f->landlock_abi = static_cast<int>(abi);
  }
  if (const YAML::Node l = root["launcher_probe"]) {
    ExpectMap(l, "launcher_probe");
    CheckKeys(l, {"ran", "ok", "uid", "gids", "message"}, "launcher_probe");
    RecordedLauncher& rl = f->launcher;
    rl.present = true;
    if (l["ran"]) rl.ran = Bool(l["ran"], "launcher_probe.ran");
    if (l["ok"]) rl.ok = Bool(l["ok"], "launcher_probe.ok");
    if (l["uid"]) rl.uid = Uint(l["uid"], "launcher_probe.uid");
    if (l["gids"]) {
      if (!l["gids"].IsSequence()) Fail(l["gids"], "launcher_probe.gids must be a list");
      for (const auto& g : l["gids"]) rl.gids.push_back(Uint(g, "a group id"));
    }
    if (l["message"]) rl.message = Str(l["message"], "launcher_probe.message");
    if (rl.ok && !rl.ran) Fail(l, "launcher_probe cannot be ok without having run");
    if (rl.ok && !rl.uid) Fail(l, "launcher_probe cannot be ok without a uid");
  }
  if (root["darwin_user_cache_dir"] && !root["darwin_user_cache_dir"].IsNull()) {
    f->darwin_cache = Str(root["darwin_user_cache_dir"], "darwin_user_cache_dir");
  }
  return f;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HostFacts>> ParseRecordedFacts(const std::string& text,
                                                              const std::string& name) {
  try {
    YAML::Node root = YAML::Load(text);
    return std::unique_ptr<HostFacts>(ReadFacts(root));
  } catch (const BadFacts& bad) {
    int line = bad.mark.line + 1, col = bad.mark.column + 1;
    return ir::ErrorAt(name, line, col, bad.message, ir::SourceLineAt(text, line));
  } catch (const YAML::Exception& e) {
    int line = e.mark.line + 1, col = e.mark.column + 1;
    return ir::ErrorAt(name, line, col, absl::StrCat("malformed facts file: ", e.msg),
                       ir::SourceLineAt(text, line));
  }
}

absl::StatusOr<std::unique_ptr<HostFacts>> LoadRecordedFacts(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return ir::ErrorAt(file, 0, 0,
                       absl::StrCat("cannot read the facts file: ", std::strerror(errno)));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseRecordedFacts(ss.str(), file);
}

}  // namespace cwsc::compiler
