#include "ir/plan.h"

namespace cwsc::ir {

const char* PlanKindName(PlanKind kind) {
  switch (kind) {
    case PlanKind::kNone: return "none";
    case PlanKind::kLinuxBwrap: return "linux-bwrap";
    case PlanKind::kMacosSeatbelt: return "macos-seatbelt";
    case PlanKind::kLauncherBwrap: return "launcher+bwrap";
    case PlanKind::kOpenSandbox: return "opensandbox";
    case PlanKind::kRefused: return "refused";
  }
  return "none";
}

const char* PolicyTypeName(PolicyType type) {
  switch (type) {
    case PolicyType::kReadOnly: return "read-only";
    case PolicyType::kWorkspaceWrite: return "workspace-write";
    case PolicyType::kDangerFullAccess: return "danger-full-access";
    case PolicyType::kExternalSandbox: return "external-sandbox";
  }
  return "read-only";
}

const char* RootSourceName(RootSource source) {
  switch (source) {
    case RootSource::kConfigured: return "configured";
    case RootSource::kCwd: return "cwd";
    case RootSource::kWorktreeGitDir: return "worktree-git-dir";
    case RootSource::kWorktreeCommonDir: return "worktree-common-dir";
    case RootSource::kSlashTmp: return "slash-tmp";
    case RootSource::kTmpdir: return "tmpdir";
  }
  return "configured";
}

const char* ExpectationKindName(Expectation::Kind kind) {
  switch (kind) {
    case Expectation::Kind::kRead: return "read";
    case Expectation::Kind::kWrite: return "write";
    case Expectation::Kind::kNetwork: return "network";
    case Expectation::Kind::kExec: return "exec";
    case Expectation::Kind::kCreate: return "create";
  }
  return "read";
}

const char* MountOpFlag(MountOp op) {
  switch (op) {
    case MountOp::kRoBind: return "--ro-bind";
    case MountOp::kBind: return "--bind";
    case MountOp::kDevBind: return "--dev-bind";
    case MountOp::kDev: return "--dev";
    case MountOp::kProc: return "--proc";
    case MountOp::kTmpfs: return "--tmpfs";
    case MountOp::kRemountRo: return "--remount-ro";
  }
  return "--ro-bind";
}

}  // namespace cwsc::ir
