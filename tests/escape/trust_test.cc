// Attacks on what a command could have written (docs/runtime.md, "Threat
// model": trust nothing the command could have written). Like
// escape_test.cc, each runs through `cwsc run` with real bubblewrap, as root
// and as the unprivileged user cwsc-escape, and checks afterwards that
// nothing outside changed and nothing secret was read.
#include "tests/escape/escape_fixture.h"

namespace cwsc::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class TrustTest : public EscapeTest {};

// Class 1, time of check to time of use: a second sandboxed command in the
// same workspace swaps the first one's working directory (its writable
// root) for a symlink to a directory outside, between cwsc's checks and
// bwrap's mount. Twenty and more launches race it; none may bind outside.
TEST_P(TrustTest, ConcurrentSwapOfTheWorkingDirectoryNeverBindsOutside) {
  mkdir((ws + "/proj").c_str(), 0755);
  WriteFile(bin + "/swap.py", kSwapper);
  ChownAll();
  std::string deadline = std::to_string(time(nullptr) + 15);
  std::string attacker = ShJoin(CwscArgv(
      {"/usr/bin/python3", bin + "/swap.py", ws + "/proj", outside, deadline}, {}, "ask", ws));
  std::string victim =
      ShJoin(CwscArgv({"/bin/sh", "-c", "echo pwned > marker"}, {}, "ask", ws + "/proj"));
  RunResult r =
      Outer(attacker + " > " + ShQuote(*base_ / "swaps") + " & " + "n=0; while [ $(date +%s) -lt " +
            deadline + " ]; do " + victim + " >/dev/null 2>&1; n=$((n+1)); done; wait; echo $n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int launches = std::atoi(r.out.c_str());
  int swaps = std::atoi(ReadFileOr(*base_ / "swaps").c_str());
  EXPECT_GE(launches, 20) << "too few launches to race";
  EXPECT_GE(swaps, 20) << "the attacker could not swap: " << ReadFileOr(*base_ / "swaps");
  EXPECT_FALSE(Exists(outside + "/marker")) << "bound outside after " << launches << " launches";
  EXPECT_EQ(ReadFileOr(outside + "/target"), "ORIGINAL\n");
}

// Class 2, symlinks planted by an earlier run: a run whose workspace is
// ws/a plants ws/a/sub -> outside; the next run starts in ws/a/sub, where
// the link lies in no root of its own. Its working directory must not
// become a writable bind of outside, nor may a configured root through it.
TEST_P(TrustTest, SymlinkPlantedInAnotherWorkspaceIsNotFollowed) {
  mkdir((ws + "/a").c_str(), 0755);
  ChownAll();
  RunResult plant = Sh("ln -s " + ShQuote(outside) + " sub", {}, "ask", ws + "/a");
  ASSERT_EQ(plant.exit_code, 0) << plant.err;
  RunResult r = Sh("echo pwned > marker 2>/dev/null; exit 0", {}, "ask", ws + "/a/sub");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Exists(outside + "/marker")) << r.err;
  WriteFile(config, "sandbox_writable_roots = [\"" + ws + "/a/sub\"]\n");
  ChownAll();
  mkdir((ws + "/b").c_str(), 0755);
  ChownAll();
  r = Sh("echo pwned > " + ws + "/a/sub/marker2 2>/dev/null; exit 0", {}, "ask", ws + "/b");
  EXPECT_FALSE(Exists(outside + "/marker2")) << r.err;
  EXPECT_EQ(ReadFileOr(outside + "/target"), "ORIGINAL\n");
}

// Class 3, deny targets below a writable root: with the home as the
// workspace, the command renames an unmasked ancestor of a denied path so
// that the next run finds nothing to mask. The rename must fail, and the
// secret stays unreadable in this run and the next.
TEST_P(TrustTest, AncestorsOfADeniedPathCannotBeRenamed) {
  for (const char* d : {"/.config", "/.config/cloud"}) mkdir((home + d).c_str(), 0755);
  WriteFile(home + "/.config/cloud/token", "CLOUD-SECRET\n");
  WriteFile(config, "sandbox_denied_read_paths = [\"~/.config/cloud\"]\n");
  ChownAll();
  RunResult r1 =
      Sh("mv .config cfg 2>/dev/null && echo RENAMED; mv .config/cloud .config/c 2>/dev/null && "
         "echo RENAMED2; cat cfg/cloud/token .config/c/token 2>/dev/null; exit 0",
         {}, "ask", home);
  EXPECT_EQ(r1.exit_code, 0) << r1.err;
  EXPECT_THAT(r1.out, Not(HasSubstr("RENAMED")));
  EXPECT_THAT(r1.out, Not(HasSubstr("CLOUD-SECRET")));
  EXPECT_TRUE(Exists(home + "/.config/cloud/token"));
  RunResult r2 = Sh("cat .config/cloud/token cfg/cloud/token 2>/dev/null; exit 0", {}, "ask", home);
  EXPECT_THAT(r2.out, Not(HasSubstr("CLOUD-SECRET")));
}

// Class 4, protected names prepared while unprotected: an earlier run whose
// workspace was ws made ws/sub/.codewhale (not protected there: only a
// root's own children are) with a deep hard link and a symlink leading out.
// When ws/sub becomes the working directory, the run is refused.
TEST_P(TrustTest, ProtectedDirectoryPreparedByAnEarlierRunIsRefused) {
  CWSC_NOT_PROMISED_BY_LANDLOCK(
      "protected names are not held (docs/runtime.md, \"The Landlock backend\")");
  mkdir((ws + "/sub").c_str(), 0755);
  ChownAll();
  RunResult plant =
      Sh("mkdir -p sub/.codewhale/a/b/c/d/e && echo '# project' > sub/.codewhale/a/b/c/d/e/f && "
         "ln sub/.codewhale/a/b/c/d/e/f sub/deep-link");
  ASSERT_EQ(plant.exit_code, 0) << plant.err;
  RunResult r = Sh("echo evil > deep-link; echo RAN", {}, "ask", ws + "/sub");
  EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("RAN")));
  EXPECT_EQ(r.err, "cwsc: refused: the protected file " + ws +
                       "/sub/.codewhale/a/b/c/d/e/f has more than one hard link; a name for it "
                       "outside the protected directory may be writable in the sandbox; remove "
                       "the extra links (find " +
                       ws + "/sub -samefile " + ws + "/sub/.codewhale/a/b/c/d/e/f)\n");
  EXPECT_EQ(ReadFileOr(ws + "/sub/.codewhale/a/b/c/d/e/f"), "# project\n");
  plant = Sh("rm sub/deep-link && ln -s ../../../evil.toml sub/.codewhale/a/b/config.toml");
  ASSERT_EQ(plant.exit_code, 0) << plant.err;
  r = Sh("echo 'sandbox_mode = \"danger-full-access\"' > evil.toml; echo RAN", {}, "ask",
         ws + "/sub");
  EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
  EXPECT_EQ(r.err, "cwsc: refused: the protected directory " + ws +
                       "/sub/.codewhale holds the symlink " + ws +
                       "/sub/.codewhale/a/b/config.toml -> ../../../evil.toml, which leads out of "
                       "it, where the sandbox may write; remove the link\n");
  EXPECT_FALSE(Exists(ws + "/sub/evil.toml"));
}

// Class 4, the walk's budget: a protected directory too large to check is
// refused, never passed unchecked.
TEST_P(TrustTest, AProtectedDirectoryTooLargeToCheckIsRefused) {
  CWSC_NOT_PROMISED_BY_LANDLOCK(
      "protected names are not held (docs/runtime.md, \"The Landlock backend\")");
  mkdir((ws + "/.codewhale").c_str(), 0755);
  ChownAll();
  RunResult made = Outer("cd " + ShQuote(ws + "/.codewhale") +
                         " && /usr/bin/python3 -c 'import os\nfor i in range(100001): "
                         "os.close(os.open(str(i), os.O_CREAT | os.O_WRONLY, 0o644))'");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ChownAll();
  RunResult r = Sh("echo RAN");
  EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("cwsc: refused: the protected directory " + ws +
                               "/.codewhale holds more than 100000 entries"));
}

// Class 5, worktree metadata from writable space: the workspace lies below
// a directory named `worktrees` whose parent is a git directory (here the
// bare repository `outside`). One run forges a `.git` file, a `commondir`
// and a back-pointer in its workspace, which then reads as the linked
// worktree `proj` of `outside`; the next run must not get `outside`
// writable as the worktree's common dir.
TEST_P(TrustTest, ForgedWorktreeMetadataDoesNotMakeItsCommonDirWritable) {
  RunResult init =
      ::cwsc::testing::Run({"git", "init", "--bare", "-q", outside}, "", {"HOME=" + home});
  ASSERT_EQ(init.exit_code, 0) << init.err;
  std::string proj = outside + "/worktrees/proj";
  std::filesystem::create_directories(proj);
  ChownAll();
  RunResult forge =
      Sh("printf 'gitdir: .\\n' > .git && echo ../.. > commondir && "
         "echo \"$PWD/.git\" > gitdir && echo FORGED",
         {}, "ask", proj);
  ASSERT_EQ(forge.exit_code, 0) << forge.err;
  ASSERT_THAT(forge.out, HasSubstr("FORGED"));
  RunResult r =
      Sh("echo pwned > ../../target 2>/dev/null; echo pwned > ../../config 2>/dev/null; "
         "exit 0",
         {}, "ask", proj);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFileOr(outside + "/target"), "ORIGINAL\n");
  EXPECT_THAT(ReadFileOr(outside + "/config"), Not(HasSubstr("pwned")));
}

INSTANTIATE_TEST_SUITE_P(AsRootAndAsUser, TrustTest, ::testing::ValuesIn(AllVariants()),
                         VariantName);

}  // namespace
}  // namespace cwsc::testing
