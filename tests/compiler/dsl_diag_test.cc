// Exact-text goldens for every kind of .cwsp diagnostic. Each case is
// tests/golden/dsl/<name>.cwsp with its expected rendered errors in
// <name>.err; a first-line comment `# layer: managed` or `# policy: NAME`
// sets how the case is read. CWSC_UPDATE_GOLDENS=1 rewrites the .err files.
//
// Beside each golden, a semantic check: every error names this file, a line
// that exists, and a column inside (or just past) that line; and the caret
// line sits under that column.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "compiler/dsl_frontend.h"
#include "compiler/dsl_text.h"
#include "tests/testing/golden.h"

namespace cwsc::compiler {
namespace {

namespace fs = std::filesystem;

fs::path GoldenDir() {
  const char* root = std::getenv("CWSC_SOURCE_ROOT");
  return fs::path(root ? root : ".") / "tests" / "golden" / "dsl";
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Cases() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(GoldenDir())) {
    if (e.path().extension() == ".cwsp") out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Header(const std::string& text, const std::string& key) {
  std::string prefix = "# " + key + ": ";
  if (text.rfind(prefix, 0) != 0) return "";
  return text.substr(prefix.size(), text.find('\n') - prefix.size());
}

// Diagnose runs the frontend as `cwsc compile` would and returns its errors.
std::string Diagnose(const std::string& name, const std::string& text) {
  Layer layer = Header(text, "layer") == "managed" ? Layer::kManaged : Layer::kUser;
  absl::StatusOr<DslResult> r = ReadDslPolicy(text, name + ".cwsp", Header(text, "policy"), layer);
  if (r.ok()) return "";
  return std::string(r.status().message());
}

class DslDiagnostics : public ::testing::TestWithParam<std::string> {};

TEST_P(DslDiagnostics, MatchesGolden) {
  const std::string name = GetParam();
  std::string text = ReadAll(GoldenDir() / (name + ".cwsp"));
  std::string got = Diagnose(name, text);
  ASSERT_FALSE(got.empty()) << name << " must be rejected";
  fs::path err = GoldenDir() / (name + ".err");
  SCOPED_TRACE(name);
  testing::CheckGolden(err.string(), got);
}

TEST_P(DslDiagnostics, PositionsPointIntoTheFile) {
  const std::string name = GetParam();
  std::string text = ReadAll(GoldenDir() / (name + ".cwsp"));
  std::string got = Diagnose(name, text);
  std::vector<std::string> source_lines;
  {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) source_lines.push_back(l);
  }
  std::istringstream out(got);
  std::vector<std::string> lines;
  for (std::string l; std::getline(out, l);) lines.push_back(l);
  const std::regex located("^" + name + R"(\.cwsp:(\d+):(\d+): error: (.+)$)");
  const std::regex unlocated("^" + name + R"(\.cwsp: error: (.+)$)");
  int errors = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (std::regex_match(lines[i], m, located)) {
      ++errors;
      size_t line = std::stoul(m[1]);
      int col = std::stoi(m[2]);
      ASSERT_GE(line, 1u);
      ASSERT_LE(line, source_lines.size()) << lines[i];
      EXPECT_LE(col, CodePoints(source_lines[line - 1]) + 1) << lines[i];
      EXPECT_EQ(m[3].str().find("mismatched input"), std::string::npos);  // no ANTLR wording
      EXPECT_EQ(m[3].str().find("expecting"), std::string::npos);
      EXPECT_EQ(m[3].str().find("<missing"), std::string::npos);
      // The source line and the caret follow, the caret under the column.
      if (i + 2 < lines.size() && lines[i + 2].find('^') != std::string::npos) {
        EXPECT_EQ(lines[i + 2], "  " + std::string(col - 1, ' ') + "^") << lines[i];
      }
    } else if (std::regex_match(lines[i], m, unlocated)) {
      ++errors;
    }
  }
  EXPECT_GE(errors, 1) << got;
  EXPECT_LE(errors, static_cast<int>(ir::Diagnostics::kMaxErrors)) << got;
}

INSTANTIATE_TEST_SUITE_P(Golden, DslDiagnostics, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param; });

TEST(DslDiagnosticsFile, TooLargeFile) {
  std::string text(kMaxDslBytes + 1, ' ');
  absl::StatusOr<DslResult> r = ReadDslPolicy(text, "big.cwsp", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "big.cwsp: error: file is too large (1048577 bytes); a policy file may have at most "
            "1048576 bytes\n");
}

TEST(DslDiagnosticsFile, ManyErrorsAreAllReported) {
  std::string text = ReadAll(GoldenDir() / "many_errors.cwsp");
  std::string got = Diagnose("many_errors", text);
  size_t count = 0;
  for (size_t p = got.find(": error: "); p != std::string::npos; p = got.find(": error: ", p + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 6u) << got;
}

TEST(DslDiagnosticsFile, ErrorsStopAtTheBound) {
  std::string text = ReadAll(GoldenDir() / "too_many_errors.cwsp");
  std::string got = Diagnose("too_many_errors", text);
  size_t count = 0;
  for (size_t p = got.find(": error: "); p != std::string::npos; p = got.find(": error: ", p + 1)) {
    ++count;
  }
  EXPECT_EQ(count, ir::Diagnostics::kMaxErrors);
  EXPECT_NE(got.find("too many errors; stopping"), std::string::npos);
}

}  // namespace
}  // namespace cwsc::compiler
