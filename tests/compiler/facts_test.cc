// Host facts: the live implementation on real files, the recorded reader's
// errors, and the recorder's round trip.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/facts/consulted.h"
#include "compiler/facts/forwarding_facts.h"
#include "compiler/facts/host_facts.h"
#include "ir/plan_json.h"
#include "runtime/host/live_facts.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::compiler {
namespace {

using cwsc::testing::TempDir;
using cwsc::testing::WriteFile;

TEST(LiveFacts, DescribesRealPaths) {
  TempDir t;
  std::string dir = t / "d";
  ASSERT_EQ(mkdir(dir.c_str(), 0750), 0);
  WriteFile(t / "f", "gitdir: /x\nsecond\n");
  chmod((t / "f").c_str(), 0640);
  ASSERT_EQ(symlink(dir.c_str(), (t / "link").c_str()), 0);
  ASSERT_EQ(symlink((t / "nowhere").c_str(), (t / "dangling").c_str()), 0);
  auto facts = runtime::MakeLiveFacts();
  char* real = realpath(t.path().c_str(), nullptr);
  std::string root = real;
  free(real);
  PathInfo d = facts->Path(dir);
  EXPECT_EQ(d.type, FileType::kDirectory);
  EXPECT_EQ(d.mode, 0750u);
  EXPECT_EQ(d.canonical, root + "/d");
  EXPECT_FALSE(d.is_symlink);
  PathInfo l = facts->Path(t / "link");
  EXPECT_TRUE(l.is_symlink);
  EXPECT_EQ(l.type, FileType::kDirectory);
  EXPECT_EQ(l.canonical, root + "/d");
  PathInfo dangling = facts->Path(t / "dangling");
  EXPECT_TRUE(dangling.is_symlink);
  EXPECT_EQ(dangling.type, FileType::kMissing);
  EXPECT_EQ(dangling.canonical, "");
  EXPECT_EQ(facts->Path(t / "f").mode, 0640u);
  EXPECT_EQ(facts->Path("/dev/null").type, FileType::kCharDevice);
  EXPECT_EQ(facts->ReadFile(t / "f"), "gitdir: /x\nsecond\n");
  EXPECT_EQ(facts->ReadFile(dir), std::nullopt);
  EXPECT_EQ(facts->ReadFile(t / "missing"), std::nullopt);
  EXPECT_EQ(facts->User().uid, getuid());
  EXPECT_EQ(facts->Platform(), "linux");
}

// Live facts canonicalize through the parent's memoized answer (one lstat a
// path, not a readlink per component); every answer must still be
// realpath(3)'s, in whatever order paths are asked and however they are spelled.
TEST(LiveFacts, CanonicalPathsAreRealpathsInAnyOrder) {
  TempDir t;
  char* real = realpath(t.path().c_str(), nullptr);
  std::string root = real;
  free(real);
  ASSERT_EQ(mkdir((t / "a").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((t / "a/b").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((t / "a/b/c").c_str(), 0755), 0);
  WriteFile(t / "a/b/file", "x");
  ASSERT_EQ(symlink("a/b", (t / "rel").c_str()), 0);                  // relative
  ASSERT_EQ(symlink((t / "rel").c_str(), (t / "chain").c_str()), 0);  // to a symlink
  ASSERT_EQ(symlink("../..", (t / "a/b/c/up").c_str()), 0);           // .. after a symlink
  ASSERT_EQ(symlink("file", (t / "a/b/flink").c_str()), 0);
  const std::vector<std::string> asked = {"rel/c",
                                          "chain/c/up/b/c",
                                          "a/b/c/up/a/b",
                                          "a/b/c",
                                          "a/b",
                                          "a",
                                          "rel",
                                          "chain/c",
                                          "a/b/c/up",
                                          "a//b/c",
                                          "a/b/./c",
                                          "a/b/c/..",
                                          "a/b/c/",
                                          "rel/../a",
                                          "a/b/flink",
                                          "a/b/file",
                                          "a/b/file/x",
                                          "a/missing",
                                          "a/missing/deeper",
                                          "chain/c/up/rel/c",
                                          ""};
  for (bool reverse : {false, true}) {
    auto facts = runtime::MakeLiveFacts();
    std::vector<std::string> order = asked;
    if (reverse) std::reverse(order.begin(), order.end());
    for (const std::string& rel : order) {
      std::string p = rel.empty() ? t.path() : t / rel;
      char* r = realpath(p.c_str(), nullptr);
      std::string want = r != nullptr ? r : "";
      free(r);
      EXPECT_EQ(facts->Path(p).canonical, want) << p << (reverse ? " (reverse order)" : "");
    }
    EXPECT_EQ(facts->Path("/").canonical, "/");
    EXPECT_EQ(facts->Path(root + "/a").canonical, root + "/a");
  }
}

// A canonical form is built from the answers the facts keep for its
// components, never from a second look at the host: while a command swaps
// a directory for a symlink, a path resolved after its parent was answered
// follows the parent's answer (docs/decisions.md, "One observation of each
// path"). realpath(3) asked at that moment would go through the link.
TEST(LiveFacts, ACanonicalFormFollowsTheAnswersOfItsComponents) {
  TempDir t;
  char* real = realpath(t.path().c_str(), nullptr);
  std::string root = real;
  free(real);
  ASSERT_EQ(mkdir((t / "out").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((t / "out/b").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((t / "out/b/c").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((t / "a").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((t / "a/b").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((t / "a/b/c").c_str(), 0755), 0);
  auto swap = [&] {
    ASSERT_EQ(rename((t / "a").c_str(), (t / "a.real").c_str()), 0);
    ASSERT_EQ(symlink((root + "/out").c_str(), (t / "a").c_str()), 0);
  };
  {
    // Asked while "a" was a directory; then "a" becomes a link.
    auto facts = runtime::MakeLiveFacts();
    EXPECT_FALSE(facts->Path(root + "/a").is_symlink);
    swap();
    EXPECT_EQ(facts->Path(root + "/a/b/./c").canonical, root + "/a/b/c");
    EXPECT_EQ(facts->Path(root + "/a/b/c/..").canonical, root + "/a/b");
    EXPECT_EQ(facts->Path(root + "/a/b/c").canonical, root + "/a/b/c");
  }
  {
    // Asked while "a" was a link; then "a" is a directory again.
    auto facts = runtime::MakeLiveFacts();
    const PathInfo& link = facts->Path(root + "/a");
    EXPECT_TRUE(link.is_symlink);
    EXPECT_EQ(link.target, root + "/out");
    ASSERT_EQ(unlink((t / "a").c_str()), 0);
    ASSERT_EQ(rename((t / "a.real").c_str(), (t / "a").c_str()), 0);
    EXPECT_EQ(facts->Path(root + "/a/b/./c").canonical, root + "/out/b/c");
    EXPECT_EQ(facts->Path(root + "/a/b/c").canonical, root + "/out/b/c");
  }
  {
    // Asked while "a" was missing (between the two renames of a swap): a
    // path below it has no canonical form, whatever is there later.
    ASSERT_EQ(rename((t / "a").c_str(), (t / "a.real").c_str()), 0);
    auto facts = runtime::MakeLiveFacts();
    EXPECT_EQ(facts->Path(root + "/a").type, FileType::kMissing);
    ASSERT_EQ(symlink((root + "/out").c_str(), (t / "a").c_str()), 0);
    const PathInfo& c = facts->Path(root + "/a/b/c");
    EXPECT_EQ(c.type, FileType::kDirectory);  // lstat went through the link
    EXPECT_EQ(c.canonical, "");               // but its parent has no answer
    EXPECT_EQ(facts->Path(root + "/a/b/../b/c").canonical, "");
  }
}

// A chain longer than the kernel follows has no canonical form, and
// resolving it neither recurses without end nor follows a loop.
TEST(LiveFacts, LinkChainsAndLoopsEndLikeTheKernels) {
  TempDir t;
  ASSERT_EQ(mkdir((t / "d").c_str(), 0755), 0);
  std::string prev = t / "d";
  for (int i = 0; i < 60; ++i) {
    std::string l = t / ("l" + std::to_string(i));
    ASSERT_EQ(symlink(prev.c_str(), l.c_str()), 0);
    prev = l;
  }
  ASSERT_EQ(symlink((t / "y").c_str(), (t / "x").c_str()), 0);
  ASSERT_EQ(symlink((t / "x").c_str(), (t / "y").c_str()), 0);
  for (const char* name : {"l30", "l45", "l59", "x", "y"}) {
    auto facts = runtime::MakeLiveFacts();
    std::string p = t / name;
    char* r = realpath(p.c_str(), nullptr);
    std::string want = r != nullptr ? r : "";
    free(r);
    EXPECT_EQ(facts->Path(p).canonical, want) << p;
  }
}

// An answer stays where it is while thousands more are added (the memo's
// index grows and rehashes; the answers and their keys do not move), and
// every one of them is still the host's: keys that share a prefix, keys
// longer than a block of the key arena, and a path with a NUL byte, which
// names nothing (a C path would end at the NUL and name its prefix).
TEST(LiveFacts, AnswersKeepTheirAddressAndTheirPath) {
  TempDir t;
  char* real = realpath(t.path().c_str(), nullptr);
  std::string root = real;
  free(real);
  auto facts = runtime::MakeLiveFacts();
  std::vector<const PathInfo*> first;
  std::vector<std::string> asked;
  for (int i = 0; i < 3000; ++i) {
    std::string d = t / ("d" + std::to_string(i));
    if (i % 3 == 0) {
      ASSERT_EQ(mkdir(d.c_str(), 0755), 0);
    }
    asked.push_back(d);
    first.push_back(&facts->Path(d));
    asked.push_back(d + "/.git");
    first.push_back(&facts->Path(d + "/.git"));
  }
  for (size_t i = 0; i < asked.size(); ++i) {
    const PathInfo& again = facts->Path(asked[i]);
    EXPECT_EQ(&again, first[i]) << asked[i];
    bool dir = i % 2 == 0 && (i / 2) % 3 == 0;
    EXPECT_EQ(again.type, dir ? FileType::kDirectory : FileType::kMissing) << asked[i];
    EXPECT_EQ(again.canonical, dir ? root + "/d" + std::to_string(i / 2) : "") << asked[i];
  }
  // A component far longer than a block of the arena (64 KiB): missing,
  // and the answers before it keep their place.
  std::string longer = t / std::string(70 * 1024, 'x');
  EXPECT_EQ(facts->Path(longer).type, FileType::kMissing);
  EXPECT_EQ(&facts->Path(asked[0]), first[0]);
  // "<dir>\0anything" is not <dir>.
  std::string with_nul = asked[0] + std::string("\0/x", 3);
  EXPECT_EQ(facts->Path(with_nul).type, FileType::kMissing);
  EXPECT_EQ(facts->Path(with_nul).canonical, "");
  EXPECT_EQ(facts->Path(asked[0]).type, FileType::kDirectory);
}

// The probe argv of docs/behavior.md B-40 with the hardening flags every plan carries
// (docs/decisions.md), so the probe fails where the real run would.
TEST(LiveFacts, ProbeArgvIsTheReferenceOnePlusHardening) {
  EXPECT_EQ(BwrapProbeArgv(), (std::vector<std::string>{"/usr/bin/bwrap",
                                                        "--unshare-all",
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
                                                        "--chdir",
                                                        "/",
                                                        "--",
                                                        "/bin/true"}));
}

TEST(LiveFacts, BwrapProbeRunsTheRealWrapper) {
  auto facts = runtime::MakeLiveFacts();
  ProbeResult p = facts->BwrapProbe();
  if (access("/usr/bin/bwrap", X_OK) != 0) {
    EXPECT_FALSE(p.ran);
    EXPECT_FALSE(p.ok);
    return;
  }
  EXPECT_TRUE(p.ran);
  // The test host installs bubblewrap with working user namespaces.
  EXPECT_TRUE(p.ok) << p.message;
  EXPECT_EQ(p.exit_code, 0);
}

absl::Status ParseError(const std::string& yaml) {
  return ParseRecordedFacts(yaml, "f.yaml").status();
}

TEST(RecordedFacts, ErrorsNameLineAndColumn) {
  EXPECT_EQ(ParseError("platform: linux\n").message(),
            "f.yaml:1:1: error: missing 'cwsc_facts: 1' (format version)\n"
            "  platform: linux\n"
            "  ^\n");
  EXPECT_EQ(ParseError("cwsc_facts: 1\nplatform: beos\n").message(),
            "f.yaml:2:11: error: platform must be linux, macos or windows\n"
            "  platform: beos\n"
            "            ^\n");
  EXPECT_EQ(ParseError("cwsc_facts: 1\npaths:\n  /a: {type: dir}\n").message(),
            "f.yaml:3:14: error: type must be missing, file, directory, char-device, block-device "
            "or other\n"
            "    /a: {type: dir}\n"
            "               ^\n");
  EXPECT_EQ(ParseError("cwsc_facts: 1\nuser: {uid: -1}\n").message(),
            "f.yaml:2:13: error: user.uid must be a non-negative integer\n"
            "  user: {uid: -1}\n"
            "              ^\n");
  EXPECT_EQ(ParseError("cwsc_facts: 1\nbogus: 1\n").message(),
            "f.yaml:2:1: error: unknown key 'bogus' in the facts file\n"
            "  bogus: 1\n"
            "  ^\n");
  EXPECT_EQ(ParseError("cwsc_facts: 1\npaths:\n  a/b: {type: file}\n").message(),
            "f.yaml:3:3: error: paths keys must be absolute paths\n"
            "    a/b: {type: file}\n"
            "    ^\n");
  // A relative canonical form would become a relative bind destination.
  EXPECT_EQ(
      ParseError("cwsc_facts: 1\npaths:\n  /a: {type: directory, canonical: w/a}\n").message(),
      "f.yaml:3:36: error: canonical must be an absolute path\n"
      "    /a: {type: directory, canonical: w/a}\n"
      "                                     ^\n");
  // A target is what a symlink says; nothing else has one.
  EXPECT_EQ(ParseError("cwsc_facts: 1\npaths:\n  /a: {type: directory, target: /b}\n").message(),
            "f.yaml:3:33: error: only a symlink has a target\n"
            "    /a: {type: directory, target: /b}\n"
            "                                  ^\n");
  EXPECT_EQ(
      ParseError("cwsc_facts: 1\npaths:\n  /a: {type: missing, symlink: true, target: \"\"}\n")
          .message(),
      "f.yaml:3:46: error: a symlink's target cannot be empty\n"
      "    /a: {type: missing, symlink: true, target: \"\"}\n"
      "                                               ^\n");
  EXPECT_EQ(std::string(ParseError("cwsc_facts: 1\npaths: [\n").message())
                .rfind("f.yaml:3:1: error: malformed facts file: ", 0),
            0u);
  EXPECT_EQ(std::string(ParseError("- 1\n").message())
                .rfind("f.yaml:1:1: error: the facts file must be a mapping", 0),
            0u);
}

TEST(RecordedFacts, UnlistedMeansAbsent) {
  auto f = ParseRecordedFacts("cwsc_facts: 1\n", "f.yaml");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->Path("/anything").type, FileType::kMissing);
  EXPECT_EQ((*f)->Env("HOME"), std::nullopt);
  EXPECT_FALSE((*f)->BwrapProbe().ran);
  EXPECT_EQ((*f)->Platform(), "linux");
}

// A decorator on ForwardingFacts overrides one question; every other one
// reaches the inner facts unchanged.
TEST(ForwardingFacts, PassesOnEverythingItDoesNotOverride) {
  auto inner = ParseRecordedFacts(
      "cwsc_facts: 1\nplatform: macos\ncwd: /w\nenv:\n  HOME: /home/me\n  TMPDIR: null\n"
      "secrets_set:\n  CODEWHALE_SANDBOX_API_KEY: true\n",
      "f.yaml");
  ASSERT_TRUE(inner.ok()) << inner.status();
  class OnlyCwd : public ForwardingFacts {
   public:
    using ForwardingFacts::ForwardingFacts;
    std::string Cwd() override { return "/elsewhere"; }
  } facts(inner->get());
  EXPECT_EQ(facts.Cwd(), "/elsewhere");
  EXPECT_EQ(facts.Platform(), "macos");
  EXPECT_EQ(facts.Env("HOME"), "/home/me");
  EXPECT_EQ(facts.Env("TMPDIR"), std::nullopt);
  EXPECT_TRUE(facts.EnvIsSet("CODEWHALE_SANDBOX_API_KEY"));
  EXPECT_EQ(facts.Path("/anything"), (*inner)->Path("/anything"));
  EXPECT_EQ(facts.User(), (*inner)->User());
  EXPECT_EQ(facts.BwrapProbe(), (*inner)->BwrapProbe());
  EXPECT_EQ(facts.UnlistedPaths(), (*inner)->UnlistedPaths());
}

TEST(Recorder, RoundTripsEveryAnswer) {
  TempDir t;
  WriteFile(t / "file", "line one\n\"quoted\" \\ back\n");
  ASSERT_EQ(symlink((t / "file").c_str(), (t / "ln").c_str()), 0);
  auto live = runtime::MakeLiveFacts();
  FactsRecorder rec(live.get());
  std::vector<std::string> paths = {t.path(), t / "file", t / "ln", t / "missing", "/dev/null"};
  std::vector<PathInfo> answers;
  for (const auto& p : paths) answers.push_back(rec.Path(p));
  auto content = rec.ReadFile(t / "file");
  auto home = rec.Env("HOME");
  auto unset = rec.Env("CWSC_SURELY_UNSET_VARIABLE");
  bool secret = rec.EnvIsSet("CWSC_SURELY_UNSET_SECRET");
  UserInfo user = rec.User();
  absl::StatusOr<std::string> yaml = rec.WriteYaml();
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  auto back = ParseRecordedFacts(*yaml, "rec.yaml");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << *yaml;
  EXPECT_EQ(answers[2].target, t / "file");  // a link's target is part of its answer
  for (size_t i = 0; i < paths.size(); ++i)
    EXPECT_EQ((*back)->Path(paths[i]), answers[i]) << paths[i];
  EXPECT_EQ((*back)->ReadFile(t / "file"), content);
  EXPECT_EQ((*back)->Env("HOME"), home);
  EXPECT_EQ((*back)->Env("CWSC_SURELY_UNSET_VARIABLE"), unset);
  EXPECT_EQ((*back)->EnvIsSet("CWSC_SURELY_UNSET_SECRET"), secret);
  EXPECT_EQ((*back)->User(), user);
}

TEST(Recorder, SecretsAreRecordedAsPresenceOnly) {
  setenv("CWSC_TEST_SECRET_KEY", "do-not-leak-4242", 1);
  auto live = runtime::MakeLiveFacts();
  FactsRecorder rec(live.get());
  EXPECT_TRUE(rec.EnvIsSet("CWSC_TEST_SECRET_KEY"));
  std::string yaml = *rec.WriteYaml();
  EXPECT_EQ(yaml.find("do-not-leak-4242"), std::string::npos);
  EXPECT_NE(yaml.find("CWSC_TEST_SECRET_KEY: true"), std::string::npos) << yaml;
  unsetenv("CWSC_TEST_SECRET_KEY");
}

// The plan's record of what its compile asked (compiler/facts/consulted.h)
// keeps no secret: an API key variable's presence only, and a URL's user
// information withheld; the answers it keeps are the compile's.
TEST(Consulted, KeepsTheAnswersAndNoSecret) {
  setenv("CWSC_TEST_SECRET_KEY", "do-not-leak-4242", 1);
  setenv("CWSC_TEST_URL", "https://alice:hunter2@sandbox.invalid:8080/v1?x=1", 1);
  auto live = runtime::MakeLiveFacts();
  ConsultedRecorder rec(live.get());
  EXPECT_TRUE(rec.EnvIsSet("CWSC_TEST_SECRET_KEY"));
  EXPECT_EQ(rec.Env("CWSC_TEST_URL"), "https://alice:hunter2@sandbox.invalid:8080/v1?x=1")
      << "the compile sees the value";
  EXPECT_EQ(rec.Env("CWSC_SURELY_UNSET_VARIABLE"), std::nullopt);
  TempDir t;
  WriteFile(t / "f", "x");
  const PathInfo& f = rec.Path(t / "f");
  ir::LaunchPlan plan;
  plan.consulted = rec.Take();
  const ir::Consulted& c = *plan.consulted;
  ASSERT_EQ(c.secrets.size(), 1u);
  EXPECT_EQ(c.secrets[0].name, "CWSC_TEST_SECRET_KEY");
  EXPECT_TRUE(c.secrets[0].set);
  ASSERT_EQ(c.env.size(), 2u);
  EXPECT_EQ(c.env[0].name, "CWSC_SURELY_UNSET_VARIABLE");
  EXPECT_EQ(c.env[0].value, std::nullopt);
  EXPECT_EQ(c.env[1].value, "https://(withheld)@sandbox.invalid:8080/v1?x=1");
  ASSERT_EQ(c.paths.size(), 1u);
  EXPECT_EQ(c.paths[0], ConsultedPathOf(t / "f", f));
  EXPECT_EQ(c.paths[0].type, "file");
  EXPECT_EQ(c.paths[0].mode.size(), 4u);
  std::string json = *ir::PlanToJson(plan);
  EXPECT_EQ(json.find("do-not-leak-4242"), std::string::npos);
  EXPECT_EQ(json.find("hunter2"), std::string::npos);
  EXPECT_EQ(json.find("alice"), std::string::npos);
  EXPECT_EQ(ConsultedEnvValue("a=http://u@h and ftp://p:q@g/x"),
            "a=http://(withheld)@h and ftp://(withheld)@g/x");
  EXPECT_EQ(ConsultedEnvValue("mailto:me@example.com"), "mailto:me@example.com");
  EXPECT_EQ(ConsultedEnvValue("https://host/path@x"), "https://host/path@x");
  unsetenv("CWSC_TEST_SECRET_KEY");
  unsetenv("CWSC_TEST_URL");
}

// A plan records each path once, in the order first asked; plans compiled
// against the same facts share the record's text (PathInfo::record), so a
// warm engine's compile copies no path text (docs/performance.md).
// OneDirectoryFacts lists one directory; RecordBoth asks about it and an
// unlisted path, then about the directory again.
std::unique_ptr<HostFacts> OneDirectoryFacts() {
  auto facts = ParseRecordedFacts(
      "cwsc_facts: 1\npaths:\n  /work/a-project-directory-name:\n    type: directory\n"
      "    canonical: /work/a-project-directory-name\n    mode: \"0755\"\n",
      "f.yaml");
  EXPECT_TRUE(facts.ok()) << facts.status();
  return facts.ok() ? *std::move(facts) : nullptr;
}
ir::Consulted RecordBoth(HostFacts* facts) {
  ConsultedRecorder rec(facts);
  rec.Path("/work/a-project-directory-name");
  rec.Path("/nowhere/an-unlisted-path-of-some-length");
  rec.Path("/work/a-project-directory-name");
  return rec.Take();
}

TEST(ConsultedRecorder, PlansOfOneFactsShareTheRecordsText) {
  std::unique_ptr<HostFacts> facts = OneDirectoryFacts();
  ASSERT_NE(facts, nullptr);
  ir::Consulted first = RecordBoth(facts.get());
  ir::Consulted second = RecordBoth(facts.get());
  ASSERT_EQ(first.paths.size(), 2u);
  EXPECT_EQ(first.paths[0].path, "/work/a-project-directory-name");
  EXPECT_EQ(first.paths[0].type, "directory");
  EXPECT_EQ(first.paths[1].path, "/nowhere/an-unlisted-path-of-some-length");
  EXPECT_EQ(first.paths[1].type, "missing");
  EXPECT_EQ(first, second);
  // One text, kept by the facts' arena (the views point at the same bytes).
  EXPECT_EQ(first.paths[0].path.data(), second.paths[0].path.data());
  EXPECT_EQ(first.paths[0].canonical.data(), second.paths[0].canonical.data());
  EXPECT_EQ(first.paths[1].path.data(), second.paths[1].path.data());
  // A path that is its own canonical form keeps one text for both.
  EXPECT_EQ(first.paths[0].canonical.data(), first.paths[0].path.data());
  EXPECT_TRUE(first.paths[1].canonical.empty());
}

// Plans compiled against one facts object hold the same records, one
// pointer per path (no record copied), and keep them after the facts are
// gone (the sanitizer build sees any use after free).
TEST(ConsultedRecorder, PlansHoldTheFactsRecordsAndOutliveThem) {
  ir::Consulted first, second;
  {
    std::unique_ptr<HostFacts> facts = OneDirectoryFacts();
    ASSERT_NE(facts, nullptr);
    first = RecordBoth(facts.get());
    second = RecordBoth(facts.get());
    ASSERT_EQ(second.paths.size(), 2u);
    EXPECT_EQ(&first.paths[0], &second.paths[0]);
    EXPECT_EQ(&first.paths[1], &second.paths[1]);
    const ir::Consulted copy = first;
    EXPECT_EQ(&copy.paths[1], &first.paths[1]);
  }
  EXPECT_EQ(first.paths[0].path, "/work/a-project-directory-name");
  EXPECT_EQ(first.paths[0].canonical, "/work/a-project-directory-name");
  EXPECT_EQ(second.paths[1].path, "/nowhere/an-unlisted-path-of-some-length");
  EXPECT_EQ(second.paths[1].type, "missing");
  // A record added to a copy is the copy's alone.
  ir::Consulted edited = first;
  ir::ConsultedPath added;
  added.path = "/added";
  added.type = "missing";
  edited.paths.push_back(added);
  EXPECT_EQ(edited.paths.size(), 3u);
  EXPECT_EQ(first.paths.size(), 2u);
  EXPECT_EQ(edited.paths[2].path, "/added");
  EXPECT_NE(edited, first);
}

// Recorded facts give each unlisted path an answer of its own, and two
// facts objects share none (a record kept in a shared answer would be
// written from two threads at once).
TEST(ConsultedRecorder, UnlistedPathsHaveAnswersOfTheirOwn) {
  auto a = ParseRecordedFacts("cwsc_facts: 1\n", "a.yaml");
  auto b = ParseRecordedFacts("cwsc_facts: 1\n", "b.yaml");
  ASSERT_TRUE(a.ok() && b.ok());
  const PathInfo& x = (*a)->Path("/x");
  EXPECT_NE(&x, &(*a)->Path("/y"));
  EXPECT_EQ(&x, &(*a)->Path("/x"));
  EXPECT_NE(&x, &(*b)->Path("/x"));
  EXPECT_EQ(x.type, FileType::kMissing);
}

// OneAnswer gives every path the same answer, which a test may edit: facts
// that break the promise of one answer per path, unchanged.
class OneAnswer : public ForwardingFacts {
 public:
  OneAnswer(HostFacts* inner, const std::string& canonical, uint32_t mode)
      : ForwardingFacts(inner) {
    answer.type = FileType::kDirectory;
    answer.canonical = canonical;
    answer.mode = mode;
  }
  const PathInfo& Path(absl::string_view) override { return answer; }
  PathInfo answer;
};

// Facts that give two paths one answer: each path is recorded, once, and
// a later compile that asks the other path first records it rightly.
TEST(ConsultedRecorder, AnAnswerSharedByTwoPathsIsRecordedForEach) {
  auto inner = ParseRecordedFacts("cwsc_facts: 1\n", "f.yaml");
  ASSERT_TRUE(inner.ok());
  OneAnswer facts(inner->get(), "/c", 0700);
  ConsultedRecorder first(&facts);
  first.Path("/a");
  first.Path("/b");
  first.Path("/a");
  first.Path("/b");
  ir::Consulted c = first.Take();
  ASSERT_EQ(c.paths.size(), 2u);
  EXPECT_EQ(c.paths[0].path, "/a");
  EXPECT_EQ(c.paths[1].path, "/b");
  EXPECT_EQ(c.paths[1].canonical, "/c");
  ConsultedRecorder second(&facts);
  second.Path("/b");
  second.Path("/a");
  second.Path("/b");
  c = second.Take();
  ASSERT_EQ(c.paths.size(), 2u);
  EXPECT_EQ(c.paths[0].path, "/b");
  EXPECT_EQ(c.paths[1].path, "/a");
  ConsultedRecorder third(&facts);
  third.Path("/a");
  c = third.Take();
  ASSERT_EQ(c.paths.size(), 1u);
  EXPECT_EQ(c.paths[0].path, "/a");
}

// An answer changed in place after a compile recorded it (facts that break
// the promise of unchanged answers) is recorded as it is now, never as the
// kept record says.
TEST(ConsultedRecorder, AnAnswerEditedInPlaceIsRecordedAfresh) {
  auto inner = ParseRecordedFacts("cwsc_facts: 1\n", "f.yaml");
  ASSERT_TRUE(inner.ok());
  OneAnswer facts(inner->get(), "/w", 0755);
  // The list, which keeps its records (a record's texts are views).
  auto record = [&] {
    ConsultedRecorder rec(&facts);
    rec.Path("/w");
    return rec.Take().paths;
  };
  EXPECT_EQ(record().at(0).type, "directory");
  facts.answer.type = FileType::kRegular;
  EXPECT_EQ(record().at(0).type, "file");
  facts.answer.canonical = "/elsewhere";
  EXPECT_EQ(record().at(0).canonical, "/elsewhere");
  facts.answer.mode = 0777;
  EXPECT_EQ(record().at(0).mode, "0777");
  facts.answer.is_symlink = true;
  facts.answer.target = "/t";
  ir::ConsultedPaths now = record();
  EXPECT_TRUE(now.at(0).symlink);
  EXPECT_EQ(now.at(0).target, "/t");
  facts.answer.uid = 7;
  EXPECT_EQ(record().at(0).uid, 7);
  EXPECT_EQ(record().at(0), ConsultedPathOf("/w", facts.answer));
  // Asked twice in one compile, recorded once.
  ConsultedRecorder twice(&facts);
  twice.Path("/w");
  twice.Path("/w");
  EXPECT_EQ(twice.Take().paths.size(), 1u);
}

}  // namespace
}  // namespace cwsc::compiler
