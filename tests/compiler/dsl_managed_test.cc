// A managed config written in the DSL (a managed path ending in .cwsp): it
// may set `launcher`, its settings carry managed origins, and it yields the
// same plan as the equivalent managed config.toml, launcher included.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "absl/strings/str_replace.h"
#include "compiler/compile.h"
#include "ir/plan_json.h"

namespace cwsc::compiler {
namespace {

constexpr char kTomlPath[] = "/etc/codewhale/managed.toml";
constexpr char kDslPath[] = "/etc/codewhale/managed.cwsp";

// Facts: engine user dev, launcher user agent (uid 998), a root-owned managed
// file named by CODEWHALE_MANAGED_CONFIG_PATH, workspace /home/dev/ws.
std::string Facts(const std::string& managed_path, const std::string& managed_text) {
  std::map<std::string, std::string> dirs = {
      {"/", "0755"},    {"/etc", "0755"}, {"/etc/codewhale", "0755"}, {"/home", "0755"},
      {"/tmp", "1777"}, {"/usr", "0755"}, {"/usr/bin", "0755"}};
  std::string y =
      "cwsc_facts: 1\nplatform: linux\n"
      "user: {uid: 1000, gid: 1000, groups: [27, 1000], name: dev, home: /home/dev}\n"
      "cwd: \"/home/dev/ws\"\nenv:\n  HOME: \"/home/dev\"\n"
      "  CODEWHALE_MANAGED_CONFIG_PATH: \"" +
      managed_path + "\"\npaths:\n";
  for (const auto& [p, mode] : dirs) {
    y += "  \"" + p + "\": {type: directory, canonical: \"" + p + "\", mode: \"" + mode +
         "\", uid: 0, gid: 0}\n";
  }
  y += "  \"/home/dev\": {type: directory, canonical: \"/home/dev\", mode: \"0755\", uid: 1000, "
       "gid: 1000}\n"
       "  \"/home/dev/ws\": {type: directory, canonical: \"/home/dev/ws\", mode: \"0777\", uid: "
       "1000, gid: 1000}\n"
       "  \"/usr/bin/bwrap\": {type: file, canonical: \"/usr/bin/bwrap\", mode: \"0755\", uid: 0, "
       "gid: 0}\n"
       "  \"/usr/bin/sudo\": {type: file, canonical: \"/usr/bin/sudo\", mode: \"4755\", uid: 0, "
       "gid: 0}\n"
       "  \"" +
       managed_path + "\": {type: file, canonical: \"" + managed_path +
       "\", mode: \"0644\", uid: 0, gid: 0}\n";
  std::string esc;
  for (char c : managed_text)
    esc += c == '\n' ? std::string("\\n") : c == '"' ? std::string("\\\"") : std::string(1, c);
  y += "files:\n  \"" + managed_path + "\": \"" + esc + "\"\n";
  y += "bwrap_probe: {ran: true, ok: true, exit_code: 0, message: \"\"}\n";
  y += "launcher_probe: {ran: true, ok: true, uid: 998, gids: [998], message: \"\"}\n";
  return y;
}

class TempFile {
 public:
  TempFile(const std::string& text, const std::string& suffix) {
    char tmpl[] = "/tmp/cwsc-dsl-managed-XXXXXX";
    int fd = mkstemp(tmpl);
    close(fd);
    unlink(tmpl);
    path_ = std::string(tmpl) + suffix;
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

absl::StatusOr<CompileResult> CompileWith(const std::string& managed_path,
                                          const std::string& managed_text) {
  TempFile user("policy user {\n  mode workspace-write;\n}\n", ".cwsp");
  auto facts = ParseRecordedFacts(Facts(managed_path, managed_text), "facts.yaml");
  if (!facts.ok()) return facts.status();
  CompileOptions o;
  o.config_path = user.path();
  return CompileConfig(o, facts->get());
}

const char kManagedToml[] =
    "sandbox_mode = \"workspace-write\"\n"
    "sandbox_network_access = false\n"
    "prefer_bwrap = true\n"
    "tool_launcher = [\"/usr/bin/sudo\", \"-n\", \"-u\", \"agent\", \"--\"]\n";
const char kManagedDsl[] =
    "# Fleet policy, root-owned.\n"
    "policy fleet {\n"
    "  mode workspace-write;\n"
    "  network off;\n"
    "  wrapper bwrap prefer on;\n"
    "  launcher [\"/usr/bin/sudo\", \"-n\", \"-u\", \"agent\", \"--\"];\n"
    "}\n";

TEST(DslManaged, LauncherFromAManagedPolicy) {
  absl::StatusOr<CompileResult> r = CompileWith(kDslPath, kManagedDsl);
  ASSERT_TRUE(r.ok()) << r.status();
  const ir::LaunchPlan& p = r->plan;
  ASSERT_EQ(p.kind(), ir::PlanKind::kLauncherBwrap) << (p.refusal() ? p.refusal()->reason : "");
  EXPECT_EQ(p.bwrap()->launcher,
            (std::vector<std::string>{"/usr/bin/sudo", "-n", "-u", "agent", "--"}));
  ASSERT_TRUE(r->merged.tool_launcher.has_value());
  EXPECT_EQ(r->merged.tool_launcher->origin.Describe(),
            "managed launcher at /etc/codewhale/managed.cwsp:6:3");
}

TEST(DslManaged, SamePlanAsManagedToml) {
  absl::StatusOr<CompileResult> dsl = CompileWith(kDslPath, kManagedDsl);
  absl::StatusOr<CompileResult> toml = CompileWith(kTomlPath, kManagedToml);
  ASSERT_TRUE(dsl.ok()) << dsl.status();
  ASSERT_TRUE(toml.ok()) << toml.status();
  // Erase where each origin points; keep which layer and which setting.
  auto normalize = [](ir::LaunchPlan p) {
    std::string json = *ir::PlanToJson(p);
    return json;
  };
  std::string a = normalize(toml->plan);
  std::string b = normalize(dsl->plan);
  // The DSL spells settings by statement and points into the .cwsp file.
  b = absl::StrReplaceAll(b,
                          {{kDslPath, kTomlPath},
                           {"\"detail\": \"launcher\"", "\"detail\": \"tool_launcher\""},
                           {"\"detail\": \"mode\"", "\"detail\": \"sandbox_mode\""},
                           {"\"detail\": \"network\"", "\"detail\": \"sandbox_network_access\""},
                           {"\"detail\": \"wrapper bwrap prefer\"", "\"detail\": \"prefer_bwrap\""},
                           {"launcher at", "tool_launcher at"}});
  // Positions differ by construction; strip them on both sides.
  auto strip_positions = [](std::string s) {
    std::string out;
    std::istringstream in(s);
    for (std::string line; std::getline(in, line);) {
      if (line.find("\"line\":") != std::string::npos ||
          line.find("\"col\":") != std::string::npos) {
        continue;
      }
      out += line + "\n";
    }
    return out;
  };
  EXPECT_EQ(strip_positions(a), strip_positions(b));
  // Not vacuous: the managed settings are in the compared text.
  EXPECT_NE(a.find("\"kind\": \"managed\""), std::string::npos) << a;
  EXPECT_NE(a.find("/usr/bin/sudo"), std::string::npos);
  EXPECT_EQ(dsl->plan.kind(), ir::PlanKind::kLauncherBwrap);
}

TEST(DslManaged, ManagedPolicyWithErrorsIsReported) {
  absl::StatusOr<CompileResult> r =
      CompileWith(kDslPath, "policy fleet {\n  launcher [\"/usr/bin/sudo\", \"\"];\n}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "/etc/codewhale/managed.cwsp:2:30: error: empty launcher argument\n"
            "    launcher [\"/usr/bin/sudo\", \"\"];\n"
            "                               ^\n");
}

}  // namespace
}  // namespace cwsc::compiler
