// cwsc doctor: cause recognition for each common host problem (pure), and
// the live report on this host, in both output forms.
#include "runtime/doctor.h"

#include <algorithm>

#include "compiler/facts/host_facts.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/host/live_facts.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::runtime {
namespace {

using ::testing::HasSubstr;

compiler::PathInfo Bwrap(compiler::FileType type = compiler::FileType::kRegular,
                         uint32_t mode = 0755) {
  compiler::PathInfo p;
  p.type = type;
  p.mode = mode;
  p.canonical = "/usr/bin/bwrap";
  return p;
}

compiler::ProbeResult Failed(const std::string& message) { return {true, false, 1, message}; }

HostSignals BareMetal() {
  HostSignals h;
  h.uid_map = "0 0 4294967295";
  h.max_user_namespaces = "63000";
  h.uid = 1000;
  return h;
}

std::vector<std::string> Codes(const std::vector<Cause>& causes) {
  std::vector<std::string> out;
  for (const Cause& c : causes) out.push_back(c.code);
  return out;
}

TEST(DoctorCausesTest, MissingBinary) {
  auto c = DiagnoseWrapper(Bwrap(compiler::FileType::kMissing), {}, BareMetal());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], (Cause{"bwrap-missing", "/usr/bin/bwrap does not exist",
                         "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap); cwsc "
                         "runs /usr/bin/bwrap only and never searches PATH"}));
}

TEST(DoctorCausesTest, NotARegularExecutable) {
  auto c = DiagnoseWrapper(Bwrap(compiler::FileType::kRegular, 0644), {}, BareMetal());
  ASSERT_EQ(Codes(c), std::vector<std::string>{"bwrap-not-executable"});
  EXPECT_EQ(c[0].detail, "/usr/bin/bwrap is a regular file without an execute bit");
  c = DiagnoseWrapper(Bwrap(compiler::FileType::kDirectory), {}, BareMetal());
  EXPECT_EQ(c[0].detail, "/usr/bin/bwrap is a directory, not a regular file");
}

TEST(DoctorCausesTest, AppArmorRestriction) {
  HostSignals h = BareMetal();
  h.apparmor_restrict_userns = "1";
  auto c = DiagnoseWrapper(Bwrap(), Failed("bwrap: setting up uid map: Permission denied"), h);
  ASSERT_EQ(Codes(c), std::vector<std::string>{"apparmor-userns-restricted"});
  EXPECT_THAT(c[0].fix, HasSubstr("profile bwrap /usr/bin/bwrap flags=(unconfined) { userns, }"));
  EXPECT_THAT(c[0].detail, HasSubstr("kernel.apparmor_restrict_unprivileged_userns = 1"));
}

TEST(DoctorCausesTest, UserNamespacesDisabled) {
  HostSignals h = BareMetal();
  h.max_user_namespaces = "0";
  auto c = DiagnoseWrapper(Bwrap(), Failed("bwrap: No space left on device"), h);
  ASSERT_EQ(Codes(c), std::vector<std::string>{"userns-disabled"});
  EXPECT_THAT(c[0].fix, HasSubstr("sysctl -w user.max_user_namespaces=15000"));
  h = BareMetal();
  h.unprivileged_userns_clone = "0";
  EXPECT_EQ(Codes(DiagnoseWrapper(Bwrap(), Failed("x"), h)),
            std::vector<std::string>{"userns-clone-disabled"});
}

TEST(DoctorCausesTest, UnprivilegedContainer) {
  HostSignals h = BareMetal();
  h.dockerenv = true;
  h.uid_map = "0 100000 65536";
  auto c = DiagnoseWrapper(
      Bwrap(), Failed("bwrap: Creating new namespace failed: Operation not permitted"), h);
  ASSERT_EQ(Codes(c), std::vector<std::string>{"unprivileged-container"});
  EXPECT_THAT(c[0].detail, HasSubstr("/.dockerenv, uid_map '0 100000 65536'"));
  EXPECT_THAT(c[0].fix, HasSubstr("--security-opt"));
  EXPECT_TRUE(InContainer(h));
  EXPECT_FALSE(InContainer(BareMetal()));
}

TEST(DoctorCausesTest, UnknownKeepsBwrapsOwnMessage) {
  auto c =
      DiagnoseWrapper(Bwrap(), Failed("bwrap: Can't mount proc on /newroot/proc"), BareMetal());
  ASSERT_EQ(Codes(c), std::vector<std::string>{"probe-failed"});
  EXPECT_EQ(c[0].detail,
            "the probe failed with bwrap's own message: bwrap: Can't mount proc on /newroot/proc");
}

TEST(DoctorCausesTest, WorkingProbeHasNoCause) {
  HostSignals h = BareMetal();
  h.apparmor_restrict_userns = "1";
  h.dockerenv = true;
  EXPECT_TRUE(DiagnoseWrapper(Bwrap(), {true, true, 0, ""}, h).empty());
}

TEST(DoctorLiveTest, ReportsThisHost) {
  auto facts = runtime::MakeLiveFacts();
  absl::StatusOr<DoctorReport> r = RunDoctor("/dev/null", facts.get(), ReadHostSignals());
  ASSERT_TRUE(r.ok()) << r.status();
  // Cross-check with an independent run of the probe argv.
  testing::RunResult probe = testing::RunWithEnv(compiler::BwrapProbeArgv(), {});
  EXPECT_EQ(r->sandbox_available, probe.exit_code == 0);
  EXPECT_EQ(r->sandbox_kind, probe.exit_code == 0 ? "linux-bwrap" : "");
  ASSERT_EQ(r->modes.size(), 4u);
  EXPECT_EQ(r->modes[0].mode, "plan");
  EXPECT_EQ(r->modes[0].policy, "read-only");
  EXPECT_EQ(r->modes[3].policy, "danger-full-access");
  EXPECT_EQ(r->modes[3].sandbox_kind, "none");
  nlohmann::json j = nlohmann::json::parse(DoctorToJson(*r));
  EXPECT_EQ(j["sandbox"]["available"], r->sandbox_available);
  EXPECT_EQ(j["wrapper"]["path"], "/usr/bin/bwrap");
  EXPECT_EQ(j["modes"].size(), 4u);
  for (const char* key :
       {"platform", "sandbox", "wrapper", "causes", "no_new_privs", "backend", "modes", "host"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  std::string text = DoctorToText(*r).str();
  EXPECT_THAT(text, HasSubstr(r->sandbox_available ? "sandbox: linux-bwrap (available)\n"
                                                   : "sandbox: none (unavailable)\n"));
}

// Every value of the text report is escaped: the host's and bwrap's text, the
// launcher's argv and config values (docs/decisions.md, "What cwsc prints is
// escaped"). H holds ESC, a newline, U+009B, a byte that is not UTF-8 and a
// leading dash.
TEST(DoctorTextTest, EveryValueIsEscaped) {
  const std::string h = "-\x1b[31m\n\xc2\x9b\xff";
  const std::string shown = "-\\x1b[31m\\x0a\\u009b\\xff";
  DoctorReport r;
  r.sandbox_available = false;
  r.reason = "bwrap said " + h;
  r.wrapper_path = "/opt/" + h;
  r.wrapper_type = "regular file";
  r.wrapper_executable = true;
  r.preference_origin = "config prefer_bwrap at /c/" + h + ".toml:1:1";
  r.probe = Failed("bwrap: " + h);
  r.tool_launcher = {"sudo", h};
  r.launcher_refusal = "launcher " + h;
  r.launcher_warnings = {{"code", "warn " + h}};
  r.causes = {{"bwrap-unknown", "detail " + h, "fix " + h}};
  r.no_new_privs_active = true;
  r.no_new_privs_at_run = {true, "reason " + h};
  r.backend = "local";
  r.modes = {{"ask", "workspace-write", "linux-bwrap", false, "", "refused " + h},
             {"plan", "", "", false, "", "error " + h}};
  r.host.uid = 1000;
  r.host.max_user_namespaces = "1" + h;
  std::string text = DoctorToText(r).str();
  EXPECT_EQ(text,
            "sandbox: none (unavailable)\n"
            "  why: bwrap said " +
                shown +
                "\n"
                "wrapper: /opt/" +
                shown +
                " (regular file, executable)\n"
                "  preferred: yes (config prefer_bwrap at /c/" +
                shown +
                ".toml:1:1)\n"
                "  probe: failed: bwrap: " +
                shown +
                "\n"
                "launcher: sudo " +
                shown + " (refused: launcher " + shown +
                ")\n"
                "  warning [code]: warn " +
                shown +
                "\n"
                "cause [bwrap-unknown]: detail " +
                shown +
                "\n"
                "  fix: fix " +
                shown +
                "\n"
                "no-new-privs: active in this process; `cwsc run` applies it (reason " +
                shown +
                ")\n"
                "backend: local\n"
                "when no wrapper works: run unconfined with a warning (sandbox_require = true or "
                "--require-sandbox refuses instead)\n"
                "modes:\n"
                "  ask: workspace-write, linux-bwrap, network off, refused: refused " +
                shown +
                "\n"
                "  plan: error: error " +
                shown +
                "\n"
                "host: uid 1000, user.max_user_namespaces=1" +
                shown + ", kernel.apparmor_restrict_unprivileged_userns=n/a\n");
  // Semantic: the report still names the wrapper's path, one line per field.
  EXPECT_THAT(text, HasSubstr("wrapper: /opt/-\\x1b[31m"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 16);
}

}  // namespace
}  // namespace cwsc::runtime
