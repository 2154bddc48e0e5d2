#include "ir/diagnostics.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "ir/diagnostic_status.h"
#include "ir/plan_json.h"

namespace cwsc::ir {
namespace {

TEST(Diagnostics, RendersGccStyleWithCaret) {
  Diagnostic d{Diagnostic::Severity::kError, "cfg.toml", 3, 16, "bad value",
               "sandbox_mode = \"x\""};
  EXPECT_EQ(d.Render(),
            "cfg.toml:3:16: error: bad value\n"
            "  sandbox_mode = \"x\"\n"
            "                 ^\n");
}

TEST(Diagnostics, ControlBytesInTheSourceLineCannotForgeLines) {
  Diagnostic d{Diagnostic::Severity::kWarning, "f", 1, 2, "m", "a\rb\x1b[31m"};
  EXPECT_EQ(d.Render(), "f:1:2: warning: m\n  a\\x0db\\x1b[31m\n   ^\n");
}

TEST(Diagnostics, CollectsUpToTheBound) {
  Diagnostics ds;
  for (int i = 0; i < 30; ++i) ds.Add({Diagnostic::Severity::kError, "f", i + 1, 1, "e", ""});
  EXPECT_EQ(ds.error_count(), Diagnostics::kMaxErrors);
  std::string msg(ds.ToStatus().message());
  EXPECT_NE(msg.find("f:20:1: error: e\n"), std::string::npos);
  EXPECT_EQ(msg.find("f:21:1"), std::string::npos);
  EXPECT_NE(msg.find("too many errors; stopping"), std::string::npos);
}

TEST(Diagnostics, SourceLineAt) {
  EXPECT_EQ(SourceLineAt("a\r\nbb\nccc", 2), "bb");
  EXPECT_EQ(SourceLineAt("a\nbb", 1), "a");
  EXPECT_EQ(SourceLineAt("a", 5), "");
}

}  // namespace
}  // namespace cwsc::ir

namespace cwsc::ir {
namespace {

// A status made from diagnostics carries them; its message is their text.
TEST(DiagnosticStatus, CarriesTheDiagnostics) {
  absl::Status s = ErrorAt("cfg.toml", 3, 16, "invalid sandbox_mode", "sandbox_mode = \"x\"");
  std::optional<std::vector<Diagnostic>> d = DiagnosticsOf(s);
  ASSERT_TRUE(d.has_value());
  ASSERT_EQ(d->size(), 1u);
  EXPECT_EQ((*d)[0], (Diagnostic{Diagnostic::Severity::kError, "cfg.toml", 3, 16,
                                 "invalid sandbox_mode", "sandbox_mode = \"x\""}));
  EXPECT_EQ(s.message(), (*d)[0].Render());
  EXPECT_FALSE(DiagnosticsOf(absl::InvalidArgumentError("cfg.toml: error: text only\n")));
  EXPECT_FALSE(DiagnosticsOf(absl::OkStatus()));
}

// A diagnostic travels with every byte: a file name or source line that is
// not UTF-8 (a file a command named) stays a diagnostic, rendered on its
// lines with its caret, not text folded onto one line.
TEST(DiagnosticStatus, CarriesBytesThatAreNotUtf8) {
  Diagnostic in{Diagnostic::Severity::kWarning,
                "f-\x1b[31m\n\xc2\x9b\xff.yaml",
                3,
                2,
                "unknown key '\xff:1:'",
                "\xc2\x9b\xff: 1"};
  absl::Status s = DiagnosticsError({in, in});
  std::optional<std::vector<Diagnostic>> d = DiagnosticsOf(s);
  ASSERT_TRUE(d.has_value());
  ASSERT_EQ(d->size(), 2u);
  EXPECT_EQ((*d)[0], in);
  EXPECT_EQ((*d)[1], in);
  EXPECT_EQ((*d)[0].Render(),
            "f-\\x1b[31m\\x0a\\u009b\\xff.yaml:3:2: warning: unknown key '\\xff:1:'\n"
            "  \\u009b\\xff: 1\n"
            "        ^\n");
}

// A payload that does not say what the message says is not believed.
TEST(DiagnosticStatus, PayloadMustMatchTheMessage) {
  absl::Status s = ErrorAt("a.toml", 1, 1, "one");
  absl::Status other(s.code(), "b.toml: error: another\n");
  s.ForEachPayload([&](absl::string_view url, const absl::Cord& p) { other.SetPayload(url, p); });
  EXPECT_FALSE(DiagnosticsOf(other));
}

TEST(DiagnosticStatus, DiagnosticsListUpToTheBound) {
  Diagnostics two;
  two.Add({Diagnostic::Severity::kError, "f", 1, 1, "a", ""});
  two.Add({Diagnostic::Severity::kWarning, "f", 2, 1, "w", ""});
  two.Add({Diagnostic::Severity::kError, "f", 3, 1, "b", ""});
  std::optional<std::vector<Diagnostic>> d = DiagnosticsOf(two.ToStatus());
  ASSERT_TRUE(d.has_value());
  ASSERT_EQ(d->size(), 2u);  // the errors; warnings are notes, not the failure
  EXPECT_EQ((*d)[1].message, "b");
  EXPECT_FALSE(StoppedAtErrorLimit(two.ToStatus()));
  // Past the bound the errors are still values; the closing line is no
  // diagnostic, but the status says it stopped (nothing reads its text back).
  Diagnostics many;
  for (size_t i = 0; i < Diagnostics::kMaxErrors + 3; ++i) {
    many.Add({Diagnostic::Severity::kError, "f", static_cast<int>(i) + 1, 1, "e", ""});
  }
  absl::Status s = many.ToStatus();
  std::optional<std::vector<Diagnostic>> listed = DiagnosticsOf(s);
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ(listed->size(), Diagnostics::kMaxErrors);
  EXPECT_EQ(listed->back().line, static_cast<int>(Diagnostics::kMaxErrors));
  EXPECT_TRUE(StoppedAtErrorLimit(s));
  EXPECT_TRUE(absl::EndsWith(s.message(), "f:20:1: error: e\ntoo many errors; stopping\n"))
      << s.message();
}

// A plan's syntax error stays structured: file, line and column.
TEST(DiagnosticStatus, PlanErrorsAreStructured) {
  std::optional<std::vector<Diagnostic>> d =
      DiagnosticsOf(PlanFromJson("{\n  \"kind\": ,\n}", "bad.json").status());
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ((*d)[0], (Diagnostic{Diagnostic::Severity::kError, "bad.json", 2, 11,
                                 "malformed plan JSON", ""}));
  d = DiagnosticsOf(PlanFromJson("[]", "p.json").status());
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ((*d)[0].message, "bad plan at '': expected an object");
}

}  // namespace
}  // namespace cwsc::ir
