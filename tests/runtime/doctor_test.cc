// cwsc doctor: cause recognition for each common host problem (pure), and
// the live report on this host, in both output forms.
#include "runtime/doctor.h"

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

compiler::ProbeResult Failed(const std::string& message) {
  return {true, false, 1, message};
}

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
  auto c = DiagnoseWrapper(Bwrap(), Failed("bwrap: Creating new namespace failed: Operation not permitted"), h);
  ASSERT_EQ(Codes(c), std::vector<std::string>{"unprivileged-container"});
  EXPECT_THAT(c[0].detail, HasSubstr("/.dockerenv, uid_map '0 100000 65536'"));
  EXPECT_THAT(c[0].fix, HasSubstr("--security-opt"));
  EXPECT_TRUE(InContainer(h));
  EXPECT_FALSE(InContainer(BareMetal()));
}

TEST(DoctorCausesTest, UnknownKeepsBwrapsOwnMessage) {
  auto c = DiagnoseWrapper(Bwrap(), Failed("bwrap: Can't mount proc on /newroot/proc"), BareMetal());
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
  for (const char* key : {"platform", "sandbox", "wrapper", "causes", "no_new_privs", "backend",
                          "modes", "host"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  std::string text = DoctorToText(*r);
  EXPECT_THAT(text, HasSubstr(r->sandbox_available ? "sandbox: linux-bwrap (available)\n"
                                                   : "sandbox: none (unavailable)\n"));
}

}  // namespace
}  // namespace cwsc::runtime
