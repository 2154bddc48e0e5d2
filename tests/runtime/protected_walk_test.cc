// The exec-time walk of a protected directory (runtime/protected_walk.h):
// where a symlink in it leads is the kernel's answer, not the text's.
#include "runtime/protected_walk.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "tests/runtime/proc_helpers.h"

namespace cwsc::runtime {
namespace {

using cwsc::testing::TempDir;
using ::testing::HasSubstr;

class ProtectedWalk : public ::testing::Test {
 protected:
  void SetUp() override {
    char* real = realpath(t_.path().c_str(), nullptr);
    root_ = real;
    free(real);
    top_ = root_ + "/.codewhale";
    ASSERT_EQ(mkdir(top_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir((top_ + "/sub").c_str(), 0755), 0);
  }
  void Link(const std::string& target, const std::string& name) {
    ASSERT_EQ(symlink(target.c_str(), (top_ + "/" + name).c_str()), 0) << name;
  }
  absl::Status Check() {
    size_t budget = kProtectedWalkBudget;
    return CheckProtectedTree(top_, root_, &budget);
  }

  TempDir t_;
  std::string root_, top_;
};

// `y -> .` stays inside, but `y/../evil.toml` then climbs out of the
// directory y leads to: lexically it stays inside, for the kernel it is
// the writable root's evil.toml.
TEST_F(ProtectedWalk, ADotDotAfterALinkIsResolvedFromWhereTheLinkLeads) {
  Link(".", "y");
  Link("y/../evil.toml", "config.toml");
  absl::Status s = Check();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "the protected directory " + top_ + " holds the symlink " + top_ +
                             "/config.toml -> y/../evil.toml, which leads out of it, where the "
                             "sandbox may write; remove the link");
}

TEST_F(ProtectedWalk, LinksThatStayInsideAreAccepted) {
  Link("sub", "a");          // a directory inside
  Link("sub/../sub", "b");   // .. from a real directory inside
  Link("a/missing", "c");    // dangling, inside
  Link(top_ + "/sub", "d");  // absolute, inside
  Link(".", "e");            // the directory itself
  EXPECT_TRUE(Check().ok()) << Check();
}

TEST_F(ProtectedWalk, LinksThatLeaveAreRefused) {
  for (const char* target : {"..", "../evil.toml", "/etc/passwd", "sub/../../evil"}) {
    std::string name = "l";
    Link(target, name);
    EXPECT_THAT(std::string(Check().message()), HasSubstr("which leads out of it")) << target;
    ASSERT_EQ(unlink((top_ + "/" + name).c_str()), 0);
  }
  // Through a second link that leaves, wherever the walk meets it first.
  Link("z/x", "a");
  Link("..", "z");
  EXPECT_FALSE(Check().ok());
  ASSERT_EQ(unlink((top_ + "/z").c_str()), 0);
  ASSERT_EQ(unlink((top_ + "/a").c_str()), 0);
  // An absolute target spelled inside that climbs out from there.
  Link(top_ + "/sub/../../evil", "w");
  EXPECT_THAT(std::string(Check().message()), HasSubstr("which leads out of it"));
}

}  // namespace
}  // namespace cwsc::runtime
