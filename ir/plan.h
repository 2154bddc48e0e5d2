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
#include <string>
#include <vector>

#include "ir/origin.h"

namespace cwsc::ir {

inline constexpr int kPlanSchemaVersion = 1;

// PlanKind is how a command will be confined; spelled as Codewhale reports it.
enum class PlanKind { kNone, kLinuxBwrap, kMacosSeatbelt, kLauncherBwrap, kOpenSandbox, kRefused };
const char* PlanKindName(PlanKind kind);  // "none", "linux-bwrap", ...

// PolicyType is the resolved SandboxPolicy variant (reference §6.1).
enum class PolicyType { kReadOnly, kWorkspaceWrite, kDangerFullAccess, kExternalSandbox };
const char* PolicyTypeName(PolicyType type);  // "read-only", "workspace-write", ...

// Policy is the resolved sandbox policy for the permission mode after narrowing.
struct Policy {
  PolicyType type = PolicyType::kWorkspaceWrite;
  std::vector<std::string> writable_roots;  // configured/mode-derived roots, as given
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

// RootSource says why a path is in the writable-root list (reference §6.3).
enum class RootSource { kConfigured, kCwd, kWorktreeGitDir, kWorktreeCommonDir, kSlashTmp, kTmpdir };
const char* RootSourceName(RootSource source);

// Protected is a `.codewhale`/`.deepseek` (or policy-named) descendant of a root.
struct Protected {
  std::string path;       // root/<name>, spelled from the listed root
  std::string canonical;  // canonical form; empty when it does not resolve
  bool applied = false;   // remounted read-only by bwrap
  std::string skip_reason;  // why not applied (empty when applied)
  Origin origin;
  // The name does not exist: bwrap mounts an empty read-only directory
  // there, so the command cannot create it (docs/decisions.md).
  bool placeholder = false;
  bool operator==(const Protected&) const = default;
};

// Root is one entry of the policy's writable-root list, in §6.3 order
// (not deduplicated; Seatbelt uses this list as is, bwrap filters it).
struct Root {
  std::string path;       // as listed by the policy
  std::string canonical;  // canonical form; empty when it does not resolve
  RootSource source = RootSource::kConfigured;
  std::vector<Protected> protected_paths;
  bool mounted = false;      // becomes a writable bwrap bind
  std::string skip_reason;   // why bwrap does not bind it (empty when mounted)
  Origin origin;
  bool operator==(const Root&) const = default;
};

// MountOp is one bubblewrap mount operation. kRemountRo makes an earlier
// mount at `dest` read-only (a masking tmpfs stays empty).
enum class MountOp { kRoBind, kBind, kDevBind, kDev, kProc, kTmpfs, kRemountRo };
const char* MountOpFlag(MountOp op);  // "--ro-bind", "--bind", ...

// Mount is one mount of the bwrap argv, in emission order. `source` is empty
// for --dev/--proc/--tmpfs. `why` is a short human reason.
struct Mount {
  MountOp op = MountOp::kRoBind;
  std::string source;
  std::string dest;
  std::string why;
  Origin origin;
  bool operator==(const Mount&) const = default;
};

// DeniedPath is one entry of the read deny list after §9.4 expansion.
struct DeniedPath {
  std::string path;
  std::string rule;  // the rule label ("~/.ssh", "/etc/shadow", ...)
  Origin origin;
  bool operator==(const DeniedPath&) const = default;
};

// Skipped records something the policy asked for that the plan leaves out.
struct Skipped {
  std::string what;    // "writable root", "bwrap_ro_roots", "deny mask", ...
  std::string path;
  std::string reason;  // "missing", "not a directory", "canonicalizes to /", ...
  Origin origin;
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
  // The permission modes it is about (`... in ask, auto-review;`), canonical
  // names in source order; empty: every mode.
  std::vector<std::string> modes;
  Origin origin;
  bool operator==(const Expectation&) const = default;
};
const char* ExpectationKindName(Expectation::Kind kind);  // "read", "write", "network", "exec", "create"

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
  std::string syscall;         // kernel name, e.g. "ioctl"
  std::vector<ArgTest> args;
  int errno_value = 1;         // EPERM
  std::string why;             // short human reason
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
  std::string path;            // "/usr/bin/bwrap" or "/usr/bin/sandbox-exec"
  bool preferred = true;       // prefer_bwrap after layering (Linux)
  Origin preferred_origin;
  bool executable = false;     // regular file with an execute bit
  bool probe_ok = false;       // wrapped /bin/true succeeded
  std::string probe_message;   // the wrapper's own error when the probe failed
  bool operator==(const Wrapper&) const = default;
};

// Param is one `-DKEY=VALUE` Seatbelt profile parameter.
struct Param {
  std::string key;
  std::string value;
  Origin origin;
  bool operator==(const Param&) const = default;
};

// Seatbelt holds the macOS facts the Seatbelt backend needs, resolved by lowering.
struct Seatbelt {
  std::vector<Param> params;          // in -D order (reference §10.2)
  bool darwin_cache = false;          // DARWIN_USER_CACHE_DIR resolved
  bool cargo_home = false;            // CARGO_HOME* params present
  bool npm_cache = false;             // NPM_CACHE_DIR present
  std::vector<int> loopback_proxy_ports;  // read-only + network: allowed local ports
  bool network_dropped_for_proxy = false; // proxy vars set, no port inferable
  bool operator==(const Seatbelt&) const = default;
};

// Remote describes an OpenSandbox endpoint. It never holds the API key itself.
struct Remote {
  std::string contract;         // "codewhale", "execd", "lifecycle"
  std::string url;              // base URL, trailing '/' trimmed
  Origin url_origin;
  std::string api_key_source;   // "config sandbox_api_key at f:3:1", "env ...", "" = none
  std::vector<std::string> not_enforced;  // policy parts the remote side cannot enforce
  // Native API settings (docs/opensandbox.md); unused by the codewhale contract.
  std::string image;            // lifecycle: container image URI
  int execd_port = 44772;       // lifecycle: execd port inside the sandbox
  bool keep = false;            // lifecycle: keep the sandbox after the run
  std::string remote_cwd;       // execd/lifecycle: remote working directory ("" = server's)
  bool operator==(const Remote&) const = default;
};

// LaunchPlan is the whole plan; see docs/plan.md for every field.
struct LaunchPlan {
  int schema_version = kPlanSchemaVersion;
  PlanKind kind = PlanKind::kNone;
  std::string platform;         // "linux", "macos", "windows"
  std::string permission_mode;  // "plan", "ask", "auto-review", "full-access"
  Origin mode_origin;
  Policy policy;
  std::string posture_label;    // reference §6.5
  std::string cwd;              // working directory, as given (--chdir)
  std::vector<Root> roots;      // §6.3 list (empty unless workspace-write)
  std::vector<DeniedPath> denied_read;  // deny list after §9.4 expansion
  Wrapper wrapper;
  bool share_net = false;       // bwrap --share-net
  std::vector<Mount> mounts;    // bwrap mounts in argv order (bwrap kinds only)
  std::vector<std::string> launcher;  // launcher argv prefix (launcher+bwrap)
  Origin launcher_origin;             // the managed tool_launcher key (when launcher is set)
  std::vector<std::string> env_allow; // child env allow-list (names; "LC_*" style prefixes)
  std::vector<EnvVar> env_set;        // markers and overrides, in order
  std::optional<Seatbelt> seatbelt;   // macos-seatbelt only
  std::optional<Remote> remote;       // opensandbox only
  std::optional<Refusal> refusal;     // refused only
  std::optional<SyscallFilter> syscall_filter;  // bwrap kinds: the seccomp stage
  std::vector<Skipped> skipped;
  std::vector<Warning> warnings;
  std::vector<Expectation> expectations;  // the policy's own tests, in source order

  bool operator==(const LaunchPlan&) const = default;
};

}  // namespace cwsc::ir

#endif  // CWSC_IR_PLAN_H_
