// Output forms, and the shell form round-tripping hostile tokens through a real sh.
#include "backends/argv_format.h"

#include <gtest/gtest.h>

#include "tests/runtime/proc_helpers.h"

namespace cwsc::backends {
namespace {

TEST(ArgvFormat, Lines) {
  EXPECT_EQ(*FormatArgv({"a", "b c", ""}, ArgvFormat::kLines), "a\nb c\n\n");
  EXPECT_EQ(FormatArgv({"a\nb"}, ArgvFormat::kLines).status().message(),
            "an argv token contains a newline; --format lines cannot show it unambiguously (use "
            "--format shell, json or nul)");
}

TEST(ArgvFormat, ShellQuoting) {
  EXPECT_EQ(ShellQuote("/usr/bin/bwrap"), "/usr/bin/bwrap");
  EXPECT_EQ(ShellQuote("--ro-bind"), "--ro-bind");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("~"), "'~'");
  EXPECT_EQ(ShellQuote("A=1"), "'A=1'");
  EXPECT_EQ(ShellQuote("$HOME"), "'$HOME'");
  EXPECT_EQ(*FormatArgv({"echo", "a b", "-n"}, ArgvFormat::kShell), "echo 'a b' -n\n");
}

TEST(ArgvFormat, ShellRoundTripsHostileTokensThroughSh) {
  std::vector<std::string> tokens = {"plain",
                                     "with space",
                                     "it's",
                                     "\"dq\"",
                                     "back\\slash",
                                     "new\nline",
                                     "-leading-dash",
                                     "$(touch /tmp/cwsc-injected)",
                                     "`id`",
                                     ";rm -rf x",
                                     "*",
                                     "~",
                                     "tab\there",
                                     "\xff\xfe bytes",
                                     "'",
                                     "''",
                                     "a'b'c",
                                     "!bang",
                                     "#hash",
                                     "{a,b}",
                                     "é"};
  std::string line = *FormatArgv(tokens, ArgvFormat::kShell);
  // printf %s\0 each argument; compare byte for byte.
  auto r = cwsc::testing::Run(
      {"/bin/sh", "-c", "eval \"set -- $1\"; printf '%s\\0' \"$@\"", "sh", line});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expect;
  for (const auto& t : tokens) expect += t + std::string(1, '\0');
  EXPECT_EQ(r.out, expect);
  EXPECT_FALSE(cwsc::testing::Exists("/tmp/cwsc-injected"));
}

TEST(ArgvFormat, Json) {
  EXPECT_EQ(*FormatArgv({"a", "\"q\"", "n\nl"}, ArgvFormat::kJson),
            "[\"a\",\"\\\"q\\\"\",\"n\\nl\"]\n");
  EXPECT_EQ(FormatArgv({"\xff"}, ArgvFormat::kJson).status().message(),
            "an argv token is not valid UTF-8; JSON cannot carry it (use --format nul or shell)");
}

TEST(ArgvFormat, Nul) {
  EXPECT_EQ(*FormatArgv({"a", "b c"}, ArgvFormat::kNul), std::string("a\0b c\0", 6));
}

TEST(ArgvFormat, Utf8Validation) {
  EXPECT_TRUE(IsValidUtf8("héllo €"));
  EXPECT_FALSE(IsValidUtf8("\xc0\x80"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));  // surrogate
  EXPECT_FALSE(IsValidUtf8("\xe2\x82"));      // truncated
}

TEST(ArgvFormat, ParseNames) {
  EXPECT_EQ(ParseArgvFormat("shell"), ArgvFormat::kShell);
  EXPECT_EQ(ParseArgvFormat("xml"), std::nullopt);
}

}  // namespace
}  // namespace cwsc::backends
