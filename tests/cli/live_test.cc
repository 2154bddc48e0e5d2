// Live-host compiles: real temp directories, symlinks, a real `git worktree
// add`, a forged .git file, odd roots, and the facts round trip (live →
// `cwsc facts --for` → `--facts` gives byte-identical output).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "absl/strings/str_split.h"
#include "backends/verify/bwrap_interp.h"
#include "ir/plan_json.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc {
namespace {

using testing::RunResult;
using testing::TempDir;
using testing::WriteFile;

std::string Bin() { return std::getenv("CWSC_BIN") ? std::getenv("CWSC_BIN") : "cwsc"; }

std::string Real(const std::string& p) {
  char* r = realpath(p.c_str(), nullptr);
  std::string out = r ? r : "";
  free(r);
  return out;
}

class Live : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = t_ / "home";
    ws_ = t_ / "ws";
    mkdir(home_.c_str(), 0755);
    mkdir(ws_.c_str(), 0755);
    mkdir((ws_ + "/.codewhale").c_str(), 0755);
    mkdir((home_ + "/.ssh").c_str(), 0700);
    // TMPDIR points into the tree: keep it (and /tmp) out of the writable
    // roots so that "read-only" checks below mean something.
    WriteFile(t_ / "config.toml",
              "sandbox_mode = \"workspace-write\"\nsandbox_exclude_slash_tmp = true\n"
              "sandbox_exclude_tmpdir = true\n");
    WriteFile(t_ / "with-tmpdir.toml",
              "sandbox_mode = \"workspace-write\"\nsandbox_exclude_slash_tmp = true\n");
    env_ = {"HOME=" + home_, "TMPDIR=" + t_.path()};
  }

  RunResult Cwsc(std::vector<std::string> args) {
    args.insert(args.begin(), Bin());
    return testing::Run(args, "", env_, t_.path());
  }

  ir::LaunchPlan Plan(const std::string& cwd, const std::string& config = "config.toml") {
    RunResult r = Cwsc({"compile", config, "--cwd", cwd, "--target", "plan"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto p = ir::PlanFromJson(r.out, "plan");
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *p : ir::LaunchPlan{};
  }

  backends::BwrapView View(const std::string& cwd, const std::string& config = "config.toml") {
    RunResult r = Cwsc({"compile", config, "--cwd", cwd, "--", "true"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> argv = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
    auto v = backends::InterpretBwrapArgv(argv);
    EXPECT_TRUE(v.ok()) << v.status() << r.out;
    return v.ok() ? *v : backends::BwrapView{};
  }

  void RequireBwrap() {
    RunResult r = Cwsc({"compile", "config.toml", "--cwd", ws_, "--target", "plan"});
    if (r.out.find("\"kind\": \"linux-bwrap\"") == std::string::npos) {
      GTEST_SKIP() << "bubblewrap does not work on this host (see `cwsc doctor`)";
    }
  }

  // Outside /tmp (the build tree may be under it), so the private /tmp of a
  // plan does not hide the tree.
  static std::string Base() { return "/var/tmp"; }
  TempDir t_{Base()};
  std::string home_, ws_;
  std::vector<std::string> env_;
};

TEST_F(Live, WorkspaceIsWritableProtectedAndDenied) {
  RequireBwrap();
  backends::BwrapView v = View(ws_);
  std::string ws = Real(ws_);
  EXPECT_EQ(v.Find(ws + "/src/a.c").access, backends::Access::kWritable);
  EXPECT_EQ(v.Find(ws + "/.codewhale/config.toml").access, backends::Access::kReadOnly);
  EXPECT_EQ(v.Find(Real(home_) + "/.ssh/id_ed25519").access, backends::Access::kHidden);
  EXPECT_EQ(v.Find("/etc/hostname").access, backends::Access::kReadOnly);
}

TEST_F(Live, SymlinkedRootAndTmpdir) {
  RequireBwrap();
  // The links lie in a directory the command's user neither owns nor may
  // write (a symlink where it could have been planted is never followed:
  // hardening_test.cc). Another user's directory needs root to make.
  std::string links = t_ / "links";
  mkdir(links.c_str(), 0755);
  if (chown(links.c_str(), 65534, 65534) != 0) {
    GTEST_SKIP() << "needs root, to give the links' directory to another user";
  }
  ASSERT_EQ(symlink(ws_.c_str(), (links + "/ws-link").c_str()), 0);
  mkdir((t_ / "realtmp").c_str(), 0700);
  ASSERT_EQ(symlink((t_ / "realtmp").c_str(), (links + "/tmp-link").c_str()), 0);
  ASSERT_EQ(chmod(links.c_str(), 0555), 0);
  env_[1] = "TMPDIR=" + links + "/tmp-link";
  ir::LaunchPlan p = Plan(links + "/ws-link", "with-tmpdir.toml");
  EXPECT_EQ(p.cwd, links + "/ws-link");  // --chdir keeps the spelling given
  std::vector<std::string> binds;
  for (const auto& m : p.mounts()) {
    if (m.op == ir::MountOp::kWritableBind) binds.push_back(m.dest);
  }
  EXPECT_NE(std::find(binds.begin(), binds.end(), Real(ws_)), binds.end());
  EXPECT_NE(std::find(binds.begin(), binds.end(), Real(t_ / "realtmp")), binds.end());
  for (const auto& b : binds) EXPECT_EQ(b.find("-link"), std::string::npos) << b;
  backends::BwrapView v = View(links + "/ws-link");
  EXPECT_EQ(v.Find(Real(ws_) + "/.codewhale/x").access, backends::Access::kReadOnly);
  chmod(links.c_str(), 0755);  // for TempDir's removal
}

TEST_F(Live, GitWorktreeMetadataBecomesWritable) {
  RequireBwrap();
  std::string repo = t_ / "repo", wt = t_ / "feature";
  std::vector<std::string> git_env = {"HOME=" + home_, "GIT_CONFIG_NOSYSTEM=1"};
  ASSERT_EQ(testing::Run({"git", "init", "-q", repo}, "", git_env).exit_code, 0);
  ASSERT_EQ(testing::Run({"git", "-C", repo, "-c", "user.email=t@e", "-c", "user.name=t", "commit",
                          "-q", "--allow-empty", "-m", "init"},
                         "", git_env)
                .exit_code,
            0);
  RunResult add = testing::Run({"git", "-C", repo, "worktree", "add", "-q", wt}, "", git_env);
  ASSERT_EQ(add.exit_code, 0) << add.err;
  ir::LaunchPlan p = Plan(wt);
  std::string git_dir, common;
  for (const auto& r : p.roots) {
    if (r.source == ir::RootSource::kWorktreeGitDir && r.writable_bind) git_dir = r.path;
    if (r.source == ir::RootSource::kWorktreeCommonDir && r.writable_bind) common = r.path;
  }
  EXPECT_EQ(git_dir, Real(repo + "/.git/worktrees/feature"));
  EXPECT_EQ(common, Real(repo + "/.git"));
  backends::BwrapView v = View(wt);
  EXPECT_EQ(v.Find(Real(repo) + "/.git/worktrees/feature/index.lock").access,
            backends::Access::kWritable);
  EXPECT_EQ(v.Find(Real(repo) + "/README").access, backends::Access::kReadOnly);

  // Forge: a .git file whose gitdir back-pointer names another worktree.
  std::string forged = t_ / "forged";
  mkdir(forged.c_str(), 0755);
  WriteFile(forged + "/.git", "gitdir: " + repo + "/.git/worktrees/feature\n");
  ir::LaunchPlan f = Plan(forged);
  for (const auto& r : f.roots) {
    EXPECT_NE(r.source, ir::RootSource::kWorktreeGitDir);
    EXPECT_NE(r.source, ir::RootSource::kWorktreeCommonDir);
  }
  bool noted = false;
  for (const auto& s : f.skipped)
    noted = noted ||
            (s.what == "worktree metadata" && s.reason.find("back-pointer") != std::string::npos);
  EXPECT_TRUE(noted);

  // Forge in writable space (issue 26): a workspace below the real git
  // directory's `worktrees` that names itself its admin dir. The metadata
  // lies inside the workspace: no root, and the plan says why.
  std::string proj = Real(repo) + "/.git/worktrees/proj";
  mkdir(proj.c_str(), 0755);
  WriteFile(proj + "/.git", "gitdir: .\n");
  WriteFile(proj + "/commondir", "../..\n");
  WriteFile(proj + "/gitdir", proj + "/.git\n");
  ir::LaunchPlan in_ws = Plan(proj);
  for (const auto& r : in_ws.roots) {
    EXPECT_NE(r.source, ir::RootSource::kWorktreeGitDir);
    EXPECT_NE(r.source, ir::RootSource::kWorktreeCommonDir);
  }
  std::string reason;
  for (const auto& s : in_ws.skipped) {
    if (s.what == "worktree metadata" && s.path == proj + "/.git") reason = s.reason;
  }
  EXPECT_EQ(reason, "the git dir " + proj + " lies inside the writable root " + proj +
                        "; the sandboxed command could have forged its metadata");
}

TEST_F(Live, OddRootsAreSkippedWithReasons) {
  RequireBwrap();
  WriteFile(t_ / "a-file", "x");
  WriteFile(t_ / "odd.toml", "sandbox_writable_roots = [\"" + (t_ / "missing") + "\", \"" +
                                 (t_ / "a-file") + "\", \"/\"]\n");
  ir::LaunchPlan p = Plan(ws_, "odd.toml");
  std::map<std::string, std::string> reasons;
  for (const auto& s : p.skipped) reasons[s.path] = s.reason;
  EXPECT_EQ(reasons[t_ / "missing"], "missing");
  EXPECT_EQ(reasons[t_ / "a-file"], "not a directory");
  EXPECT_EQ(reasons["/"], "canonicalizes to /");
  for (const auto& m : p.mounts()) {
    if (m.op == ir::MountOp::kWritableBind) {
      EXPECT_NE(m.dest, "/");
    }
  }
}

TEST_F(Live, RecordedFactsGiveByteIdenticalOutput) {
  ASSERT_EQ(symlink(ws_.c_str(), (t_ / "ws-link").c_str()), 0);
  WriteFile(t_ / "full.toml",
            "sandbox_writable_roots = [\"~/cache\"]\nbwrap_ro_roots = [\"/usr\"]\n"
            "sandbox_denied_read_paths = [\"~/notes\"]\n");
  for (const std::string config : {"config.toml", "full.toml"}) {
    for (const std::string mode : {"plan", "ask", "full-access"}) {
      RunResult rec = Cwsc({"facts", "--for", config, "--mode", mode, "--cwd", t_ / "ws-link", "-o",
                            t_ / "facts.yaml"});
      ASSERT_EQ(rec.exit_code, 0) << rec.err;
      for (const std::string target : {"auto", "plan"}) {
        RunResult live = Cwsc({"compile", config, "--mode", mode, "--cwd", t_ / "ws-link",
                               "--target", target, "--", "sh", "-c", "x"});
        RunResult replay =
            Cwsc({"compile", config, "--mode", mode, "--cwd", t_ / "ws-link", "--target", target,
                  "--facts", t_ / "facts.yaml", "--", "sh", "-c", "x"});
        EXPECT_EQ(live.exit_code, replay.exit_code);
        EXPECT_EQ(live.out, replay.out) << config << " " << mode << " " << target;
        EXPECT_EQ(live.err, replay.err);
      }
    }
  }
}

}  // namespace
}  // namespace cwsc
