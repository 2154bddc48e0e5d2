#include "ir/plan.h"

#include <utility>

namespace cwsc::ir {

const char* PlanKindName(PlanKind kind) {
  switch (kind) {
    case PlanKind::kNone:
      return "none";
    case PlanKind::kLinuxBwrap:
      return "linux-bwrap";
    case PlanKind::kMacosSeatbelt:
      return "macos-seatbelt";
    case PlanKind::kLauncherBwrap:
      return "launcher+bwrap";
    case PlanKind::kOpenSandbox:
      return "opensandbox";
    case PlanKind::kRefused:
      return "refused";
    case PlanKind::kLinuxLandlock:
      return "linux-landlock";
  }
  return "none";
}

namespace {
std::string Names(uint64_t bits, const char* const* names, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    if ((bits & (uint64_t{1} << i)) == 0) continue;
    if (!out.empty()) out += "|";
    out += names[i];
  }
  return out.empty() ? "none" : out;
}
}  // namespace

std::string LandlockFsAccessNames(uint64_t access) {
  static const char* const kNames[] = {"execute",    "write_file",  "read_file", "read_dir",
                                       "remove_dir", "remove_file", "make_char", "make_dir",
                                       "make_reg",   "make_sock",   "make_fifo", "make_block",
                                       "make_sym",   "refer",       "truncate",  "ioctl_dev"};
  return Names(access, kNames, 16);
}

std::string LandlockNetAccessNames(uint64_t access) {
  static const char* const kNames[] = {"bind_tcp", "connect_tcp"};
  return Names(access, kNames, 2);
}

std::string LandlockScopeNames(uint64_t scoped) {
  static const char* const kNames[] = {"abstract_unix_socket", "signal"};
  return Names(scoped, kNames, 2);
}

const char* PlatformName(Platform platform) {
  switch (platform) {
    case Platform::kLinux:
      return "linux";
    case Platform::kMacos:
      return "macos";
    case Platform::kWindows:
      return "windows";
  }
  return "linux";
}

std::optional<Platform> PlatformFromName(const std::string& name) {
  for (Platform p : {Platform::kLinux, Platform::kMacos, Platform::kWindows}) {
    if (name == PlatformName(p)) return p;
  }
  return std::nullopt;
}

const char* SkipKindName(SkipKind kind) {
  switch (kind) {
    case SkipKind::kSetting:
      return "setting";
    case SkipKind::kLocalWrapper:
      return "local-wrapper";
    case SkipKind::kWritableRoot:
      return "writable-root";
    case SkipKind::kWorktreeMetadata:
      return "worktree-metadata";
    case SkipKind::kSyscallFilter:
      return "syscall-filter";
    case SkipKind::kNetworkAccess:
      return "network-access";
    case SkipKind::kSeatbeltPath:
      return "seatbelt-path";
    case SkipKind::kLandlock:
      return "landlock";
  }
  return "setting";
}

const char* PermissionModeName(PermissionMode mode) {
  switch (mode) {
    case PermissionMode::kPlan:
      return "plan";
    case PermissionMode::kAsk:
      return "ask";
    case PermissionMode::kAutoReview:
      return "auto-review";
    case PermissionMode::kFullAccess:
      return "full-access";
  }
  return "ask";
}

const char* PolicyTypeName(PolicyType type) {
  switch (type) {
    case PolicyType::kReadOnly:
      return "read-only";
    case PolicyType::kWorkspaceWrite:
      return "workspace-write";
    case PolicyType::kDangerFullAccess:
      return "danger-full-access";
    case PolicyType::kExternalSandbox:
      return "external-sandbox";
  }
  return "read-only";
}

const char* RootSourceName(RootSource source) {
  switch (source) {
    case RootSource::kConfigured:
      return "configured";
    case RootSource::kCwd:
      return "cwd";
    case RootSource::kWorktreeGitDir:
      return "worktree-git-dir";
    case RootSource::kWorktreeCommonDir:
      return "worktree-common-dir";
    case RootSource::kSlashTmp:
      return "slash-tmp";
    case RootSource::kTmpdir:
      return "tmpdir";
  }
  return "configured";
}

const char* ExpectationKindName(Expectation::Kind kind) {
  switch (kind) {
    case Expectation::Kind::kRead:
      return "read";
    case Expectation::Kind::kWrite:
      return "write";
    case Expectation::Kind::kNetwork:
      return "network";
    case Expectation::Kind::kExec:
      return "exec";
    case Expectation::Kind::kCreate:
      return "create";
  }
  return "read";
}

const char* MountOpName(MountOp op) {
  switch (op) {
    case MountOp::kReadOnlyBind:
      return "read-only-bind";
    case MountOp::kWritableBind:
      return "writable-bind";
    case MountOp::kDeviceBind:
      return "device-bind";
    case MountOp::kDev:
      return "dev";
    case MountOp::kProc:
      return "proc";
    case MountOp::kTmpfs:
      return "tmpfs";
    case MountOp::kRemountReadOnly:
      return "remount-read-only";
  }
  return "read-only-bind";
}

const char* MountRoleName(MountRole role) {
  switch (role) {
    case MountRole::kBase:
      return "base";
    case MountRole::kKernelReadOnly:
      return "kernel-read-only";
    case MountRole::kKernelMask:
      return "kernel-mask";
    case MountRole::kDevice:
      return "device";
    case MountRole::kRootBind:
      return "root-bind";
    case MountRole::kProtected:
      return "protected";
    case MountRole::kPlaceholder:
      return "placeholder";
    case MountRole::kTmpView:
      return "tmp-view";
    case MountRole::kReadOnlyRoot:
      return "read-only-root";
    case MountRole::kDenyPin:
      return "deny-pin";
    case MountRole::kDenyMask:
      return "deny-mask";
  }
  return "base";
}

bool MountOpHasSource(MountOp op) {
  return op == MountOp::kReadOnlyBind || op == MountOp::kWritableBind || op == MountOp::kDeviceBind;
}

const char* RootSkipName(RootSkip skip) {
  switch (skip) {
    case RootSkip::kNone:
      return "none";
    case RootSkip::kMissing:
      return "missing";
    case RootSkip::kNotADirectory:
      return "not-a-directory";
    case RootSkip::kCanonicalizesToRoot:
      return "canonicalizes-to-root";
    case RootSkip::kPlantedSymlink:
      return "planted-symlink";
    case RootSkip::kDuplicate:
      return "duplicate";
    case RootSkip::kLauncherPrivateTmp:
      return "launcher-private-tmp";
  }
  return "none";
}

const char* ContractName(Contract contract) {
  switch (contract) {
    case Contract::kCodewhale:
      return "codewhale";
    case Contract::kExecd:
      return "execd";
    case Contract::kLifecycle:
      return "lifecycle";
  }
  return "codewhale";
}

const char* ApiKeySourceKindName(ApiKeySource::Kind kind) {
  switch (kind) {
    case ApiKeySource::Kind::kNone:
      return "none";
    case ApiKeySource::Kind::kConfig:
      return "config";
    case ApiKeySource::Kind::kEnv:
      return "env";
    case ApiKeySource::Kind::kFile:
      return "file";
  }
  return "none";
}

std::string ApiKeySource::Describe() const {
  switch (kind) {
    case Kind::kNone:
      return "";
    case Kind::kConfig:
      return origin.Describe();
    case Kind::kEnv:
      return "env " + name;
    case Kind::kFile:
      return "file " + name;
  }
  return "";
}

void Refuse(LaunchPlan* plan, Refusal refusal) {
  plan->launch = std::move(refusal);
  plan->env_set.clear();
}

namespace {
struct KindOf {
  PlanKind operator()(const Unconfined&) const { return PlanKind::kNone; }
  PlanKind operator()(const Bwrap& b) const {
    return b.launcher.empty() ? PlanKind::kLinuxBwrap : PlanKind::kLauncherBwrap;
  }
  PlanKind operator()(const LandlockLaunch&) const { return PlanKind::kLinuxLandlock; }
  PlanKind operator()(const Seatbelt&) const { return PlanKind::kMacosSeatbelt; }
  PlanKind operator()(const Remote&) const { return PlanKind::kOpenSandbox; }
  PlanKind operator()(const Refusal&) const { return PlanKind::kRefused; }
};
}  // namespace

PlanKind LaunchPlan::kind() const { return std::visit(KindOf{}, launch); }

const Landlock* LaunchPlan::landlock() const {
  const auto* l = std::get_if<LandlockLaunch>(&launch);
  return l ? &l->ruleset : nullptr;
}

const std::span<const Mount> LaunchPlan::mounts() const {
  if (const Bwrap* b = bwrap()) return b->mounts;
  return {};
}

const SyscallFilter* LaunchPlan::syscall_filter() const {
  if (const Bwrap* b = bwrap()) return b->syscall_filter ? &*b->syscall_filter : nullptr;
  if (const auto* l = std::get_if<LandlockLaunch>(&launch)) return &l->syscall_filter;
  return nullptr;
}

}  // namespace cwsc::ir
