// Test helpers for launcher plans compiled from recorded facts: Host writes a
// facts document (engine user dev, launcher user agent, a root-owned managed
// file at the default path) and the helpers compile a user config against it.
#ifndef CWSC_TESTS_COMPILER_LAUNCHER_FIXTURE_H_
#define CWSC_TESTS_COMPILER_LAUNCHER_FIXTURE_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/bwrap.h"
#include "compiler/compile.h"
#include "compiler/facts/host_facts.h"
#include "ir/validate.h"

namespace cwsc::compiler::launcher_testing {

using ir::LaunchPlan;
using ir::PlanKind;

inline constexpr char kManaged[] = "/etc/codewhale/managed_config.toml";
inline constexpr char kLauncher[] = "[\"/usr/bin/sudo\", \"-n\", \"-u\", \"agent\", \"--\"]";

// Host is a recorded-facts document: engine user dev (uid 1000, groups 1000
// and 27), launcher user agent (uid 998), a root-owned managed file at the
// default path, workspace /home/dev/ws.
class Host {
 public:
  Host() {
    Dir("/", 0, 0, "0755");
    Dir("/etc", 0, 0, "0755");
    Dir("/etc/codewhale", 0, 0, "0755");
    Dir("/home", 0, 0, "0755");
    Dir("/home/dev", 1000, 1000, "0755");
    Dir("/home/dev/ws", 1000, 1000, "0777");
    Dir("/tmp", 0, 0, "1777");
    Dir("/usr", 0, 0, "0755");
    Dir("/usr/bin", 0, 0, "0755");
    File("/usr/bin/bwrap", 0, 0, "0755");
    File("/usr/bin/sudo", 0, 0, "4755");
    env_["HOME"] = "\"/home/dev\"";
    Managed(
        "sandbox_mode = \"workspace-write\"\nsandbox_network_access = false\n"
        "tool_launcher = " +
        std::string(kLauncher) + "\n");
  }
  Host& Dir(const std::string& p, int uid, int gid, const std::string& mode,
            const std::string& canon = "", bool symlink = false) {
    return Entry(p, "directory", uid, gid, mode, canon, symlink);
  }
  Host& File(const std::string& p, int uid, int gid, const std::string& mode,
             const std::string& canon = "", bool symlink = false) {
    return Entry(p, "file", uid, gid, mode, canon, symlink);
  }
  Host& Managed(const std::string& text, const std::string& path = kManaged) {
    File(path, 0, 0, "0644");
    files_[path] = text;
    return *this;
  }
  Host& Content(const std::string& path, const std::string& text) {
    files_[path] = text;
    return *this;
  }
  Host& Env(const std::string& k, const std::string& v) {
    env_[k] = "\"" + v + "\"";
    return *this;
  }
  Host& User(const std::string& u) {
    user_ = u;
    return *this;
  }
  Host& Platform(const std::string& p) {
    platform_ = p;
    return *this;
  }
  Host& LauncherProbe(const std::string& record) {
    launcher_ = record;
    return *this;
  }
  std::string Yaml() const {
    std::string y = "cwsc_facts: 1\nplatform: " + platform_ + "\nuser: " + user_ +
                    "\ncwd: \"/home/dev/ws\"\nenv:\n";
    for (const auto& [k, v] : env_) y += "  " + k + ": " + v + "\n";
    y += "paths:\n";
    for (const auto& [k, v] : paths_) y += "  \"" + k + "\": " + v + "\n";
    y += "files:\n";
    for (const auto& [k, v] : files_) {
      std::string esc;
      for (char c : v)
        esc += c == '\n' ? std::string("\\n") : c == '"' ? std::string("\\\"") : std::string(1, c);
      y += "  \"" + k + "\": \"" + esc + "\"\n";
    }
    y += "bwrap_probe: {ran: true, ok: true, exit_code: 0, message: \"\"}\n";
    if (!launcher_.empty()) y += "launcher_probe: " + launcher_ + "\n";
    return y;
  }
  std::unique_ptr<HostFacts> Build() const {
    auto f = ParseRecordedFacts(Yaml(), "launcher-facts.yaml");
    EXPECT_TRUE(f.ok()) << f.status() << "\n" << Yaml();
    return f.ok() ? *std::move(f) : nullptr;
  }

 private:
  Host& Entry(const std::string& p, const std::string& type, int uid, int gid,
              const std::string& mode, const std::string& canon, bool symlink) {
    paths_[p] = "{type: " + type + (symlink ? ", symlink: true" : "") + ", canonical: \"" +
                (canon.empty() ? p : canon) + "\", mode: \"" + mode +
                "\", uid: " + std::to_string(uid) + ", gid: " + std::to_string(gid) + "}";
    return *this;
  }
  std::string platform_ = "linux";
  std::string user_ = "{uid: 1000, gid: 1000, groups: [27, 1000], name: dev, home: /home/dev}";
  std::map<std::string, std::string> env_, paths_, files_;
  std::string launcher_ = "{ran: true, ok: true, uid: 998, gids: [998], message: \"\"}";
};

class TempConfig {
 public:
  explicit TempConfig(const std::string& text) {
    char tmpl[] = "/tmp/cwsc-launcher-test-XXXXXX";
    int fd = mkstemp(tmpl);
    close(fd);
    path_ = tmpl;
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << text;
  }
  ~TempConfig() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Options {
  Options(std::string config = "") : user_config(std::move(config)) {}  // NOLINT: implicit
  std::string user_config;
  std::string mode = "ask";
  std::optional<std::string> escalate;
  bool project = true;
};

inline absl::StatusOr<CompileResult> Compile(const Host& host, const Options& opt = {}) {
  TempConfig cfg(opt.user_config);
  auto facts = host.Build();
  CompileOptions o;
  o.config_path = cfg.path();
  o.mode = opt.mode;
  o.escalate = opt.escalate;
  o.read_project_config = opt.project;
  return CompileConfig(o, facts.get());
}

// Plan compiles and holds the plan to the rules `cwsc exec` reads plans by
// (ir/validate.h) in every build, not only in the debug builds where the
// compiler checks itself.
inline LaunchPlan Plan(const Host& host, const Options& opt = {}) {
  auto r = Compile(host, opt);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return LaunchPlan{};
  for (const ir::PlanProblem& p : ir::Validate(r->plan)) {
    ADD_FAILURE() << "invalid plan: " << p.pointer << ": " << p.message;
  }
  return r->plan;
}

inline std::string Refusal(const Host& host, const Options& opt = {}) {
  LaunchPlan p = Plan(host, opt);
  EXPECT_EQ(p.kind(), PlanKind::kRefused);
  EXPECT_TRUE(p.mounts().empty());
  return p.refusal() ? p.refusal()->reason : "";
}

inline std::string Argv(const LaunchPlan& p, const std::vector<std::string>& program = {"id"}) {
  auto argv = backends::EmitBwrapArgv(p, program);
  EXPECT_TRUE(argv.ok()) << argv.status();
  std::string out;
  if (!argv.ok()) return out;
  for (const auto& a : *argv) out += (out.empty() ? "" : " ") + a.text;
  return out;
}

inline bool HasWarning(const LaunchPlan& p, const std::string& code) {
  for (const auto& w : p.warnings) {
    if (w.code == code) return true;
  }
  return false;
}

// WarningText joins the messages of every warning with `code`.
inline std::string WarningText(const LaunchPlan& p, const std::string& code) {
  std::string out;
  for (const auto& w : p.warnings) {
    if (w.code == code) out += (out.empty() ? "" : "\n") + w.message;
  }
  return out;
}

}  // namespace cwsc::compiler::launcher_testing

#endif  // CWSC_TESTS_COMPILER_LAUNCHER_FIXTURE_H_
