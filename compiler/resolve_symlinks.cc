// Symlinks a sandboxed command could have planted (docs/decisions.md, "Who
// could have written it"): on the way to a root or a read-only root, inside
// a writable candidate of this run or in a directory the command's user may
// write.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/launcher.h"
#include "compiler/resolver.h"

namespace cwsc::compiler::resolve_internal {

// PlantedSymlink walks `spelled` component by component and returns the
// first symlink a sandboxed command could have planted ("" when none):
// one lying strictly inside a writable candidate root of this run, or in
// a directory the user the command runs as may write (an earlier run with
// other roots, or another workspace, could have made it; docs/decisions.md,
// "Who could have written it"). Paths
// whose canonical form is their lexical form traverse no symlink that
// changes them, and cost no extra question.
// `known`, when given, is facts_.Path(spelled).
std::string Resolver::PlantedSymlink(absl::string_view spelled, const PathInfo* known) {
  if (spelled.empty() || spelled[0] != '/') return "";
  const PathInfo& whole = known != nullptr ? *known : facts_.Path(spelled);
  // Missing: nothing will be bound there. Canonical equals lexical: no
  // symlink changed the path.
  if (!whole.is_symlink && (whole.type == FileType::kMissing || whole.canonical == spelled ||
                            whole.canonical == LexicalNormalize(spelled))) {
    return "";
  }
  // The walk is the one that gave `whole` its canonical form (ResolvePath
  // over the same answers), so it meets every symlink that resolution
  // followed, the ones behind a trusted link's target included.
  std::string planted;
  ResolvePath(
      facts_, spelled,
      [&](absl::string_view link, absl::string_view dir) {
        for (absl::string_view w : writable_) {
          if (link != w && PathStartsWith(link, w)) {
            planted = std::string(link);
            return false;
          }
        }
        if (WritableBy(facts_.Path(dir), RunIdentity())) {
          planted = std::string(link);
          return false;
        }
        return true;
      },
      /*through_missing=*/true);
  return planted;
}

// SpelledRoot is a root's path as the user (or the environment) spelled
// it, before any symlink was resolved.
absl::string_view Resolver::SpelledRoot(const ir::Root& r) {
  switch (r.source) {
    case ir::RootSource::kCwd:
      return in_.cwd;
    case ir::RootSource::kSlashTmp:
      return "/tmp";
    case ir::RootSource::kTmpdir:
      spelled_tmpdir_ = facts_.Env("TMPDIR").value_or(r.path);
      return spelled_tmpdir_;
    default:
      return r.path;
  }
}

std::string Resolver::PlantedReason(const std::string& link) {
  std::string root;
  for (absl::string_view w : writable_) {
    if (link != w && PathStartsWith(link, w)) root = std::string(w);
  }
  if (root.empty()) {
    std::string dir = ParentPath(link);
    const PathInfo& info = facts_.Path(dir);
    const Identity who = RunIdentity();
    if (info.uid != who.uid && !who.InGroup(info.gid) && (info.mode & 0002) == 0) {
      // Writable only if a POSIX ACL entry names the user (WritableBy).
      return absl::StrCat("passes through the symlink ", link, " in ", dir,
                          ", a directory whose group bits (mode ",
                          absl::StrFormat("%04o", info.mode & 07777),
                          ") would be the mask of a POSIX ACL, which may let the sandboxed user (",
                          UserText(who), ") write it; the sandboxed command could have planted it");
    }
    return absl::StrCat("passes through the symlink ", link, " in ", dir,
                        ", a directory the sandboxed user (", UserText(RunIdentity()),
                        ") may write; the sandboxed command could have planted it");
  }
  return absl::StrCat("passes through the symlink ", link, " inside the writable root ", root,
                      "; the sandboxed command could have planted it");
}

// WritableBy: `who` may create or rename entries in the directory `dir`,
// by its owner and permission bits (a sandboxed command holds no
// capabilities, so root is judged as the owner it is). The owner may
// write whatever the mode says: chmod needs no capability, so a command
// that made a link and then took the write bits off its directory wrote
// it all the same. Outside the owning group the group write bit counts
// too: on a directory with a POSIX ACL those bits are the ACL's mask, which
// caps every named entry, and cwsc reads no ACL, so a mask that allows
// writing may be an entry naming `who` (docs/decisions.md, "An ACL entry
// is a writer").
bool Resolver::WritableBy(const PathInfo& dir, const Identity& who) {
  if (dir.type != FileType::kDirectory) return false;
  if (dir.uid == who.uid) return true;
  if (who.InGroup(dir.gid)) return (dir.mode & 0020) != 0;
  return (dir.mode & 0022) != 0;
}

}  // namespace cwsc::compiler::resolve_internal
