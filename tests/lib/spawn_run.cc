// spawn_run: `cwsc run` rebuilt on libcwsc's C++ API, so the hostile-command
// suites (tests/escape/) can run every attack through cwsc_spawn as well as
// through `cwsc run` (CWSC_ESCAPE_DOOR=spawn; tests/meson.build). It is also
// the shape of an engine's launcher: compile once, spawn with an explicit
// environment, forward the signals it gets, exit as `cwsc run` exits.
//
//   spawn_run run CONFIG [--mode MODE] [--cwd DIR] [--linux-backend NAME]
//             [--timeout SECONDS] [--json -o FILE] -- PROGRAM ARGS...
//
// --json -o FILE writes cwsc_child_result_json to FILE at the end (the
// result object alone, not `cwsc run`'s whole report).
//
// Any other option exits 2 ("not supported by spawn_run"): a suite skips
// the cases that need one.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cwsc.h"
#include "cwsc.hpp"

extern char** environ;

namespace {

int Usage(const std::string& why) {
  std::fprintf(stderr, "spawn_run: %s\n", why.c_str());
  return 2;
}

// Say prints the diagnostics as `cwsc run` prints its refusals.
void Say(const cwsc::Diagnostics& diags) {
  for (size_t i = 0; i < diags.size(); ++i) {
    cwsc::Diagnostic d = diags[i];
    if (d.severity == CWSC_SEVERITY_WARNING) {
      std::fprintf(stderr, "cwsc: warning: %s\n", d.message.c_str());
    } else if (d.code == "refused" || d.code == "no-sandbox") {
      std::fprintf(stderr, "cwsc: refused: %s\n", d.message.c_str());
    } else {
      std::fprintf(stderr, "cwsc: %s\n", d.message.c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || std::strcmp(argv[1], "run") != 0) return Usage("usage: spawn_run run CONFIG ...");
  std::string config = argv[2], mode = "ask";
  cwsc::Options options;
  double timeout = 0;
  bool json = false;
  std::string json_file;
  int i = 3;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") break;
    if (a == "--json") {
      json = true;
      continue;
    }
    if (i + 1 >= argc) return Usage(a + ": needs a value");
    std::string v = argv[++i];
    if (a == "--mode") {
      mode = v;
    } else if (a == "--cwd") {
      options.Cwd(v);
    } else if (a == "--linux-backend") {
      options.LinuxBackend(v);
    } else if (a == "-o") {
      json_file = v;
    } else if (a == "--timeout") {
      timeout = std::atof(v.c_str());
    } else {
      return Usage(a + ": not supported by spawn_run");
    }
  }
  if (i + 1 >= argc) return Usage("no program after --");
  if (json != !json_file.empty()) return Usage("--json needs -o FILE here, and -o needs --json");
  std::vector<std::string> program(argv + i + 1, argv + argc);

  // The signals `cwsc run` forwards are taken by a thread and sent on.
  sigset_t forwarded;
  sigemptyset(&forwarded);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&forwarded, s);
  pthread_sigmask(SIG_BLOCK, &forwarded, nullptr);

  cwsc::Facts facts = cwsc::Facts::Live();
  cwsc::Result<cwsc::Policy> policy = cwsc::Policy::LoadFile(config, CWSC_FORMAT_AUTO, &options);
  if (!policy) {
    std::fputs(policy.diagnostics().Render().c_str(), stderr);
    return 2;
  }
  cwsc::Result<cwsc::Plan> plan = policy->Compile(mode, &facts, &options);
  if (!plan) {
    std::fputs(plan.diagnostics().Render().c_str(), stderr);
    return 2;
  }
  // The config reader's remarks, as `cwsc run` prints them.
  const cwsc::Diagnostics& remarks = plan.diagnostics();
  for (size_t k = 0; k < remarks.size(); ++k) {
    cwsc::Diagnostic d = remarks[k];
    if (d.file.empty() || d.severity == CWSC_SEVERITY_ERROR) continue;
    std::string where =
        d.line > 0 ? d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.col) : d.file;
    std::fprintf(stderr, "%s: %s: %s\n", where.c_str(),
                 d.severity == CWSC_SEVERITY_WARNING ? "warning" : "note", d.message.c_str());
  }
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  cwsc::SpawnOptions so;
  so.Program(program).Env(env).Stdio(0, 1, 2);
  if (timeout > 0) so.Timeout(timeout);
  cwsc::Result<cwsc::Child> child = plan->Spawn(so, &facts);
  Say(child.diagnostics());
  if (!child) {
    cwsc::Diagnostic d = child.diagnostics()[0];
    if (d.code == "no-sandbox") return 3;
    if (d.code == "cannot-run")
      return d.message.find("No such file") != std::string::npos ? 127 : 126;
    return 125;
  }
  cwsc_child* c = child->get();
  std::thread([&forwarded, c] {
    for (;;) {
      int sig = 0;
      if (sigwait(&forwarded, &sig) == 0) cwsc_child_signal(c, sig);
    }
  }).detach();
  cwsc::ChildResult r = child->Wait();
  if (r.timed_out) {
    std::fprintf(stderr, "cwsc: timed out after %g s; the command and its processes were ended\n",
                 timeout);
  } else if (r.sandbox_denied) {
    std::fprintf(stderr, "cwsc: sandbox denied: %s\n", r.denial_message.c_str());
  }
  if (json) {
    char* text = nullptr;
    size_t len = 0;
    if (cwsc_child_result_json(c, &text, &len, nullptr) != CWSC_OK) return Usage("no result");
    FILE* f = std::fopen(json_file.c_str(), "w");
    if (f == nullptr) return Usage("cannot write " + json_file);
    std::fwrite(text, 1, len, f);
    std::fclose(f);
    cwsc_string_free(text);
  }
  std::fflush(stderr);
  _exit(r.exit_code);  // the forwarding thread still waits
}
