// SharedString: copies share one buffer, read as the std::string they hold,
// and compare by text with strings of every kind.
#include "ir/shared_string.h"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>
#include <vector>

#include "ir/origin.h"

namespace cwsc::ir {
namespace {

TEST(SharedString, CopiesShareTheBuffer) {
  SharedString a = std::string(40, 'x');
  SharedString b = a;
  EXPECT_EQ(&a.str(), &b.str());  // the same string object, not a copy of it
  EXPECT_EQ(b.str(), std::string(40, 'x'));
  SharedString c = std::string(40, 'x');
  EXPECT_NE(&a.str(), &c.str());
  EXPECT_EQ(a, c);  // equal texts compare equal
}

TEST(SharedString, ReadsAsItsText) {
  SharedString s = "deny read ~/.ssh";
  const std::string& view = s;
  EXPECT_EQ(view, "deny read ~/.ssh");
  EXPECT_EQ(s.size(), 16u);
  EXPECT_STREQ(s.c_str(), "deny read ~/.ssh");
  EXPECT_TRUE(s == "deny read ~/.ssh");
  EXPECT_TRUE(s == std::string("deny read ~/.ssh"));
  EXPECT_TRUE(s == std::string_view("deny read ~/.ssh"));
  EXPECT_TRUE(s != "deny read ~/.ss");
  EXPECT_TRUE("deny read ~/.ssh" == s);
  std::ostringstream out;
  out << s;
  EXPECT_EQ(out.str(), "deny read ~/.ssh");
}

TEST(SharedString, EmptyIsEmptyHoweverMade) {
  SharedString a;
  SharedString b = "";
  SharedString c = std::string();
  for (const SharedString* s : {&a, &b, &c}) {
    EXPECT_TRUE(s->empty());
    EXPECT_EQ(s->size(), 0u);
    EXPECT_EQ(s->str(), "");
    EXPECT_STREQ(s->c_str(), "");
  }
  EXPECT_EQ(a, b);
  EXPECT_FALSE(SharedString("x").empty());
  EXPECT_NE(a, SharedString("x"));
}

TEST(SharedString, TextWithNulBytesAndNonUtf8StaysWhole) {
  std::string raw("a\0b\xff\n", 5);
  SharedString s = raw;
  EXPECT_EQ(s.size(), 5u);
  EXPECT_EQ(s.str(), raw);
  EXPECT_FALSE(s == "a");  // a C string stops at the NUL; the text does not
}

TEST(SharedString, OriginsCompareByTextNotByBuffer) {
  Origin a = Origin::Config("sandbox_writable_roots", "/etc/cfg.toml", 3, 7);
  Origin b =
      Origin::Config(std::string("sandbox_writable_roots"), std::string("/etc/cfg.toml"), 3, 7);
  EXPECT_EQ(a, b);
  b.col = 8;
  EXPECT_NE(a, b);
  EXPECT_EQ(a.Describe(), "config sandbox_writable_roots at /etc/cfg.toml:3:7");
  // An origin with nothing to add is its kind alone, no trailing blank
  // (doctor printed "preferred: yes (default )").
  EXPECT_EQ(Origin().Describe(), "default");
  EXPECT_EQ(Origin::Default("wrapper").Describe(), "default wrapper");
}

// Copies made and dropped on several threads at once (libcwsc compiles on
// any thread; a plan's origins may be copied concurrently).
TEST(SharedString, CopiesOnManyThreads) {
  SharedString shared = std::string(100, 'p');
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&shared] {
      for (int i = 0; i < 20000; ++i) {
        SharedString copy = shared;
        if (copy.size() != 100) std::abort();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(shared.str(), std::string(100, 'p'));
}

}  // namespace
}  // namespace cwsc::ir
