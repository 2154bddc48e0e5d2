#include "tests/runtime/proc_helpers.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace cwsc::testing {

TempDir::TempDir(const std::string& base) {
  std::string root = base;
  if (root.empty()) {
    const char* t = getenv("TMPDIR");
    root = (t != nullptr && *t != '\0') ? t : "/tmp";
  }
  std::string tmpl = root + "/cwsc-rt-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) abort();
  path_ = tmpl;
  chmod(path_.c_str(), 0755);
}

TempDir::~TempDir() {
  std::error_code ec;
  // Make everything writable first (tests create read-only dirs).
  for (auto it = std::filesystem::recursive_directory_iterator(
           path_, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) chmod(it->path().c_str(), 0755);
  }
  std::filesystem::remove_all(path_, ec);
}

std::string SourceRoot() {
  const char* root = std::getenv("CWSC_SOURCE_ROOT");
  return root != nullptr ? root : ".";
}

std::string ReadFileOr(const std::string& path, const std::string& fallback) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fallback;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

namespace {
void Redirect(const std::string& file, int fd, int flags) {
  if (file.empty()) return;
  int f = open(file.c_str(), flags, 0644);
  if (f < 0) _exit(200);
  dup2(f, fd);
  close(f);
}
}  // namespace

Forked Fork(const std::function<int()>& fn, const std::string& stdin_file,
            const std::string& stdout_file, const std::string& stderr_file) {
  fflush(nullptr);
  Forked f;
  f.pid = fork();
  if (f.pid == 0) {
    Redirect(stdin_file, 0, O_RDONLY);
    Redirect(stdout_file, 1, O_WRONLY | O_CREAT | O_TRUNC);
    Redirect(stderr_file, 2, O_WRONLY | O_CREAT | O_TRUNC);
    int rc = fn();
    fflush(nullptr);
    _exit(rc);
  }
  return f;
}

int Forked::Wait() {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

bool Alive(pid_t pid) {
  std::string stat = ReadFileOr("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  size_t p = stat.rfind(')');
  if (p == std::string::npos || p + 2 >= stat.size()) return false;
  char state = stat[p + 2];
  return state != 'Z' && state != 'X';
}

bool WaitGone(pid_t pid, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (!Alive(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return !Alive(pid);
}

bool WaitForFile(const std::string& path, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (!ReadFileOr(path).empty()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

namespace {
RunResult RunImpl(const std::vector<std::string>& argv, const std::string& input,
                  const std::vector<std::string>& extra_env, const std::string& cwd,
                  bool clear_env) {
  char in_tmpl[] = "/tmp/cwsc-run-in-XXXXXX";
  char out_tmpl[] = "/tmp/cwsc-run-out-XXXXXX";
  char err_tmpl[] = "/tmp/cwsc-run-err-XXXXXX";
  int in_fd = mkstemp(in_tmpl), out_fd = mkstemp(out_tmpl), err_fd = mkstemp(err_tmpl);
  if (write(in_fd, input.data(), input.size()) != static_cast<ssize_t>(input.size())) abort();
  lseek(in_fd, 0, SEEK_SET);
  fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    if (clear_env) clearenv();
    for (const std::string& e : extra_env) putenv(strdup(e.c_str()));
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(201);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    execvp(args[0], args.data());
    _exit(202);
  }
  close(in_fd);
  close(out_fd);
  close(err_fd);
  RunResult r;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFileOr(out_tmpl);
  r.err = ReadFileOr(err_tmpl);
  unlink(in_tmpl);
  unlink(out_tmpl);
  unlink(err_tmpl);
  return r;
}
}  // namespace

RunResult Run(const std::vector<std::string>& argv, const std::string& input,
              const std::vector<std::string>& extra_env, const std::string& cwd) {
  return RunImpl(argv, input, extra_env, cwd, false);
}

RunResult RunWithEnv(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                     const std::string& input, const std::string& cwd) {
  return RunImpl(argv, input, env, cwd, true);
}

std::vector<pid_t> ProcessesWithArg(const std::string& arg) {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string name = e.path().filename();
    if (name.empty() || name[0] < '0' || name[0] > '9') continue;
    std::string cmd = ReadFileOr(e.path().string() + "/cmdline");
    size_t start = 0;
    while (start < cmd.size()) {
      size_t end = cmd.find('\0', start);
      if (end == std::string::npos) end = cmd.size();
      if (cmd.compare(start, end - start, arg) == 0 && Alive(std::stoi(name))) {
        out.push_back(std::stoi(name));
        break;
      }
      start = end + 1;
    }
  }
  return out;
}

std::string EnsureUser(const std::string& name, const std::vector<std::string>& options) {
  std::vector<std::string> argv = {"/usr/sbin/useradd"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(name);
  RunResult add;
  // useradd's exit codes (useradd(8)): 9 the name is taken, 10 it could not
  // lock the group or password file (another useradd holds it).
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (getpwnam(name.c_str()) != nullptr) return "";
    add = Run(argv);
    if (add.exit_code == 0) return "";
    if (add.exit_code != 9 && add.exit_code != 10) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return getpwnam(name.c_str()) != nullptr ? "" : add.err;
}

}  // namespace cwsc::testing
