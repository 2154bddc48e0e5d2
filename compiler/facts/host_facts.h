// HostFacts is the one door through which the compiler asks about the host:
// platform, user, environment, working directory, paths (type, canonical
// form, mode, owner, small file contents) and the wrapper probes. Compiling
// is a pure function of (config layers, mode, HostFacts), so the same facts
// always give byte-identical output.
//
// Implementations:
//   runtime::MakeLiveFacts()  real syscalls and probes, memoized (runtime/host/)
//   LoadRecordedFacts(file)   a YAML/JSON facts file (docs/facts.md)
//   FactsRecorder             decorator that records every answer it passes on
//
//   auto facts = runtime::MakeLiveFacts();
//   PathInfo p = facts->Path("/home/me/proj");   // p.type == FileType::kDirectory
#ifndef CWSC_COMPILER_FACTS_HOST_FACTS_H_
#define CWSC_COMPILER_FACTS_HOST_FACTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/consulted.h"

namespace cwsc::compiler {

// FileType is the type of a path after following symlinks.
enum class FileType { kMissing, kRegular, kDirectory, kCharDevice, kBlockDevice, kOther };
const char* FileTypeName(FileType type);  // "missing", "file", "directory", ...
std::optional<FileType> ParseFileType(absl::string_view name);

// RecordMemo holds a value derived from the answer it sits in
// (PathInfo::record): not part of the answer, so it compares equal, and a
// copy starts without it.
struct PathInfo;
struct RecordMemo {
  // The record, and the arena that keeps it (HostFacts::Records): a
  // recorder shares it only from its own facts' arena.
  mutable const ir::ConsultedPath* value = nullptr;
  mutable const ir::ConsultedArena* arena = nullptr;
  // The record's path (its text, kept by the record's arena): a compile compares
  // the path it asks with it without reading the record itself.
  mutable absl::string_view path;
  // The recorder that last asked for the answer (ConsultedRecorder), and
  // what it found: whether `value` is still the answer's record, and
  // whether it has taken it. A compile finds a path it asked before
  // without a lookup of its own.
  mutable uint64_t recorder = 0;
  mutable bool current = false;
  mutable bool used = false;
  RecordMemo() = default;
  RecordMemo(const RecordMemo&) {}
  RecordMemo& operator=(const RecordMemo&) {
    value = nullptr;
    arena = nullptr;
    path = {};
    recorder = 0;
    current = used = false;
    return *this;
  }
  bool operator==(const RecordMemo&) const { return true; }
  // Keep notes the answer `value` was made from; Matches says whether
  // `info` is still that answer (an answer edited in place is not).
  inline void Keep(const PathInfo& info) const;
  inline bool Matches(const PathInfo& info) const;

 private:
  mutable uint32_t type_ = 0, mode_ = 0, uid_ = 0, gid_ = 0;
  mutable bool symlink_ = false;
};

// PathInfo answers stat(2) (following symlinks), lstat(2)'s symlink bit and realpath(3).
struct PathInfo {
  FileType type = FileType::kMissing;
  bool is_symlink = false;  // the path itself is a symlink (lstat)
  std::string canonical;    // realpath; empty when it fails (missing, loop, EACCES)
  // A symlink's content (readlink), read in the same question as the rest;
  // empty otherwise, and in facts files that do not record it.
  std::string target;
  uint32_t mode = 0;  // permission bits incl. setuid/setgid/sticky (07777)
  uint32_t uid = 0;
  uint32_t gid = 0;
  // The plan's record of this answer (ir::ConsultedPath), made by the
  // first compile that records it (ConsultedRecorder) and shared by every
  // plan compiled against the same facts after it: a warm engine's compile
  // copies references instead of text. Derived from the fields above and
  // the path it was asked as, and checked against them before each use.
  RecordMemo record;
  bool operator==(const PathInfo&) const = default;
};

void RecordMemo::Keep(const PathInfo& info) const {
  type_ = static_cast<uint32_t>(info.type);
  mode_ = info.mode;
  uid_ = info.uid;
  gid_ = info.gid;
  symlink_ = info.is_symlink;
}
bool RecordMemo::Matches(const PathInfo& info) const {
  return value && type_ == static_cast<uint32_t>(info.type) && mode_ == info.mode &&
         uid_ == info.uid && gid_ == info.gid && symlink_ == info.is_symlink &&
         value->canonical == info.canonical && value->target == info.target;
}

// UserInfo is the engine's own user.
struct UserInfo {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::vector<uint32_t> groups;  // supplementary groups, sorted
  std::string name;
  std::string home;  // passwd home directory (HOME env is separate)
  bool operator==(const UserInfo&) const = default;
};

// ProbeResult is the outcome of one wrapped /bin/true run.
struct ProbeResult {
  bool ran = false;     // false when not attempted (binary missing or not executable)
  bool ok = false;      // exit status 0 within the deadline
  int exit_code = -1;   // -1 when killed or not started
  std::string message;  // the wrapper's own stderr (first line) or spawn error
  bool operator==(const ProbeResult&) const = default;
};

// LauncherUser is what the launcher probe learned about the launcher's user
// (`<launcher...> /usr/bin/id -u` and `-G`), docs/launcher.md.
struct LauncherUser {
  bool ran = false;  // the launcher was started
  bool ok = false;   // both commands succeeded and printed ids
  uint32_t uid = 0;
  std::vector<uint32_t> gids;  // `id -G` (primary group included), sorted
  std::string message;         // why not ok (the launcher's own stderr line, ...)
  bool operator==(const LauncherUser&) const = default;
};

class HostFacts {
 public:
  virtual ~HostFacts() = default;

  // Platform is "linux", "macos" or "windows".
  virtual std::string Platform() = 0;
  virtual UserInfo User() = 0;
  // Uid is User().uid; live facts answer it without a passwd lookup.
  virtual uint32_t Uid() { return User().uid; }
  // Cwd is the process working directory (used when --cwd is not given),
  // "" when it cannot be named (removed): the compile then fails.
  virtual std::string Cwd() = 0;
  // Env returns a variable's value, or nullopt when unset.
  virtual std::optional<std::string> Env(absl::string_view name) = 0;
  // EnvIsSet says whether a secret-bearing variable is set without revealing it.
  virtual bool EnvIsSet(absl::string_view name) = 0;
  // Path describes `path` (absolute). Unknown paths are missing.
  // The answer stays valid, unchanged, as long as the facts object lives.
  virtual const PathInfo& Path(absl::string_view path) = 0;
  // ExpectPaths: about `n` more paths are about to be asked; facts that
  // remember answers make room once. A hint only: it changes no answer.
  virtual void ExpectPaths(size_t n) { (void)n; }
  // ReadFile returns the content of a small regular file (at most 64 KiB),
  // or nullopt when it is missing, unreadable, not regular or larger.
  virtual std::optional<std::string> ReadFile(absl::string_view path) = 0;
  // BwrapProbe runs `/usr/bin/bwrap <probe argv> /bin/true` (docs/behavior.md B-40).
  virtual ProbeResult BwrapProbe() = 0;
  // LandlockAbi: the kernel's Landlock ABI version (0: none). Facts files
  // without `landlock_abi` say 0.
  virtual int LandlockAbi() { return 0; }
  // SeatbeltProbe runs `sandbox-exec -p "(version 1)(allow default)" -- /usr/bin/true`.
  virtual ProbeResult SeatbeltProbe() = 0;
  // DarwinUserCacheDir is confstr(_CS_DARWIN_USER_CACHE_DIR) (macOS), else nullopt.
  virtual std::optional<std::string> DarwinUserCacheDir() = 0;
  // LauncherUserOf runs `<launcher...> /usr/bin/id -u` and `-G` (cached).
  virtual LauncherUser LauncherUserOf(const std::vector<std::string>& launcher) = 0;
  // LauncherProbe runs `<launcher...> <bwrap_argv>` once, where bwrap_argv is
  // a wrapped /bin/true with the deny masks (cached per argv).
  virtual ProbeResult LauncherProbe(const std::vector<std::string>& launcher,
                                    const std::vector<std::string>& bwrap_argv) = 0;
  // UnlistedPaths: recorded facts written by `cwsc facts` (`unlisted: error`)
  // list here every path a compile asked about that the file does not record
  // (the policy changed since); other facts never have any.
  virtual std::vector<std::string> UnlistedPaths() const { return {}; }
  // Records keeps the plan records of this object's answers
  // (PathInfo::record, made by compiler/facts/consulted.h); every plan that
  // names one keeps it alive. A decorator answering through another object
  // uses that object's.
  virtual const std::shared_ptr<ir::ConsultedArena>& Records() {
    if (!records_) records_ = std::make_shared<ir::ConsultedArena>();
    return records_;
  }

 private:
  std::shared_ptr<ir::ConsultedArena> records_;
};

// kMaxSymlinks is how many symlinks one resolution follows before it gives
// up, as the kernel does (MAXSYMLINKS, ELOOP).
inline constexpr int kMaxSymlinks = 40;

// ResolvePath is realpath(3) answered by `facts` alone: each component is
// `facts.Path()`'s answer, and a symlink is followed by its target
// (PathInfo::target; in facts that did not record one, by a jump to its
// canonical form). Because every step is an answer the facts keep, a
// compile that resolves a path and one that walks it again see the same
// symlinks, however the host changes meanwhile (docs/decisions.md, "One
// observation of each path"). `on_link(link, dir)` is told each symlink
// followed: its path, and the canonical directory holding it; returning
// false stops the walk, and the result is then "". The result is also ""
// when a link has no answer or more than kMaxSymlinks links are followed,
// and, unless `through_missing`, when a component is missing or a
// non-directory has more below it. `through_missing` walks on past such a
// component by its name, as a check for links does in facts that list only
// some directories. `spelled` must be absolute.
std::string ResolvePath(
    HostFacts& facts, absl::string_view spelled,
    absl::FunctionRef<bool(absl::string_view link, absl::string_view dir)> on_link =
        [](absl::string_view, absl::string_view) { return true; },
    bool through_missing = false);

// The probe argv of docs/behavior.md B-40 (cwd "/") with the hardening flags every
// bwrap plan carries (docs/decisions.md), so the probe tests what runs.
std::vector<std::string> BwrapProbeArgv();

// LoadRecordedFacts reads a facts file (YAML, or JSON which is YAML). Errors
// name the file, line and column.
absl::StatusOr<std::unique_ptr<HostFacts>> LoadRecordedFacts(const std::string& file);
// ParseRecordedFacts parses facts text; `name` is used in error messages.
absl::StatusOr<std::unique_ptr<HostFacts>> ParseRecordedFacts(const std::string& text,
                                                              const std::string& name);

// FactsRecorder passes every question on to `inner` and remembers the answer,
// so WriteYaml() emits exactly the facts a compile consulted.
class FactsRecorder : public HostFacts {
 public:
  explicit FactsRecorder(HostFacts* inner);
  ~FactsRecorder() override;

  std::string Platform() override;
  UserInfo User() override;
  uint32_t Uid() override { return User().uid; }  // records the whole user
  int LandlockAbi() override;
  std::string Cwd() override;
  std::optional<std::string> Env(absl::string_view name) override;
  bool EnvIsSet(absl::string_view name) override;
  const PathInfo& Path(absl::string_view path) override;
  void ExpectPaths(size_t n) override { inner_->ExpectPaths(n); }
  std::optional<std::string> ReadFile(absl::string_view path) override;
  ProbeResult BwrapProbe() override;
  ProbeResult SeatbeltProbe() override;
  std::optional<std::string> DarwinUserCacheDir() override;
  LauncherUser LauncherUserOf(const std::vector<std::string>& launcher) override;
  ProbeResult LauncherProbe(const std::vector<std::string>& launcher,
                            const std::vector<std::string>& bwrap_argv) override;

  // WriteYaml renders the recorded facts in the documented format.
  absl::StatusOr<std::string> WriteYaml() const;
  // SetUnlistedIsError marks the output `unlisted: error`: it records every
  // path one compile asks about, so another path means the policy changed.
  void SetUnlistedIsError(bool on) { unlisted_is_error_ = on; }

 private:
  struct Record;
  HostFacts* inner_;
  std::unique_ptr<Record> rec_;
  bool unlisted_is_error_ = false;
};

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_FACTS_HOST_FACTS_H_
