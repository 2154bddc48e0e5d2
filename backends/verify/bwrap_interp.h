// InterpretBwrapArgv is an independent checker of an *emitted* bwrap argv: it
// replays the mount operations in order (a later mount at or above a path
// hides what was mounted below it) and answers what the confined process sees
// at a path: writable host content, read-only host content, or hidden (masked
// by a tmpfs or /dev/null). Every flag of the bubblewrap manual is read
// through backends/bwrap_flags.h; any other flag is refused (or skipped, when
// asked).
//
//   auto view = InterpretBwrapArgv(argv);   // argv may start with a launcher
//   view->Lookup("/w/src/main.c").access == Access::kWritable
#ifndef CWSC_BACKENDS_VERIFY_BWRAP_INTERP_H_
#define CWSC_BACKENDS_VERIFY_BWRAP_INTERP_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"

namespace cwsc::backends {

enum class Access {
  kNone,      // no mount covers the path (nothing is visible)
  kReadOnly,  // host content, read-only
  kWritable,  // host content, writable
  kHidden,    // host content invisible: under a tmpfs, a /dev/null mask, /dev or /proc
  kPrivate,   // the path is itself a fresh tmpfs/dev/proc mount point (empty, private)
  kDevice,    // a device node bound with --dev-bind
};
const char* AccessName(Access a);

struct MountLayer {
  std::string op;      // "--ro-bind", "--bind", "--dev-bind", "--tmpfs", "--dev", "--proc",
                       // "--remount-ro" (makes what lies below `dest` read-only): the
                       // effect; other flags map to one (backends/bwrap_flags.h)
  std::string source;  // empty for tmpfs/dev/proc; the FD of the -fd and -data flags
  std::string dest;
  size_t arg = 0;         // index of the flag in the interpreted argv
  std::string flag = {};  // the flag as written ("--ro-bind-try"); "" means `op`
  bool fd = false;        // --bind-fd / --ro-bind-fd: the source is a descriptor
};

// Symlink is a `--symlink TARGET DEST` of the argv, followed by lookups
// through BwrapView::Resolve.
struct Symlink {
  std::string target;
  std::string dest;
  size_t arg = 0;
  size_t layers_before = 0;  // a mount made later at or above `dest` hides it
};

// SkippedFlag is a flag the table does not know, read with UnknownFlags::kSkip.
struct SkippedFlag {
  std::string flag;
  size_t args = 0;  // the arguments taken to be its own (up to the next --flag)
  size_t arg = 0;
};

struct Lookup {
  Access access = Access::kNone;
  int layer = -1;         // index into BwrapView::layers
  std::string host_path;  // host path backing it (binds only)
};

struct BwrapView {
  std::vector<std::string> prefix;  // launcher argv before bwrap
  std::vector<MountLayer> layers;
  bool network_isolated = false;  // --unshare-all (or --unshare-net) without --share-net
  bool die_with_parent = false;
  bool unshare_user = false;            // --unshare-user: fail rather than run without one
  bool nested_userns_disabled = false;  // --disable-userns
  bool caps_dropped = false;            // --cap-drop ALL
  bool new_session = false;             // --new-session
  std::string seccomp_fd;               // --seccomp FD ("" when none)
  std::string chdir;
  std::vector<std::string> program;
  std::vector<Symlink> symlinks;
  std::vector<SkippedFlag> skipped;

  // Resolve follows the argv's symlinks in `path` (not the host's), so a
  // lookup of /lib/x under `--symlink usr/lib /lib` asks about /usr/lib/x.
  std::string Resolve(const std::string& path) const;

  // Find answers what the process sees at `path`. It asks an index of the
  // layers by destination (built by InterpretBwrapArgv, or IndexLayers after
  // `layers` changed), so a lookup costs the path's depth, not the number of
  // layers (the exec-time recheck and the lints ask about every denied path);
  // a view whose layers changed since indexing falls back to FindByScan.
  Lookup Find(const std::string& path) const;
  // FindByScan walks the layers from the top: the definition Find agrees with.
  Lookup FindByScan(const std::string& path) const;
  void IndexLayers();

  // Layer indices by destination, components joined by one '/' ("/" for
  // the root), ascending.
  // Layer indices by destination; most destinations hold one or two
  // (a placeholder's tmpfs and its remount), kept inline.
  absl::flat_hash_map<std::string, absl::InlinedVector<int, 2>> by_dest;
  size_t indexed_layers = 0;  // layers.size() when by_dest was built
};

// kRefuse (cwsc's own argv: every flag must be understood) or kSkip (`cwsc
// audit` of a foreign argv: a flag of a newer bwrap is skipped with the
// arguments up to the next flag, and listed in BwrapView::skipped).
enum class UnknownFlags { kRefuse, kSkip };

absl::StatusOr<BwrapView> InterpretBwrapArgv(const std::vector<std::string>& argv,
                                             UnknownFlags unknown = UnknownFlags::kRefuse);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_VERIFY_BWRAP_INTERP_H_
