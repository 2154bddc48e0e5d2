// The path helpers against an obvious definition: split into components,
// then compare the component lists. The helpers themselves walk the strings
// without allocating (they run once per comparison while sorting thousands
// of roots), so they are checked here against the plain definition on every
// pair drawn from a set of awkward spellings.
#include "compiler/paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cwsc::compiler {
namespace {

std::vector<std::string> Split(const std::string& p) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : p) {
    if (c == '/') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool OracleLess(const std::string& a, const std::string& b) {
  bool a_abs = !a.empty() && a[0] == '/';
  bool b_abs = !b.empty() && b[0] == '/';
  if (a_abs != b_abs) return a_abs;
  std::vector<std::string> p = Split(a), q = Split(b);
  return std::lexicographical_compare(p.begin(), p.end(), q.begin(), q.end());
}

bool OracleStartsWith(const std::string& path, const std::string& prefix) {
  bool a_abs = !path.empty() && path[0] == '/';
  bool b_abs = !prefix.empty() && prefix[0] == '/';
  if (a_abs != b_abs) return false;
  std::vector<std::string> p = Split(path), q = Split(prefix);
  return q.size() <= p.size() && std::equal(q.begin(), q.end(), p.begin());
}

const std::vector<std::string>& Spellings() {
  static const std::vector<std::string> kPaths = {"",
                                                  "/",
                                                  "//",
                                                  "a",
                                                  "a/",
                                                  "/a",
                                                  "/a/",
                                                  "//a//",
                                                  "/a/b",
                                                  "/a//b/",
                                                  "/a/b/c",
                                                  "/ab",
                                                  "/a.b",
                                                  "/a-b",
                                                  "/a b",
                                                  "/a\xff",
                                                  "/a/\xc3\xa9",
                                                  "/A",
                                                  "/a/ba",
                                                  "/a/b/",
                                                  "a/b",
                                                  "a//b",
                                                  "/a/bc",
                                                  "/a/b.c",
                                                  "/ab/c",
                                                  "/.",
                                                  "/./a",
                                                  "/..",
                                                  "/a/..",
                                                  "/tmp",
                                                  "/tmp/x",
                                                  "/tmpx",
                                                  "/work/repo",
                                                  "/work/repo/.git",
                                                  "/work/repo-2",
                                                  "/work/repo/sub",
                                                  "/a//z",
                                                  "/a/z",
                                                  "/ab/",
                                                  "/a/b//c",
                                                  "/a/b/c/",
                                                  "a//z",
                                                  "/a/\x01",
                                                  "/a\x01/b"};
  return kPaths;
}

TEST(PathsTest, PathLessIsTheComponentOrder) {
  for (const std::string& a : Spellings()) {
    for (const std::string& b : Spellings()) {
      EXPECT_EQ(PathLess(a, b), OracleLess(a, b)) << "'" << a << "' < '" << b << "'";
    }
  }
}

TEST(PathsTest, PathSortKeyOrderIsPathLess) {
  for (const std::string& a : Spellings()) {
    for (const std::string& b : Spellings()) {
      EXPECT_EQ(PathSortKey(a) < PathSortKey(b), PathLess(a, b)) << "'" << a << "' < '" << b << "'";
    }
  }
}

TEST(PathsTest, PathLessSeparatorSortsBeforeEveryByte) {
  // Component order, not byte order: "/a/b" < "/a-b" although '-' < '/'.
  EXPECT_TRUE(PathLess("/a/b", "/a-b"));
  EXPECT_FALSE(PathLess("/a-b", "/a/b"));
  EXPECT_TRUE(PathLess("/a", "/a/b"));
  EXPECT_FALSE(PathLess("/a//", "/a"));
  EXPECT_TRUE(PathLess("/z", "a"));  // absolute before relative
}

TEST(PathsTest, PathStartsWithIsComponentPrefix) {
  for (const std::string& a : Spellings()) {
    for (const std::string& b : Spellings()) {
      EXPECT_EQ(PathStartsWith(a, b), OracleStartsWith(a, b))
          << "'" << a << "' under '" << b << "'";
    }
  }
  EXPECT_TRUE(PathStartsWith("/work/repo/.git", "/work/repo"));
  EXPECT_FALSE(PathStartsWith("/work/repo-2", "/work/repo"));
  EXPECT_TRUE(PathStartsWith("/a//b/", "/a/b"));
}

std::string OracleNormalize(const std::string& path) {
  bool absolute = !path.empty() && path[0] == '/';
  std::vector<std::string> parts;
  for (const std::string& part : Split(path)) {
    if (part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!absolute) {
        parts.push_back(part);
      }
      continue;
    }
    parts.push_back(part);
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? "/" : "") + parts[i];
  return out.empty() ? "." : out;
}

std::string OracleParent(const std::string& path) {
  std::vector<std::string> parts = Split(path);
  if (parts.size() <= 1) return "/";
  parts.pop_back();
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out;
}

TEST(PathsTest, LexicalNormalizeAndParentPathKeepTheirDefinition) {
  std::vector<std::string> extra = {"/a/./b", "/a/../b", "/../a", "a/../..", "/a/b/..", "/.a",
                                    "/a/..b", "/a/b./c", "/...",  "./a",     "../a",    "a/."};
  std::vector<std::string> all = Spellings();
  all.insert(all.end(), extra.begin(), extra.end());
  for (const std::string& p : all) {
    EXPECT_EQ(LexicalNormalize(p), OracleNormalize(p)) << "'" << p << "'";
    EXPECT_EQ(ParentPath(p), OracleParent(p)) << "'" << p << "'";
  }
}

// The plain definitions of IsPlainPath and PathSortKey, from the components.
bool OraclePlain(const std::string& p) {
  if (p.empty() || p[0] != '/') return false;
  if (p == "/") return true;
  if (p.back() == '/') return false;
  for (size_t i = 1, j; i <= p.size(); i = j + 1) {
    j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    std::string part = p.substr(i, j - i);
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

std::string OracleSortKey(const std::string& p) {
  std::string key(1, !p.empty() && p[0] == '/' ? '\0' : '\1');
  std::vector<std::string> parts = Split(p);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) key.push_back('\0');
    key += parts[i];
  }
  return key;
}

TEST(PathsTest, IsPlainPathAndPathSortKeyKeepTheirDefinition) {
  std::vector<std::string> extra = {"/a/./b",  "/a/../b", "/../a", "/a/b/..", "/.a",   "/a/..b",
                                    "/a/b./c", "/...",    "/a/.",  "/a/..",   "/a/.b", "/a/b/.",
                                    "/.../a",  "/a/...",  "/..a",  "/a./b",   "./a",   "a/."};
  std::vector<std::string> all = Spellings();
  all.insert(all.end(), extra.begin(), extra.end());
  std::string buffer = "x";
  for (const std::string& p : all) {
    EXPECT_EQ(IsPlainPath(p), OraclePlain(p)) << "'" << p << "'";
    EXPECT_EQ(PathSortKey(p), OracleSortKey(p)) << "'" << p << "'";
    AppendPathSortKey(p, &buffer);
    EXPECT_EQ(buffer, "x" + OracleSortKey(p)) << "'" << p << "'";
    buffer = "x";
  }
}

}  // namespace
}  // namespace cwsc::compiler
