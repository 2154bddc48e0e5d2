// EditDistance against the textbook full-matrix optimal-string-alignment
// distance, capped, on every pair of short strings over a small alphabet
// (where prefixes, swaps and repeats all occur) and on the config keys.
#include "compiler/edit_distance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cwsc::compiler {
namespace {

size_t FullMatrix(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::vector<std::string> AllStrings(size_t max_len) {
  std::vector<std::string> out = {""};
  for (size_t n = 0; n < out.size(); ++n) {
    if (out[n].size() == max_len) continue;
    for (char c : {'a', 'b', 'c'}) out.push_back(out[n] + c);
  }
  return out;
}

TEST(EditDistance, AgreesWithTheFullMatrixUpToTheCap) {
  std::vector<std::string> all = AllStrings(5);  // 364 strings
  for (const std::string& a : all) {
    for (const std::string& b : all) {
      size_t full = FullMatrix(a, b);
      for (size_t cap = 1; cap <= 4; ++cap) {
        ASSERT_EQ(EditDistance(a, b, cap), std::min(full, cap))
            << "'" << a << "' '" << b << "' cap " << cap;
      }
    }
  }
}

TEST(EditDistance, ConfigKeys) {
  EXPECT_EQ(EditDistance("sandbox_mdoe", "sandbox_mode", 3), 1u);  // a swap counts once
  EXPECT_EQ(EditDistance("sandboxmode", "sandbox_mode", 3), 1u);
  EXPECT_EQ(EditDistance("prefer_bwarp", "prefer_bwrap", 3), 1u);
  EXPECT_EQ(EditDistance("model", "sandbox_mode", 3), 3u);  // capped
  EXPECT_EQ(EditDistance("", "", 3), 0u);
}

}  // namespace
}  // namespace cwsc::compiler
