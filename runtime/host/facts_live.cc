// Live host facts: real syscalls and the real wrapper probes, memoized so a
// compile asks the kernel each question once.
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/facts/host_facts.h"
#include "compiler/file_text.h"
#include "ir/constants.h"
#include "runtime/host/launcher_probe.h"
#include "runtime/host/live_facts.h"
#include "runtime/host/spawn.h"

namespace cwsc::runtime {
namespace {

using compiler::BwrapProbeArgv;
using compiler::FileText;
using compiler::FileType;
using compiler::HostFacts;
using compiler::LauncherUser;
using compiler::PathInfo;
using compiler::ProbeResult;
using compiler::ReadFileText;
using compiler::UserInfo;

constexpr size_t kMaxSmallFile = 64 * 1024;

// RunProbe runs a wrapped /bin/true (RunCaptured: cleared environment, null
// stdin, cwd "/", 10 s deadline) and keeps the wrapper's own message.
ProbeResult RunProbe(const std::vector<std::string>& argv) {
  ProbeResult r;
  Captured c = RunCaptured(argv);
  r.ran = c.started;
  if (!c.started) {
    r.message = c.spawn_error;
    return r;
  }
  if (c.timed_out) {
    r.message = "probe timed out after 10 s";
    return r;
  }
  r.exit_code = c.exit_code;
  r.ok = c.exit_code == 0;
  if (!r.ok) {
    std::string first = c.err.substr(0, c.err.find('\n'));
    if (first.empty()) first = c.spawn_error;
    r.message = first.empty() ? absl::StrCat("exit status ", r.exit_code) : first;
  }
  return r;
}

// KeyArena keeps copies of path strings, each followed by a NUL, in large
// blocks that are never moved or freed before the arena: a view of a copy
// stays valid, and a copy costs an allocation only when a block fills.
class KeyArena {
 public:
  absl::string_view Copy(absl::string_view s) {
    size_t need = s.size() + 1;
    if (need > left_) {
      size_t size = std::max(kBlock, need);
      blocks_.push_back(std::make_unique<char[]>(size));
      next_ = blocks_.back().get();
      left_ = size;
    }
    char* out = next_;
    if (!s.empty()) std::memcpy(out, s.data(), s.size());
    out[s.size()] = '\0';
    next_ += need;
    left_ -= need;
    return absl::string_view(out, s.size());
  }

 private:
  static constexpr size_t kBlock = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  size_t left_ = 0;
};

class LiveFacts : public HostFacts {
 public:
  std::string Platform() override {
#if defined(__APPLE__)
    return "macos";
#elif defined(_WIN32)
    return "windows";
#else
    return "linux";
#endif
  }

  uint32_t Uid() override { return getuid(); }

  UserInfo User() override {
    if (user_) return *user_;
    UserInfo u;
    u.uid = getuid();
    u.gid = getgid();
    int n = getgroups(0, nullptr);
    if (n > 0) {
      std::vector<gid_t> g(static_cast<size_t>(n));
      n = getgroups(n, g.data());
      for (int i = 0; i < n; ++i) u.groups.push_back(g[static_cast<size_t>(i)]);
    }
    std::sort(u.groups.begin(), u.groups.end());
    u.groups.erase(std::unique(u.groups.begin(), u.groups.end()), u.groups.end());
    passwd pw;
    passwd* res = nullptr;
    std::vector<char> buf(16384);
    if (getpwuid_r(u.uid, &pw, buf.data(), buf.size(), &res) == 0 && res != nullptr) {
      u.name = pw.pw_name;
      u.home = pw.pw_dir;
    }
    user_ = u;
    return u;
  }

  // Cwd is "" when the working directory cannot be named (it was removed,
  // or lies outside this process's root): the compile says so rather than
  // guessing "/" (issue 25). getcwd(nullptr, 0) also names paths longer
  // than PATH_MAX.
  std::string Cwd() override {
    char* cwd = getcwd(nullptr, 0);
    if (cwd == nullptr) return "";
    std::string out = cwd[0] == '/' ? cwd : "";  // "(unreachable)/x" from older kernels
    free(cwd);
    return out;
  }

  std::optional<std::string> Env(absl::string_view name) override {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  }

  bool EnvIsSet(absl::string_view name) override {
    return std::getenv(std::string(name).c_str()) != nullptr;
  }

  void ExpectPaths(size_t n) override { index_.reserve(index_.size() + n); }

  const PathInfo& Path(absl::string_view path) override {
    // One hash finds the answer or makes room for it. The key is copied
    // into the arena and the answer placed in a deque, so neither moves
    // while Canonical asks about the parent (which may grow the index).
    PathInfo* info = nullptr;
    absl::string_view key;
    auto it = index_.lazy_emplace(path, [&](const auto& ctor) {
      key = keys_.Copy(path);
      info = &answers_.emplace_back();
      ctor(key, info);
    });
    if (info == nullptr) return *it->second;
    // A NUL byte ends a C path early: such a path names nothing.
    if (key.find('\0') != absl::string_view::npos) return *info;
    // lstat first: when it fails, stat would fail the same way (a missing
    // last component has nothing to follow), and when the path is no
    // symlink its result is stat's; only a symlink needs the second call.
    // The arena ends every key with a NUL, so it is a C string as it is.
    const char* c_path = key.data();
    struct stat st;
    bool exists = lstat(c_path, &st) == 0;
    if (exists && S_ISLNK(st.st_mode)) {
      // The target is read with the rest of the answer: the canonical form
      // is resolved through it (ResolvePath), never through a second look
      // at the host that may see another link.
      info->is_symlink = true;
      char buf[PATH_MAX];
      ssize_t n = readlink(c_path, buf, sizeof buf);
      if (n > 0 && static_cast<size_t>(n) < sizeof buf) info->target.assign(buf, n);
      exists = stat(c_path, &st) == 0;
    }
    if (exists) {
      if (S_ISREG(st.st_mode)) {
        info->type = FileType::kRegular;
      } else if (S_ISDIR(st.st_mode)) {
        info->type = FileType::kDirectory;
      } else if (S_ISCHR(st.st_mode)) {
        info->type = FileType::kCharDevice;
      } else if (S_ISBLK(st.st_mode)) {
        info->type = FileType::kBlockDevice;
      } else {
        info->type = FileType::kOther;
      }
      info->mode = st.st_mode & 07777;
      info->uid = st.st_uid;
      info->gid = st.st_gid;
      info->canonical = Canonical(key, info->is_symlink);
    }
    return *info;
  }

  // Canonical is realpath(3) of an existing path, answered from this memo
  // (compiler::ResolvePath): each component's answer is the one Path gives
  // for it, and a symlink leads where the target read with its answer
  // says. A path resolved once and walked again later in the same compile
  // (PlantedSymlink in compiler/resolve_symlinks.cc) therefore meets the same
  // symlinks, even while a command swaps a directory for one. For an
  // absolute path spelled plainly (no "//", ".", ".." or trailing slash)
  // whose last component is no symlink, that is the parent's canonical path
  // plus the name, sized once: ten thousand roots in one directory cost one
  // lstat each.
  std::string Canonical(absl::string_view key, bool is_symlink) {
    size_t slash = key.rfind('/');
    if (!is_symlink && PlainAbsolute(key) && slash != std::string::npos) {
      absl::string_view parent =
          slash == 0 ? absl::string_view("/") : absl::string_view(key).substr(0, slash);
      const PathInfo& up = Path(parent);
      if (up.type != FileType::kDirectory || up.canonical.empty()) return "";
      // up.canonical (none for "/") + "/name", sized once.
      absl::string_view head = up.canonical == "/" ? absl::string_view() : up.canonical;
      absl::string_view tail = absl::string_view(key).substr(slash);
      std::string out;
      out.reserve(head.size() + tail.size());
      out.append(head.data(), head.size());
      out.append(tail.data(), tail.size());
      return out;
    }
    if (key.empty() || key[0] != '/') return "";  // HostFacts::Path takes absolute paths
    // A link's answer resolves its target, which may ask about further
    // links: one nesting per link, at most as many as the kernel follows.
    if (resolving_ >= compiler::kMaxSymlinks) return "";
    ++resolving_;
    std::string out = compiler::ResolvePath(*this, key);
    --resolving_;
    return out;
  }

  // PlainAbsolute: absolute, not "/", and no empty, "." or ".." component
  // nor a trailing slash; memchr finds the separators.
  static bool PlainAbsolute(absl::string_view p) {
    if (p.size() < 2 || p[0] != '/' || p.back() == '/') return false;
    const char* end = p.data() + p.size();
    for (const char* s = p.data(); s != nullptr;
         s = static_cast<const char*>(std::memchr(s + 1, '/', static_cast<size_t>(end - s - 1)))) {
      // s is a '/' that is not the last byte: a component follows.
      if (s[1] == '/') return false;
      if (s[1] != '.') continue;
      if (s + 2 == end || s[2] == '/') return false;
      if (s[2] == '.' && (s + 3 == end || s[3] == '/')) return false;
    }
    return true;
  }

  std::optional<std::string> ReadFile(absl::string_view path) override {
    std::string key(path);
    auto it = files_.find(key);
    if (it != files_.end()) return it->second;
    std::optional<std::string> out;
    FileText t = ReadFileText(key, {.limit = kMaxSmallFile, .regular_only = true});
    if (t.ok()) out = std::move(t.data);
    files_.emplace(key, out);
    return out;
  }

  ProbeResult BwrapProbe() override {
    if (bwrap_) return *bwrap_;
    ProbeResult r;
    PathInfo info = Path(ir::kBwrapPath);
    if (info.type == FileType::kRegular && (info.mode & 0111) != 0) {
      r = RunProbe(BwrapProbeArgv());
    } else {
      r.message = info.type == FileType::kMissing
                      ? absl::StrCat(ir::kBwrapPath, " is missing")
                      : absl::StrCat(ir::kBwrapPath, " is not a regular executable file");
    }
    bwrap_ = r;
    return r;
  }

  int LandlockAbi() override {
    if (!landlock_abi_) {
      long v = syscall(SYS_landlock_create_ruleset, nullptr, 0, 1u /* ..._VERSION */);
      landlock_abi_ = v < 0 ? 0 : static_cast<int>(v);
    }
    return *landlock_abi_;
  }

  ProbeResult SeatbeltProbe() override {
    ProbeResult r;
#if defined(__APPLE__)
    r = RunProbe(
        {ir::kSandboxExecPath, "-p", "(version 1)(allow default)", "--", ir::kMacTruePath});
#else
    r.message = "sandbox-exec exists only on macOS";
#endif
    return r;
  }

  std::optional<std::string> DarwinUserCacheDir() override {
#if defined(__APPLE__)
    char buf[PATH_MAX];
    size_t n = confstr(_CS_DARWIN_USER_CACHE_DIR, buf, sizeof buf);
    if (n > 0 && n <= sizeof buf) return std::string(buf);
#endif
    return std::nullopt;
  }

  // The launcher probe itself lives in runtime/host/launcher_live.cc.
  LauncherUser LauncherUserOf(const std::vector<std::string>& launcher) override {
    auto it = launcher_users_.find(launcher);
    if (it != launcher_users_.end()) return it->second;
    return launcher_users_[launcher] = RunLauncherUserProbe(launcher);
  }

  ProbeResult LauncherProbe(const std::vector<std::string>& launcher,
                            const std::vector<std::string>& bwrap_argv) override {
    std::vector<std::string> key = launcher;
    key.insert(key.end(), bwrap_argv.begin(), bwrap_argv.end());
    auto it = launcher_probes_.find(key);
    if (it != launcher_probes_.end()) return it->second;
    return launcher_probes_[key] = RunLauncherBwrapProbe(launcher, bwrap_argv);
  }

 private:
  std::map<std::vector<std::string>, LauncherUser> launcher_users_;
  std::map<std::vector<std::string>, ProbeResult> launcher_probes_;
  std::optional<UserInfo> user_;
  // The memo of Path: keys in an arena, answers in a deque (neither moves
  // while later answers are added), found through one flat index. A large
  // policy asks about tens of thousands of paths; a node per answer and a
  // heap string per key cost more than the questions' bookkeeping should.
  KeyArena keys_;
  std::deque<PathInfo> answers_;
  absl::flat_hash_map<absl::string_view, PathInfo*> index_;
  std::map<std::string, std::optional<std::string>> files_;
  std::optional<ProbeResult> bwrap_;
  std::optional<int> landlock_abi_;
  int resolving_ = 0;  // Canonical's nesting through links
};

}  // namespace

std::unique_ptr<HostFacts> MakeLiveFacts() { return std::make_unique<LiveFacts>(); }

}  // namespace cwsc::runtime
