// Hostile input to the .cwsp frontend and formatter: deep nesting, huge
// strings, NUL bytes, invalid UTF-8, unterminated strings and comments, a
// 10 MB file, binary noise. Each gives a clear located error, never a crash;
// time and memory stay bounded by kMaxDslBytes (measured in
// bench/dsl_bench.cc, not timed here).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "compiler/dsl_format.h"
#include "compiler/dsl_frontend.h"

namespace cwsc::compiler {
namespace {

// Errors returns the rendered errors; a syntax-level problem must also make
// the formatter refuse the file.
std::string Errors(const std::string& text, bool syntax = true) {
  absl::StatusOr<DslResult> r = ReadDslPolicy(text, "h.cwsp", "");
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::string> f = FormatDsl(text, "h.cwsp");
  EXPECT_EQ(f.ok(), !syntax);
  return std::string(r.status().message());
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

TEST(DslHostile, DeepNesting) {
  std::string text = "policy a {" + std::string(200000, '{') + std::string(200000, '}');
  EXPECT_EQ(FirstLine(Errors(text)),
            "h.cwsp:1:11: error: expected a statement (mode, network, writable, read_only, "
            "device, deny read, exempt read, deny_defaults, tmp, slash_tmp, tmpdir, protect, "
            "wrapper, linux_backend, require_sandbox, backend, launcher, managed_config or "
            "expect) or '}' after '{', found '{'");
}

TEST(DslHostile, DeepBracketsInLauncher) {
  std::string text = "policy a { launcher " + std::string(100000, '[') + "\"x\"" +
                     std::string(100000, ']') + "; }";
  EXPECT_EQ(FirstLine(Errors(text)), "h.cwsp:1:22: error: expected a string after '[', found '['");
}

TEST(DslHostile, HugeString) {
  std::string text = "policy a { writable \"/" + std::string(900000, 'a') + "\"; }";
  EXPECT_EQ(FirstLine(Errors(text, /*syntax=*/false)),
            "h.cwsp:1:21: error: string is too long (900001 bytes; at most 4096)");
}

TEST(DslHostile, HugeUnterminatedString) {
  std::string text = "policy a { writable \"/" + std::string(900000, 'a');
  EXPECT_EQ(FirstLine(Errors(text)),
            "h.cwsp:1:21: error: unterminated string: a string must end with '\"' on the same "
            "line");
}

TEST(DslHostile, UnterminatedCommentStopsTheParse) {
  std::string text = "policy a {\n  /* " + std::string(500000, '*') + " mode x; }";
  std::string errors = Errors(text);
  EXPECT_EQ(FirstLine(errors), "h.cwsp:2:3: error: unterminated comment: '/*' has no closing '*/'");
  EXPECT_EQ(errors.find("error", errors.find('\n')), std::string::npos);  // only this one
}

TEST(DslHostile, NulBytes) {
  std::string text = std::string("policy a {\n  mode ") + '\0' + "read-only;\n}";
  EXPECT_EQ(FirstLine(Errors(text)),
            "h.cwsp:2:8: error: NUL byte in the file; a policy is text (is this a binary file?)");
}

TEST(DslHostile, InvalidUtf8) {
  for (std::string bad : {"\xff", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"}) {
    std::string text = "policy a {\n  writable \"/x" + bad + "\";\n}";
    EXPECT_EQ(FirstLine(Errors(text)).substr(0, 42), "h.cwsp:2:15: error: invalid UTF-8 (byte 0x")
        << "sequence of " << bad.size() << " bytes";
  }
}

TEST(DslHostile, TenMegabyteFile) {
  std::string line = "  writable \"/srv/p\";\n";
  std::string text = "policy a {\n";
  while (text.size() < 10 * 1000 * 1000) text += line;
  text += "}\n";
  EXPECT_EQ(Errors(text), "h.cwsp: error: file is too large (" + std::to_string(text.size()) +
                              " bytes); a policy file may have at most 1048576 bytes\n");
}

TEST(DslHostile, LargestAcceptedFileParses) {
  // Just under the limit, well formed: accepted.
  std::string text = "policy a {\n";
  std::string line = "  writable \"/srv/p\";\n";
  while (text.size() + line.size() + 2 < kMaxDslBytes) text += line;
  text += "}\n";
  absl::StatusOr<DslResult> r = ReadDslPolicy(text, "h.cwsp", "");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->spec.sandbox_writable_roots->value.size(), 40000u);
}

TEST(DslHostile, BinaryNoiseNeverCrashes) {
  std::mt19937 rng(20261130);
  for (int round = 0; round < 200; ++round) {
    std::string text;
    size_t n = rng() % 2000;
    for (size_t i = 0; i < n; ++i) text += static_cast<char>(rng() % 256);
    absl::StatusOr<DslResult> r = ReadDslPolicy(text, "n.cwsp", "");
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(r.status().message().rfind("n.cwsp", 0), 0u) << r.status().message();
    }
    (void)FormatDsl(text, "n.cwsp");
  }
  // Printable noise gets past the UTF-8 check and reaches the parser.
  for (int round = 0; round < 200; ++round) {
    std::string text;
    size_t n = rng() % 3000;
    for (size_t i = 0; i < n; ++i) text += static_cast<char>(rng() % 2 ? 32 + rng() % 95 : '\n');
    absl::StatusOr<DslResult> r = ReadDslPolicy(text, "n.cwsp", "");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message().rfind("n.cwsp", 0), 0u) << r.status().message();
    (void)FormatDsl(text, "n.cwsp");
  }
}

TEST(DslHostile, TokenSoupNeverCrashes) {
  // Valid tokens in random order exercise the parser's error recovery.
  const char* words[] = {"policy",  "{",       "}",        ";",       ",",           "[",
                         "]",       "mode",    "writable", "\"/a\"",  "deny",        "read",
                         "expect",  "network", "on",       "backend", "opensandbox", "url",
                         "api_key", "env",     "x",        "extends", "launcher",    "tmp",
                         "private", "/*",      "*/",       "#c\n",    "\"",          "7"};
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::string text;
    int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      text += words[rng() % (sizeof words / sizeof *words)];
      text += ' ';
    }
    absl::StatusOr<DslResult> r = ReadDslPolicy(text, "s.cwsp", "");
    if (!r.ok()) {
      std::string m(r.status().message());
      EXPECT_EQ(m.rfind("s.cwsp", 0), 0u) << m;
      EXPECT_EQ(m.find("mismatched input"), std::string::npos) << m;
      EXPECT_EQ(m.find("extraneous input"), std::string::npos) << m;
    }
    absl::StatusOr<std::string> f = FormatDsl(text, "s.cwsp");
    if (f.ok()) {
      absl::StatusOr<std::string> again = FormatDsl(*f, "s.cwsp");
      ASSERT_TRUE(again.ok()) << text;
      EXPECT_EQ(*again, *f) << text;
    }
  }
}

}  // namespace
}  // namespace cwsc::compiler
