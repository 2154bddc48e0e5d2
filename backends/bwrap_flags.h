// The flags of bubblewrap, once: what each one takes and what it does to the
// view of the sandbox. The emitter spells its mount operations from it
// (MountOpFlag), and the mount interpreter (backends/verify/bwrap_interp.h)
// reads every flag of an argv through it, so `cwsc audit` reads any argv a
// bwrap of that version accepts.
//
// The table is the manual of bubblewrap kBwrapManualVersion (`bwrap --help`,
// `man bwrap`): Audit.EveryFlagOfTheHostsBwrapHelp parses the help of the
// host's bwrap, so a flag a newer bwrap adds shows up there (and in `cwsc
// audit`, as a warning naming it).
#ifndef CWSC_BACKENDS_BWRAP_FLAGS_H_
#define CWSC_BACKENDS_BWRAP_FLAGS_H_

#include <optional>
#include <string_view>

#include "absl/types/span.h"
#include "ir/plan.h"

namespace cwsc::backends {

inline constexpr char kBwrapManualVersion[] = "0.8.0";

enum class BwrapFlagKind {
  kBind,       // SRC DEST: host content at DEST (`layer_op` says how)
  kBindFd,     // FD DEST: an open descriptor's file at DEST (no host path known)
  kNewMount,   // DEST: a fresh private mount (tmpfs, dev, proc, mqueue)
  kDataMount,  // FD DEST: a private copy of FD's data bound at DEST
  kRemountRo,  // DEST: what lies below DEST becomes read-only
  kSymlink,    // SRC DEST: a symlink at DEST to SRC
  kChdir,      // DIR
  kNetwork,    // --unshare-all, --unshare-net, --share-net
  kOption,     // no change to the view; its arguments are skipped
  kNoSandbox,  // --help, --version: bwrap prints and exits
  kMoreArgs,   // --args FD: more arguments from a descriptor, unseen here
};

struct BwrapFlag {
  std::string_view name;  // "--ro-bind-try"
  int args;               // how many arguments follow it
  BwrapFlagKind kind;
  // The mount layer it makes, as the interpreter keys it ("--ro-bind" for
  // --ro-bind-try and --ro-bind-fd, "--tmpfs" for --mqueue); "" for none.
  std::string_view layer_op;
  // The plan's mount operation bwrap spells with exactly this flag.
  std::optional<ir::MountOp> mount_op;
};

// BwrapFlags is the whole table, in the manual's order.
absl::Span<const BwrapFlag> BwrapFlags();
// FindBwrapFlag: the entry of `name`, or nullptr for a flag the table lacks.
const BwrapFlag* FindBwrapFlag(std::string_view name);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_BWRAP_FLAGS_H_
