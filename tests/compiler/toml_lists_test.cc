// The config reader's fast path for long string lists (compiler/toml_lists.h):
// what the scanner takes out and what it leaves to toml++, and that the
// reader's result is the same with and without it.
#include "compiler/toml_lists.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/config_toml.h"

namespace cwsc::compiler {
namespace {

// List is `n` quoted paths "/p0", "/p1", ... joined by `sep`.
std::string List(int n, const std::string& sep = ", ", char quote = '"') {
  std::string out = "[";
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&out, i ? sep : "", std::string(1, quote), "/p", i, std::string(1, quote));
  }
  return out + "]";
}

TEST(TomlLists, TakesOutALongListKeepingEveryPosition) {
  std::string doc =
      absl::StrCat("sandbox_mode = \"workspace-write\"\n", "sandbox_writable_roots = ", List(16),
                   "  # roots\n", "prefer_bwrap = true\n");
  TakenOut t = TakeOutStringLists(doc);
  ASSERT_EQ(t.lists.size(), 1u);
  EXPECT_EQ(t.text,
            "sandbox_mode = \"workspace-write\"\n"
            "sandbox_writable_roots = []  # roots\n"
            "prefer_bwrap = true\n");
  const FastList& l = t.lists[0];
  EXPECT_EQ(l.line, 2);
  EXPECT_EQ(l.column, 26);
  ASSERT_EQ(l.items.size(), 16u);
  EXPECT_EQ(l.items[0].value, "/p0");
  EXPECT_EQ(l.items[0].line, 2);
  EXPECT_EQ(l.items[0].column, 27);
  EXPECT_EQ(l.items[1].column, 34);  // "/p0", then ", "
  EXPECT_EQ(l.items[15].value, "/p15");
}

TEST(TomlLists, KeepsTheNewlinesOfAListOverManyLines) {
  std::string doc = "a = [\r\n";
  for (int i = 0; i < 16; ++i) absl::StrAppend(&doc, "  '/q", i, "',\r\n");
  doc += "]\r\nb = 1\r\n";
  TakenOut t = TakeOutStringLists(doc);
  ASSERT_EQ(t.lists.size(), 1u);
  std::string newlines;
  for (int i = 0; i < 17; ++i) newlines += "\r\n";
  EXPECT_EQ(t.text, absl::StrCat("a = [", newlines, "]\r\nb = 1\r\n"));
  EXPECT_EQ(t.lists[0].items[3].value, "/q3");
  EXPECT_EQ(t.lists[0].items[3].line, 5);
  EXPECT_EQ(t.lists[0].items[3].column, 3);
}

TEST(TomlLists, ShortListsAreLeftToToml) {
  TakenOut t = TakeOutStringLists(absl::StrCat("a = ", List(15), "\n"));
  EXPECT_TRUE(t.lists.empty());
  EXPECT_TRUE(t.text.empty());
  EXPECT_EQ(TakeOutStringLists(absl::StrCat("a = ", List(3), "\n"), 3).lists.size(), 1u);
}

TEST(TomlLists, ListsItDoesNotReadAreLeftToToml) {
  const std::string list = List(20);
  const std::string inner = list.substr(1, list.size() - 2);
  for (const std::string& value : {
           absl::StrCat("[", inner, ", \"a\\tb\"]"),        // an escape
           absl::StrCat("[", inner, ", \"a\tb\"]"),         // a tab
           absl::StrCat("[", inner, ", \"caf\xC3\xA9\"]"),  // non-ASCII
           absl::StrCat("[", inner, ", \"a\x7F\"]"),        // DEL
           absl::StrCat("[", inner, ", 1]"),                // another type
           absl::StrCat("[", inner, ", [\"x\"]]"),          // a nested list
           absl::StrCat("[", inner, " # a comment\n]"),     // a comment
           absl::StrCat("[", inner, ", \"\"\"x\"\"\"]"),    // a multi-line string
           absl::StrCat("[", inner, ",,]"),                 // two commas
           absl::StrCat("[", inner, "] x"),                 // more on the line
           absl::StrCat("[", inner, "],"),                  // the same
           absl::StrCat("[", inner),                        // no end
       }) {
    std::string doc = absl::StrCat("k = ", value, "\n");
    EXPECT_TRUE(TakeOutStringLists(doc).lists.empty()) << doc;
  }
}

TEST(TomlLists, DocumentsItDoesNotFollowAreLeftToToml) {
  const std::string ok = absl::StrCat("a = ", List(20), "\n");
  ASSERT_EQ(TakeOutStringLists(ok).lists.size(), 1u);
  for (const std::string& doc : {
           absl::StrCat("\xEF\xBB\xBF", ok),                              // a byte order mark
           absl::StrCat("s = \"\"\"\nx = ", List(20), "\n\"\"\"\n", ok),  // multi-line strings
           absl::StrCat("s = '''x'''\n", ok), absl::StrCat("s = 1\rt = 2\n", ok),  // a lone CR
           absl::StrCat("just words\n", ok),  // a key without '='
           absl::StrCat("s = \"open\n", ok),  // a string across lines
           absl::StrCat("s = [1, 2\n", ok),   // a list never closed
       }) {
    EXPECT_TRUE(TakeOutStringLists(doc).lists.empty()) << doc;
  }
}

TEST(TomlLists, ListsInStringsCommentsAndInlineTablesAreNotKeys) {
  std::string doc =
      absl::StrCat("s = \"k = ", List(2, ", ", '\''), "\"\n",  // in a string
                   "# k = ", List(20), "\n",                   // in a comment
                   "t = { k = ", List(20), " }\n",             // in an inline table
                   "u = [", List(20), ", ", List(20), "]\n",   // nested
                   "[table.\"with = [\"]\n",                   // a header with '=' and '['
                   "v = [\n  1,  # one\n  2,\n]\n",            // a list over lines, skipped
                   "w = ", List(20, ",\n    ", '\''), "\n");   // and the one to take out
  TakenOut t = TakeOutStringLists(doc);
  ASSERT_EQ(t.lists.size(), 1u);
  EXPECT_EQ(t.lists[0].line, 10);
  EXPECT_EQ(t.lists[0].column, 5);
  EXPECT_EQ(t.lists[0].items[1].line, 11);
  EXPECT_EQ(t.lists[0].items[1].column, 5);
}

TEST(TomlLists, ColumnsCountCodePoints) {
  // Columns, as toml++ counts them, are code points: "é" is one.
  std::string doc = absl::StrCat("\"caf\xC3\xA9\" = ", List(16), "\n");
  TakenOut t = TakeOutStringLists(doc);
  ASSERT_EQ(t.lists.size(), 1u);
  EXPECT_EQ(t.lists[0].column, 10);
  EXPECT_EQ(t.lists[0].items[0].column, 11);
}

// Same: the reader gives the same spec, notes and errors with the fast
// path on every list and with toml++ alone.
void ExpectSame(const std::string& doc, Layer layer = Layer::kUser) {
  auto fast = ReadTomlConfig(doc, "c.toml", layer, {.fast_list_min = 1});
  auto slow = ReadTomlConfig(doc, "c.toml", layer, {.fast_list_min = SIZE_MAX});
  ASSERT_EQ(fast.ok(), slow.ok()) << doc << "\nfast: " << fast.status()
                                  << "\nslow: " << slow.status();
  if (!slow.ok()) {
    EXPECT_EQ(fast.status(), slow.status()) << doc;
    return;
  }
  EXPECT_TRUE(fast->spec == slow->spec) << doc;
  EXPECT_TRUE(fast->notes == slow->notes) << doc;
}

TEST(TomlLists, TheReaderReadsTheSameWithAndWithoutIt) {
  const std::string l = List(20);
  for (const std::string& doc : {
           absl::StrCat("sandbox_writable_roots = ", l, "\n"),
           absl::StrCat("sandbox_writable_roots = ", List(20, ",\r\n  ", '\''), "\r\n"),
           absl::StrCat("sandbox_denied_read_paths = [\"\", \"/a\", '', \"/b\",]\n"),
           absl::StrCat("sandbox_writable_roots = [\"/a\", \"\"]\n"),  // an error at the entry
           absl::StrCat("sandbox_writable_roots = [\"/a\\\\\", \"/b\"]\n"),  // an escaped backslash
           absl::StrCat("sandbox_protected_names = [\".git\", \"a/b\"]\n"),
           absl::StrCat("sandboxWritableRoots = ", l, "\nsandbox_writable_roots = ", l, "\n"),
           absl::StrCat("sandbox_writable_roots = ", l, "\nsandbox_mode = 3\n"),
           absl::StrCat("sandbox_writable_roots = ", l, "\nsandbox_mode = \n"),  // malformed
           absl::StrCat("sandbox_writable_roots = ", l, "   # c\nx = [1, \"a\"] ]\n"),
           absl::StrCat("sandbox_writable_roots = ", l, "\nsandbox_writable_roots = ", l, "\n"),
           absl::StrCat("sandbox_mode = ", l, "\nsandbox_execd_port = ", l, "\n"),
           absl::StrCat("sandbox_writable_rots = ", l, "\n"),  // a near miss
           absl::StrCat("profile = \"p\"\n[profiles.p]\nsandbox_denied_read_paths = ", l, "\n"),
           absl::StrCat("[[agents]]\nsandbox_writable_roots = ", l, "\n"),
           absl::StrCat("[sandbox_workspace_write]\nwritable_roots = ", l, "\n"),
           absl::StrCat("\"caf\xC3\xA9\" = 1\nsandbox_writable_roots = ", l, "\n"),
           absl::StrCat("k\xC3\xA9y = ", l, "\n"),  // a bare key toml++ rejects
           absl::StrCat("sandbox_writable_roots = ", l, "\n\xFF = 1\n"),
       }) {
    ExpectSame(doc);
  }
  ExpectSame(absl::StrCat("tool_launcher = ", l, "\n"), Layer::kManaged);
  ExpectSame(absl::StrCat("tool_launcher = ", l, "\n"), Layer::kUser);
}

// Documents made of random pieces, many of them near the scanner's edges.
TEST(TomlLists, RandomDocumentsReadTheSame) {
  const std::vector<std::string> keys = {"sandbox_writable_roots", "sandbox_denied_read_paths",
                                         "bwrap_ro_roots",         "sandbox_protected_names",
                                         "tool_launcher",          "other",
                                         "\"sandbox_mode\"",       "a.b"};
  const std::vector<std::string> items = {
      "\"/a\"",   "'/b'",  "\"\"", "''",    "\"a b\"", "\"x\\\"y\"", "\"\xC3\xA9\"", "1",
      "[\"/n\"]", "\"'\"", "'\"'", "\"#\"", "'a\\b'",  "\"a\\\\\"",  "\"\\u0041\""};
  const std::vector<std::string> seps = {", ", ",", ",\n", " ,\r\n  ", ",\n# c\n", ",,", " "};
  const std::vector<std::string> tails = {"\n", "\r\n", " # t\n", "", " x\n", "\r", "]\n"};
  std::mt19937 rng(17);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  for (int round = 0; round < 1500; ++round) {
    std::string doc;
    int lines = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < lines; ++k) {
      if (rng() % 5 == 0) doc += "[profiles.p]\n";
      absl::StrAppend(&doc, pick(keys), " = [");
      int n = static_cast<int>(rng() % 6);
      for (int i = 0; i < n; ++i) {
        absl::StrAppend(&doc, i ? pick(seps) : "", rng() % 4 ? "\"/p\"" : pick(items));
      }
      if (rng() % 3 == 0) doc += ",";
      absl::StrAppend(&doc, "]", pick(tails));
    }
    if (rng() % 4 == 0) doc = "profile = \"p\"\n" + doc;
    ExpectSame(doc);
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace cwsc::compiler

namespace cwsc::compiler {
namespace {

// The reader takes its entries from the scanner by default: a config with a
// long list reads it from there (counted), a short one through toml++.
TEST(TomlLists, TheReaderUsesTheScannerByDefault) {
  size_t used = 0;
  TomlReadOptions o;
  o.fast_lists_used = &used;
  auto r = ReadTomlConfig(absl::StrCat("sandbox_writable_roots = ", List(20), "\n",
                                       "sandbox_denied_read_paths = ", List(3), "\n"),
                          "c.toml", Layer::kUser, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(used, 1u);
  ASSERT_EQ(r->spec.sandbox_writable_roots->value.size(), 20u);
  EXPECT_EQ(r->spec.sandbox_writable_roots->value[19].value, "/p19");
  EXPECT_EQ(r->spec.sandbox_denied_read_paths->value.size(), 3u);
}

}  // namespace
}  // namespace cwsc::compiler
