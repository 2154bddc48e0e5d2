// libcwsc runs what it compiles: cwsc_spawn and its child (lib/cwsc.h,
// "running a plan") against real bubblewrap and the real Landlock backend,
// through the C ABI and the C++ API (cwsc::Child). Each case runs under
// both backends; the identities (root and a second user) are covered by
// the embedding examples' test (tests/lib/embed_test.sh, spawn).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cwsc.h"
#include "cwsc.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/runtime/proc_helpers.h"

namespace {

using ::cwsc::testing::ReadFileOr;
using ::cwsc::testing::TempDir;
using ::cwsc::testing::WriteFile;
using ::testing::HasSubstr;
using ::testing::Not;

enum class Backend { kBwrap, kLandlock };

// Pipe is a pipe whose read end the test drains.
struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int p[2];
    if (pipe2(p, O_CLOEXEC) == 0) {
      r = p[0];
      w = p[1];
    }
  }
  ~Pipe() {
    CloseWrite();
    if (r >= 0) close(r);
  }
  void CloseWrite() {
    if (w >= 0) close(w);
    w = -1;
  }
  // ReadUntil reads until `marker` has arrived, EOF, or 20 s.
  std::string ReadUntil(const std::string& marker = "") {
    std::string out;
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < until) {
      if (!marker.empty() && out.find(marker) != std::string::npos) break;
      pollfd p{r, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      ssize_t n = read(r, buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }
};

// ExitLine is how a test records a child's exit code beside its output.
std::string ExitLine(int code) { return "exit " + std::to_string(code) + "\n"; }

long LandlockAbi() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, 1u);
  return abi < 0 ? 0 : abi;
}

class SpawnTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "/usr/bin/bwrap is missing";
    if (GetParam() == Backend::kLandlock && LandlockAbi() < 4) {
      GTEST_SKIP() << "the kernel's Landlock ABI is below 4 (or it has none)";
    }
    dir_ = std::make_unique<TempDir>("/var/tmp");
    chmod(dir_->path().c_str(), 0755);
    ws_ = dir_->path() + "/ws";
    outside_ = dir_->path() + "/outside";
    mkdir(ws_.c_str(), 0755);
    mkdir(outside_.c_str(), 0755);
    config_ = dir_->path() + "/config.toml";
    WriteFile(config_,
              GetParam() == Backend::kLandlock ? "sandbox_linux_backend = \"landlock\"\n" : "");
  }

  // Compile is the config for `mode` with the command's cwd in ws_.
  std::optional<cwsc::Plan> Compile(const std::string& mode = "ask") {
    cwsc::Options options;
    options.Cwd(ws_).NoProjectConfig();
    cwsc::Result<cwsc::Policy> policy = cwsc::Policy::LoadFile(config_, CWSC_FORMAT_AUTO, &options);
    EXPECT_TRUE(policy.ok()) << policy.diagnostics().Render();
    if (!policy.ok()) return std::nullopt;
    cwsc::Result<cwsc::Plan> plan = policy->Compile(mode, &facts_, &options);
    EXPECT_TRUE(plan.ok()) << plan.diagnostics().Render();
    if (!plan.ok()) return std::nullopt;
    EXPECT_EQ(plan->Kind(), GetParam() == Backend::kLandlock ? "linux-landlock" : "linux-bwrap");
    return std::move(plan.value());
  }

  std::vector<std::string> Env() const {
    return {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent", "LANG=C.UTF-8",
            "MY_SECRET_TOKEN=planted-secret-value", "OPENAI_API_KEY=sk-planted"};
  }

  cwsc::Facts facts_ = cwsc::Facts::Live();
  std::unique_ptr<TempDir> dir_;
  std::string ws_, outside_, config_;
};

TEST_P(SpawnTest, TheCommandGetsTheAllowListAndNoSecret) {
  std::optional<cwsc::Plan> plan = Compile();
  ASSERT_TRUE(plan);
  // Also in the engine's own environment: it must not be read.
  setenv("CWSC_ENGINE_OWN_SECRET", "engine-secret", 1);
  Pipe out;
  cwsc::SpawnOptions so;
  so.Program({"/usr/bin/env"}).Env(Env()).Stdio(-1, out.w, -1);
  cwsc::Result<cwsc::Child> child = plan->Spawn(so, &facts_);
  unsetenv("CWSC_ENGINE_OWN_SECRET");
  ASSERT_TRUE(child.ok()) << child.diagnostics().Render();
  out.CloseWrite();
  std::string env = out.ReadUntil();
  cwsc::ChildResult r = child->Wait();
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(env, HasSubstr("PATH=/usr/local/bin:/usr/bin:/bin\n"));
  EXPECT_THAT(env, HasSubstr("CODEWHALE_SANDBOX="));
  EXPECT_THAT(env, Not(HasSubstr("planted-secret-value")));
  EXPECT_THAT(env, Not(HasSubstr("sk-planted")));
  EXPECT_THAT(env, Not(HasSubstr("engine-secret")));
}

TEST_P(SpawnTest, ThePolicyHolds) {
  std::optional<cwsc::Plan> plan = Compile();
  ASSERT_TRUE(plan);
  WriteFile(outside_ + "/target", "ORIGINAL\n");
  Pipe err;
  cwsc::SpawnOptions so;
  so.Program({"/bin/sh", "-c",
              "echo inside > " + ws_ + "/made; echo evil > " + outside_ + "/target; echo evil > " +
                  outside_ + "/new"})
      .Env(Env())
      .Stdio(-1, -1, err.w);
  cwsc::Result<cwsc::Child> child = plan->Spawn(so, &facts_);
  ASSERT_TRUE(child.ok()) << child.diagnostics().Render();
  err.CloseWrite();
  std::string stderr_text = err.ReadUntil();
  cwsc::ChildResult r = child->Wait();
  EXPECT_NE(r.exit_code, 0) << stderr_text;
  EXPECT_EQ(ReadFileOr(ws_ + "/made"), "inside\n");
  EXPECT_EQ(ReadFileOr(outside_ + "/target"), "ORIGINAL\n");
  EXPECT_EQ(access((outside_ + "/new").c_str(), F_OK), -1);
}

TEST_P(SpawnTest, TheTimeoutEndsTheTree) {
  std::optional<cwsc::Plan> plan = Compile();
  ASSERT_TRUE(plan);
  cwsc::SpawnOptions so;
  so.Program({"/bin/sh", "-c", "sleep 30 & sleep 30; wait"}).Env(Env()).Timeout(0.5, 0.5);
  auto start = std::chrono::steady_clock::now();
  cwsc::Result<cwsc::Child> child = plan->Spawn(so, &facts_);
  ASSERT_TRUE(child.ok()) << child.diagnostics().Render();
  cwsc::ChildResult r = child->Wait();
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 124);
  EXPECT_LT(took, 10.0);
  char* json = nullptr;
  size_t len = 0;
  ASSERT_EQ(cwsc_child_result_json(child->get(), &json, &len, nullptr), CWSC_OK);
  EXPECT_THAT(std::string(json, len), HasSubstr("\"timed_out\":true"));
  cwsc_string_free(json);
}

// An engine with an event loop of its own watches the pidfd and waits only
// once it is readable: the timeout must fire without a wait running.
TEST_P(SpawnTest, TheTimeoutFiresWithoutAWait) {
  std::optional<cwsc::Plan> plan = Compile();
  ASSERT_TRUE(plan);
  cwsc::SpawnOptions so;
  so.Program({"/bin/sleep", "30"}).Env(Env()).Timeout(0.5, 0.5);
  cwsc::Result<cwsc::Child> child = plan->Spawn(so, &facts_);
  ASSERT_TRUE(child.ok()) << child.diagnostics().Render();
  ASSERT_GE(child->Pidfd(), 0);
  pollfd p{child->Pidfd(), POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 15000), 1) << "the command still ran 15 s later";
  std::optional<cwsc::ChildResult> r = child->WaitFor(5000);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->exit_code, 124);
}

TEST_P(SpawnTest, AnInterruptReachesTheCommandsHandler) {
  std::optional<cwsc::Plan> plan = Compile();
  ASSERT_TRUE(plan);
  Pipe out;
  cwsc::SpawnOptions so;
  so.Program({"/bin/sh", "-c",
              "trap 'echo got-int; exit 7' INT; echo ready; while :; do sleep 0.05; done"})
      .Env(Env())
      .Stdio(-1, out.w, -1)
      .Timeout(20);
  cwsc::Result<cwsc::Child> child = plan->Spawn(so, &facts_);
  ASSERT_TRUE(child.ok()) << child.diagnostics().Render();
  out.CloseWrite();
  std::string text = out.ReadUntil("ready\n");
  ASSERT_THAT(text, HasSubstr("ready\n"));
  child->Signal(SIGINT);
  text += out.ReadUntil();
  cwsc::ChildResult r = child->Wait();
  EXPECT_THAT(text, HasSubstr("got-int\n"));
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_FALSE(r.timed_out);
}

TEST_P(SpawnTest, DroppingAChildEndsIt) {
  std::optional<cwsc::Plan> plan = Compile();
  ASSERT_TRUE(plan);
  Pipe out;
  cwsc::SpawnOptions so;
  so.Program({"/bin/sh", "-c", "echo $$; exec sleep 60"}).Env(Env()).Stdio(-1, out.w, -1);
  int pid = 0;
  {
    cwsc::Result<cwsc::Child> child = plan->Spawn(so, &facts_);
    ASSERT_TRUE(child.ok()) << child.diagnostics().Render();
    pid = child->Pid();
    ASSERT_GT(pid, 0);
    out.CloseWrite();
    ASSERT_THAT(out.ReadUntil("\n"), ::testing::EndsWith("\n"));
    EXPECT_FALSE(child->WaitFor(0).has_value());
    EXPECT_EQ(kill(pid, 0), 0);
  }  // dropped while it runs: killed and reaped
  EXPECT_EQ(kill(pid, 0), -1);
  // The rest of its group was sent SIGKILL; the sandbox's own processes are
  // reaped by their new parent as they die.
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (kill(-pid, 0) == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(kill(-pid, 0), -1);
}

TEST_P(SpawnTest, ThirtyTwoChildrenAtOnceFromThirtyTwoThreads) {
  std::optional<cwsc::Plan> plan = Compile();
  ASSERT_TRUE(plan);
  constexpr int kChildren = 32;
  std::vector<std::string> outputs(kChildren);
  std::vector<int> codes(kChildren, -1);
  std::vector<std::string> errors(kChildren);
  std::vector<std::thread> threads;
  for (int i = 0; i < kChildren; ++i) {
    threads.emplace_back([&, i] {
      Pipe out;
      cwsc::SpawnOptions so;
      so.Program({"/bin/sh", "-c", "echo child-$0; sleep 0.2", std::to_string(i)})
          .Env(Env())
          .Stdio(-1, out.w, -1)
          .Timeout(60);
      cwsc::Result<cwsc::Child> child = plan->Spawn(so, &facts_);
      if (!child.ok()) {
        errors[i] = child.diagnostics().Render();
        return;
      }
      out.CloseWrite();
      outputs[i] = out.ReadUntil();
      codes[i] = child->Wait().exit_code;
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kChildren; ++i) {
    EXPECT_EQ(errors[i], "") << i;
    EXPECT_EQ(outputs[i], "child-" + std::to_string(i) + "\n") << i;
    EXPECT_EQ(codes[i], 0) << i;
  }
}

// An engine ignores SIGPIPE (as Rust programs do), blocks signals, has
// handlers; its commands start with none of that, whether it spawns from
// its main thread (the clone is made there) or from another (the clone is
// made on the library's spawner thread).
TEST_P(SpawnTest, TheCommandStartsWithDefaultSignalsFromAnyThread) {
  std::optional<cwsc::Plan> plan = Compile();
  ASSERT_TRUE(plan);
  struct sigaction ignore {
  }, handle{}, old_pipe{}, old_usr2{}, old_hup{};
  ignore.sa_handler = SIG_IGN;
  handle.sa_handler = [](int) {};
  sigaction(SIGPIPE, &ignore, &old_pipe);
  sigaction(SIGUSR2, &ignore, &old_usr2);
  sigaction(SIGHUP, &handle, &old_hup);
  sigset_t usr1, old_mask;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, &old_mask);
  auto run = [&] {
    Pipe out;
    cwsc::SpawnOptions so;
    so.Program({"/bin/sh", "-c", "grep -E '^Sig(Ign|Blk)' /proc/self/status"})
        .Env(Env())
        .Stdio(-1, out.w, -1)
        .Timeout(60);
    cwsc::Result<cwsc::Child> child = plan->Spawn(so, &facts_);
    if (!child.ok()) return child.diagnostics().Render();
    out.CloseWrite();
    std::string text = out.ReadUntil();
    return ExitLine(child->Wait().exit_code) + text;
  };
  std::string from_main = run(), from_thread;
  std::thread([&] {
    sigset_t usr1_too;
    sigemptyset(&usr1_too);
    sigaddset(&usr1_too, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1_too, nullptr);
    from_thread = run();
  }).join();
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  sigaction(SIGPIPE, &old_pipe, nullptr);
  sigaction(SIGUSR2, &old_usr2, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  const std::string want = "exit 0\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n";
  EXPECT_EQ(from_main, want);
  EXPECT_EQ(from_thread, want);
}

TEST_P(SpawnTest, AChangedHostRefusesTheRunAndNothingStarts) {
  std::optional<cwsc::Plan> plan = Compile();
  ASSERT_TRUE(plan);
  // The working directory the plan was compiled for is gone.
  std::string moved = dir_->path() + "/ws-moved";
  ASSERT_EQ(rename(ws_.c_str(), moved.c_str()), 0);
  cwsc::SpawnOptions so;
  so.Program({"/bin/sh", "-c", "touch " + moved + "/ran"}).Env(Env());
  cwsc::Facts fresh = cwsc::Facts::Live();
  cwsc::Result<cwsc::Child> child = plan->Spawn(so, &fresh);
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status(), CWSC_E_REFUSED);
  ASSERT_EQ(child.diagnostics().size(), 1u);
  EXPECT_EQ(child.diagnostics()[0].code, "refused");
  EXPECT_THAT(child.diagnostics()[0].message, HasSubstr(ws_));
  EXPECT_EQ(access((moved + "/ran").c_str(), F_OK), -1);
}

// A process made by fork(2) after the library has spawned has none of its
// parent's threads, the spawner's included: it gets its own, not a hang.
TEST_P(SpawnTest, AForkedProcessSpawnsToo) {
  std::optional<cwsc::Plan> plan = Compile();
  ASSERT_TRUE(plan);
  cwsc::SpawnOptions so;
  so.Program({"/bin/true"}).Env(Env());
  {
    cwsc::Result<cwsc::Child> first = plan->Spawn(so, &facts_);
    ASSERT_TRUE(first.ok()) << first.diagnostics().Render();
    ASSERT_EQ(first->Wait().exit_code, 0);
  }
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    cwsc::Result<cwsc::Child> child = plan->Spawn(so, &facts_);
    _exit(child.ok() ? child->Wait().exit_code : 99);
  }
  int status = -1;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (waitpid(pid, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (kill(pid, 0) == 0 && waitpid(pid, &status, WNOHANG) == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL() << "the forked process's cwsc_spawn did not return within 30 s";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, SpawnTest,
                         ::testing::Values(Backend::kBwrap, Backend::kLandlock),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return std::string(info.param == Backend::kBwrap ? "Bwrap" : "Landlock");
                         });

// ---- the C ABI's own rules -------------------------------------------------------

TEST(SpawnApi, RecordedFactsAreRefusedForARun) {
  std::string facts_file = ::cwsc::testing::SourceRoot() + "/examples/facts/linux-workspace.yaml";
  cwsc_facts* recorded = nullptr;
  ASSERT_EQ(cwsc_facts_load_file(facts_file.c_str(), &recorded, nullptr), CWSC_OK);
  cwsc_options* options = cwsc_options_new();
  const char* program[] = {"/bin/true"};
  cwsc_options_set_program(options, program, 1);
  cwsc_options_set_unlisted_as_missing(options, 1);
  std::string config = ::cwsc::testing::SourceRoot() + "/examples/workspace.toml";
  cwsc_plan* plan = nullptr;
  ASSERT_EQ(
      cwsc_compile_file(config.c_str(), CWSC_FORMAT_AUTO, "ask", recorded, options, &plan, nullptr),
      CWSC_OK);
  cwsc_child* child = reinterpret_cast<cwsc_child*>(1);
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_spawn(plan, recorded, nullptr, &child, &d), CWSC_E_USAGE);
  EXPECT_EQ(child, nullptr);
  EXPECT_STREQ(cwsc_diagnostics_render(d),
               "error: cwsc_spawn rechecks the plan against the running host: give it live facts "
               "(cwsc_facts_live) or NULL, not recorded ones\n");
  cwsc_diagnostics_free(d);
  cwsc_plan_free(plan);
  cwsc_options_free(options);
  cwsc_facts_free(recorded);
}

TEST(SpawnApi, BadArgumentsAreUsageErrors) {
  cwsc_diagnostics* d = nullptr;
  cwsc_child* child = nullptr;
  EXPECT_EQ(cwsc_spawn(nullptr, nullptr, nullptr, &child, &d), CWSC_E_USAGE);
  EXPECT_STREQ(cwsc_diagnostics_render(d), "error: plan must not be NULL\n");
  cwsc_diagnostics_free(d);
  cwsc_spawn_options* so = cwsc_spawn_options_new();
  EXPECT_EQ(cwsc_spawn_options_set_timeout(so, -1, 2), CWSC_E_USAGE);
  EXPECT_EQ(cwsc_spawn_options_set_timeout(so, 0.0 / 0.0, 2), CWSC_E_USAGE);
  EXPECT_EQ(cwsc_spawn_options_set_stdio(so, -2, 1, 2), CWSC_E_USAGE);
  const char* env[] = {"A=1", nullptr};
  EXPECT_EQ(cwsc_spawn_options_set_env(so, env, 2), CWSC_E_USAGE);
  EXPECT_EQ(cwsc_spawn_options_set_env(so, env, 1), CWSC_OK);
  cwsc_spawn_options_free(so);
  EXPECT_EQ(cwsc_child_wait(nullptr), CWSC_E_USAGE);
  EXPECT_EQ(cwsc_child_pid(nullptr), -1);
  EXPECT_EQ(cwsc_child_exit_code(nullptr), 0);
  cwsc_child_free(nullptr);
}

TEST(SpawnApi, AProgramThatCannotRunIsSaidSo) {
  TempDir dir("/var/tmp");
  std::string config = dir.path() + "/config.toml";
  WriteFile(config, "");
  cwsc_options* options = cwsc_options_new();
  cwsc_options_set_cwd(options, dir.path().c_str());
  cwsc_options_set_no_project_config(options, 1);
  cwsc_plan* plan = nullptr;
  // full-access: a `none` plan, so the program is executed by cwsc itself.
  ASSERT_EQ(cwsc_compile_file(config.c_str(), CWSC_FORMAT_AUTO, "full-access", nullptr, options,
                              &plan, nullptr),
            CWSC_OK);
  ASSERT_STREQ(cwsc_plan_kind(plan), "none");
  cwsc_spawn_options* so = cwsc_spawn_options_new();
  const char* program[] = {"/nonexistent/program"};
  cwsc_spawn_options_set_program(so, program, 1);
  cwsc_child* child = nullptr;
  cwsc_diagnostics* d = nullptr;
  EXPECT_EQ(cwsc_spawn(plan, nullptr, so, &child, &d), CWSC_E_REFUSED);
  ASSERT_EQ(cwsc_diagnostics_count(d), 1u);
  EXPECT_STREQ(cwsc_diagnostic_code(d, 0), "cannot-run");
  EXPECT_STREQ(cwsc_diagnostic_message(d, 0),
               "cannot run '/nonexistent/program': No such file or directory");
  cwsc_diagnostics_free(d);
  cwsc_spawn_options_free(so);
  cwsc_plan_free(plan);
  cwsc_options_free(options);
}

}  // namespace
