#include "runtime/host/probe_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/facts/forwarding_facts.h"
#include "compiler/file_text.h"
#include "ir/constants.h"
#include "runtime/host/live_facts.h"

namespace cwsc::runtime {
namespace {

constexpr char kMagic[] = "cwsc-bwrap-probe 1";
constexpr int64_t kTtlSeconds = 3600;

// Slurp reads the cache file or a one-line /proc value ("" when it cannot).
std::string Slurp(const std::string& path) {
  return compiler::ReadFileText(path, {.limit = 65536, .no_follow = true}).data;
}

// SlurpCache reads the cache file: a regular file only, opened without
// waiting. The directory is the user's, and /tmp (where it may be) is often
// writable inside the sandbox: a command could leave a FIFO there, whose
// plain open would wait for a writer, and every later run with it.
std::string SlurpCache(const std::string& path) {
  return compiler::ReadFileText(path, {.limit = 65536, .regular_only = true, .no_follow = true})
      .data;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string InodeOf(const char* path) {
  struct stat st;
  if (stat(path, &st) != 0) return "-";
  return absl::StrCat(st.st_dev, ":", st.st_ino);
}

// TrustedDir: an existing directory owned by us, mode 0700, not a symlink;
// created when missing.
bool TrustedDir(const std::string& dir) {
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) {
    if (mkdir(dir.c_str(), 0700) != 0) return false;
    if (lstat(dir.c_str(), &st) != 0) return false;
  }
  return S_ISDIR(st.st_mode) && st.st_uid == getuid() && (st.st_mode & 0777) == 0700;
}

// ReplaceCacheFile writes `body` to a new file beside `file` and renames it
// over `file`: a reader sees the old text or the new, never half of it.
void ReplaceCacheFile(const std::string& file, const std::string& body) {
  std::string tmp = absl::StrCat(file, ".", getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return;
  bool ok = write(fd, body.data(), body.size()) == static_cast<ssize_t>(body.size());
  close(fd);
  if (!ok || rename(tmp.c_str(), file.c_str()) != 0) unlink(tmp.c_str());
}

bool CacheEnabled() {
  const char* v = std::getenv("CWSC_PROBE_CACHE");
  return v == nullptr || std::string(v) != "0";
}

// CachingFacts forwards everything to the live facts and caches the bwrap
// probe verdict on disk.
class CachingFacts : public compiler::ForwardingFacts {
 public:
  explicit CachingFacts(std::unique_ptr<compiler::HostFacts> inner)
      : ForwardingFacts(inner.get()), owned_(std::move(inner)) {}

  // The launcher probe is cached for this process only (runtime/host/facts_live.cc).
  compiler::ProbeResult BwrapProbe() override {
    if (memo_) return *memo_;
    std::optional<std::string> file = CacheEnabled() ? ProbeCacheFile() : std::nullopt;
    std::string key;
    if (file) {
      key = ProbeCacheKey();
      std::string text = SlurpCache(*file);
      // Three lines: magic, key, expiry (seconds since the epoch).
      std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
      int64_t expiry = 0;
      if (lines.size() >= 3 && lines[0] == kMagic && lines[1] == key &&
          absl::SimpleAtoi(lines[2], &expiry) && std::time(nullptr) < expiry &&
          expiry - std::time(nullptr) <= kTtlSeconds) {
        compiler::ProbeResult r;
        r.ran = true;
        r.ok = true;
        r.exit_code = 0;
        memo_ = r;
        return r;
      }
    }
    compiler::ProbeResult r = inner().BwrapProbe();
    if (file && r.ok) {
      ReplaceCacheFile(*file,
                       absl::StrCat(kMagic, "\n", key, "\n",
                                    static_cast<int64_t>(std::time(nullptr)) + kTtlSeconds, "\n"));
    }
    memo_ = r;
    return r;
  }

 private:
  std::unique_ptr<compiler::HostFacts> owned_;
  std::optional<compiler::ProbeResult> memo_;
};

}  // namespace

std::string ProbeCacheKey() {
  utsname u{};
  uname(&u);
  struct stat st {};
  std::string bwrap = "missing";
  if (stat(ir::kBwrapPath, &st) == 0) {
    bwrap = absl::StrCat(st.st_dev, ":", st.st_ino, ":", st.st_size, ":", st.st_mtim.tv_sec, ".",
                         st.st_mtim.tv_nsec, ":", st.st_mode, ":", st.st_uid);
  }
  return absl::StrCat(
      "boot=", Trim(Slurp("/proc/sys/kernel/random/boot_id")), " kernel=", u.release, "#",
      u.version, " uid=", getuid(), " gid=", getgid(), " userns=", InodeOf("/proc/self/ns/user"),
      " mntns=", InodeOf("/proc/self/ns/mnt"), " bwrap=", bwrap,
      " max_userns=", Trim(Slurp("/proc/sys/user/max_user_namespaces")),
      " aa_userns=", Trim(Slurp("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")),
      " userns_clone=", Trim(Slurp("/proc/sys/kernel/unprivileged_userns_clone")));
}

std::optional<std::string> ProbeCacheFile() {
  std::string dir;
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  if (xdg != nullptr && xdg[0] == '/') {
    struct stat st;
    if (stat(xdg, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid()) {
      dir = std::string(xdg) + "/cwsc";
    }
  }
  if (dir.empty()) dir = absl::StrCat("/tmp/cwsc-", getuid());
  if (!TrustedDir(dir)) return std::nullopt;
  return dir + "/bwrap-probe";
}

void ForgetProbeVerdict() {
  if (std::optional<std::string> f = ProbeCacheFile()) unlink(f->c_str());
}

namespace {

constexpr char kGateMagic[] = "cwsc-gate-time 1";

std::optional<std::string> GateHintFile() {
  if (!CacheEnabled()) return std::nullopt;
  std::optional<std::string> probe = ProbeCacheFile();
  if (!probe) return std::nullopt;
  return probe->substr(0, probe->rfind('/')) + "/gate-time";
}

}  // namespace

double ReadGateHint() {
  std::optional<std::string> file = GateHintFile();
  if (!file) return 0;
  // Two lines: magic, microseconds. Read as the verdict is: a regular file
  // only, never waiting (the directory may be writable inside the sandbox).
  const std::string text = SlurpCache(*file);
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  long us = 0;
  if (lines.size() < 2 || lines[0] != kGateMagic || !absl::SimpleAtoi(lines[1], &us) || us < 1 ||
      us > kGateHintMaxUs) {
    return 0;
  }
  return static_cast<double>(us) / 1e6;
}

void WriteGateHint(double seconds, double kept_seconds) {
  const long us = static_cast<long>(seconds * 1e6);
  if (us < 1 || us > kGateHintMaxUs) return;
  // Replacing the file costs more than the hint saves when it barely moves:
  // the file system writes the new file's data out when it is renamed over
  // the old one (ext4 does, on every run).
  const long kept_us = static_cast<long>(kept_seconds * 1e6);
  if (kept_us > 0 && std::labs(us - kept_us) <= kept_us / 8) return;
  if (std::optional<std::string> file = GateHintFile()) {
    ReplaceCacheFile(*file, absl::StrCat(kGateMagic, "\n", us, "\n"));
  }
}

std::unique_ptr<compiler::HostFacts> MakeRuntimeFacts() {
  return std::make_unique<CachingFacts>(runtime::MakeLiveFacts());
}

}  // namespace cwsc::runtime
