#include "compiler/facts/host_facts.h"

#include "ir/constants.h"

namespace cwsc::compiler {

std::vector<std::string> BwrapProbeArgv() {
  return {ir::kBwrapPath,
          "--unshare-all",
          "--unshare-user",
          "--disable-userns",
          "--cap-drop",
          "ALL",
          "--die-with-parent",
          "--ro-bind",
          "/",
          "/",
          "--dev",
          "/dev",
          "--proc",
          "/proc",
          "--tmpfs",
          "/tmp",
          "--chdir",
          "/",
          "--",
          ir::kTruePath};
}

const char* FileTypeName(FileType type) {
  switch (type) {
    case FileType::kMissing:
      return "missing";
    case FileType::kRegular:
      return "file";
    case FileType::kDirectory:
      return "directory";
    case FileType::kCharDevice:
      return "char-device";
    case FileType::kBlockDevice:
      return "block-device";
    case FileType::kOther:
      return "other";
  }
  return "missing";
}

std::optional<FileType> ParseFileType(absl::string_view name) {
  for (FileType t : {FileType::kMissing, FileType::kRegular, FileType::kDirectory,
                     FileType::kCharDevice, FileType::kBlockDevice, FileType::kOther}) {
    if (name == FileTypeName(t)) return t;
  }
  return std::nullopt;
}

}  // namespace cwsc::compiler
