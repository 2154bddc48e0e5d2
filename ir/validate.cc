#include "ir/validate.h"

#include "absl/strings/str_cat.h"
#include "ir/constants.h"

namespace cwsc::ir {
namespace {

class Checker {
 public:
  explicit Checker(const LaunchPlan& plan) : plan_(plan) {}

  std::vector<PlanProblem> Run() {
    CheckCommon();
    CheckRoots();
    CheckLaunch();
    if (const Bwrap* b = plan_.bwrap()) CheckMounts(b->mounts);
    if (const SyscallFilter* f = plan_.syscall_filter()) CheckSyscallFilter(*f);
    if (const Remote* r = plan_.remote()) CheckRemote(*r);
    if (const Seatbelt* sb = plan_.seatbelt()) CheckSeatbelt(*sb);
    return std::move(problems_);
  }

 private:
  void Problem(std::string pointer, std::string message) {
    problems_.push_back({std::move(pointer), std::move(message)});
  }

  // Kind is the plan kind as docs/plan.md spells it, for messages; AKind
  // adds its article ("a linux-bwrap", "an opensandbox").
  std::string Kind() const { return PlanKindName(plan_.kind()); }
  std::string AKind() const {
    return absl::StrCat(plan_.kind() == PlanKind::kOpenSandbox ? "an " : "a ", Kind());
  }

  void CheckCommon() {
    if (plan_.schema_version != kPlanSchemaVersion) {
      Problem("/schema_version", absl::StrCat("expected ", kPlanSchemaVersion));
    }
    if ((plan_.bwrap() || plan_.landlock()) && plan_.platform != Platform::kLinux) {
      Problem("/platform", absl::StrCat(AKind(), " plan runs on linux, not '",
                                        PlatformName(plan_.platform), "'"));
    }
    if (plan_.seatbelt() && plan_.platform != Platform::kMacos) {
      Problem("/platform", absl::StrCat("a macos-seatbelt plan runs on macos, not '",
                                        PlatformName(plan_.platform), "'"));
    }
    if (plan_.consulted && plan_.consulted->user && plan_.consulted->uid) {
      Problem("/consulted/uid", "a plan records the user id alone or the whole user, not both");
    }
    bool local_sandbox = plan_.bwrap() || plan_.seatbelt() || plan_.landlock();
    if (local_sandbox && !plan_.policy.ShouldSandbox()) {
      Problem("/policy/type",
              absl::StrCat("a ", PolicyTypeName(plan_.policy.type),
                           " policy runs unconfined, not in ", AKind(), " sandbox"));
    }
  }

  // CheckRoots: a skipped root is not bound, and has a reason (only then).
  void CheckRoots() {
    for (size_t i = 0; i < plan_.roots.size(); ++i) {
      const Root& r = plan_.roots[i];
      std::string at = absl::StrCat("/roots/", i);
      bool skipped = r.skip != RootSkip::kNone;
      if (r.writable_bind && skipped) {
        Problem(absl::StrCat(at, "/writable_bind"),
                absl::StrCat("a root skipped as ", RootSkipName(r.skip), " is not bound"));
      }
      if (skipped == r.skip_reason.empty()) {
        Problem(absl::StrCat(at, "/skip_reason"),
                skipped ? "a skipped root needs a reason" : "a root nothing skips has no reason");
      }
      if (r.writable_bind && (r.canonical.empty() || r.canonical[0] != '/')) {
        Problem(absl::StrCat(at, "/canonical"), "a bound root needs its absolute canonical path");
      }
    }
  }

  // CheckLaunch: what the launch's type cannot say. Which parts a kind has
  // is the type's (ir::Launch): a plan holds one launch.
  void CheckLaunch() {
    if (const Bwrap* b = plan_.bwrap(); b && b->mounts.empty()) {
      Problem("/launch/mounts", absl::StrCat(AKind(), " plan needs mounts"));
    }
    if (const Refusal* r = plan_.refusal(); r && r->reason.empty()) {
      Problem("/launch/refusal/reason", "a refusal needs a reason");
    }
  }

  void CheckMounts(const std::vector<Mount>& mounts) {
    for (size_t i = 0; i < mounts.size(); ++i) {
      const Mount& m = mounts[i];
      std::string at = absl::StrCat("/launch/mounts/", i);
      if (m.dest.empty() || m.dest[0] != '/') {
        Problem(absl::StrCat(at, "/dest"), "expected an absolute path");
      }
      if (MountOpHasSource(m.op) && (m.source.empty() || m.source[0] != '/')) {
        Problem(absl::StrCat(at, "/source"),
                absl::StrCat("a ", MountOpName(m.op), " needs an absolute source path"));
      } else if (!MountOpHasSource(m.op) && !m.source.empty()) {
        Problem(absl::StrCat(at, "/source"),
                absl::StrCat("a ", MountOpName(m.op), " mount has no source"));
      }
      if (!RoleFits(m)) {
        Problem(absl::StrCat(at, "/role"),
                absl::StrCat("a ", MountRoleName(m.role), " mount cannot be a ", MountOpName(m.op),
                             m.source.empty() ? "" : absl::StrCat(" of '", m.source.str(), "'"),
                             " at '", m.dest.str(), "'"));
      }
    }
  }

  // RoleFits: the operation and paths a role allows (docs/plan.md "Mount
  // roles"). The runtime picks the masks it checks by role, so a role that
  // lies about a mount is refused here.
  static bool RoleFits(const Mount& m) {
    const bool self = m.source == m.dest;
    const bool ro_self = m.op == MountOp::kReadOnlyBind && self;
    const bool ro_tmpfs = m.op == MountOp::kTmpfs || m.op == MountOp::kRemountReadOnly;
    switch (m.role) {
      case MountRole::kBase:
        return (ro_self && m.dest == "/") || (m.op == MountOp::kDev && m.dest == "/dev") ||
               (m.op == MountOp::kProc && m.dest == "/proc") ||
               (m.op == MountOp::kTmpfs && m.dest == "/tmp");
      case MountRole::kKernelReadOnly:
        return ro_self && IsKernelInterface(m.dest.str());
      case MountRole::kKernelMask:
        return IsKernelInterface(m.dest.str()) &&
               (ro_tmpfs || (m.op == MountOp::kReadOnlyBind && m.source == "/dev/null"));
      case MountRole::kDevice:
        return m.op == MountOp::kDeviceBind && self;
      case MountRole::kRootBind:
      case MountRole::kDenyPin:
        return m.op == MountOp::kWritableBind && self;
      case MountRole::kProtected:
      case MountRole::kReadOnlyRoot:
        return ro_self;
      case MountRole::kTmpView:
        return ro_self && (m.dest == "/tmp" || m.dest.str().rfind("/tmp/", 0) == 0);
      case MountRole::kPlaceholder:
        return ro_tmpfs;
      case MountRole::kDenyMask:
        return m.op == MountOp::kTmpfs ||
               (m.op == MountOp::kReadOnlyBind && m.source == "/dev/null");
    }
    return false;
  }

  void CheckSyscallFilter(const SyscallFilter& f) {
    for (size_t i = 0; i < f.rules.size(); ++i) {
      const SyscallRule& rule = f.rules[i];
      std::string at = absl::StrCat("/launch/syscall_filter/rules/", i);
      if (rule.syscall.empty() ||
          rule.syscall.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") !=
              std::string::npos) {
        Problem(absl::StrCat(at, "/syscall"), "expected a system call name");
      }
      for (size_t j = 0; j < rule.args.size(); ++j) {
        const ArgTest& a = rule.args[j];
        std::string arg = absl::StrCat(at, "/args/", j);
        if (a.index < 0 || a.index > 5) Problem(absl::StrCat(arg, "/index"), "expected 0 to 5");
        if ((a.value & ~a.mask) != 0) {
          Problem(absl::StrCat(arg, "/value"), "has bits outside the mask");
        }
      }
      if (rule.errno_value < 1 || rule.errno_value > 4095) {
        Problem(absl::StrCat(at, "/errno"), "expected 1 to 4095");
      }
    }
  }

  // CheckSeatbelt: every path a profile names is absolute.
  void CheckSeatbelt(const Seatbelt& sb) {
    auto path = [&](const SeatbeltPath& p, const std::string& at) {
      if (p.path.empty() || p.path[0] != '/') {
        Problem(absl::StrCat("/launch/seatbelt/", at, "/path"), "expected an absolute path");
      }
    };
    for (size_t i = 0; i < sb.writable_roots.size(); ++i) {
      std::string at = absl::StrCat("writable_roots/", i);
      path(sb.writable_roots[i].root, absl::StrCat(at, "/root"));
      for (size_t j = 0; j < sb.writable_roots[i].read_only.size(); ++j) {
        path(sb.writable_roots[i].read_only[j], absl::StrCat(at, "/read_only/", j));
      }
    }
    if (sb.darwin_cache) path(*sb.darwin_cache, "darwin_cache");
    if (sb.cargo_home) path(*sb.cargo_home, "cargo_home");
    if (sb.npm_cache) path(*sb.npm_cache, "npm_cache");
    for (size_t k = 0; k < sb.denied_read.size(); ++k) {
      path(sb.denied_read[k], absl::StrCat("denied_read/", k));
    }
    for (size_t k = 0; k < sb.loopback_proxy_ports.size(); ++k) {
      int port = sb.loopback_proxy_ports[k];
      if (port < 1 || port > 65535) {
        Problem(absl::StrCat("/launch/seatbelt/loopback_proxy_ports/", k), "expected 1 to 65535");
      }
    }
  }

  void CheckRemote(const Remote& rm) {
    if (rm.url.empty()) Problem("/launch/remote/url", "a remote plan needs a URL");
    if (rm.execd_port < 1 || rm.execd_port > 65535) {
      Problem("/launch/remote/execd_port", "expected 1 to 65535");
    }
    using Key = ApiKeySource::Kind;
    const ApiKeySource& key = rm.api_key;
    bool named = key.kind == Key::kEnv || key.kind == Key::kFile;
    if (named == key.name.empty()) {
      Problem("/launch/remote/api_key/name",
              absl::StrCat("the ", ApiKeySourceKindName(key.kind), " key source ",
                           named ? "needs a name" : "has no name"));
    }
    if (key.kind == Key::kConfig && key.origin.file.empty()) {
      Problem("/launch/remote/api_key/origin", "a config key source needs the config file");
    }
  }

  const LaunchPlan& plan_;
  std::vector<PlanProblem> problems_;
};

}  // namespace

std::vector<PlanProblem> Validate(const LaunchPlan& plan) { return Checker(plan).Run(); }

}  // namespace cwsc::ir
