// Live host facts: real syscalls and the real wrapper probes, memoized so a
// compile asks the kernel each question once.
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "compiler/host_facts.h"
#include "compiler/launcher.h"

extern char** environ;

namespace cwsc::compiler {
namespace {

constexpr size_t kMaxSmallFile = 64 * 1024;
constexpr int kProbeDeadlineMs = 10000;

int64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// RunProbe runs argv with a cleared environment, stdin/stdout on /dev/null and
// stderr captured, cwd "/", killing it after the deadline.
ProbeResult RunProbe(const std::vector<std::string>& argv) {
  ProbeResult r;
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.message = absl::StrCat("pipe: ", std::strerror(errno));
    return r;
  }
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  char* empty_env[] = {nullptr};
  pid_t pid = fork();
  if (pid < 0) {
    r.message = absl::StrCat("fork: ", std::strerror(errno));
    close(err_pipe[0]);
    close(err_pipe[1]);
    return r;
  }
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      dup2(devnull, 0);
      dup2(devnull, 1);
    }
    dup2(err_pipe[1], 2);
    if (chdir("/") != 0) _exit(126);
    execve(cargv[0], cargv.data(), empty_env);
    dprintf(2, "cannot execute %s: %s\n", cargv[0], std::strerror(errno));
    _exit(127);
  }
  close(err_pipe[1]);
  r.ran = true;
  std::string err;
  int64_t deadline = NowMs() + kProbeDeadlineMs;
  bool timed_out = false;
  bool eof = false;
  int status = 0;
  bool reaped = false;
  while (!reaped) {
    int64_t left = deadline - NowMs();
    if (left <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      reaped = true;
      break;
    }
    if (!eof) {
      pollfd pfd{err_pipe[0], POLLIN, 0};
      int n = poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 50)));
      if (n > 0) {
        char buf[4096];
        ssize_t got = read(err_pipe[0], buf, sizeof buf);
        if (got > 0 && err.size() < 64 * 1024) err.append(buf, static_cast<size_t>(got));
        if (got == 0) eof = true;
      }
    } else {
      struct timespec ts{0, 500 * 1000};  // stderr closed: the child is exiting
      nanosleep(&ts, nullptr);
    }
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) reaped = true;
  }
  close(err_pipe[0]);
  std::string first = err.substr(0, err.find('\n'));
  if (timed_out) {
    r.message = "probe timed out after 10 s";
    return r;
  }
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
    r.ok = r.exit_code == 0;
  } else if (WIFSIGNALED(status)) {
    first = absl::StrCat("killed by signal ", WTERMSIG(status));
  }
  if (!r.ok) r.message = first.empty() ? absl::StrCat("exit status ", r.exit_code) : first;
  return r;
}

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

  std::string Cwd() override {
    char buf[PATH_MAX];
    if (getcwd(buf, sizeof buf) == nullptr) return "/";
    return buf;
  }

  std::optional<std::string> Env(absl::string_view name) override {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  }

  bool EnvIsSet(absl::string_view name) override {
    return std::getenv(std::string(name).c_str()) != nullptr;
  }

  PathInfo Path(absl::string_view path) override {
    std::string key(path);
    auto it = paths_.find(key);
    if (it != paths_.end()) return it->second;
    PathInfo info;
    struct stat lst;
    if (lstat(key.c_str(), &lst) == 0) info.is_symlink = S_ISLNK(lst.st_mode);
    struct stat st;
    if (stat(key.c_str(), &st) == 0) {
      if (S_ISREG(st.st_mode)) {
        info.type = FileType::kRegular;
      } else if (S_ISDIR(st.st_mode)) {
        info.type = FileType::kDirectory;
      } else if (S_ISCHR(st.st_mode)) {
        info.type = FileType::kCharDevice;
      } else if (S_ISBLK(st.st_mode)) {
        info.type = FileType::kBlockDevice;
      } else {
        info.type = FileType::kOther;
      }
      info.mode = st.st_mode & 07777;
      info.uid = st.st_uid;
      info.gid = st.st_gid;
      char* real = realpath(key.c_str(), nullptr);
      if (real != nullptr) {
        info.canonical = real;
        free(real);
      }
    }
    paths_.emplace(key, info);
    return info;
  }

  std::optional<std::string> ReadFile(absl::string_view path) override {
    std::string key(path);
    auto it = files_.find(key);
    if (it != files_.end()) return it->second;
    std::optional<std::string> out;
    int fd = open(key.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
      struct stat st;
      if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
          static_cast<size_t>(st.st_size) <= kMaxSmallFile) {
        std::string data;
        char buf[8192];
        ssize_t n;
        bool ok = true;
        while ((n = read(fd, buf, sizeof buf)) > 0) {
          data.append(buf, static_cast<size_t>(n));
          if (data.size() > kMaxSmallFile) {
            ok = false;
            break;
          }
        }
        if (n < 0) ok = false;
        if (ok) out = std::move(data);
      }
      close(fd);
    }
    files_.emplace(key, out);
    return out;
  }

  ProbeResult BwrapProbe() override {
    if (bwrap_) return *bwrap_;
    ProbeResult r;
    PathInfo info = Path("/usr/bin/bwrap");
    if (info.type == FileType::kRegular && (info.mode & 0111) != 0) {
      r = RunProbe(BwrapProbeArgv());
    } else {
      r.message = info.type == FileType::kMissing ? "/usr/bin/bwrap is missing"
                                                  : "/usr/bin/bwrap is not a regular executable file";
    }
    bwrap_ = r;
    return r;
  }

  ProbeResult SeatbeltProbe() override {
    ProbeResult r;
#if defined(__APPLE__)
    r = RunProbe({"/usr/bin/sandbox-exec", "-p", "(version 1)(allow default)", "--",
                  "/usr/bin/true"});
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

  // The launcher probe itself lives in compiler/launcher_live.cc.
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
  std::map<std::string, PathInfo> paths_;
  std::map<std::string, std::optional<std::string>> files_;
  std::optional<ProbeResult> bwrap_;
};

}  // namespace

std::vector<std::string> BwrapProbeArgv() {
  return {"/usr/bin/bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
          "--dev",          "/dev",          "--proc",            "/proc",     "--tmpfs", "/tmp",
          "--chdir",        "/",             "--",                "/bin/true"};
}

const char* FileTypeName(FileType type) {
  switch (type) {
    case FileType::kMissing: return "missing";
    case FileType::kRegular: return "file";
    case FileType::kDirectory: return "directory";
    case FileType::kCharDevice: return "char-device";
    case FileType::kBlockDevice: return "block-device";
    case FileType::kOther: return "other";
  }
  return "missing";
}

std::optional<FileType> ParseFileType(absl::string_view name) {
  for (FileType t : {FileType::kMissing, FileType::kRegular, FileType::kDirectory,
                     FileType::kCharDevice, FileType::kBlockDevice, FileType::kOther}) {
    if (name == FileTypeName(t)) return t;
  }
  return std::nullopt;
}

std::unique_ptr<HostFacts> MakeLiveFacts() { return std::make_unique<LiveFacts>(); }

}  // namespace cwsc::compiler
