#include "tests/runtime/opensandbox_server.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "runtime/http_client.h"
#include "tests/runtime/proc_helpers.h"

extern char** environ;

namespace cwsc::testing {

TestServer::TestServer(const std::string& key, const std::string& execd_token,
                       const std::string& tls_dir) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) return;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, in[1]);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  std::vector<std::string> env_store;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string v = *e;
    if (v.rfind("CWSC_TEST_", 0) != 0) env_store.push_back(v);
  }
  env_store.push_back("CWSC_TEST_KEY=" + key);
  env_store.push_back("CWSC_TEST_EXECD_TOKEN=" + execd_token);
  std::vector<char*> envp;
  for (std::string& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string script = SourceRoot() + "/tests/opensandbox/server.py";
  std::vector<std::string> argv_store = {"python3", script, "--max-seconds", "600"};
  if (!tls_dir.empty()) {
    argv_store.push_back("--tls-dir");
    argv_store.push_back(tls_dir);
  }
  std::vector<char*> argv;
  for (std::string& s : argv_store) argv.push_back(s.data());
  argv.push_back(nullptr);
  int rc = posix_spawnp(&pid_, "python3", &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  stdin_fd_ = in[1];
  if (rc != 0) {
    pid_ = -1;
    close(out[0]);
    return;
  }
  std::string line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
  close(out[0]);
  port_ = std::atoi(line.c_str());
}

TestServer::~TestServer() {
  if (stdin_fd_ >= 0) close(stdin_fd_);  // the server exits on EOF
  if (pid_ > 0) {
    int status = 0;
    for (int i = 0; i < 200; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) return;
      usleep(10000);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
}

std::string TestServer::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

void TestServer::Control(const std::string& fault, double delay, int pending_polls, bool reset) {
  nlohmann::json body{
      {"fault", fault}, {"delay", delay}, {"pending_polls", pending_polls}, {"reset", reset}};
  runtime::HttpRequest req{"POST", url() + "/_control", {}, body.dump()};
  (void)runtime::HttpSend(req, runtime::HttpOptions{});
}

nlohmann::json TestServer::State() {
  runtime::HttpRequest req{"GET", url() + "/_state", {}, ""};
  auto r = runtime::HttpSend(req, runtime::HttpOptions{});
  if (!r.ok()) return nlohmann::json();
  return nlohmann::json::parse(r->body, nullptr, false);
}

ir::LaunchPlan RemotePlan(const std::string& contract, const std::string& url, bool with_key) {
  ir::LaunchPlan plan;
  plan.platform = ir::Platform::kLinux;
  plan.permission_mode = ir::PermissionMode::kAsk;
  plan.policy.type = ir::PolicyType::kWorkspaceWrite;
  plan.policy.writable_roots = {"/home/dev/proj"};
  plan.cwd = "/home/dev/proj";
  ir::Remote rm;
  rm.contract = contract == "execd"       ? ir::Contract::kExecd
                : contract == "lifecycle" ? ir::Contract::kLifecycle
                                          : ir::Contract::kCodewhale;
  rm.url = url;
  rm.url_origin = ir::Origin::Config("sandbox_url", "cfg.toml", 2, 1);
  if (with_key) rm.api_key = {ir::ApiKeySource::Kind::kEnv, "CWSC_TEST_OPENSANDBOX_KEY", {}};
  rm.image = "debian:12";
  rm.not_enforced = {"writes limited to the writable roots (/home/dev/proj)"};
  plan.launch = std::move(rm);
  return plan;
}

}  // namespace cwsc::testing
