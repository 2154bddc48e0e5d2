#include "tests/testing/golden.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace cwsc::testing {
namespace {

bool ReadWhole(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

}  // namespace

bool UpdatingGoldens() {
  const char* v = std::getenv("CWSC_UPDATE_GOLDENS");
  return v != nullptr && std::string(v) == "1";
}

void CheckGolden(const std::string& path, const std::string& actual) {
  std::string before;
  bool existed = ReadWhole(path, &before);
  if (UpdatingGoldens()) {
    if (existed && before == actual) return;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << actual;
    out.close();
    ASSERT_TRUE(out.good()) << "cannot write the golden " << path;
    std::fprintf(stderr, "golden %s: %s\n", existed ? "updated" : "created", path.c_str());
    ::testing::Test::RecordProperty("golden_updated", path);
    return;
  }
  ASSERT_TRUE(existed) << "the golden " << path
                       << " is missing; create it with CWSC_UPDATE_GOLDENS=1";
  EXPECT_EQ(before, actual) << "the golden " << path
                            << " differs; if the change is by design, regenerate with "
                               "CWSC_UPDATE_GOLDENS=1 and review git diff";
}

}  // namespace cwsc::testing
