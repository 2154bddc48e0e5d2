// The names of targets, formats and stages (compiler/driver/names.h).
#include "compiler/driver/names.h"

#include "absl/strings/str_cat.h"

namespace cwsc::driver {

std::string NameList(std::span<const Named> names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) absl::StrAppend(&out, i + 1 == names.size() ? " or " : ", ");
    absl::StrAppend(&out, names[i].name);
  }
  return out;
}

bool IsNamed(std::span<const Named> names, absl::string_view name) {
  for (const Named& n : names) {
    if (n.name == name) return true;
  }
  return false;
}

}  // namespace cwsc::driver
