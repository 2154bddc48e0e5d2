// Golden tests: each directory under tests/golden/bwrap/ is one case, run
// through the real `cwsc` binary on recorded facts:
//   config.toml   the policy (origins name it as "config.toml")
//   facts.yaml    recorded host facts
//   args          extra CLI arguments, one per line (e.g. --mode, ask, --, sh)
// Expected outputs (rewritten by CWSC_UPDATE_GOLDENS=1, then reviewed):
//   bwrap.argv    `cwsc compile --format lines` stdout (+ exit code line when not 0)
//   plan.json     `cwsc compile --target plan` stdout
//   explain.txt   `cwsc explain` stdout
//   stderr.txt    stderr of the compile run
// Beside the goldens, probes.txt holds hand-written *semantic* expectations
// checked by replaying the emitted argv with the mount interpreter:
//   writable|read-only|hidden|private|device PATH
//   network isolated|shared      chdir PATH      kind KIND      exit N
#include "tests/testing/golden.h"

#include <dirent.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/verify/bwrap_interp.h"
#include "ir/plan_json.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc {
namespace {

std::string Root() {
  const char* r = std::getenv("CWSC_SOURCE_ROOT");
  return std::string(r ? r : ".") + "/tests/golden/bwrap";
}

std::vector<std::string> Cases() {
  std::vector<std::string> out;
  DIR* d = opendir(Root().c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != ".." && e->d_type == DT_DIR) out.push_back(n);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  for (absl::string_view l : absl::StrSplit(text, '\n', absl::SkipEmpty())) out.emplace_back(l);
  return out;
}

class Golden : public ::testing::TestWithParam<std::string> {
 protected:
  std::string Dir() const { return Root() + "/" + GetParam(); }

  testing::RunResult Cwsc(std::vector<std::string> args) {
    std::vector<std::string> argv = {std::getenv("CWSC_BIN") ? std::getenv("CWSC_BIN") : "cwsc"};
    argv.insert(argv.end(), args.begin(), args.end());
    return testing::Run(argv, "", {}, Dir());
  }

  void Check(const std::string& name, const std::string& actual) {
    testing::CheckGolden(Dir() + "/" + name, actual);
  }
};

TEST_P(Golden, Outputs) {
  std::vector<std::string> extra = Lines(testing::ReadFileOr(Dir() + "/args"));
  std::vector<std::string> options, program;
  bool after = false;
  for (const auto& a : extra) {
    if (a == "--") {
      after = true;
      continue;
    }
    (after ? program : options).push_back(a);
  }
  auto with = [&](std::vector<std::string> head) {
    head.push_back("config.toml");
    head.push_back("--facts");
    head.push_back("facts.yaml");
    head.insert(head.end(), options.begin(), options.end());
    head.push_back("--");
    head.insert(head.end(), program.begin(), program.end());
    return head;
  };
  testing::RunResult compile = Cwsc(with({"compile"}));
  std::string argv_golden = compile.out;
  if (compile.exit_code != 0) argv_golden += "# exit " + std::to_string(compile.exit_code) + "\n";
  Check("bwrap.argv", argv_golden);
  Check("stderr.txt", compile.err);
  testing::RunResult plan = Cwsc(with({"compile", "--target", "plan"}));
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  Check("plan.json", plan.out);
  testing::RunResult explain = Cwsc(with({"explain"}));
  Check("explain.txt", explain.out);

  // Semantic check of the emitted argv, against hand-written probes.
  auto parsed = ir::PlanFromJson(plan.out, "plan.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  // Every setting the plan leaves out is a note of the compile (stderr.txt).
  for (const ir::Skipped& s : parsed->skipped) {
    if (s.kind != ir::SkipKind::kSetting || compile.exit_code != 0) continue;
    std::string note = absl::StrCat(": note: skipped ", s.what, s.path.empty() ? "" : " ", s.path,
                                    ": ", s.reason, "\n");
    EXPECT_NE(compile.err.find(note), std::string::npos) << note;
  }
  std::vector<std::string> argv = Lines(compile.out);
  absl::StatusOr<backends::BwrapView> view = backends::InterpretBwrapArgv(argv);
  std::vector<std::string> probes = Lines(testing::ReadFileOr(Dir() + "/probes.txt"));
  ASSERT_FALSE(probes.empty()) << "each golden needs probes.txt";
  for (const std::string& line : probes) {
    if (line[0] == '#') continue;
    std::string verb = line.substr(0, line.find(' '));
    std::string arg = line.substr(line.find(' ') + 1);
    if (verb == "kind") {
      EXPECT_EQ(ir::PlanKindName(parsed->kind()), arg);
    } else if (verb == "exit") {
      EXPECT_EQ(std::to_string(compile.exit_code), arg);
    } else if (verb == "argv") {  // unwrapped: the argv is exactly the program
      EXPECT_EQ(compile.out, arg + "\n");
    } else {
      ASSERT_TRUE(view.ok()) << view.status() << " (probe: " << line << ")";
      if (verb == "network") {
        EXPECT_EQ(view->network_isolated ? "isolated" : "shared", arg);
      } else if (verb == "chdir") {
        EXPECT_EQ(view->chdir, arg);
      } else {
        EXPECT_EQ(backends::AccessName(view->Find(arg).access), verb) << "probe " << line;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Bwrap, Golden, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(GoldenSuite, HasCases) { EXPECT_GE(Cases().size(), 10u) << Root(); }

}  // namespace
}  // namespace cwsc
