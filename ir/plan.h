// LaunchPlan is the typed, immutable contract between the compiler and every
// backend: what will be done to confine a command, already resolved against
// the host facts, with an Origin on every element. Only compiler/lower.cc
// builds one; backends and the runtime receive `const LaunchPlan&`.
//
// The plan is program-independent: the command to run is appended when an
// artifact is emitted or the plan is executed. Its canonical JSON form
// (ir/plan_json.h) carries `schema_version` and is documented in docs/plan.md.
#ifndef CWSC_IR_PLAN_H_
#define CWSC_IR_PLAN_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "ir/consulted.h"
#include "ir/origin.h"

namespace cwsc::ir {

inline constexpr int kPlanSchemaVersion = 5;

// PlanKind is how a command will be confined; spelled as Codewhale reports it.
enum class PlanKind {
  kNone,
  kLinuxBwrap,
  kMacosSeatbelt,
  kLauncherBwrap,
  kOpenSandbox,
  kRefused,
  kLinuxLandlock,  // Landlock + seccomp applied by the runtime itself, no namespaces
};
const char* PlanKindName(PlanKind kind);  // "none", "linux-bwrap", ...

// Platform is the operating system a plan was compiled for (the host facts'
// `platform`).
enum class Platform { kLinux, kMacos, kWindows };
const char* PlatformName(Platform platform);  // "linux", "macos", "windows"
// PlatformFromName is the inverse of PlatformName; nullopt for another name.
std::optional<Platform> PlatformFromName(const std::string& name);

// PermissionMode is the permission mode a command runs under (docs/behavior.md
// B-10): each fixes or narrows the policy the configuration gives.
enum class PermissionMode { kPlan, kAsk, kAutoReview, kFullAccess };
const char* PermissionModeName(PermissionMode mode);  // "plan", "ask", "auto-review", ...
// Every permission mode, in the order reports list them.
inline constexpr PermissionMode kPermissionModes[] = {PermissionMode::kPlan, PermissionMode::kAsk,
                                                      PermissionMode::kAutoReview,
                                                      PermissionMode::kFullAccess};

// PolicyType is the resolved SandboxPolicy variant (docs/behavior.md B-13).
enum class PolicyType { kReadOnly, kWorkspaceWrite, kDangerFullAccess, kExternalSandbox };
const char* PolicyTypeName(PolicyType type);  // "read-only", "workspace-write", ...

// Policy is the resolved sandbox policy for the permission mode after narrowing.
struct Policy {
  PolicyType type = PolicyType::kWorkspaceWrite;
  std::vector<SharedString> writable_roots;  // configured/mode-derived roots, as given
  bool network_access = false;
  bool exclude_tmpdir = false;
  bool exclude_slash_tmp = false;
  Origin origin;          // what decided `type` (mode, narrowing key, escalation)
  Origin network_origin;  // what decided `network_access`

  bool ShouldSandbox() const {
    return type == PolicyType::kReadOnly || type == PolicyType::kWorkspaceWrite;
  }
  bool operator==(const Policy&) const = default;
};

// RootSource says why a path is in the writable-root list (docs/behavior.md B-20).
enum class RootSource {
  kConfigured,
  kCwd,
  kWorktreeGitDir,
  kWorktreeCommonDir,
  kSlashTmp,
  kTmpdir
};
const char* RootSourceName(RootSource source);

// RootSkip says why a writable root gets no writable bind (kNone: it gets one).
enum class RootSkip {
  kNone,
  kMissing,
  kNotADirectory,
  kCanonicalizesToRoot,
  kPlantedSymlink,
  kDuplicate,
  kLauncherPrivateTmp,
};
const char* RootSkipName(RootSkip skip);  // "none", "missing", ...

// Protected is a `.codewhale`/`.deepseek` (or policy-named) descendant of a root.
struct Protected {
  SharedString path;        // root/<name>, spelled from the listed root (its mounts share it)
  std::string canonical;    // canonical form; empty when it does not resolve
  bool applied = false;     // remounted read-only by bwrap
  std::string skip_reason;  // why not applied (empty when applied)
  Origin origin;
  // The name does not exist: bwrap mounts an empty read-only directory
  // there, so the command cannot create it (docs/decisions.md).
  bool placeholder = false;
  bool operator==(const Protected&) const = default;
};

// Root is one entry of the policy's writable-root list, in docs/behavior.md B-20 order
// (not deduplicated; Seatbelt uses this list as is, bwrap filters it).
struct Root {
  SharedString path;       // as listed by the policy (the policy's list shares it)
  SharedString canonical;  // canonical form; empty when it does not resolve (its bind shares it)
  RootSource source = RootSource::kConfigured;
  std::vector<Protected> protected_paths;
  bool writable_bind = false;       // the local sandbox binds it writable
  RootSkip skip = RootSkip::kNone;  // why it gets no writable bind
  std::string skip_reason;          // the same for people (empty when bound)
  Origin origin;
  bool operator==(const Root&) const = default;
};

// MountOp is one mount operation of a mount-namespace sandbox, named for what
// it does (the bwrap backend spells it as a flag). kRemountReadOnly makes an
// earlier mount at `dest` read-only (a masking tmpfs stays empty).
enum class MountOp {
  kReadOnlyBind,
  kWritableBind,
  kDeviceBind,
  kDev,
  kProc,
  kTmpfs,
  kRemountReadOnly,
};
const char* MountOpName(MountOp op);  // "read-only-bind", "writable-bind", ...
// MountOpHasSource: the three binds have a source; dev, proc, tmpfs and
// remount-read-only have none.
bool MountOpHasSource(MountOp op);

// MountRole is what a mount is for; every consumer reads it instead of
// guessing from the operation and the paths. ir::Validate checks that a
// role agrees with its operation and paths (docs/plan.md "Mount roles"), so
// an edited plan cannot relabel a mount to slip past a check.
enum class MountRole {
  kBase,            // the read-only root view, /dev, /proc, the private /tmp
  kKernelReadOnly,  // a kernel interface bound read-only onto itself
  kKernelMask,      // a kernel interface hidden (/dev/null file, read-only tmpfs)
  kDevice,          // a bwrap_dev_roots device bound onto itself
  kRootBind,        // a writable root bound writable onto itself
  kProtected,       // a protected name in a writable root bound read-only
  kPlaceholder,     // the empty read-only directory at a missing protected name
  kTmpView,         // the working directory or worktree metadata under /tmp, read-only
  kReadOnlyRoot,    // a bwrap_ro_roots directory bound read-only
  kDenyPin,         // a directory on the way to a deny mask bound onto itself
  kDenyMask,        // a denied path hidden (tmpfs, or /dev/null for a file)
};
const char* MountRoleName(MountRole role);  // "base", "kernel-read-only", ...

// Mount is one mount of the sandbox, in emission order. `source` is empty
// for dev/proc/tmpfs/remount-read-only. `why` is a short human reason.
// The paths are shared strings: a bind's source and destination, a root's
// canonical path and its bind, a placeholder and its two mounts are one
// copy of the text (docs/performance.md).
struct Mount {
  MountOp op = MountOp::kReadOnlyBind;
  SharedString source;
  SharedString dest;
  SharedString why;
  Origin origin;
  MountRole role = MountRole::kBase;
  bool operator==(const Mount&) const = default;
};

// DeniedPath is one entry of the read deny list after docs/behavior.md B-53 expansion.
struct DeniedPath {
  SharedString path;  // its mask shares it
  std::string rule;   // the rule label ("~/.ssh", "/etc/shadow", ...)
  Origin origin;
  bool operator==(const DeniedPath&) const = default;
};

// SkipKind is what kind of thing a Skipped entry leaves out.
enum class SkipKind {
  kSetting,           // a configured key or value (`what` names the key)
  kLocalWrapper,      // the local sandbox wrapper: the plan runs unconfined
  kWritableRoot,      // a writable root
  kWorktreeMetadata,  // a git worktree's metadata directories
  kSyscallFilter,     // the seccomp stage
  kNetworkAccess,     // network access the mode cannot give
  kSeatbeltPath,      // a path a Seatbelt profile cannot name
  kLandlock,          // what a Landlock ruleset cannot hold without namespaces
};
const char* SkipKindName(SkipKind kind);  // "setting", "local-wrapper", ...

// Skipped records something the policy asked for that the plan leaves out.
struct Skipped {
  std::string what;  // for people: "writable root", "bwrap_ro_roots", "local wrapper", ...
  std::string path;
  std::string reason;  // "missing", "not a directory", "canonicalizes to /", ...
  Origin origin;
  SkipKind kind = SkipKind::kSetting;
  bool operator==(const Skipped&) const = default;
};

// EnvVar is one variable the plan sets in the child environment.
struct EnvVar {
  std::string name;
  std::string value;
  Origin origin;
  bool operator==(const EnvVar&) const = default;
};

// Diagnostic-level note attached to the plan (lint, degradation).
struct Warning {
  std::string code;  // stable identifier, e.g. "launcher-not-absolute"
  std::string message;
  Origin origin;
  bool operator==(const Warning&) const = default;
};

// Refusal says why nothing may run.
struct Refusal {
  std::string reason;
  Origin origin;
  bool operator==(const Refusal&) const = default;
};

// Expectation is a policy test written beside the policy (`expect write
// "$WORKSPACE/x" denied;` in the DSL); `cwsc check` evaluates it against the
// emitted artifacts.
struct Expectation {
  enum class Kind { kRead, kWrite, kNetwork, kExec, kCreate };
  Kind kind = Kind::kRead;
  std::string path;      // as written (leading variable kept); kNetwork: "" (any) or "host:port"
  bool allowed = false;  // the expected verdict
  // The permission modes it is about (`... in ask, auto-review;`), in source
  // order; empty: every mode.
  std::vector<PermissionMode> modes;
  Origin origin;
  bool operator==(const Expectation&) const = default;
};
const char* ExpectationKindName(
    Expectation::Kind kind);  // "read", "write", "network", "exec", "create"

// ArgTest compares one system-call argument: the rule matches when
// (args[index] & mask) == value. Arguments the kernel reads as 32-bit ints
// (an ioctl request, a socket domain) are compared through the mask
// 0xffffffff, so high bits a caller sets cannot slip past the rule.
struct ArgTest {
  int index = 0;  // 0..5
  uint64_t mask = 0xffffffff;
  uint64_t value = 0;
  bool operator==(const ArgTest&) const = default;
};

// SyscallRule refuses one system call with `errno_value` when every ArgTest
// holds (no tests: always).
struct SyscallRule {
  std::string syscall;  // kernel name, e.g. "ioctl"
  std::vector<ArgTest> args;
  int errno_value = 1;  // EPERM
  std::string why;      // short human reason
  Origin origin;
  bool operator==(const SyscallRule&) const = default;
};

// SyscallFilter is the seccomp stage of a bwrap plan (docs/runtime.md): every
// system call not refused by a rule is allowed; a call made through another
// architecture's calling convention (i386 int 0x80, x32) kills the process,
// so no rule can be bypassed through it.
struct SyscallFilter {
  std::vector<SyscallRule> rules;
  bool operator==(const SyscallFilter&) const = default;
};

// Wrapper describes the local wrapper binary and its probe.
struct Wrapper {
  std::string path;       // "/usr/bin/bwrap" or "/usr/bin/sandbox-exec"
  bool preferred = true;  // prefer_bwrap after layering (Linux)
  Origin preferred_origin;
  bool executable = false;    // regular file with an execute bit
  bool probe_ok = false;      // wrapped /bin/true succeeded
  std::string probe_message;  // the wrapper's own error when the probe failed
  bool operator==(const Wrapper&) const = default;
};

// SeatbeltPath is one absolute path a Seatbelt profile names.
struct SeatbeltPath {
  std::string path;
  Origin origin;
  bool operator==(const SeatbeltPath&) const = default;
};

// SeatbeltRoot is one writable root with the protected paths under it that
// stay read-only.
struct SeatbeltRoot {
  SeatbeltPath root;
  std::vector<SeatbeltPath> read_only;
  bool operator==(const SeatbeltRoot&) const = default;
};

// Seatbelt holds the macOS paths and facts the Seatbelt backend needs,
// resolved by lowering; the backend chooses the profile's parameter names.
// Every path is absolute (lowering skips, and lists in `skipped`, one that
// is not).
struct Seatbelt {
  std::vector<SeatbeltRoot> writable_roots;  // in the policy's root order
  std::optional<SeatbeltPath> darwin_cache;  // DARWIN_USER_CACHE_DIR
  std::optional<SeatbeltPath> cargo_home;    // its registry/ and git/ are writable
  std::optional<SeatbeltPath> npm_cache;
  std::vector<SeatbeltPath> denied_read;   // the read deny list
  std::vector<int> loopback_proxy_ports;   // read-only + network: allowed local ports
  bool network_dropped_for_proxy = false;  // proxy vars set, no port inferable
  bool operator==(const Seatbelt&) const = default;
};

// Landlock access rights, as the kernel numbers them (<linux/landlock.h>;
// the ABI that introduced each in the comment). The IR spells them itself so
// that the pure layers compile on any platform.
inline constexpr uint64_t kLandlockFsExecute = 1ULL << 0;
inline constexpr uint64_t kLandlockFsWriteFile = 1ULL << 1;
inline constexpr uint64_t kLandlockFsReadFile = 1ULL << 2;
inline constexpr uint64_t kLandlockFsReadDir = 1ULL << 3;
inline constexpr uint64_t kLandlockFsRemoveDir = 1ULL << 4;
inline constexpr uint64_t kLandlockFsRemoveFile = 1ULL << 5;
inline constexpr uint64_t kLandlockFsMakeChar = 1ULL << 6;
inline constexpr uint64_t kLandlockFsMakeDir = 1ULL << 7;
inline constexpr uint64_t kLandlockFsMakeReg = 1ULL << 8;
inline constexpr uint64_t kLandlockFsMakeSock = 1ULL << 9;
inline constexpr uint64_t kLandlockFsMakeFifo = 1ULL << 10;
inline constexpr uint64_t kLandlockFsMakeBlock = 1ULL << 11;
inline constexpr uint64_t kLandlockFsMakeSym = 1ULL << 12;
inline constexpr uint64_t kLandlockFsRefer = 1ULL << 13;                 // ABI 2
inline constexpr uint64_t kLandlockFsTruncate = 1ULL << 14;              // ABI 3
inline constexpr uint64_t kLandlockFsIoctlDev = 1ULL << 15;              // ABI 5
inline constexpr uint64_t kLandlockNetBindTcp = 1ULL << 0;               // ABI 4
inline constexpr uint64_t kLandlockNetConnectTcp = 1ULL << 1;            // ABI 4
inline constexpr uint64_t kLandlockScopeAbstractUnixSocket = 1ULL << 0;  // ABI 6
inline constexpr uint64_t kLandlockScopeSignal = 1ULL << 1;              // ABI 6
// The rights a rule on a file (not a directory) may carry.
inline constexpr uint64_t kLandlockFsFileRights = kLandlockFsExecute | kLandlockFsWriteFile |
                                                  kLandlockFsReadFile | kLandlockFsTruncate |
                                                  kLandlockFsIoctlDev;
// LandlockFsAccessNames spells a set of filesystem rights, "read_file|read_dir".
std::string LandlockFsAccessNames(uint64_t access);
std::string LandlockNetAccessNames(uint64_t access);
std::string LandlockScopeNames(uint64_t scoped);

// LandlockRule grants `access` beneath `path` (a path-beneath rule). With
// `except_names` set, the rule is not on `path` itself but on every entry of
// the directory `path` other than those names, as the runtime finds them
// when the command starts (a symlink entry gets no rule: access through it
// is decided at its target); a non-directory entry gets only the file rights
// of `access`. That is how a grant leaves a denied path out: Landlock only
// grants, and a grant on a directory reaches everything below it.
struct LandlockRule {
  std::string path;  // canonical
  uint64_t access = 0;
  std::vector<std::string> except_names;  // sorted; empty: the rule is on `path`
  std::string why;
  Origin origin;
  bool operator==(const LandlockRule&) const = default;
};

// Landlock is the ruleset of a linux-landlock plan: what the ruleset
// handles (for the ABI the host offers), and the grants. Every handled
// access no rule grants is refused.
struct Landlock {
  int abi = 0;               // the host's Landlock ABI version the ruleset was made for
  uint64_t handled_fs = 0;   // LANDLOCK_ACCESS_FS_* handled
  uint64_t handled_net = 0;  // LANDLOCK_ACCESS_NET_* handled (ABI >= 4; network off)
  uint64_t scoped = 0;       // LANDLOCK_SCOPE_* (ABI >= 6)
  std::vector<LandlockRule> rules;
  bool operator==(const Landlock&) const = default;
};

// Contract is the OpenSandbox API a remote plan speaks (docs/opensandbox.md).
enum class Contract { kCodewhale, kExecd, kLifecycle };
const char* ContractName(Contract contract);  // "codewhale", "execd", "lifecycle"

// ApiKeySource says where the runtime reads the OpenSandbox API key; the key
// itself is never in the plan.
struct ApiKeySource {
  enum class Kind { kNone, kConfig, kEnv, kFile };
  Kind kind = Kind::kNone;
  std::string name;  // kEnv: the variable; kFile: the key file; else empty
  Origin origin;     // kConfig: the sandbox_api_key key (its layer, file, line, col)
  // Describe names the source for people: "env NAME", "file PATH",
  // "config sandbox_api_key at f:3:1"; "" for kNone.
  std::string Describe() const;
  bool operator==(const ApiKeySource&) const = default;
};
const char* ApiKeySourceKindName(ApiKeySource::Kind kind);  // "none", "config", "env", "file"

// Remote describes an OpenSandbox endpoint. It never holds the API key itself.
struct Remote {
  Contract contract = Contract::kCodewhale;
  std::string url;  // base URL, trailing '/' trimmed
  Origin url_origin;
  ApiKeySource api_key;                   // where the key is read at run time
  std::vector<std::string> not_enforced;  // policy parts the remote side cannot enforce
  // Native API settings (docs/opensandbox.md); unused by the codewhale contract.
  std::string image;       // lifecycle: container image URI
  int execd_port = 44772;  // lifecycle: execd port inside the sandbox
  bool keep = false;       // lifecycle: keep the sandbox after the run
  std::string remote_cwd;  // execd/lifecycle: remote working directory ("" = server's)
  bool operator==(const Remote&) const = default;
};

// Unconfined is the launch of a `none` plan: the command runs as it is (the
// plan's skipped list says why).
struct Unconfined {
  bool operator==(const Unconfined&) const = default;
};

// Bwrap is the launch of a linux-bwrap plan, or of a launcher+bwrap plan when
// `launcher` is set: the mounts, and the seccomp stage bwrap installs.
struct Bwrap {
  std::vector<Mount> mounts;          // in emission order
  std::vector<std::string> launcher;  // launcher argv prefix; non-empty: launcher+bwrap
  Origin launcher_origin;             // the managed tool_launcher key (when launcher is set)
  std::optional<SyscallFilter> syscall_filter;  // none under a launcher (docs/plan.md)
  bool operator==(const Bwrap&) const = default;
};

// LandlockLaunch is the launch of a linux-landlock plan: the ruleset and the
// seccomp stage the runtime installs itself.
struct LandlockLaunch {
  Landlock ruleset;
  SyscallFilter syscall_filter;
  bool operator==(const LandlockLaunch&) const = default;
};

// Launch is how a plan confines its command: exactly one of these, so no
// plan carries a part of another kind. A Refusal says why nothing may run.
using Launch = std::variant<Unconfined, Bwrap, LandlockLaunch, Seatbelt, Remote, Refusal>;

// Overloaded makes one visitor of several lambdas, for std::visit over a
// plan's launch: leaving an alternative out does not compile.
template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

// LaunchPlan is the whole plan; see docs/plan.md for every field. The common
// part comes first, then the launch. The kind is not stored: it is the
// launch's alternative (kind()).
struct LaunchPlan {
  int schema_version = kPlanSchemaVersion;
  Platform platform = Platform::kLinux;
  PermissionMode permission_mode = PermissionMode::kAsk;
  Origin mode_origin;
  Policy policy;
  std::string posture_label;            // docs/behavior.md B-22
  std::string cwd;                      // working directory, as given (--chdir)
  std::string home;                     // home the deny list was expanded against ("" = none)
  std::vector<Root> roots;              // docs/behavior.md B-20 list (empty unless workspace-write)
  std::vector<DeniedPath> denied_read;  // deny list after docs/behavior.md B-53 expansion
  Wrapper wrapper;
  std::vector<std::string> env_allow;  // child env allow-list (names; "LC_*" style prefixes)
  std::vector<EnvVar> env_set;         // markers and overrides, in order
  std::vector<Skipped> skipped;
  std::vector<Warning> warnings;
  std::vector<Expectation> expectations;  // the policy's own tests, in source order
  // What the compile asked the host (the recheck asks it again); empty in a
  // plan made by hand, which the recheck refuses to run.
  std::optional<Consulted> consulted;
  Launch launch;

  // kind names the launch's alternative as Codewhale reports it.
  PlanKind kind() const;
  // The launch's alternative when it is that one, else null.
  const Bwrap* bwrap() const { return std::get_if<Bwrap>(&launch); }
  Bwrap* bwrap() { return std::get_if<Bwrap>(&launch); }
  const Landlock* landlock() const;  // a linux-landlock plan's ruleset
  const Seatbelt* seatbelt() const { return std::get_if<Seatbelt>(&launch); }
  Seatbelt* seatbelt() { return std::get_if<Seatbelt>(&launch); }
  const Remote* remote() const { return std::get_if<Remote>(&launch); }
  Remote* remote() { return std::get_if<Remote>(&launch); }
  const Refusal* refusal() const { return std::get_if<Refusal>(&launch); }
  // syscall_filter is the seccomp stage of a bwrap or landlock plan, if any.
  const SyscallFilter* syscall_filter() const;
  // mounts are a bwrap plan's mounts; no other plan has any. The view is
  // const so that `plan.mounts() = ...` does not compile (it would assign
  // a temporary); a bwrap launch's mounts are changed through bwrap().
  const std::span<const Mount> mounts() const;

  bool operator==(const LaunchPlan&) const = default;
};

// Refuse makes `plan` a refused plan: its launch becomes the refusal, which
// drops whatever launch it was becoming, and its environment settings go.
void Refuse(LaunchPlan* plan, Refusal refusal);

}  // namespace cwsc::ir

#endif  // CWSC_IR_PLAN_H_
