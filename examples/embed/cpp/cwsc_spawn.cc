// cwsc_spawn (C++): the C example's program on cwsc.hpp, the header-only
// C++ API (docs/embedding.md, "Running a plan"): compile against the live
// host, spawn with this program's environment given explicitly (the plan's
// allow-list filters it), forward Ctrl-C, exit as `cwsc run` exits.
//
//   c++ -std=c++17 cwsc_spawn.cc $(pkg-config --cflags --libs cwsc) -o cwsc_spawn
//   ./cwsc_spawn POLICY MODE [--timeout SECONDS] -- PROGRAM ARGS...
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cwsc.hpp"

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " POLICY MODE [--timeout SECONDS] -- PROGRAM ARGS...\n";
    return 2;
  }
  double timeout = 0;
  std::vector<std::string> program;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--timeout" && i + 1 < argc) {
      timeout = std::atof(argv[++i]);
    } else if (a == "--") {
      program.assign(argv + i + 1, argv + argc);
      break;
    }
  }
  if (program.empty()) {
    std::cerr << argv[0] << ": no program after --\n";
    return 2;
  }
  sigset_t forwarded;
  sigemptyset(&forwarded);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    sigaddset(&forwarded, s);
    std::signal(s, SIG_DFL);  // a shell's background job starts with SIGINT ignored
  }
  sigprocmask(SIG_BLOCK, &forwarded, nullptr);
  int sfd = signalfd(-1, &forwarded, SFD_CLOEXEC);

  cwsc::Facts facts = cwsc::Facts::Live();
  cwsc::Result<cwsc::Policy> policy = cwsc::Policy::LoadFile(argv[1]);
  if (!policy) {
    std::cerr << policy.diagnostics().Render();
    return 2;
  }
  cwsc::Result<cwsc::Plan> plan = policy->Compile(argv[2], &facts);
  if (!plan) {
    std::cerr << plan.diagnostics().Render();
    return 2;
  }
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  cwsc::SpawnOptions options;
  options.Program(program).Env(env).Stdio(0, 1, 2);
  if (timeout > 0) options.Timeout(timeout);
  cwsc::Result<cwsc::Child> child = plan->Spawn(options, &facts);
  std::cerr << child.diagnostics().Render();  // why nothing ran, or warnings
  if (!child) return 125;

  std::optional<cwsc::ChildResult> result;
  while (!result) {
    pollfd fds[2] = {{sfd, POLLIN, 0}, {child->Pidfd(), POLLIN, 0}};
    poll(fds, 2, fds[1].fd >= 0 ? -1 : 100);  // a signal to forward, or the child ended
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo si;
      if (read(sfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        child->Signal(static_cast<int>(si.ssi_signo));
      }
    }
    result = child->WaitFor(0);
  }
  if (result->timed_out) std::cerr << argv[0] << ": timed out after " << timeout << " s\n";
  if (result->sandbox_denied)
    std::cerr << argv[0] << ": sandbox denied: " << result->denial_message << "\n";
  return result->exit_code;
}
