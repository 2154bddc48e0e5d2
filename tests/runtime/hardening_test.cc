// Process hardening (docs/behavior.md B-80, B-2, catalogue item 39): the no-new-privs
// decision table, and the real effect of HardenProcess in a forked child.
#include "runtime/hardening.h"

#include <sys/prctl.h>
#include <sys/resource.h>

#include "gtest/gtest.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::runtime {
namespace {

TEST(HardeningTest, FalseyOverrideValues) {
  for (const char* v : {"", "0", "false", "no", "off", "disabled", "  FALSE ", "Off", "\tno\n"}) {
    EXPECT_TRUE(IsFalseyNoNewPrivs(v)) << "'" << v << "'";
  }
  for (const char* v : {"1", "true", "yes", "on", "enabled", "maybe", "0x0", "false-ish", "off!"}) {
    EXPECT_FALSE(IsFalseyNoNewPrivs(v)) << "'" << v << "'";
  }
}

TEST(HardeningTest, OverrideWinsInBothDirections) {
  NoNewPrivsDecision d = DecideNoNewPrivs(std::string("off"), std::string("read-only"), false);
  EXPECT_FALSE(d.apply);
  EXPECT_EQ(d.reason, "skipped via CODEWHALE_NO_NEW_PRIVS=off");
  d = DecideNoNewPrivs(std::string("yes"), std::string("danger-full-access"), true);
  EXPECT_TRUE(d.apply);
  EXPECT_EQ(d.reason, "forced via CODEWHALE_NO_NEW_PRIVS=yes");
}

TEST(HardeningTest, StartupModeDecides) {
  NoNewPrivsDecision d = DecideNoNewPrivs(std::nullopt, std::string(" Danger-Full-Access "), false);
  EXPECT_FALSE(d.apply);
  EXPECT_EQ(d.reason, "startup sandbox mode resolved to danger-full-access (#5723)");
  for (const char* m : {"danger_full_access", "full-access", "yolo", "", "danger", "read-only",
                        "workspace-write"}) {
    EXPECT_TRUE(DecideNoNewPrivs(std::nullopt, std::string(m), false).apply) << m;
  }
  d = DecideNoNewPrivs(std::nullopt, std::nullopt, false);
  EXPECT_TRUE(d.apply);
  EXPECT_EQ(d.reason, "no startup sandbox mode: the flag stays on (fail closed)");
}

TEST(HardeningTest, LauncherPlanSkipsUnlessForced) {
  EXPECT_FALSE(DecideNoNewPrivs(std::nullopt, std::string("workspace-write"), true).apply);
  EXPECT_TRUE(DecideNoNewPrivs(std::string("1"), std::string("workspace-write"), true).apply);
}

int ProbeHardened(bool apply) {
  HardeningReport r = HardenProcess({apply, "test"});
  if (!r.Warnings().empty()) return 10;
  if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) return 11;
  rlimit rl;
  getrlimit(RLIMIT_CORE, &rl);
  if (rl.rlim_cur != 0 || rl.rlim_max != 0) return 12;
  std::optional<bool> nnp = NoNewPrivsActive();
  if (!nnp.has_value() || *nnp != apply) return 13;
  if (r.no_new_privs.skipped == apply) return 14;
  return 0;
}

TEST(HardeningTest, AppliesToTheProcess) {
  EXPECT_EQ(testing::Fork([] { return ProbeHardened(true); }).Wait(), 0);
  EXPECT_EQ(testing::Fork([] { return ProbeHardened(false); }).Wait(), 0);
}

TEST(HardeningTest, FailureIsReportedNotFatal) {
  // Raising RLIMIT_CORE back is impossible once hard limit is 0 for an
  // unprivileged process; a failing step shows up in Warnings().
  HardeningReport r;
  r.dumpable.ok = true;
  r.no_new_privs.ok = true;
  r.core_limit.ok = false;
  r.core_limit.error = "Operation not permitted";
  ASSERT_EQ(r.Warnings().size(), 1u);
  EXPECT_EQ(r.Warnings()[0], "hardening: RLIMIT_CORE=0 failed: Operation not permitted");
}

}  // namespace
}  // namespace cwsc::runtime
