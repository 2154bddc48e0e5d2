// FactsBuilder writes a recorded-facts YAML document for tests and loads it
// through the real reader, so tests exercise the documented facts format.
#ifndef CWSC_TESTS_COMPILER_TEST_FACTS_H_
#define CWSC_TESTS_COMPILER_TEST_FACTS_H_

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "compiler/compile.h"
#include "compiler/facts/host_facts.h"

namespace cwsc::testing {

class FactsBuilder {
 public:
  FactsBuilder() {
    Dir("/home/dev");
    Dir("/home/dev/ws");
    Dir("/tmp", "", "1777");
    File("/usr/bin/bwrap", "", "0755");
    env_["HOME"] = "\"/home/dev\"";
  }
  FactsBuilder& Platform(std::string p) {
    platform_ = std::move(p);
    return *this;
  }
  FactsBuilder& Cwd(std::string c) {
    cwd_ = std::move(c);
    return *this;
  }
  // AsRoot: the engine runs as uid 0 (home stays /home/dev for the tests' paths).
  FactsBuilder& AsRoot() {
    user_ = "{uid: 0, gid: 0, groups: [0], name: root, home: /home/dev}";
    return *this;
  }
  FactsBuilder& Dir(const std::string& p, const std::string& canon = "",
                    const std::string& mode = "0755", int uid = 1000) {
    return Entry(p, "directory", canon.empty() ? p : canon, mode, uid,
                 canon.size() > 0 && canon != p);
  }
  FactsBuilder& File(const std::string& p, const std::string& canon = "",
                     const std::string& mode = "0644", int uid = 1000) {
    return Entry(p, "file", canon.empty() ? p : canon, mode, uid, canon.size() > 0 && canon != p);
  }
  // Through records a path reached through a symlink in an ancestor: not a
  // symlink itself, but canonical elsewhere.
  FactsBuilder& Through(const std::string& p, const std::string& canon,
                        const std::string& type = "directory") {
    return Entry(p, type, canon, "0755", 1000, false);
  }
  // Link records a symlink at `p` whose content is `target` and which
  // resolves to `canon` (of type `type`; "missing" when dangling).
  FactsBuilder& Link(const std::string& p, const std::string& target, const std::string& canon,
                     const std::string& type = "directory", int uid = 1000) {
    Entry(p, type, canon, "0777", uid, true);
    if (type == "missing") paths_[p] = "{type: missing, symlink: true}";
    paths_[p].insert(paths_[p].size() - 1, ", target: \"" + target + "\"");
    return *this;
  }
  FactsBuilder& Device(const std::string& p, const std::string& type = "char-device") {
    return Entry(p, type, p, "0666", 0, false);
  }
  FactsBuilder& Missing(const std::string& p) {
    paths_[p] = "{type: missing}";
    return *this;
  }
  FactsBuilder& Env(const std::string& k, const std::string& v) {
    env_[k] = "\"" + v + "\"";
    return *this;
  }
  FactsBuilder& Content(const std::string& p, const std::string& content) {
    files_[p] = content;
    return *this;
  }
  FactsBuilder& Probe(bool ok, const std::string& message = "") {
    probe_ = std::string("{ran: true, ok: ") + (ok ? "true" : "false") +
             ", exit_code: " + (ok ? "0" : "1") + ", message: \"" + message + "\"}";
    return *this;
  }

  FactsBuilder& Landlock(int abi) {
    landlock_ = abi;
    return *this;
  }

  std::string Yaml() const {
    std::string y = "cwsc_facts: 1\nplatform: " + platform_ + "\nuser: " + user_ +
                    "\n"
                    "cwd: \"" +
                    cwd_ + "\"\nenv:\n";
    for (const auto& [k, v] : env_) y += "  " + k + ": " + v + "\n";
    y += "paths:\n";
    for (const auto& [k, v] : paths_) y += "  \"" + k + "\": " + v + "\n";
    if (!files_.empty()) {
      y += "files:\n";
      for (const auto& [k, v] : files_) {
        std::string esc;
        for (char c : v)
          esc += c == '\n'  ? std::string("\\n")
                 : c == '"' ? std::string("\\\"")
                            : std::string(1, c);
        y += "  \"" + k + "\": \"" + esc + "\"\n";
      }
    }
    y += "bwrap_probe: " + probe_ + "\n";
    if (landlock_ >= 0) y += "landlock_abi: " + std::to_string(landlock_) + "\n";
    return y;
  }

  std::unique_ptr<compiler::HostFacts> Build() const {
    auto f = compiler::ParseRecordedFacts(Yaml(), "test-facts.yaml");
    if (!f.ok()) {
      std::fprintf(stderr, "bad test facts: %s\n%s", std::string(f.status().message()).c_str(),
                   Yaml().c_str());
      std::abort();
    }
    return *std::move(f);
  }

 private:
  FactsBuilder& Entry(const std::string& p, const std::string& type, const std::string& canon,
                      const std::string& mode, int uid, bool symlink) {
    paths_[p] = "{type: " + type + (symlink ? ", symlink: true" : "") + ", canonical: \"" + canon +
                "\", mode: \"" + mode + "\", uid: " + std::to_string(uid) +
                ", gid: " + std::to_string(uid) + "}";
    return *this;
  }

  std::string platform_ = "linux";
  std::string cwd_ = "/home/dev/ws";
  std::string user_ = "{uid: 1000, gid: 1000, groups: [1000], name: dev, home: /home/dev}";
  std::map<std::string, std::string> env_, paths_, files_;
  std::string probe_ = "{ran: true, ok: true, exit_code: 0, message: \"\"}";
  int landlock_ = -1;
};

// ConfigFile writes a config to a fresh temporary file, removed on destruction.
class ConfigFile {
 public:
  explicit ConfigFile(const std::string& text, const std::string& suffix = ".toml") {
    char tmpl[] = "/tmp/cwsc-config-XXXXXX";
    int fd = mkstemp(tmpl);
    close(fd);
    unlink(tmpl);
    path_ = std::string(tmpl) + suffix;
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~ConfigFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// CompileText compiles config text against facts for a mode.
inline absl::StatusOr<compiler::CompileResult> CompileText(const std::string& config,
                                                           const FactsBuilder& facts,
                                                           const std::string& mode = "ask") {
  ConfigFile file(config);
  auto f = facts.Build();
  compiler::CompileOptions o;
  o.config_path = file.path();
  o.mode = mode;
  return compiler::CompileConfig(o, f.get());
}

}  // namespace cwsc::testing

#endif  // CWSC_TESTS_COMPILER_TEST_FACTS_H_
