// `cwsc fmt`'s engine: an exact golden of the canonical layout, and over
// every example and every test policy: fmt(fmt(x)) == fmt(x), every comment
// kept, and the formatted file lowers to the same policies as the original.
#include "compiler/dsl_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/dsl_frontend.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::compiler {
namespace {

using ::cwsc::testing::ReadFileOr;
using ::cwsc::testing::SourceRoot;

namespace fs = std::filesystem;

TEST(DslFormat, CanonicalLayout) {
  std::string in =
      "# header\n\n\n\n# second\npolicy   agent{ mode workspace-write ;network off;# trailing\n"
      "    writable \"$WORKSPACE\" ,\"/srv/cache\" ;   // build cache   \n\n\n"
      "  /* block\n     comment */\n  read_only \"/opt/toolchains\";\n"
      "  writable \"/a\",   # first\n      \"/b\";\n"
      "  backend opensandbox { url \"http://x\"; api_key env \"K\"; keep on; execd_port 8080; };\n"
      "  launcher [ \"/usr/bin/sudo\" , \"-n\" ];\n\n\n}\n"
      "policy ci extends agent { network on; } # after\npolicy empty {}";
  absl::StatusOr<std::string> out = FormatDsl(in, "f.cwsp");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out,
            "# header\n"
            "\n"
            "# second\n"
            "policy agent {\n"
            "  mode workspace-write;\n"
            "  network off;                          # trailing\n"
            "  writable \"$WORKSPACE\", \"/srv/cache\";  // build cache\n"
            "\n"
            "  /* block\n"
            "     comment */\n"
            "  read_only \"/opt/toolchains\";\n"
            "  writable \"/a\",  # first\n"
            "      \"/b\";\n"
            "  backend opensandbox {\n"
            "    url \"http://x\";\n"
            "    api_key env \"K\";\n"
            "    keep on;\n"
            "    execd_port 8080;\n"
            "  }\n"
            "  launcher [\"/usr/bin/sudo\", \"-n\"];\n"
            "}\n"
            "\n"
            "policy ci extends agent {\n"
            "  network on;\n"
            "}  # after\n"
            "\n"
            "policy empty {\n"
            "}\n");
}

TEST(DslFormat, RefusesSyntaxErrors) {
  absl::StatusOr<std::string> out = FormatDsl("policy a {\n  writable ;\n}\n", "bad.cwsp");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "bad.cwsp:2:12: error: expected a path string after 'writable', found ';'\n"
            "    writable ;\n"
            "             ^\n");
}

TEST(DslFormat, EmptyAndCommentOnlyFiles) {
  EXPECT_EQ(*FormatDsl("", "e.cwsp"), "");
  EXPECT_EQ(*FormatDsl("  # only a note   \n\n", "e.cwsp"), "# only a note\n");
}

// Every .cwsp the project has: the examples and each test policy.
std::vector<fs::path> AllPolicies() {
  std::vector<fs::path> out;
  for (const fs::path& dir :
       {fs::path(SourceRoot()) / "examples", fs::path(SourceRoot()) / "tests" / "golden" / "dsl"}) {
    if (!fs::exists(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".cwsp") out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

int CountComments(const std::string& text) {
  absl::StatusOr<std::vector<DslToken>> tokens = LexDsl(text, "x.cwsp");
  if (!tokens.ok()) return -1;
  return static_cast<int>(std::count_if(tokens->begin(), tokens->end(), [](const DslToken& t) {
    return t.kind == DslToken::Kind::kLineComment || t.kind == DslToken::Kind::kBlockComment;
  }));
}

TEST(DslFormat, IdempotentAndMeaningPreservingOverEveryPolicy) {
  std::vector<fs::path> files = AllPolicies();
  ASSERT_GE(files.size(), 10u);
  int formatted_count = 0;
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    std::string text = ReadFileOr(f.string());
    absl::StatusOr<std::string> once = FormatDsl(text, f.filename().string());
    if (!once.ok()) {
      // Only files with syntax (or input) errors are refused; they must
      // also be refused by the compiler.
      EXPECT_FALSE(CheckDslSyntax(text, f.filename().string()).ok());
      continue;
    }
    ++formatted_count;
    absl::StatusOr<std::string> twice = FormatDsl(*once, f.filename().string());
    ASSERT_TRUE(twice.ok()) << twice.status();
    EXPECT_EQ(*twice, *once);
    EXPECT_EQ(CountComments(*once), CountComments(text));
    // The same policies, or the same semantic errors at the same statements.
    for (Layer layer : {Layer::kUser, Layer::kManaged}) {
      absl::StatusOr<DslFile> a = ReadDslFile(text, "x.cwsp", layer);
      absl::StatusOr<DslFile> b = ReadDslFile(*once, "x.cwsp", layer);
      ASSERT_EQ(a.ok(), b.ok());
      if (!a.ok()) continue;
      ASSERT_EQ(a->policies.size(), b->policies.size());
      for (size_t i = 0; i < a->policies.size(); ++i) {
        const DslPolicy& pa = a->policies[i];
        const DslPolicy& pb = b->policies[i];
        EXPECT_EQ(pa.name, pb.name);
        EXPECT_EQ(pa.parent, pb.parent);
        // Values must match; only positions may move.
        EXPECT_EQ(pa.spec.sandbox_mode.has_value(), pb.spec.sandbox_mode.has_value());
        if (pa.spec.sandbox_mode && pb.spec.sandbox_mode) {
          EXPECT_EQ(pa.spec.sandbox_mode->value.type, pb.spec.sandbox_mode->value.type);
        }
        auto values = [](const std::optional<Setting<PathList>>& l) {
          std::vector<std::string> v;
          if (!l) return v;
          for (const auto& e : l->value) v.push_back(e.value);
          return v;
        };
        EXPECT_EQ(values(pa.spec.sandbox_writable_roots), values(pb.spec.sandbox_writable_roots));
        EXPECT_EQ(values(pa.spec.bwrap_ro_roots), values(pb.spec.bwrap_ro_roots));
        EXPECT_EQ(values(pa.spec.sandbox_denied_read_paths),
                  values(pb.spec.sandbox_denied_read_paths));
        ASSERT_EQ(pa.spec.expectations.size(), pb.spec.expectations.size());
        for (size_t k = 0; k < pa.spec.expectations.size(); ++k) {
          EXPECT_EQ(pa.spec.expectations[k].path, pb.spec.expectations[k].path);
          EXPECT_EQ(pa.spec.expectations[k].allowed, pb.spec.expectations[k].allowed);
        }
      }
    }
  }
  EXPECT_GE(formatted_count, 3);
}

TEST(DslFormat, ExamplesAreAlreadyFormatted) {
  for (const auto& e : fs::directory_iterator(fs::path(SourceRoot()) / "examples")) {
    if (e.path().extension() != ".cwsp") continue;
    std::string text = ReadFileOr(e.path().string());
    absl::StatusOr<std::string> out = FormatDsl(text, e.path().filename().string());
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(*out, text) << e.path() << " is not in canonical form (cwsc fmt -w)";
  }
}

// The line `cwsc fmt --check` names: where the texts first differ.
TEST(DslFormat, FirstDifferingLine) {
  EXPECT_EQ(FirstDifferingLine("a\nb\nc\n", "a\nb\nc\n"), 4);
  EXPECT_EQ(FirstDifferingLine("a\nb\nc\n", "a\nx\nc\n"), 2);
  EXPECT_EQ(FirstDifferingLine("policy p {}\n", "policy  p {}\n"), 1);
  EXPECT_EQ(FirstDifferingLine("a\n", "a\nb\n"), 2);
  EXPECT_EQ(FirstDifferingLine("", "a"), 1);
}

}  // namespace
}  // namespace cwsc::compiler
