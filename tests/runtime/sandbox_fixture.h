// A real tree for end-to-end runs of the `cwsc` binary under bubblewrap: a
// test HOME with a credential, a workspace with a protected .codewhale, a
// directory outside every root, all under /var/tmp (not a writable root).
#ifndef CWSC_TESTS_RUNTIME_SANDBOX_FIXTURE_H_
#define CWSC_TESTS_RUNTIME_SANDBOX_FIXTURE_H_

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::testing {

inline std::string CwscBin() {
  const char* b = std::getenv("CWSC_BIN");
  return b != nullptr ? b : "cwsc";
}

class SandboxTree : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = std::make_unique<TempDir>("/var/tmp");
    home = *base_ / "home";
    ws = *base_ / "ws";
    outside = *base_ / "outside";
    for (const std::string& d : {home, home + "/.ssh", ws, ws + "/.codewhale", outside}) {
      mkdir(d.c_str(), 0755);
    }
    WriteFile(home + "/.ssh/id_rsa", "SECRET-KEY\n");
    WriteFile(ws + "/.codewhale/config.toml", "# project\n");
    WriteFile(ws + "/hello.txt", "hello\n");
    config = *base_ / "config.toml";
    WriteFile(config, "");
  }

  std::string Base() const { return base_->path(); }

  void SetConfig(const std::string& text) { WriteFile(config, text); }

  std::vector<std::string> Env(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home,
                                    "LANG=C.UTF-8"};
    env.insert(env.end(), extra.begin(), extra.end());
    return env;
  }

  // Cwsc runs `cwsc run CONFIG --mode MODE --cwd WS --json -o RESULT -- argv`.
  RunResult Cwsc(const std::string& mode, const std::vector<std::string>& program,
                 const std::vector<std::string>& extra_env = {}, const std::string& input = "",
                 const std::string& cwd = "") {
    std::vector<std::string> argv = {CwscBin(),
                                     "run",
                                     config,
                                     "--mode",
                                     mode,
                                     "--cwd",
                                     cwd.empty() ? ws : cwd,
                                     "--json",
                                     "-o",
                                     *base_ / "result.json",
                                     "--"};
    argv.insert(argv.end(), program.begin(), program.end());
    unlink((*base_ / "result.json").c_str());
    return RunWithEnv(argv, Env(extra_env), input);
  }

  RunResult Sh(const std::string& mode, const std::string& script,
               const std::vector<std::string>& extra_env = {}) {
    return Cwsc(mode, {"/bin/sh", "-c", script}, extra_env);
  }

  nlohmann::json Result() const {
    std::string text = ReadFileOr(*base_ / "result.json");
    if (text.empty()) return nlohmann::json();
    // The --json report (docs/cli.md): the run's own result is its "result".
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) return j;
    EXPECT_EQ(j["cwsc"]["command"], "run");
    EXPECT_EQ(j["exit_code"], j["result"]["cwsc_exit_code"]);
    return j["result"];
  }

  std::unique_ptr<TempDir> base_;
  std::string home, ws, outside, config;
};

}  // namespace cwsc::testing

#endif  // CWSC_TESTS_RUNTIME_SANDBOX_FIXTURE_H_
