// The bwrap mount interpreter: replay order, hiding, masks, rejection.
#include "backends/verify/bwrap_interp.h"

#include <gtest/gtest.h>

#include <random>

#include "backends/bwrap.h"
#include "backends/bwrap_flags.h"
#include "backends/verify/expect_eval.h"

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

namespace cwsc::backends {
namespace {

// Every flag of the bubblewrap 0.8.0 manual: what changes the view, and
// the arguments of the rest skipped (backends/bwrap_flags.h).
TEST(BwrapFlags, TryFdAndDataVariantsAddLayers) {
  BwrapView v =
      View({"--ro-bind-try",  "/opt",     "/opt",        "--bind-try",  "/w",          "/w",
            "--dev-bind-try", "/dev/kvm", "/dev/kvm",    "--bind-fd",   "5",           "/fd/w",
            "--ro-bind-fd",   "6",        "/fd/r",       "--bind-data", "7",           "/etc/data",
            "--ro-bind-data", "8",        "/etc/rodata", "--mqueue",    "/dev/mqueue", "--perms",
            "0700",           "--size",   "1024",        "--tmpfs",     "/scratch"});
  EXPECT_EQ(v.Find("/opt/x").access, Access::kReadOnly);
  EXPECT_EQ(v.layers[v.Find("/opt/x").layer].flag, "--ro-bind-try");
  EXPECT_EQ(v.Find("/w/x").access, Access::kWritable);
  EXPECT_EQ(v.Find("/dev/kvm").access, Access::kDevice);
  EXPECT_EQ(v.Find("/fd/w/x").access, Access::kWritable);
  EXPECT_EQ(v.Find("/fd/r/x").access, Access::kReadOnly);
  EXPECT_EQ(v.Find("/fd/r/x").host_path, "");  // an open descriptor: no host path known
  EXPECT_EQ(v.Find("/etc/data").access, Access::kPrivate);  // a copy, not host content
  EXPECT_EQ(v.Find("/etc/rodata").access, Access::kPrivate);
  EXPECT_EQ(v.Find("/dev/mqueue").access, Access::kPrivate);
  EXPECT_EQ(v.Find("/scratch/x").access, Access::kHidden);
}

TEST(BwrapFlags, OptionsChangeNoViewAndTheirArgumentsAreSkipped) {
  BwrapView v = View({"--setenv",
                      "--bind",
                      "x",
                      "--unsetenv",
                      "--tmpfs",
                      "--clearenv",
                      "--dir",
                      "/var/d",
                      "--file",
                      "3",
                      "/etc/f",
                      "--chmod",
                      "0644",
                      "/etc/f",
                      "--uid",
                      "0",
                      "--gid",
                      "0",
                      "--hostname",
                      "box",
                      "--unshare-pid",
                      "--unshare-ipc",
                      "--unshare-uts",
                      "--unshare-cgroup-try",
                      "--lock-file",
                      "/l",
                      "--sync-fd",
                      "4",
                      "--as-pid-1",
                      "--cap-add",
                      "CAP_NET_RAW",
                      "--add-seccomp-fd",
                      "9",
                      "--exec-label",
                      "l",
                      "--file-label",
                      "l",
                      "--info-fd",
                      "3",
                      "--json-status-fd",
                      "3",
                      "--block-fd",
                      "3",
                      "--userns-block-fd",
                      "3",
                      "--assert-userns-disabled",
                      "--unshare-user-try",
                      "--unshare-cgroup"});
  EXPECT_EQ(v.layers.size(), 4u);  // the base view alone
  EXPECT_EQ(v.Find("/var/d").access, Access::kReadOnly);
  EXPECT_EQ(v.Find("/etc/f").access, Access::kReadOnly);
  EXPECT_EQ(v.program, std::vector<std::string>{"true"});
}

TEST(BwrapFlags, CapAddUndoesCapDropAll) {
  EXPECT_TRUE(View({"--cap-drop", "ALL"}).caps_dropped);
  EXPECT_FALSE(View({"--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN"}).caps_dropped);
}

// A symlink the argv makes is followed: the target's layer decides.
TEST(BwrapFlags, SymlinksAreFollowed) {
  BwrapView v = View({"--tmpfs", "/s", "--bind", "/w", "/w", "--symlink", "/w", "/s/link",
                      "--symlink", "../w/src", "/s/rel"});
  BwrapChecker c = *BwrapChecker::FromArgv([] {
    std::vector<std::string> a = Base();
    for (const char* t : {"--tmpfs", "/s", "--bind", "/w", "/w", "--symlink", "/w", "/s/link",
                          "--symlink", "../w/src", "/s/rel", "--", "true"}) {
      a.push_back(t);
    }
    return a;
  }());
  EXPECT_EQ(v.symlinks.size(), 2u);
  EXPECT_TRUE(c.Decide(AccessKind::kWrite, "/s/link/x").allowed);
  EXPECT_TRUE(c.Decide(AccessKind::kWrite, "/s/rel/main.c").allowed);
  EXPECT_FALSE(c.Decide(AccessKind::kRead, "/s/other").allowed);
  EXPECT_EQ(c.Decide(AccessKind::kWrite, "/s/link/x").rule, "--bind /w /w");
}

TEST(BwrapFlags, ArgsFromADescriptorAreRefused) {
  std::vector<std::string> a = Base();
  a.insert(a.end(), {"--args", "3", "--", "true"});
  auto v = InterpretBwrapArgv(a);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(),
            "--args 3: bwrap reads more arguments from descriptor 3, which the command line "
            "does not show");
}

TEST(BwrapFlags, UnknownFlagsAreSkippedWhenAsked) {
  std::vector<std::string> a = Base();
  a.insert(a.end(), {"--overlay-src", "/a", "--bind", "/w", "/w", "--", "true"});
  EXPECT_FALSE(InterpretBwrapArgv(a).ok());  // the default: refused
  auto v = InterpretBwrapArgv(a, UnknownFlags::kSkip);
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->skipped.size(), 1u);
  EXPECT_EQ(v->skipped[0].flag, "--overlay-src");
  EXPECT_EQ(v->skipped[0].args, 1u);
  EXPECT_EQ(v->Find("/w/x").access, Access::kWritable);
}

// The one table: the emitter spells every mount operation as the table does.
TEST(BwrapFlags, TheEmitterSpellsMountsFromTheTable) {
  for (const char* f :
       {"--ro-bind", "--bind", "--dev-bind", "--dev", "--proc", "--tmpfs", "--remount-ro"}) {
    const BwrapFlag* flag = FindBwrapFlag(f);
    ASSERT_NE(flag, nullptr) << f;
    ASSERT_TRUE(flag->mount_op.has_value()) << f;
    EXPECT_STREQ(MountOpFlag(*flag->mount_op), f);
  }
}

}  // namespace
}  // namespace cwsc::backends
