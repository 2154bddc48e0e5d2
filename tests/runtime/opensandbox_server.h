// TestServer starts tests/opensandbox/server.py on 127.0.0.1 (a free port)
// and stops it when destroyed (the server also exits when its stdin closes).
// Control() sets a fault mode for later requests; State() returns what the
// server saw.
#ifndef CWSC_TESTS_RUNTIME_OPENSANDBOX_SERVER_H_
#define CWSC_TESTS_RUNTIME_OPENSANDBOX_SERVER_H_

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ir/plan.h"

namespace cwsc::testing {

// kTestKey is the secret every test uses; no output may ever contain it.
inline constexpr char kTestKey[] = "sk-cwsc-test-4f1e9b27c3d8a6";
inline constexpr char kTestExecdToken[] = "execd-token-91ab77c2e0";

class TestServer {
 public:
  // key: what the server expects (empty: no auth expected on the shim).
  // tls_dir: serve HTTPS with a self-signed certificate made there.
  explicit TestServer(const std::string& key = kTestKey,
                      const std::string& execd_token = kTestExecdToken,
                      const std::string& tls_dir = "");
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  bool ok() const { return port_ > 0; }
  int port() const { return port_; }
  std::string url() const;  // http://127.0.0.1:PORT

  void Control(const std::string& fault, double delay = 0, int pending_polls = 2,
               bool reset = true);
  nlohmann::json State();

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int port_ = 0;
};

// RemotePlan is a minimal opensandbox plan for `contract` at `url`.
ir::LaunchPlan RemotePlan(const std::string& contract, const std::string& url,
                          bool with_key = true);

}  // namespace cwsc::testing

#endif  // CWSC_TESTS_RUNTIME_OPENSANDBOX_SERVER_H_
