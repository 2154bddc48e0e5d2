#include "ir/diagnostics.h"

#include <gtest/gtest.h>

namespace cwsc::ir {
namespace {

TEST(Diagnostics, RendersGccStyleWithCaret) {
  Diagnostic d{Diagnostic::Severity::kError, "cfg.toml", 3, 16, "bad value", "sandbox_mode = \"x\""};
  EXPECT_EQ(d.Render(),
            "cfg.toml:3:16: error: bad value\n"
            "  sandbox_mode = \"x\"\n"
            "                 ^\n");
}

TEST(Diagnostics, ControlBytesInTheSourceLineCannotForgeLines) {
  Diagnostic d{Diagnostic::Severity::kWarning, "f", 1, 2, "m", "a\rb\x1b[31m"};
  EXPECT_EQ(d.Render(), "f:1:2: warning: m\n  a?b?[31m\n   ^\n");
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
