#include "compiler/facts/host_facts.h"

#include <vector>

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

namespace {

// PushComponents puts the components of `path` on `todo`, last first, so
// that the next to walk is todo.back().
void PushComponents(absl::string_view path, std::vector<absl::string_view>* todo) {
  size_t end = path.size();
  while (end > 0) {
    size_t slash = path.rfind('/', end - 1);
    size_t begin = slash == absl::string_view::npos ? 0 : slash + 1;
    if (begin < end) todo->push_back(path.substr(begin, end - begin));
    if (slash == absl::string_view::npos) break;
    end = slash;
  }
}

}  // namespace

std::string ResolvePath(HostFacts& facts, absl::string_view spelled,
                        absl::FunctionRef<bool(absl::string_view, absl::string_view)> on_link,
                        bool through_missing) {
  if (spelled.empty() || spelled[0] != '/') return "";
  // The components still to walk, last first; a link's target is pushed
  // on top of what follows it. Views into `spelled` and into answers the
  // facts keep unchanged (HostFacts::Path).
  std::vector<absl::string_view> todo;
  PushComponents(spelled, &todo);
  std::string cur = "/";
  int links = 0;
  while (!todo.empty()) {
    absl::string_view c = todo.back();
    todo.pop_back();
    if (c == ".") continue;
    if (c == "..") {
      // `cur` is canonical: its parent is lexical.
      size_t slash = cur.rfind('/');
      cur.resize(slash == 0 ? 1 : slash);
      continue;
    }
    std::string next = cur;
    if (next.size() > 1) next.push_back('/');
    next.append(c.data(), c.size());
    const PathInfo& info = facts.Path(next);
    if (info.is_symlink) {
      if (++links > kMaxSymlinks || !on_link(next, cur)) return "";
      if (!info.target.empty()) {
        if (info.target[0] == '/') cur = "/";
        PushComponents(info.target, &todo);
        continue;
      }
      // Facts without targets: the link's own answer says where it leads.
      if (info.canonical.empty()) return "";
      cur = info.canonical;
      continue;
    }
    if (!through_missing) {
      if (info.type == FileType::kMissing) return "";
      if (!todo.empty() && info.type != FileType::kDirectory) return "";
    }
    cur = std::move(next);
  }
  return cur;
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
