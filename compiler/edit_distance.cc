#include "compiler/edit_distance.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace cwsc::compiler {

size_t EditDistance(absl::string_view a, absl::string_view b, size_t cap) {
  size_t diff = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (diff >= cap) return cap;
  const size_t w = b.size() + 1;
  std::vector<size_t> rows(3 * w);
  size_t* before = rows.data();  // row i - 2
  size_t* prev = before + w;     // row i - 1
  size_t* cur = prev + w;        // row i
  for (size_t j = 0; j < w; ++j) prev[j] = j;
  size_t prev_min = 0;  // the least cell of row i - 1
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    size_t cur_min = i;
    for (size_t j = 1; j < w; ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
      cur_min = std::min(cur_min, cur[j]);
    }
    // A cell comes from the row above, its left neighbour or two rows up:
    // once two rows in a row reach `cap`, every later one does too.
    if (cur_min >= cap && prev_min >= cap) return cap;
    prev_min = cur_min;
    std::swap(before, prev);  // rotate: row i - 1 becomes i - 2, row i becomes i - 1
    std::swap(prev, cur);
  }
  return std::min(prev[w - 1], cap);
}

}  // namespace cwsc::compiler
