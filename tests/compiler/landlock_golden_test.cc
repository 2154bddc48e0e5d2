// The golden of `cwsc compile examples/workspace.toml --target landlock` on
// recorded facts (tests/golden/landlock/), and beside it the semantic check:
// the listing read back by the Landlock evaluator answers as the policy
// says (tests/golden/README.md).
#include <gtest/gtest.h>

#include "backends/verify/landlock_eval.h"
#include "tests/runtime/proc_helpers.h"
#include "tests/runtime/sandbox_fixture.h"
#include "tests/testing/golden.h"

namespace cwsc::testing {
namespace {

using backends::AccessKind;

TEST(LandlockGolden, ExampleWorkspace) {
  std::string src = SourceRoot();
  for (const char* mode : {"ask", "plan"}) {
    RunResult r = cwsc::testing::Run({CwscBin(), "compile", src + "/examples/workspace.toml",
                                      "--facts", src + "/tests/golden/landlock/facts.yaml",
                                      "--mode", mode, "--target", "landlock"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    CheckGolden(src + "/tests/golden/landlock/example-workspace-" + mode + ".txt", r.out);
    auto c = backends::LandlockChecker::FromListing(r.out);
    ASSERT_TRUE(c.ok()) << c.status();
    bool ask = std::string(mode) == "ask";
    EXPECT_EQ(c->Decide(AccessKind::kWrite, "/home/dev/ws/src/main.c").allowed, ask) << mode;
    EXPECT_EQ(c->Decide(AccessKind::kCreate, "/home/dev/ws").allowed, ask) << mode;
    EXPECT_EQ(c->Decide(AccessKind::kWrite, "/home/dev/tmp/x").allowed, ask) << mode;
    EXPECT_FALSE(c->Decide(AccessKind::kWrite, "/home/dev/notes.txt").allowed) << mode;
    EXPECT_FALSE(c->Decide(AccessKind::kWrite, "/etc/passwd").allowed) << mode;
    EXPECT_TRUE(c->Decide(AccessKind::kRead, "/etc/passwd").allowed) << mode;
    EXPECT_TRUE(c->Decide(AccessKind::kExec, "/usr/bin/make").allowed) << mode;
    EXPECT_FALSE(c->Decide(AccessKind::kRead, "/home/dev/.ssh/id_ed25519").allowed) << mode;
    EXPECT_FALSE(c->Decide(AccessKind::kRead, "/home/dev/.config/private-notes/a").allowed) << mode;
    EXPECT_TRUE(c->Decide(AccessKind::kRead, "/home/dev/.config/git/config").allowed) << mode;
    EXPECT_FALSE(c->Decide(AccessKind::kRead, "/etc/shadow").allowed) << mode;
    EXPECT_FALSE(c->Decide(AccessKind::kRead, "/dev/sda").allowed) << mode;
    EXPECT_TRUE(c->Decide(AccessKind::kWrite, "/dev/null").allowed) << mode;
    EXPECT_EQ(c->Decide(AccessKind::kNetwork, "").allowed, ask) << mode;
  }
}

}  // namespace
}  // namespace cwsc::testing
