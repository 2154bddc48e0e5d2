// The bwrap mount interpreter: replay order, hiding, masks, rejection.
#include "backends/verify/bwrap_interp.h"

#include <gtest/gtest.h>

namespace cwsc::backends {
namespace {

std::vector<std::string> Base() {
  return {"/usr/bin/bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
          "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"};
}

BwrapView View(std::vector<std::string> extra, std::vector<std::string> tail = {"--", "true"}) {
  std::vector<std::string> a = Base();
  a.insert(a.end(), extra.begin(), extra.end());
  a.insert(a.end(), tail.begin(), tail.end());
  auto v = InterpretBwrapArgv(a);
  EXPECT_TRUE(v.ok()) << v.status();
  return *v;
}

TEST(BwrapInterp, BaseView) {
  BwrapView v = View({});
  EXPECT_EQ(v.Find("/etc/passwd").access, Access::kReadOnly);
  EXPECT_EQ(v.Find("/etc/passwd").host_path, "/etc/passwd");
  EXPECT_EQ(v.Find("/tmp/x").access, Access::kHidden);
  EXPECT_EQ(v.Find("/tmp").access, Access::kPrivate);
  EXPECT_EQ(v.Find("/dev/sda").access, Access::kHidden);
  EXPECT_TRUE(v.network_isolated);
  EXPECT_TRUE(v.die_with_parent);
  EXPECT_EQ(v.program, std::vector<std::string>{"true"});
}

TEST(BwrapInterp, LaterMountHidesEarlier) {
  BwrapView v = View({"--bind", "/w", "/w", "--ro-bind", "/w/.codewhale", "/w/.codewhale",
                      "--tmpfs", "/w"});
  EXPECT_EQ(v.Find("/w/.codewhale/x").access, Access::kHidden);
  BwrapView u = View({"--tmpfs", "/w", "--bind", "/w", "/w", "--ro-bind", "/w/.codewhale",
                      "/w/.codewhale"});
  EXPECT_EQ(u.Find("/w/a").access, Access::kWritable);
  EXPECT_EQ(u.Find("/w/.codewhale").access, Access::kReadOnly);
  EXPECT_EQ(u.Find("/w/.codewhale/config.toml").access, Access::kReadOnly);
  EXPECT_EQ(u.Find("/w/.codewhalex").access, Access::kWritable);  // component-wise
}

// Layers and lookups spelled with doubled and trailing slashes resolve by
// component, whatever byte the spellings first differ at.
TEST(BwrapInterp, SpellingsCompareByComponent) {
  BwrapView v = View({"--bind", "/w//a/", "/w//a/", "--ro-bind", "/w/a/b", "/w/a/b", "--bind",
                      "/w/ab", "/w/ab", "--tmpfs", "/w/a//c"});
  EXPECT_EQ(v.Find("/w/a/x").access, Access::kWritable);
  EXPECT_EQ(v.Find("/w/a//x").access, Access::kWritable);
  EXPECT_EQ(v.Find("/w//a").access, Access::kWritable);
  EXPECT_EQ(v.Find("/w/a/").access, Access::kWritable);
  EXPECT_EQ(v.Find("/w/a/b/c").access, Access::kReadOnly);
  EXPECT_EQ(v.Find("/w//a///b").access, Access::kReadOnly);
  EXPECT_EQ(v.Find("/w/a/bc").access, Access::kWritable);
  EXPECT_EQ(v.Find("/w/abc").access, Access::kReadOnly);  // not under /w/ab
  EXPECT_EQ(v.Find("/w/ab/c").access, Access::kWritable);
  EXPECT_EQ(v.Find("/w/a/c").access, Access::kPrivate);
  EXPECT_EQ(v.Find("/w/a/c/d").access, Access::kHidden);
  EXPECT_EQ(v.Find("/w/a").access, Access::kWritable);
  EXPECT_EQ(v.Find("/w/a-").access, Access::kReadOnly);
}

TEST(BwrapInterp, MasksAndDevices) {
  BwrapView v = View({"--bind", "/tmp", "/tmp", "--ro-bind", "/dev/null", "/h/.netrc", "--tmpfs",
                      "/h/.ssh", "--dev-bind", "/dev/kvm", "/dev/kvm"});
  EXPECT_EQ(v.Find("/tmp/x").access, Access::kWritable);
  EXPECT_EQ(v.Find("/h/.netrc").access, Access::kHidden);
  EXPECT_EQ(v.Find("/h/.ssh/id_ed25519").access, Access::kHidden);
  EXPECT_EQ(v.Find("/dev/kvm").access, Access::kDevice);
}

TEST(BwrapInterp, BindSourceMapsHostPath) {
  BwrapView v = View({"--bind", "/real/ws", "/ws"});
  EXPECT_EQ(v.Find("/ws/a/b").host_path, "/real/ws/a/b");
}

TEST(BwrapInterp, NetworkAndLauncherPrefix) {
  auto v = InterpretBwrapArgv({"/usr/bin/sudo", "-n", "-u", "agent", "--", "/usr/bin/bwrap",
                               "--unshare-all", "--share-net", "--ro-bind", "/", "/", "--", "id"});
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->network_isolated);
  EXPECT_EQ(v->prefix, (std::vector<std::string>{"/usr/bin/sudo", "-n", "-u", "agent", "--"}));
}

TEST(BwrapInterp, RejectsWhatItCannotParse) {
  EXPECT_EQ(InterpretBwrapArgv({"/usr/bin/bwrap", "--overlay-src", "/a", "--"}).status().message(),
            "unknown bwrap flag '--overlay-src'");
  EXPECT_EQ(InterpretBwrapArgv({"/usr/bin/bwrap", "--bind", "/a"}).status().message(),
            "--bind needs 2 argument(s)");
  EXPECT_EQ(InterpretBwrapArgv({"/usr/bin/bwrap", "--unshare-all"}).status().message(),
            "the bwrap argv has no '--'");
  EXPECT_EQ(InterpretBwrapArgv({"true"}).status().message(), "no bwrap in the argv");
  EXPECT_EQ(InterpretBwrapArgv({"/usr/bin/bwrap", "--bind", "/a", "rel", "--"}).status().message(),
            "--bind destination is not absolute");
}

}  // namespace
}  // namespace cwsc::backends
