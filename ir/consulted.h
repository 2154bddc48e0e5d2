// The record of what a compile asked the host (ir::Consulted), a part of
// every plan (ir/plan.h) that the facts also keep per answer
// (compiler/facts/host_facts.h), so it stands in a header of its own.
#ifndef CWSC_IR_CONSULTED_H_
#define CWSC_IR_CONSULTED_H_

#include <optional>
#include <string>
#include <vector>

#include "ir/shared_string.h"

namespace cwsc::ir {

// Consulted is what the compile asked the host and the answers it got
// (compiler/facts/consulted.h records them): the exec-time recheck asks the
// same questions again and refuses a run when an answer differs, naming the
// old and the new one (runtime/replay.h). Only facts a plan may show: an
// API key variable is recorded as set or not, never its value, and no file
// content is kept.
//
// The text of a path's record is shared (SharedString): the facts keep each
// answer's record once (compiler/facts/host_facts.h, PathInfo::record), and
// every plan compiled against them copies references, not text.
struct ConsultedPath {
  SharedString path;
  std::string type;        // "missing", "file", "directory", "char-device", "block-device", "other"
  bool symlink = false;    // lstat: the path itself is a symlink
  SharedString target;     // its content when it is one
  SharedString canonical;  // realpath; "" when that fails
  std::string mode;        // the permission bits, "0755" ("" when missing)
  int uid = 0;
  int gid = 0;
  bool operator==(const ConsultedPath&) const = default;
};
// A variable's name is shared too: the recorder keeps one copy of each
// name for the whole process (compiler/facts/consulted.cc).
struct ConsultedEnv {
  SharedString name;
  std::optional<std::string> value;  // null: unset
  bool operator==(const ConsultedEnv&) const = default;
};
struct ConsultedSecret {
  SharedString name;  // a variable that may hold an API key
  bool set = false;
  bool operator==(const ConsultedSecret&) const = default;
};
struct ConsultedUser {
  int uid = 0;
  int gid = 0;
  std::vector<int> groups;
  std::string name;
  std::string home;
  bool operator==(const ConsultedUser&) const = default;
};
struct ConsultedProbe {
  std::string name;  // "bwrap", "seatbelt"
  bool ok = false;
  bool operator==(const ConsultedProbe&) const = default;
};
struct Consulted {
  // The user: `user` when the compile read the passwd entry (name, home,
  // groups), else `uid` when it asked only for the user id; at most one.
  std::optional<ConsultedUser> user;
  std::optional<int> uid;
  std::vector<ConsultedEnv> env;         // sorted by name
  std::vector<ConsultedSecret> secrets;  // sorted by name
  std::vector<ConsultedPath> paths;      // in the order first asked
  std::vector<ConsultedProbe> probes;    // in the order above
  std::optional<int> landlock_abi;
  bool operator==(const Consulted&) const = default;
};

}  // namespace cwsc::ir

#endif  // CWSC_IR_CONSULTED_H_
