// Process hardening (docs/behavior.md B-80, B-2, catalogue item 39): the no-new-privs
// decision table, and the real effect of HardenProcess in a forked child.
#include "runtime/hardening.h"

#include <sys/prctl.h>
#include <sys/resource.h>

#include <cstdlib>

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

// The startup posture `cwsc exec` reads off a plan: only a sandbox_mode key
// that decided danger-full-access counts.
TEST(HardeningTest, PlanStartupMode) {
  ir::LaunchPlan plan;
  plan.policy.type = ir::PolicyType::kDangerFullAccess;
  plan.policy.origin = ir::Origin::Config("sandbox_mode", "c.toml", 1, 16);
  EXPECT_EQ(PlanStartupMode(plan), "danger-full-access");
  plan.policy.origin = ir::Origin::Cli("--mode full-access");
  EXPECT_EQ(PlanStartupMode(plan), std::nullopt);
  plan.policy.type = ir::PolicyType::kWorkspaceWrite;
  plan.policy.origin = ir::Origin::Config("sandbox_mode", "c.toml", 1, 16);
  EXPECT_EQ(PlanStartupMode(plan), std::nullopt);
}

// HardenLaunch: CODEWHALE_SANDBOX_MODE is the startup mode over the one
// given, CODEWHALE_NO_NEW_PRIVS decides over both (in a child: it hardens).
TEST(HardeningTest, HardenLaunchReadsTheEnvironment) {
  auto nnp_after = [](const char* mode_env, const char* nnp_env,
                      std::optional<std::string> startup) {
    return testing::Fork([=] {
             mode_env ? setenv("CODEWHALE_SANDBOX_MODE", mode_env, 1)
                      : unsetenv("CODEWHALE_SANDBOX_MODE");
             nnp_env ? setenv("CODEWHALE_NO_NEW_PRIVS", nnp_env, 1)
                     : unsetenv("CODEWHALE_NO_NEW_PRIVS");
             if (!HardenLaunch(startup, false).empty()) return 10;
             std::optional<bool> nnp = NoNewPrivsActive();
             return nnp.has_value() ? (*nnp ? 1 : 0) : 11;
           })
        .Wait();
  };
  EXPECT_EQ(nnp_after(nullptr, nullptr, "workspace-write"), 1);
  EXPECT_EQ(nnp_after(nullptr, nullptr, "danger-full-access"), 0);
  EXPECT_EQ(nnp_after("danger-full-access", nullptr, "workspace-write"), 0);
  EXPECT_EQ(nnp_after("read-only", nullptr, "danger-full-access"), 1);
  EXPECT_EQ(nnp_after("danger-full-access", "1", std::nullopt), 1);
}

}  // namespace
}  // namespace cwsc::runtime
