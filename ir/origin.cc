#include "ir/origin.h"

#include "absl/strings/str_cat.h"

namespace cwsc::ir {

const char* Origin::KindName(Kind kind) {
  switch (kind) {
    case Kind::kDefault:
      return "default";
    case Kind::kConfig:
      return "config";
    case Kind::kManaged:
      return "managed";
    case Kind::kProject:
      return "project";
    case Kind::kEnv:
      return "env";
    case Kind::kMode:
      return "mode";
    case Kind::kFact:
      return "fact";
    case Kind::kCli:
      return "cli";
  }
  return "default";
}

std::string Origin::Describe() const {
  std::string out(KindName(kind));
  if (!detail.empty()) absl::StrAppend(&out, " ", detail.str());
  if (!file.empty()) {
    absl::StrAppend(&out, " at ", file.str());
    if (line > 0) absl::StrAppend(&out, ":", line, ":", col);
  }
  return out;
}

}  // namespace cwsc::ir
