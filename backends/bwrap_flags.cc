#include "backends/bwrap_flags.h"

namespace cwsc::backends {
namespace {

using K = BwrapFlagKind;
using ir::MountOp;

// bubblewrap 0.8.0, `bwrap --help` order. --perms and --size modify the next
// mount and --cap-add/--cap-drop the capabilities: the interpreter reads those
// beyond their arity (bwrap_interp.cc).
constexpr BwrapFlag kFlags[] = {
    {"--help", 0, K::kNoSandbox, "", std::nullopt},
    {"--version", 0, K::kNoSandbox, "", std::nullopt},
    {"--args", 1, K::kMoreArgs, "", std::nullopt},
    {"--unshare-all", 0, K::kNetwork, "", std::nullopt},
    {"--share-net", 0, K::kNetwork, "", std::nullopt},
    {"--unshare-user", 0, K::kOption, "", std::nullopt},
    {"--unshare-user-try", 0, K::kOption, "", std::nullopt},
    {"--unshare-ipc", 0, K::kOption, "", std::nullopt},
    {"--unshare-pid", 0, K::kOption, "", std::nullopt},
    {"--unshare-net", 0, K::kNetwork, "", std::nullopt},
    {"--unshare-uts", 0, K::kOption, "", std::nullopt},
    {"--unshare-cgroup", 0, K::kOption, "", std::nullopt},
    {"--unshare-cgroup-try", 0, K::kOption, "", std::nullopt},
    {"--userns", 1, K::kOption, "", std::nullopt},
    {"--userns2", 1, K::kOption, "", std::nullopt},
    {"--disable-userns", 0, K::kOption, "", std::nullopt},
    {"--assert-userns-disabled", 0, K::kOption, "", std::nullopt},
    {"--pidns", 1, K::kOption, "", std::nullopt},
    {"--uid", 1, K::kOption, "", std::nullopt},
    {"--gid", 1, K::kOption, "", std::nullopt},
    {"--hostname", 1, K::kOption, "", std::nullopt},
    {"--chdir", 1, K::kChdir, "", std::nullopt},
    {"--clearenv", 0, K::kOption, "", std::nullopt},
    {"--setenv", 2, K::kOption, "", std::nullopt},
    {"--unsetenv", 1, K::kOption, "", std::nullopt},
    {"--lock-file", 1, K::kOption, "", std::nullopt},
    {"--sync-fd", 1, K::kOption, "", std::nullopt},
    {"--bind", 2, K::kBind, "--bind", MountOp::kWritableBind},
    {"--bind-try", 2, K::kBind, "--bind", std::nullopt},
    {"--dev-bind", 2, K::kBind, "--dev-bind", MountOp::kDeviceBind},
    {"--dev-bind-try", 2, K::kBind, "--dev-bind", std::nullopt},
    {"--ro-bind", 2, K::kBind, "--ro-bind", MountOp::kReadOnlyBind},
    {"--ro-bind-try", 2, K::kBind, "--ro-bind", std::nullopt},
    {"--bind-fd", 2, K::kBindFd, "--bind", std::nullopt},
    {"--ro-bind-fd", 2, K::kBindFd, "--ro-bind", std::nullopt},
    {"--remount-ro", 1, K::kRemountRo, "--remount-ro", MountOp::kRemountReadOnly},
    {"--exec-label", 1, K::kOption, "", std::nullopt},
    {"--file-label", 1, K::kOption, "", std::nullopt},
    {"--proc", 1, K::kNewMount, "--proc", MountOp::kProc},
    {"--dev", 1, K::kNewMount, "--dev", MountOp::kDev},
    {"--tmpfs", 1, K::kNewMount, "--tmpfs", MountOp::kTmpfs},
    {"--mqueue", 1, K::kNewMount, "--tmpfs", std::nullopt},
    // A directory or file made inside whatever mount lies at DEST: that
    // mount decides its access.
    {"--dir", 1, K::kOption, "", std::nullopt},
    {"--file", 2, K::kOption, "", std::nullopt},
    {"--bind-data", 2, K::kDataMount, "--tmpfs", std::nullopt},
    {"--ro-bind-data", 2, K::kDataMount, "--tmpfs", std::nullopt},
    {"--symlink", 2, K::kSymlink, "", std::nullopt},
    {"--seccomp", 1, K::kOption, "", std::nullopt},
    {"--add-seccomp-fd", 1, K::kOption, "", std::nullopt},
    {"--block-fd", 1, K::kOption, "", std::nullopt},
    {"--userns-block-fd", 1, K::kOption, "", std::nullopt},
    {"--info-fd", 1, K::kOption, "", std::nullopt},
    {"--json-status-fd", 1, K::kOption, "", std::nullopt},
    {"--new-session", 0, K::kOption, "", std::nullopt},
    {"--die-with-parent", 0, K::kOption, "", std::nullopt},
    {"--as-pid-1", 0, K::kOption, "", std::nullopt},
    {"--cap-add", 1, K::kOption, "", std::nullopt},
    {"--cap-drop", 1, K::kOption, "", std::nullopt},
    {"--perms", 1, K::kOption, "", std::nullopt},
    {"--size", 1, K::kOption, "", std::nullopt},
    {"--chmod", 2, K::kOption, "", std::nullopt},
};

}  // namespace

absl::Span<const BwrapFlag> BwrapFlags() { return kFlags; }

const BwrapFlag* FindBwrapFlag(std::string_view name) {
  for (const BwrapFlag& f : kFlags) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace cwsc::backends
