#include "ir/display.h"

#include <gtest/gtest.h>

#include <string>

#include "ir/diagnostics.h"

namespace cwsc::ir {
namespace {

// The hostile values every rendering path is checked with, and what each
// shows (tests/cli/json_report_test.cc, tests/runtime/attribution_test.cc
// take the same table through the CLI and the runtime).
struct Hostile {
  const char* name;
  std::string value;
  std::string shown;
};

const Hostile kHostile[] = {
    {"esc", "a\x1b[31mb", "a\\x1b[31mb"},
    {"csi_utf8",
     "a\xc2\x9b"
     "31mb",
     "a\\u009b31mb"},
    {"bare_9b",
     "a\x9b"
     "31mb",
     "a\\x9b31mb"},
    {"nul", std::string("a\0b", 3), "a\\x00b"},
    {"newline", "a\nerror: forged", "a\\x0aerror: forged"},
    {"cr", "a\rb", "a\\x0db"},
    {"tab", "a\tb", "a\\x09b"},
    {"del",
     "a\x7f"
     "b",
     "a\\x7fb"},
    {"invalid",
     "a\xff\xfe"
     "b",
     "a\\xff\\xfeb"},
    {"overlong_slash",
     "a\xc0\xaf"
     "b",
     "a\\xc0\\xafb"},
    {"overlong_3",
     "a\xe0\x80\xaf"
     "b",
     "a\\xe0\\x80\\xafb"},
    {"surrogate",
     "a\xed\xa0\x80"
     "b",
     "a\\xed\\xa0\\x80b"},
    {"past_10ffff",
     "a\xf4\x90\x80\x80"
     "b",
     "a\\xf4\\x90\\x80\\x80b"},
    {"truncated", "a\xe2\x82", "a\\xe2\\x82"},
    {"bidi_override",
     "a\xe2\x80\xae"
     "b",
     "a\\u202eb"},
    {"line_separator",
     "a\xe2\x80\xa8"
     "b",
     "a\\u2028b"},
};

TEST(Displayable, EscapesEveryHostileValue) {
  for (const Hostile& h : kHostile) EXPECT_EQ(Displayable(h.value), h.shown) << h.name;
}

TEST(Displayable, KeepsPrintableUtf8AndBackslashes) {
  EXPECT_EQ(Displayable("caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x90\xb3 \\x1b ok"),
            "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x90\xb3 \\x1b ok");
  EXPECT_EQ(Displayable(""), "");
}

TEST(Displayable, IsIdempotent) {
  for (const Hostile& h : kHostile) EXPECT_EQ(Displayable(h.shown), h.shown) << h.name;
}

TEST(Displayable, PrefixWidthCountsEscapes) {
  EXPECT_EQ(DisplayablePrefixWidth("ab", 1), 1u);
  EXPECT_EQ(DisplayablePrefixWidth("\x1b"
                                   "b",
                                   1),
            4u);
  EXPECT_EQ(DisplayablePrefixWidth("\xc3\xa9"
                                   "b",
                                   1),
            1u);
  EXPECT_EQ(DisplayablePrefixWidth("ab", 9), 2u);
}

// Every part of a diagnostic that can hold a value is escaped: the file,
// the message and the source line.
TEST(Displayable, DiagnosticsEscapeFileMessageAndSourceLine) {
  for (const Hostile& h : kHostile) {
    Diagnostic d{Diagnostic::Severity::kError, "f" + h.value,   1, 3,
                 "bad '" + h.value + "'",      "k = " + h.value};
    // A tab in a source line is shown as a space, which keeps the caret aligned.
    std::string shown_source = "k = " + (h.value == "a\tb" ? std::string("a b") : h.shown);
    EXPECT_EQ(d.Render(),
              "f" + h.shown + ":1:3: error: bad '" + h.shown + "'\n  " + shown_source + "\n    ^\n")
        << h.name;
  }
}

TEST(Displayable, TheCaretPointsPastAnEscape) {
  Diagnostic d{Diagnostic::Severity::kError,
               "f",
               1,
               3,
               "m",
               "\x1b"
               "bc"};
  EXPECT_EQ(d.Render(), "f:1:3: error: m\n  \\x1bbc\n       ^\n");
}

// JSON keeps its value and loses every byte that acts on a terminal.
TEST(TerminalSafeJson, EscapesC1DelAndBidiInsideStrings) {
  EXPECT_EQ(TerminalSafeJson("[\"a\xc2\x9b"
                             "31m\", \"\x7f\", \"\xe2\x80\xae\xe2\x80\xa8\", \"caf\xc3\xa9\"]\n"),
            "[\"a\\u009b31m\", \"\\u007f\", \"\\u202e\\u2028\", \"caf\xc3\xa9\"]\n");
  // Pretty-printed JSON keeps its line breaks and indentation.
  EXPECT_EQ(TerminalSafeJson("{\n  \"k\": \"\\u001b\"\n}\n"), "{\n  \"k\": \"\\u001b\"\n}\n");
}

// Text keeps cwsc's literals as they are and escapes every value it is
// given, whatever its type: a std::string, a string_view, a const char*.
TEST(Text, EscapesValuesAndKeepsLiterals) {
  for (const Hostile& h : kHostile) {
    const std::string& value = h.value;
    Text t;
    t << "path " << value << ":\n  " << std::string_view(value) << " " << value.c_str() << "\n";
    // c_str() stops at a NUL: the value it shows is the part before it.
    std::string c = Displayable(std::string_view(value.c_str()));
    EXPECT_EQ(t.str(), "path " + h.shown + ":\n  " + h.shown + " " + c + "\n") << h.name;
  }
}

TEST(Text, NumbersTextsAndSpaces) {
  Text inner;
  inner << "a\n";
  Text t("x ");
  t << 3 << " " << size_t{4} << " " << -5 << inner;
  t.Spaces(2) << "y";
  EXPECT_EQ(t.str(), "x 3 4 -5a\n  y");
  EXPECT_FALSE(t.empty());
  EXPECT_TRUE(Text().empty());
}

// The report line test of the issue: ESC, a newline, U+009B, \xff and a
// leading dash in one path stay on their line, visibly escaped.
TEST(Text, AHostilePathStaysOnItsLine) {
  const std::string path = "-\x1b[31m\n\xc2\x9b\xff";
  Text t;
  t << "  " << path << "  (rule)\n";
  EXPECT_EQ(t.str(), "  -\\x1b[31m\\x0a\\u009b\\xff  (rule)\n");
}

// A literal is a compile-time constant; a char buffer or a pointer is a value.
template <typename T>
concept TakesLiteral = requires(T v) {
  Text::Literal(v);
};
static_assert(!TakesLiteral<const char*>);
static_assert(!TakesLiteral<std::string>);
static_assert(std::is_constructible_v<Text::Literal, const char (&)[3]>);

}  // namespace
}  // namespace cwsc::ir
