// The shared golden check: check mode compares (and fails on a missing or
// different golden), update mode writes and compares nothing.
#include "tests/testing/golden.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>

namespace cwsc::testing {
namespace {

class GoldenHelper : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cwsc-golden-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    const char* v = std::getenv("CWSC_UPDATE_GOLDENS");
    if (v != nullptr) saved_ = v;
    unsetenv("CWSC_UPDATE_GOLDENS");
  }
  void TearDown() override {
    if (saved_) {
      setenv("CWSC_UPDATE_GOLDENS", saved_->c_str(), 1);
    } else {
      unsetenv("CWSC_UPDATE_GOLDENS");
    }
    unlink(Path().c_str());
    rmdir(dir_.c_str());
  }
  std::string Path() const { return dir_ + "/g.txt"; }
  void Write(const std::string& text) { std::ofstream(Path(), std::ios::binary) << text; }
  std::string Read() const {
    std::ifstream in(Path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::string dir_;
  std::optional<std::string> saved_;
};

TEST_F(GoldenHelper, CheckModePassesOnEqualText) {
  Write("same\n");
  CheckGolden(Path(), "same\n");
  EXPECT_EQ(Read(), "same\n");
}

TEST_F(GoldenHelper, CheckModeFailsOnDifferentTextAndLeavesTheGolden) {
  Write("old\n");
  EXPECT_NONFATAL_FAILURE(CheckGolden(Path(), "new\n"), "differs");
  EXPECT_EQ(Read(), "old\n");
}

TEST_F(GoldenHelper, CheckModeFailsOnAMissingGolden) {
  // EXPECT_FATAL_FAILURE's statement may use only static variables.
  static std::string missing;
  missing = dir_ + "/missing.txt";
  EXPECT_FATAL_FAILURE(CheckGolden(missing, "x"), "is missing");
}

TEST_F(GoldenHelper, OnlyExactlyOneIsTheUpdateSwitch) {
  Write("old\n");
  setenv("CWSC_UPDATE_GOLDENS", "yes", 1);
  EXPECT_FALSE(UpdatingGoldens());
  EXPECT_NONFATAL_FAILURE(CheckGolden(Path(), "new\n"), "differs");
  EXPECT_EQ(Read(), "old\n");
}

TEST_F(GoldenHelper, UpdateModeWritesAndDoesNotCompare) {
  Write("old\n");
  setenv("CWSC_UPDATE_GOLDENS", "1", 1);
  EXPECT_TRUE(UpdatingGoldens());
  CheckGolden(Path(), "new\n");
  EXPECT_EQ(Read(), "new\n");
  CheckGolden(dir_ + "/created.txt", "fresh");
  std::ifstream created(dir_ + "/created.txt");
  std::string text((std::istreambuf_iterator<char>(created)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "fresh");
  unlink((dir_ + "/created.txt").c_str());
}

}  // namespace
}  // namespace cwsc::testing
