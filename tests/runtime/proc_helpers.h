// Helpers for runtime tests: temporary directories, running a function in a
// forked child with redirected stdio, and process liveness checks.
#ifndef CWSC_TESTS_RUNTIME_PROC_HELPERS_H_
#define CWSC_TESTS_RUNTIME_PROC_HELPERS_H_

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace cwsc::testing {

// TempDir is a fresh directory under $TMPDIR (or /tmp), removed with its
// content on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& base = "");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// SourceRoot is the source tree ($CWSC_SOURCE_ROOT, set by meson test; "." otherwise).
std::string SourceRoot();

std::string ReadFileOr(const std::string& path, const std::string& fallback = "");
void WriteFile(const std::string& path, const std::string& content);
bool Exists(const std::string& path);

// Forked runs `fn` in a child whose stdin/stdout/stderr are the given files
// ("" keeps the test's own); its return value is the child's exit code.
struct Forked {
  pid_t pid = -1;
  int Wait();  // exit code, or 128+signal
};
Forked Fork(const std::function<int()>& fn, const std::string& stdin_file = "",
            const std::string& stdout_file = "", const std::string& stderr_file = "");

// Alive: the process exists and is not a zombie.
bool Alive(pid_t pid);
// WaitGone polls until `pid` is not alive, up to `seconds`.
bool WaitGone(pid_t pid, double seconds);
// WaitForFile polls until `path` exists and is non-empty, up to `seconds`.
bool WaitForFile(const std::string& path, double seconds);

// RunResult is the outcome of a program run by Run().
struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Run executes argv (PATH searched) with `input` on stdin, env inherited plus
// `extra_env` ("NAME=VALUE"), and collects its output.
RunResult Run(const std::vector<std::string>& argv, const std::string& input = "",
              const std::vector<std::string>& extra_env = {}, const std::string& cwd = "");

// RunWithEnv is Run with exactly `env` as the environment.
RunResult RunWithEnv(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                     const std::string& input = "", const std::string& cwd = "");

// ProcessesWithArg lists live processes one of whose argv elements is `arg`.
std::vector<pid_t> ProcessesWithArg(const std::string& arg);

// EnsureUser makes the system user `name` exist, with useradd's `options`
// when it creates it. Suites that run at once on a fresh machine may create
// the same user together: useradd's "already exists" (exit 9) is success
// when the user is there afterwards. Empty on success, else useradd's error.
std::string EnsureUser(const std::string& name, const std::vector<std::string>& options);

}  // namespace cwsc::testing

#endif  // CWSC_TESTS_RUNTIME_PROC_HELPERS_H_
