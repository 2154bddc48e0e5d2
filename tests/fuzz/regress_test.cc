// The fuzz regression corpus (docs/fuzzing.md): every input that once broke
// a fuzz target (tests/regress/<target>/) and every seed (fuzz/corpus/<target>/)
// goes through the target's function in this process; the inputs cwsc reads
// from a file also go through the `cwsc` program, which must end with exit 2
// and a located error (or succeed), never crash.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "fuzz/targets.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc {
namespace {

using testing::SourceRoot;

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    out.push_back(dir + "/" + name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

struct Target {
  const char* name;
  void (*fn)(std::string_view);
  // The cwsc command line that reads the file, or empty when none does.
  std::function<std::vector<std::string>(const std::string& file)> cli;
};

void PrintTo(const Target& t, std::ostream* os) { *os << t.name; }

std::string Bin() {
  const char* b = std::getenv("CWSC_BIN");
  return b ? b : "cwsc";
}

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"config_toml", fuzz::ConfigToml,
       [](const std::string& f) {
         return std::vector<std::string>{Bin(),
                                         "compile",
                                         f,
                                         "--input",
                                         "toml",
                                         "--facts",
                                         SourceRoot() + "/examples/facts/linux-workspace.yaml",
                                         "--format",
                                         "nul"};
       }},
      {"dsl", fuzz::Dsl,
       [](const std::string& f) {
         return std::vector<std::string>{Bin(),
                                         "compile",
                                         f,
                                         "--input",
                                         "dsl",
                                         "--facts",
                                         SourceRoot() + "/examples/facts/linux-workspace.yaml",
                                         "--format",
                                         "nul"};
       }},
      {"facts", fuzz::Facts,
       [](const std::string& f) {
         return std::vector<std::string>{
             Bin(),      "compile", SourceRoot() + "/examples/workspace.toml", "--facts", f,
             "--format", "nul"};
       }},
      {"plan_json", fuzz::PlanJson,
       [](const std::string& f) {
         return std::vector<std::string>{Bin(), "exec", f, "--", "/bin/true"};
       }},
      {"sbpl", fuzz::Sbpl, nullptr},
      {"opensandbox", fuzz::OpenSandbox, nullptr},
      {"bwrap_argv", fuzz::BwrapArgv, nullptr},
  };
  return targets;
}

std::vector<Target> CliTargets() {
  std::vector<Target> out;
  for (const Target& t : Targets()) {
    if (t.cli) out.push_back(t);
  }
  return out;
}

class FuzzRegress : public ::testing::TestWithParam<Target> {};
class FuzzRegressCli : public ::testing::TestWithParam<Target> {};

TEST_P(FuzzRegress, EveryInputRunsThroughTheTarget) {
  const Target& t = GetParam();
  std::vector<std::string> files = FilesIn(SourceRoot() + "/tests/regress/" + t.name);
  std::vector<std::string> seeds = FilesIn(SourceRoot() + "/fuzz/corpus/" + t.name);
  files.insert(files.end(), seeds.begin(), seeds.end());
  ASSERT_FALSE(files.empty()) << t.name;
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    t.fn(testing::ReadFileOr(f));  // aborts on a broken invariant
  }
}

// Regression inputs through cwsc: exit 2 with `FILE:LINE:COL: error:` (or
// `FILE: error:` naming a place inside, as a plan's JSON pointer), or success.
TEST_P(FuzzRegressCli, CwscRejectsRegressionInputsWithALocation) {
  const Target& t = GetParam();
  for (const std::string& f : FilesIn(SourceRoot() + "/tests/regress/" + t.name)) {
    SCOPED_TRACE(f);
    testing::RunResult r = testing::Run(t.cli(f));
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2 || r.exit_code == 3) << r.exit_code << "\n"
                                                                          << r.err;
    if (r.exit_code == 2) {
      EXPECT_EQ(r.err.rfind(f + ":", 0), 0u) << r.err;
      EXPECT_NE(r.err.find(" error: "), std::string::npos) << r.err;
      EXPECT_EQ(r.out, "");
    }
  }
}

// The plan reader's seeds are the golden plans of the current schema
// (docs/fuzzing.md): a seed of an older schema stops at the version check and
// leads the fuzzer nowhere past it. A schema change updates both.
TEST(FuzzSeeds, PlanSeedsAreTheGoldenPlans) {
  const std::string golden = SourceRoot() + "/tests/golden/bwrap";
  std::vector<std::string> dirs = FilesIn(golden);
  ASSERT_GE(dirs.size(), 14u);
  for (const std::string& dir : dirs) {
    const std::string name = dir.substr(golden.size() + 1);
    SCOPED_TRACE(name);
    EXPECT_EQ(testing::ReadFileOr(SourceRoot() + "/fuzz/corpus/plan_json/" + name + ".json"),
              testing::ReadFileOr(dir + "/plan.json"));
  }
}

std::string Name(const ::testing::TestParamInfo<Target>& i) { return i.param.name; }

INSTANTIATE_TEST_SUITE_P(Targets, FuzzRegress, ::testing::ValuesIn(Targets()), Name);
// The targets whose input cwsc reads from a file.
INSTANTIATE_TEST_SUITE_P(Targets, FuzzRegressCli, ::testing::ValuesIn(CliTargets()), Name);

}  // namespace
}  // namespace cwsc
