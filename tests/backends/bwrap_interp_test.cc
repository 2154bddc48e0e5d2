// The bwrap mount interpreter: replay order, hiding, masks, rejection.
#include "backends/verify/bwrap_interp.h"

#include <gtest/gtest.h>

#include <random>

namespace cwsc::backends {
namespace {

std::vector<std::string> Base() {
  return {"/usr/bin/bwrap",
          "--unshare-all",
          "--die-with-parent",
          "--ro-bind",
          "/",
          "/",
          "--dev",
          "/dev",
          "--proc",
          "/proc",
          "--tmpfs",
          "/tmp"};
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
  BwrapView v =
      View({"--bind", "/w", "/w", "--ro-bind", "/w/.codewhale", "/w/.codewhale", "--tmpfs", "/w"});
  EXPECT_EQ(v.Find("/w/.codewhale/x").access, Access::kHidden);
  BwrapView u =
      View({"--tmpfs", "/w", "--bind", "/w", "/w", "--ro-bind", "/w/.codewhale", "/w/.codewhale"});
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

// Find (indexed by destination) agrees with FindByScan (every layer from the
// top) on random mount stacks over a small tree, spelled with extra and
// trailing slashes and "." components, and after the layers changed.
TEST(BwrapInterp, IndexedFindAgreesWithTheScan) {
  std::mt19937 rng(20261201);
  const std::vector<std::string> parts = {"a", "b", "ab", ".", "a.b", "-"};
  auto path = [&](bool spelled) {
    std::string p;
    int depth = static_cast<int>(rng() % 4);
    for (int i = 0; i < depth; ++i) {
      p += spelled && rng() % 4 == 0 ? "//" : "/";
      p += parts[rng() % parts.size()];
    }
    if (p.empty() || (spelled && rng() % 5 == 0)) p += "/";
    return p;
  };
  const std::vector<std::string> ops = {"--ro-bind", "--bind", "--dev-bind",  "--tmpfs",
                                        "--dev",     "--proc", "--remount-ro"};
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> a = {"/usr/bin/bwrap"};
    int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      const std::string& op = ops[rng() % ops.size()];
      a.push_back(op);
      if (op == "--ro-bind" || op == "--bind" || op == "--dev-bind") {
        a.push_back(rng() % 6 == 0 ? "/dev/null" : path(false));
      }
      a.push_back(path(true));
    }
    a.insert(a.end(), {"--", "true"});
    absl::StatusOr<BwrapView> v = InterpretBwrapArgv(a);
    ASSERT_TRUE(v.ok()) << v.status();
    for (int q = 0; q < 40; ++q) {
      std::string p = path(true);
      Lookup want = v->FindByScan(p), got = v->Find(p);
      ASSERT_EQ(got.layer, want.layer) << p;
      ASSERT_EQ(got.access, want.access) << p;
      ASSERT_EQ(got.host_path, want.host_path) << p;
    }
    // A layer added after indexing is seen (the lookup falls back to the scan).
    v->layers.push_back({"--tmpfs", "", "/", 0});
    EXPECT_EQ(v->Find("/a").layer, static_cast<int>(v->layers.size()) - 1);
    v->IndexLayers();
    EXPECT_EQ(v->Find("/a").access, Access::kHidden);
  }
}

}  // namespace
}  // namespace cwsc::backends
