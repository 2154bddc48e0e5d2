// lib_launch: the launch overhead of the embedded fast path against bare
// bwrap (docs/performance.md, "Embedded launches"). One process holds the
// parsed policy and a live facts handle; per launch it compiles through
// libcwsc, takes the bwrap argv and the seccomp program (into a memfd on fd
// 3), spawns bwrap (posix_spawn) and waits. Bare bwrap runs the argv computed once,
// its seccomp program from a file on fd 3, the way bench/run_overhead.sh
// runs it. A third launcher compiles and runs the plan through cwsc_spawn,
// which adds every exec-time check of `cwsc run`. All run /bin/true,
// interleaved so they see the same machine load; `cwsc run` joins them when
// its binary is given.
//
//   build/bench/lib_launch [RUNS] [CWSC_BINARY]
//
// Prints the median wall time per launch of each and the ratios; exit 1 when
// a launch fails.
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cwsc.h"

namespace {

double NowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Spawn runs argv with `bpf_fd` as fd 3 (when >= 0), stdio on /dev/null,
// in `dir`, through posix_spawn (glibc: clone with CLONE_VM|CLONE_VFORK, so
// the cost does not grow with the parent's memory, as an engine would
// spawn); returns the exit status (-1 when it could not start).
int Spawn(const char* const* argv, int bpf_fd, const std::string& dir) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  if (bpf_fd >= 0) {
    lseek(bpf_fd, 0, SEEK_SET);
    // dup2 onto itself clears close-on-exec (glibc >= 2.29 does so for fd 3 too).
    posix_spawn_file_actions_adddup2(&fa, bpf_fd, 3);
  }
  posix_spawn_file_actions_addchdir_np(&fa, dir.c_str());
  pid_t pid = -1;
  int err = posix_spawn(&pid, argv[0], &fa, nullptr, const_cast<char* const*>(argv), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// CpuMs is the CPU time (user + system) of this process and its waited-for
// children so far: wall time on a busy machine grows with the load, CPU time
// far less.
double CpuMs() {
  double ms = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    getrusage(who, &u);
    ms += (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
          (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
  }
  return ms;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::string cwsc_bin = argc > 2 ? argv[2] : "";
  char tmpl[] = "/var/tmp/cwsc-liblaunch-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string ws = dir + "/ws", config = dir + "/config.toml";
  mkdir(ws.c_str(), 0755);
  std::ofstream(config) << "";

  cwsc_policy* policy = nullptr;
  cwsc_diagnostics* d = nullptr;
  if (cwsc_policy_load_file(config.c_str(), CWSC_FORMAT_AUTO, nullptr, &policy, &d) != CWSC_OK) {
    std::fputs(cwsc_diagnostics_render(d), stderr);
    return 1;
  }
  cwsc_diagnostics_free(d);
  cwsc_facts* facts = cwsc_facts_live();
  cwsc_options* options = cwsc_options_new();
  cwsc_options_set_cwd(options, ws.c_str());
  const char* program[] = {"/bin/true"};
  cwsc_options_set_program(options, program, 1);

  // One launch through the library; compile_ms gets the library's share.
  double compile_ms = 0;
  auto lib_launch = [&]() -> int {
    double t0 = NowMs();
    cwsc_plan* plan = nullptr;
    if (cwsc_compile(policy, "ask", facts, options, &plan, nullptr) != CWSC_OK) return -1;
    cwsc_argv* a = nullptr;
    char* bpf = nullptr;
    size_t len = 0;
    int rc = -1;
    if (cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &a, nullptr) == CWSC_OK &&
        cwsc_plan_seccomp_bpf(plan, &bpf, &len, nullptr) == CWSC_OK) {
      int fd = memfd_create("cwsc-seccomp", MFD_CLOEXEC);
      if (fd >= 0 && write(fd, bpf, len) == static_cast<ssize_t>(len)) {
        compile_ms = NowMs() - t0;
        rc = Spawn(cwsc_argv_data(a), fd, ws);
      }
      if (fd >= 0) close(fd);
    }
    cwsc_string_free(bpf);
    cwsc_argv_free(a);
    cwsc_plan_free(plan);
    return rc;
  };

  // Bare bwrap: the same argv and program, computed once.
  std::vector<std::string> bare;
  std::string bpf_file = dir + "/filter.bpf";
  {
    cwsc_plan* plan = nullptr;
    cwsc_argv* a = nullptr;
    char* bpf = nullptr;
    size_t len = 0;
    if (cwsc_compile(policy, "ask", facts, options, &plan, nullptr) != CWSC_OK ||
        cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &a, nullptr) != CWSC_OK ||
        cwsc_plan_seccomp_bpf(plan, &bpf, &len, nullptr) != CWSC_OK) {
      std::fputs("lib_launch: the workspace does not compile to a bwrap plan\n", stderr);
      return 1;
    }
    for (size_t i = 0; i < cwsc_argv_count(a); ++i) bare.push_back(cwsc_argv_at(a, i));
    std::ofstream(bpf_file, std::ios::binary).write(bpf, static_cast<std::streamsize>(len));
    cwsc_string_free(bpf);
    cwsc_argv_free(a);
    cwsc_plan_free(plan);
  }
  std::vector<const char*> bare_argv;
  for (const std::string& s : bare) bare_argv.push_back(s.c_str());
  bare_argv.push_back(nullptr);
  auto bare_launch = [&]() -> int {
    int fd = open(bpf_file.c_str(), O_RDONLY | O_CLOEXEC);
    int rc = Spawn(bare_argv.data(), fd, ws);
    if (fd >= 0) close(fd);
    return rc;
  };
  const std::vector<std::string> run_argv_s = {cwsc_bin, "run", config, "--mode",   "ask",
                                               "--cwd",  ws,    "--",   "/bin/true"};
  std::vector<const char*> run_argv;
  for (const std::string& s : run_argv_s) run_argv.push_back(s.c_str());
  run_argv.push_back(nullptr);
  auto cli_launch = [&]() -> int { return Spawn(run_argv.data(), -1, ws); };

  // The library running the plan itself (cwsc_spawn): every exec-time check
  // and hardening of `cwsc run`, no cwsc process.
  cwsc_spawn_options* spawn_options = cwsc_spawn_options_new();
  const char* env[] = {"PATH=/usr/local/bin:/usr/bin:/bin"};
  cwsc_spawn_options_set_env(spawn_options, env, 1);
  auto spawn_launch = [&]() -> int {
    cwsc_plan* plan = nullptr;
    if (cwsc_compile(policy, "ask", facts, options, &plan, nullptr) != CWSC_OK) return -1;
    cwsc_child* child = nullptr;
    int rc = -1;
    cwsc_diagnostics* diags = nullptr;
    if (cwsc_spawn(plan, facts, spawn_options, &child, &diags) == CWSC_OK) {
      cwsc_child_wait(child);
      rc = cwsc_child_exit_code(child);
    } else {
      std::fputs(cwsc_diagnostics_render(diags), stderr);
    }
    cwsc_diagnostics_free(diags);
    cwsc_child_free(child);
    cwsc_plan_free(plan);
    return rc;
  };

  std::vector<std::function<int()>> launchers = {bare_launch, lib_launch, spawn_launch};
  if (!cwsc_bin.empty()) launchers.push_back(cli_launch);
  std::vector<std::vector<double>> times(launchers.size()), cpu(launchers.size());
  std::vector<double> compile_times;
  for (int i = 0; i < 10 + runs; ++i) {  // 10 warm-up rounds, then rotating order
    for (size_t k = 0; k < launchers.size(); ++k) {
      size_t j = (static_cast<size_t>(i) + k) % launchers.size();
      double t0 = NowMs(), c0 = CpuMs();
      int rc = launchers[j]();
      double took = NowMs() - t0, cpu_took = CpuMs() - c0;
      if (rc != 0) {
        std::fprintf(stderr, "lib_launch: launcher %zu failed (status %d)\n", j, rc);
        return 1;
      }
      if (i >= 10) {
        times[j].push_back(took);
        cpu[j].push_back(cpu_took);
        if (j == 1) compile_times.push_back(compile_ms);
      }
    }
  }
  // CPU time is counted in clock ticks of the kernel's accounting: its mean
  // over the runs is meaningful, a single launch's is not.
  auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? 0 : sum / static_cast<double>(v.size());
  };
  const double b = Median(times[0]), bc = mean(cpu[0]);
  std::printf(
      "| launch of /bin/true | runs | median wall ms | vs bare bwrap | mean CPU ms (self + "
      "children) | CPU vs bare |\n|---|---|---|---|---|---|\n");
  std::printf("| bare bwrap (argv computed once) | %d | %.2f | 1.00x | %.2f | 1.00x |\n", runs, b,
              bc);
  const char* names[] = {"", "libcwsc compile + spawn bwrap",
                         "libcwsc compile + cwsc_spawn (the checks of cwsc run)", "cwsc run"};
  for (size_t j = 1; j < launchers.size(); ++j) {
    const double w = Median(times[j]), c = mean(cpu[j]);
    std::printf("| %s | %d | %.2f | %.2fx (%+.2f ms) | %.2f | %.2fx (%+.2f ms) |\n", names[j], runs,
                w, w / b, w - b, c, c / bc, c - bc);
  }
  std::printf(
      "\nlibrary share per launch (compile, argv, seccomp program into a memfd): "
      "median %.3f ms\n",
      Median(compile_times));
  cwsc_spawn_options_free(spawn_options);
  cwsc_options_free(options);
  cwsc_facts_free(facts);
  cwsc_policy_free(policy);
  std::system(("rm -rf '" + dir + "'").c_str());
  return 0;
}
