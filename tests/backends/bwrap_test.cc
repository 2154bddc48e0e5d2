// The bwrap backend: argv shape and order (docs/behavior.md B-42, B-90),
// with facts recorded in tests.
#include "backends/bwrap.h"

#include <gtest/gtest.h>

#include "backends/verify/bwrap_interp.h"
#include "tests/compiler/test_facts.h"

namespace cwsc::backends {
namespace {

using cwsc::testing::CompileText;
using cwsc::testing::FactsBuilder;

std::vector<std::string> Argv(const std::string& config, const FactsBuilder& f,
                              const std::string& mode, const std::vector<std::string>& program) {
  auto r = CompileText(config, f, mode);
  EXPECT_TRUE(r.ok()) << r.status();
  auto argv = EmitBwrapArgv(r->plan, program);
  EXPECT_TRUE(argv.ok()) << argv.status();
  return argv.ok() ? Texts(*argv) : std::vector<std::string>{};
}

bool HasTriple(const std::vector<std::string>& a, const std::string& flag, const std::string& p) {
  for (size_t i = 0; i + 2 < a.size(); ++i) {
    if (a[i] == flag && a[i + 1] == p && a[i + 2] == p) return true;
  }
  return false;
}

long IndexOf(const std::vector<std::string>& a, const std::string& s) {
  auto it = std::find(a.begin(), a.end(), s);
  return it == a.end() ? -1 : it - a.begin();
}

const char kNoDefaults[] = "sandbox_read_denylist_defaults = false\n";

// docs/behavior.md B-42 on a workspace-write example, byte for byte, with cwsc's
// hardening (docs/decisions.md,
// "Hardening beyond the reference argv"): the user namespace and capability
// flags, read-only placeholders for the missing protected names, the
// seccomp program. Without those tokens it is the reference argv.
TEST(Bwrap, WorkedExample) {
  FactsBuilder f;
  f.Cwd("/w").Dir("/w").Dir("/w/.codewhale").Dir("/w/.git");
  std::vector<std::string> a = Argv(kNoDefaults, f, "ask", {"/bin/bash", "-c", "<cmd>"});
  EXPECT_EQ(a, (std::vector<std::string>{"/usr/bin/bwrap",
                                         "--unshare-all",
                                         "--share-net",
                                         "--unshare-user",
                                         "--disable-userns",
                                         "--cap-drop",
                                         "ALL",
                                         "--die-with-parent",
                                         "--ro-bind",
                                         "/",
                                         "/",
                                         "--dev",
                                         "/dev",
                                         "--proc",
                                         "/proc",
                                         "--tmpfs",
                                         "/tmp",
                                         "--bind",
                                         "/tmp",
                                         "/tmp",
                                         "--bind",
                                         "/w",
                                         "/w",
                                         "--tmpfs",
                                         "/tmp/.codewhale",
                                         "--remount-ro",
                                         "/tmp/.codewhale",
                                         "--tmpfs",
                                         "/tmp/.deepseek",
                                         "--remount-ro",
                                         "/tmp/.deepseek",
                                         "--ro-bind",
                                         "/w/.codewhale",
                                         "/w/.codewhale",
                                         "--tmpfs",
                                         "/w/.deepseek",
                                         "--remount-ro",
                                         "/w/.deepseek",
                                         "--seccomp",
                                         "3",
                                         "--chdir",
                                         "/w",
                                         "--",
                                         "/bin/bash",
                                         "-c",
                                         "<cmd>"}));
  std::vector<std::string> reference;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == "--unshare-user" || a[i] == "--disable-userns") continue;
    if (a[i] == "--cap-drop" || a[i] == "--seccomp" || a[i] == "--remount-ro") {
      ++i;
      continue;
    }
    if (a[i] == "--tmpfs" && a[i + 1] != "/tmp") {
      ++i;
      continue;
    }
    reference.push_back(a[i]);
  }
  EXPECT_EQ(reference, (std::vector<std::string>{"/usr/bin/bwrap",
                                                 "--unshare-all",
                                                 "--share-net",
                                                 "--die-with-parent",
                                                 "--ro-bind",
                                                 "/",
                                                 "/",
                                                 "--dev",
                                                 "/dev",
                                                 "--proc",
                                                 "/proc",
                                                 "--tmpfs",
                                                 "/tmp",
                                                 "--bind",
                                                 "/tmp",
                                                 "/tmp",
                                                 "--bind",
                                                 "/w",
                                                 "/w",
                                                 "--ro-bind",
                                                 "/w/.codewhale",
                                                 "/w/.codewhale",
                                                 "--chdir",
                                                 "/w",
                                                 "--",
                                                 "/bin/bash",
                                                 "-c",
                                                 "<cmd>"}));
}

// Case 1.
TEST(Bwrap, Case1Basics) {
  FactsBuilder f;
  f.Cwd("/t").Dir("/t");
  std::vector<std::string> a = Argv(std::string(kNoDefaults) + "sandbox_network_access = false", f,
                                    "ask", {"sh", "-c", "echo hi"});
  EXPECT_EQ(a[0], "/usr/bin/bwrap");
  for (const char* flag : {"--ro-bind", "--dev", "--proc", "--tmpfs", "--chdir", "--unshare-all",
                           "--die-with-parent"}) {
    EXPECT_NE(IndexOf(a, flag), -1) << flag;
  }
  EXPECT_EQ(IndexOf(a, "--share-net"), -1);
  EXPECT_EQ(std::vector<std::string>(a.end() - 3, a.end()),
            (std::vector<std::string>{"sh", "-c", "echo hi"}));
}

// Case 2 and 11: read-only.
TEST(Bwrap, Case2ReadOnly) {
  FactsBuilder f;
  f.Cwd("/t").Dir("/t");
  std::vector<std::string> a = Argv(kNoDefaults, f, "plan", {"true"});
  EXPECT_EQ(IndexOf(a, "--bind"), -1);
  EXPECT_EQ(IndexOf(a, "--share-net"), -1);
  long chdir = IndexOf(a, "--chdir");
  ASSERT_NE(chdir, -1);
  EXPECT_EQ(a[static_cast<size_t>(chdir) + 1], "/t");
}

// Case 3 and 12.
TEST(Bwrap, Case3RootsFiltered) {
  FactsBuilder f;
  f.Cwd("/w").Dir("/w").Dir("/w/.codewhale").Dir("/e").Missing("/t/missing").Dir("/");
  std::vector<std::string> a =
      Argv(std::string(kNoDefaults) + "sandbox_writable_roots = [\"/e\", \"/t/missing\", \"/\"]", f,
           "ask", {"true"});
  EXPECT_TRUE(HasTriple(a, "--bind", "/w"));
  EXPECT_TRUE(HasTriple(a, "--bind", "/e"));
  EXPECT_TRUE(HasTriple(a, "--ro-bind", "/w/.codewhale"));
  EXPECT_FALSE(HasTriple(a, "--bind", "/"));
  for (const auto& t : a) EXPECT_FALSE(t.size() >= 8 && t.substr(t.size() - 8) == "/missing") << t;
  EXPECT_GT(IndexOf(a, "--share-net"), IndexOf(a, "--unshare-all"));
}

// Case 4.
TEST(Bwrap, Case4RoAndDevRoots) {
  FactsBuilder f;
  f.Cwd("/w")
      .Dir("/w")
      .Dir("/d")
      .Missing("/d/missing-ro")
      .Device("/dev/null")
      .Missing("/dev/does-not-exist");
  std::vector<std::string> a =
      Argv(std::string(kNoDefaults) +
               "bwrap_ro_roots = [\"/d\", \"/d/missing-ro\"]\n"
               "bwrap_dev_roots = [\"/dev/null\", \"/d\", \"/dev/does-not-exist\"]\n",
           f, "ask", {"true"});
  EXPECT_TRUE(HasTriple(a, "--ro-bind", "/d"));
  EXPECT_TRUE(HasTriple(a, "--dev-bind", "/dev/null"));
  EXPECT_FALSE(HasTriple(a, "--dev-bind", "/d"));
  for (const auto& t : a) EXPECT_EQ(t.find("missing-ro"), std::string::npos);
  for (const auto& t : a) EXPECT_EQ(t.find("does-not-exist"), std::string::npos);
}

// Case 5: ro roots come after the writable binds, so they narrow them.
TEST(Bwrap, Case5RoRootNarrowsWritable) {
  FactsBuilder f;
  f.Cwd("/w").Dir("/w").Dir("/w/vendor-libs");
  std::vector<std::string> a =
      Argv(std::string(kNoDefaults) + "bwrap_ro_roots = [\"/w/vendor-libs\"]", f, "ask", {"true"});
  long ro = -1, bind = -1;
  for (size_t i = 0; i + 2 < a.size(); ++i) {
    if (a[i] == "--ro-bind" && a[i + 1] == "/w/vendor-libs") ro = static_cast<long>(i);
    if (a[i] == "--bind" && a[i + 1] == "/w") bind = static_cast<long>(i);
  }
  EXPECT_GT(ro, bind);
  auto view = InterpretBwrapArgv(a);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->Find("/w/vendor-libs/x.so").access, Access::kReadOnly);
  EXPECT_EQ(view->Find("/w/src/x.c").access, Access::kWritable);
}

// Sorting is by path component (Rust PathBuf order): "/a/b" before "/a.b".
TEST(Bwrap, WritableBindsSortedByComponent) {
  FactsBuilder f;
  f.Cwd("/a.b").Dir("/a.b").Dir("/a").Dir("/a/b");
  std::vector<std::string> a =
      Argv(std::string(kNoDefaults) +
               "sandbox_writable_roots = [\"/a/b\"]\nsandbox_exclude_slash_tmp = true",
           f, "ask", {});
  std::vector<std::string> binds;
  for (size_t i = 0; i + 1 < a.size(); ++i) {
    if (a[i] == "--bind") binds.push_back(a[i + 1]);
  }
  EXPECT_EQ(binds, (std::vector<std::string>{"/a/b", "/a.b"}));
  EXPECT_EQ(a.back(), "--");  // no program: the argv ends at --
}

// A .codewhale symlink pointing outside its root is not re-bound (a
// symlink at a protected name is never followed, docs/decisions.md).
TEST(Bwrap, ProtectedSymlinkOutsideRootDropped) {
  FactsBuilder f;
  f.Cwd("/w").Dir("/w").Dir("/w/.codewhale", "/elsewhere").Dir("/elsewhere");
  auto r = CompileText(kNoDefaults, f, "ask");
  ASSERT_TRUE(r.ok());
  for (const auto& m : r->plan.mounts()) EXPECT_NE(m.dest, "/elsewhere");
  EXPECT_EQ(r->plan.roots[0].protected_paths[0].skip_reason,
            "is a symlink; the sandboxed command could have planted it");
}

// Case 13: non-bwrap plans have no bwrap argv.
TEST(Bwrap, NoArgvForOtherKinds) {
  FactsBuilder f;
  auto r = CompileText("", f, "full-access");
  ASSERT_TRUE(r.ok());
  auto a = EmitBwrapArgv(r->plan, {"true"});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "the plan does not use bubblewrap (kind none)");
}

// Every emitted token carries an origin; config-driven tokens point at the key.
TEST(Bwrap, TokensCarryOrigins) {
  FactsBuilder f;
  f.Cwd("/w").Dir("/w").Dir("/d");
  auto r = CompileText("bwrap_ro_roots = [\"/d\"]\n", f, "ask");
  auto a = EmitBwrapArgv(r->plan, {"true"});
  ASSERT_TRUE(a.ok());
  bool found = false;
  for (size_t i = 0; i + 1 < a->size(); ++i) {
    if ((*a)[i].text == "--ro-bind" && (*a)[i + 1].text == "/d") {
      found = true;
      EXPECT_EQ((*a)[i].origin.detail, "bwrap_ro_roots");
      EXPECT_EQ((*a)[i].origin.line, 1);
      EXPECT_EQ((*a)[i].origin.col, 19);
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace cwsc::backends
