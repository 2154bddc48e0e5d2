#include "compiler/resolve.h"

#include <algorithm>
#include <array>
#include <deque>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/deny_list.h"
#include "compiler/launcher.h"
#include "compiler/lower_landlock.h"
#include "compiler/lower_remote.h"
#include "compiler/lower_seatbelt.h"
#include "compiler/lower_seccomp.h"
#include "compiler/modes.h"
#include "compiler/spec_paths.h"
#include "compiler/worktree.h"
#include "ir/constants.h"
#include "ir/diagnostics.h"
#include "ir/status_macros.h"

namespace cwsc::compiler {

const char* const kChildEnvAllowList[] = {"PATH",
                                          "HOME",
                                          "USER",
                                          "USERNAME",
                                          "LOGNAME",
                                          "LANG",
                                          "LANGUAGE",
                                          "LC_*",
                                          "TERM",
                                          "COLORTERM",
                                          "NO_COLOR",
                                          "FORCE_COLOR",
                                          "SHELL",
                                          "TMPDIR",
                                          "TMP",
                                          "TEMP",
                                          "__CF_USER_TEXT_ENCODING",
                                          "HTTP_PROXY",
                                          "HTTPS_PROXY",
                                          "NO_PROXY",
                                          "ALL_PROXY",
                                          "FTP_PROXY",
                                          "PYTHONIOENCODING",
                                          "PYTHONUTF8",
                                          "CARGO_HOME",
                                          "RUSTUP_HOME",
                                          "RUSTUP_TOOLCHAIN",
                                          "DOTNET_*",
                                          nullptr};

namespace {

using ir::LaunchPlan;
using ir::Mount;
using ir::MountOp;
using ir::Origin;
using ir::PlanKind;
using ir::PolicyType;
using ir::RootSkip;
using ir::SkipKind;

constexpr size_t kMountWarnThreshold = 50;
constexpr char kDenyPinWhy[] = "pins the way to a denied path (a mount point cannot be renamed)";

// Kernel interfaces of the OCI runtime defaults (docs/decisions.md):
// read-only in place, masked files, masked directories.
const char* const kKernelReadOnly[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                                       "/proc/sysrq-trigger"};
const char* const kKernelMaskedFiles[] = {"/proc/kcore",         "/proc/keys",
                                          "/proc/latency_stats", "/proc/timer_list",
                                          "/proc/timer_stats",   "/proc/sched_debug"};
const char* const kKernelMaskedDirs[] = {"/proc/acpi", "/proc/asound", "/proc/scsi",
                                         "/sys/firmware"};

// Policy for the permission mode, narrowed by sandbox_mode (docs/behavior.md B-10, B-11;
// values normalized as docs/decisions.md (item 7) says).
ir::Policy PolicyFor(const ResolveInput& in) {
  ir::Policy p;
  Origin mode_origin = Origin::Mode(absl::StrCat("permission mode ", in.mode));
  if (in.mode == "plan") {
    p.type = PolicyType::kReadOnly;
  } else if (in.mode == "full-access") {
    p.type = PolicyType::kDangerFullAccess;
  } else {
    p.type = PolicyType::kWorkspaceWrite;
  }
  p.origin = mode_origin;
  if (in.spec.sandbox_mode) {
    std::string configured = NormalizeSandboxMode(in.spec.sandbox_mode->value).value_or("");
    const Origin& o = in.spec.sandbox_mode->origin;
    if (p.type == PolicyType::kReadOnly || configured == "read-only") {
      if (p.type != PolicyType::kReadOnly) p.origin = o;
      p.type = PolicyType::kReadOnly;
    } else if (p.type == PolicyType::kDangerFullAccess && configured == "workspace-write") {
      p.type = PolicyType::kWorkspaceWrite;
      p.origin = o;
    } else if (p.type == PolicyType::kDangerFullAccess && configured == "external-sandbox") {
      p.type = PolicyType::kExternalSandbox;
      p.origin = o;
    }
  }
  // Network: the mode-derived workspace policy and external-sandbox have it;
  // read-only does not; sandbox_network_access sets it for sandboxed policies.
  p.network_access = p.type != PolicyType::kReadOnly;
  p.network_origin = p.type == PolicyType::kReadOnly
                         ? Origin::Default("read-only policy has no network")
                         : Origin::Default(absl::StrCat(ir::PolicyTypeName(p.type),
                                                        " policy from the mode has network"));
  if (p.type == PolicyType::kDangerFullAccess) p.network_origin = p.origin;
  // Read-only with network exists only by narrowing full access (docs/behavior.md
  // B-10, B-14): a config never gives Plan (or a narrowed Ask) a network.
  if (in.spec.sandbox_network_access && p.ShouldSandbox() &&
      !(p.type == PolicyType::kReadOnly && in.spec.sandbox_network_access->value &&
        in.mode != "full-access")) {
    p.network_access = in.spec.sandbox_network_access->value;
    p.network_origin = in.spec.sandbox_network_access->origin;
  }
  return p;
}

// Escalation applies an approved per-command escalation (docs/behavior.md B-12).
absl::Status ApplyEscalation(const ResolveInput& in, ir::Policy* p) {
  if (!in.escalate) return absl::OkStatus();
  const std::string given = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*in.escalate));
  constexpr char kExpected[] =
      "expected workspace-write or danger-full-access, or the mode full-access";
  std::string target = given;
  // A permission mode names the posture it fixes: full-access (and its
  // aliases) is danger-full-access; plan (read-only) is never wider; ask and
  // auto-review take the configured policy, so they name none.
  if (std::optional<std::string> mode = NormalizeMode(given)) {
    if (*mode == "full-access") {
      target = "danger-full-access";
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "--escalate: invalid value '", *in.escalate, "': the mode ", *mode,
          *mode == "plan" ? " is read-only, never wider; " : " has no posture of its own; ",
          kExpected));
    }
  } else if (target != "workspace-write" && target != "danger-full-access") {
    return absl::InvalidArgumentError(
        absl::StrCat("--escalate: invalid value '", *in.escalate, "': ", kExpected));
  }
  if (in.mode != "ask") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--escalate: sandbox escalation requires a one-shot user approval, but the current '",
        in.mode, "' posture cannot provide it (escalation is only possible in ask mode)"));
  }
  Origin o = Origin::Cli(absl::StrCat("--escalate ", given));
  if (target == "workspace-write" && p->type == PolicyType::kReadOnly) {
    *p = ir::Policy{};  // SandboxPolicy::default(): workspace-write, no network
    p->origin = o;
    p->network_origin = Origin::Default("escalated workspace-write policy has no network");
    return absl::OkStatus();
  }
  if (target == "danger-full-access" &&
      (p->type == PolicyType::kReadOnly || p->type == PolicyType::kWorkspaceWrite)) {
    *p = ir::Policy{};
    p->type = PolicyType::kDangerFullAccess;
    p->network_access = true;
    p->origin = o;
    p->network_origin = o;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--escalate: '", target, "' is not strictly wider than this call's current '",
                   ir::PolicyTypeName(p->type), "' posture"));
}

class Resolver {
 public:
  Resolver(const ResolveInput& in, HostFacts& facts) : in_(in), facts_(facts) {}

  absl::StatusOr<LaunchPlan> Run() {
    std::optional<ir::Platform> platform = ir::PlatformFromName(facts_.Platform());
    if (!platform) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown platform '", facts_.Platform(), "' (linux, macos or windows)"));
    }
    plan_.platform = *platform;
    plan_.permission_mode = in_.mode;
    plan_.mode_origin = in_.mode_origin;
    plan_.cwd = in_.cwd;
    std::string home = facts_.Env("HOME").value_or("");
    if (home.empty()) home = facts_.User().home;
    vars_.home = home;
    plan_.home = home;
    while (plan_.home.size() > 1 && plan_.home.back() == '/') plan_.home.pop_back();
    vars_.workspace = in_.cwd;
    vars_.cwd = in_.cwd;
    vars_.tmpdir = facts_.Env("TMPDIR").value_or("");

    plan_.policy = PolicyFor(in_);
    if (in_.spec.sandbox_mode) {
      // sandbox_mode only narrows (docs/behavior.md B-11): say so when it changed nothing.
      std::string configured = NormalizeSandboxMode(in_.spec.sandbox_mode->value).value_or("");
      if (configured != ir::PolicyTypeName(plan_.policy.type)) {
        AddSkipped(SkipKind::kSetting, "sandbox_mode", "",
                   absl::StrCat("'", configured, "' can only narrow the policy of the ", in_.mode,
                                " mode, which stays ", ir::PolicyTypeName(plan_.policy.type)),
                   in_.spec.sandbox_mode->origin);
      }
    }
    if (in_.spec.sandbox_network_access && in_.spec.sandbox_network_access->value &&
        plan_.policy.type == PolicyType::kReadOnly && !plan_.policy.network_access) {
      AddSkipped(SkipKind::kNetworkAccess, "network access", "",
                 absl::StrCat("read-only with network exists only in full-access mode; the ",
                              in_.mode, " mode has no network"),
                 in_.spec.sandbox_network_access->origin);
    }
    CWSC_RETURN_IF_ERROR(ApplyEscalation(in_, &plan_.policy));
    if (!in_.requirements.Allows(ir::PolicyTypeName(plan_.policy.type))) {
      Refuse(absl::StrCat("the policy ", ir::PolicyTypeName(plan_.policy.type),
                          " is not allowed by requirements (", in_.requirements.Describe(), ")"),
             in_.requirements.origin);
      plan_.posture_label = PostureLabel(plan_, NoNewPrivs());
      return std::move(plan_);
    }
    if (plan_.policy.type == PolicyType::kWorkspaceWrite &&
        plan_.policy.origin.kind != Origin::Kind::kCli) {
      plan_.policy.writable_roots.push_back(in_.cwd);  // the workspace
    }
    CWSC_RETURN_IF_ERROR(AddConfiguredRoots());
    for (const char* const* e = kChildEnvAllowList; *e != nullptr; ++e)
      plan_.env_allow.push_back(*e);

    // The remote backend is decided before any local wrapper or launcher.
    if (RemoteRequested()) {
      CWSC_RETURN_IF_ERROR(SelectRemote());
      plan_.posture_label = PostureLabel(plan_, NoNewPrivs());
      return std::move(plan_);
    }
    // Launcher plans (compiler/launcher.h): private /tmp, built-in deny list forced on.
    if (Launcher()) {
      plan_.policy.exclude_slash_tmp = true;
      plan_.policy.exclude_tmpdir = true;
    }
    std::optional<PolicySpec> forced;  // a launcher's copy; otherwise the spec itself
    if (Launcher()) forced = ForcedDenySpec(in_.spec, &plan_);
    CWSC_ASSIGN_OR_RETURN(plan_.denied_read,
                          BuildDenyList(facts_, forced ? *forced : in_.spec,
                                        ir::PlatformName(plan_.platform), vars_));
    ComputeRoots();
    SelectWrapper();
    RefuseUnconfinedIfRequired();
    if (plan_.kind == PlanKind::kLauncherBwrap) {
      AddSkipped(SkipKind::kSyscallFilter, "syscall filter", "",
                 "the launcher closes inherited descriptors, so bwrap cannot read a seccomp "
                 "program; --new-session keeps the command off the terminal instead",
                 in_.spec.tool_launcher->origin);
    }
    if (plan_.kind == PlanKind::kLinuxBwrap || plan_.kind == PlanKind::kLauncherBwrap) {
      CWSC_RETURN_IF_ERROR(BuildMounts());
    }
    if (plan_.kind == PlanKind::kLinuxBwrap) {
      plan_.syscall_filter = LowerSyscallFilter(plan_.policy);
    }
    if (plan_.kind == PlanKind::kLinuxLandlock) {
      LowerLandlock(facts_, in_.spec, facts_.LandlockAbi(), &plan_);
    }
    if (plan_.kind == PlanKind::kMacosSeatbelt) {
      CWSC_RETURN_IF_ERROR(LowerSeatbelt(facts_, in_.spec, &plan_));
    }
    plan_.posture_label = PostureLabel(plan_, NoNewPrivs());
    return std::move(plan_);
  }

 private:
  bool Launcher() const { return in_.spec.tool_launcher.has_value(); }

  // NoNewPrivs: whether cwsc run sets PR_SET_NO_NEW_PRIVS at startup
  // (docs/behavior.md B-80): CODEWHALE_NO_NEW_PRIVS decides when set (falsey skips),
  // else only a startup sandbox_mode of danger-full-access skips it.
  bool NoNewPrivs() {
    if (auto v = facts_.Env("CODEWHALE_NO_NEW_PRIVS")) {
      std::string f = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*v));
      return !(f.empty() || f == "0" || f == "false" || f == "no" || f == "off" || f == "disabled");
    }
    std::optional<std::string> mode = facts_.Env("CODEWHALE_SANDBOX_MODE");
    if (!mode && in_.spec.sandbox_mode) mode = in_.spec.sandbox_mode->value;
    return !mode ||
           absl::AsciiStrToLower(absl::StripAsciiWhitespace(*mode)) != "danger-full-access";
  }

  // LauncherCanReach: for a launcher plan, a bind whose source the launcher's
  // user cannot reach is dropped, and the plan says so.
  bool LauncherCanReach(const std::string& source, SkipKind kind, const std::string& what,
                        const Origin& origin) {
    if (!launcher_user_) return true;
    std::string why = UnreachableReason(facts_, source, *launcher_user_);
    if (why.empty()) return true;
    AddSkipped(kind, what, source, why, origin);
    return false;
  }

  bool RemoteRequested() const {
    if (!in_.spec.sandbox_backend) return false;
    std::string v =
        absl::AsciiStrToLower(absl::StripAsciiWhitespace(in_.spec.sandbox_backend->value));
    return !v.empty() && v != "none";
  }

  absl::Status SelectRemote() {
    // The deny list is listed in the plan as what the remote side does not enforce.
    CWSC_ASSIGN_OR_RETURN(plan_.denied_read,
                          BuildDenyList(facts_, in_.spec, ir::PlatformName(plan_.platform), vars_));
    LowerRemote(in_.spec, &plan_);  // compiler/lower_remote.h
    if (plan_.kind == PlanKind::kRefused) Refuse(plan_.refusal->reason, plan_.refusal->origin);
    return absl::OkStatus();
  }

  void Refuse(std::string reason, Origin origin) {
    plan_.kind = PlanKind::kRefused;
    plan_.refusal = ir::Refusal{std::move(reason), std::move(origin)};
    plan_.mounts.clear();
    plan_.env_set.clear();
  }

  absl::Status AddConfiguredRoots() {
    if (plan_.policy.type != PolicyType::kWorkspaceWrite) return absl::OkStatus();
    if (in_.spec.sandbox_writable_roots) {
      for (const auto& r : in_.spec.sandbox_writable_roots->value) {
        CWSC_ASSIGN_OR_RETURN(std::string p, ExpandSettingPath(r, vars_));
        plan_.policy.writable_roots.push_back(std::move(p));
        configured_origins_.push_back(r.origin);
      }
    }
    if (in_.spec.sandbox_exclude_tmpdir)
      plan_.policy.exclude_tmpdir = in_.spec.sandbox_exclude_tmpdir->value;
    if (in_.spec.sandbox_exclude_slash_tmp) {
      plan_.policy.exclude_slash_tmp = in_.spec.sandbox_exclude_slash_tmp->value;
    }
    return absl::OkStatus();
  }

  std::vector<std::string> ProtectedNames() const {
    std::vector<std::string> names = {".codewhale", ".deepseek"};
    if (in_.spec.sandbox_protected_names) {
      for (const auto& n : in_.spec.sandbox_protected_names->value) {
        if (std::find(names.begin(), names.end(), n.value) == names.end()) names.push_back(n.value);
      }
    }
    return names;
  }

  // UserProtects: the policy's sandbox_protected_names lists `name`.
  bool UserProtects(const std::string& name) const {
    if (!in_.spec.sandbox_protected_names) return false;
    for (const auto& n : in_.spec.sandbox_protected_names->value) {
      if (n.value == name) return true;
    }
    return false;
  }

  // ProtectedOrigin: where the protection of `name` comes from; made once
  // per name (a policy with thousands of roots asks for each root).
  const Origin& ProtectedOrigin(const std::string& name) {
    for (const auto& [n, o] : protected_origins_) {
      if (n == name) return o;
    }
    Origin o = Origin::Default(absl::StrCat("protected name ", name));
    if (in_.spec.sandbox_protected_names) {
      for (const auto& n : in_.spec.sandbox_protected_names->value) {
        if (n.value == name) {
          o = n.origin;
          break;
        }
      }
    }
    return protected_origins_.emplace_back(name, std::move(o)).second;
  }

  // ComputeRoots builds the docs/behavior.md B-20 list in order, with the bwrap verdict on each.
  void ComputeRoots() {
    if (plan_.policy.type != PolicyType::kWorkspaceWrite) return;
    std::vector<ir::Root> roots = ListedRoots();
    const std::vector<std::string> names = ProtectedNames();
    // Each root asks about itself, its .git and its protected names.
    facts_.ExpectPaths(roots.size() * (2 + names.size()));
    AddWorktreeRoots(roots);
    AddTmpRoots(roots);
    // The writable candidates: a symlink inside one of them may have been
    // planted by an earlier sandboxed command (docs/decisions.md).
    writable_.clear();
    writable_.reserve(roots.size());
    std::vector<const PathInfo*> infos;  // each root's answer, asked once
    infos.reserve(roots.size());
    for (const ir::Root& r : roots) {
      const PathInfo& info = facts_.Path(r.path);
      infos.push_back(&info);
      if (info.type == FileType::kDirectory && !info.canonical.empty() && info.canonical != "/") {
        writable_.push_back(info.canonical);
      }
    }
    // Canonical paths already bound writable, viewed in the facts' answers.
    absl::flat_hash_set<absl::string_view> bound;
    bound.reserve(roots.size());
    for (size_t i = 0; i < roots.size(); ++i) {
      ir::Root& r = roots[i];
      DecideBind(r, *infos[i], bound);
      r.protected_paths.reserve(names.size());
      for (const std::string& name : names) AddProtected(r, name);
      AddProtectedGit(r);
      if (!r.writable_bind && r.skip != RootSkip::kDuplicate) {
        AddSkipped(SkipKind::kWritableRoot, "writable root", r.path, r.skip_reason, r.origin);
      }
    }
    plan_.roots = std::move(roots);
  }

  // ListedRoots: the policy's writable roots (the mode's workspace, then the
  // configured ones), then the working directory.
  std::vector<ir::Root> ListedRoots() {
    const ir::Policy& pol = plan_.policy;
    std::vector<ir::Root> roots;
    // Room for the listed roots, the working directory and the two /tmp
    // roots (a worktree's two metadata roots may grow it).
    roots.reserve(pol.writable_roots.size() + 3);
    size_t workspace_entries = pol.writable_roots.size() - configured_origins_.size();
    for (size_t i = 0; i < pol.writable_roots.size(); ++i) {
      ir::Root& r = roots.emplace_back();
      r.path = pol.writable_roots[i];
      r.source = ir::RootSource::kConfigured;
      r.origin = i < workspace_entries
                     ? Origin::Mode(absl::StrCat("workspace of permission mode ", in_.mode))
                     : configured_origins_[i - workspace_entries];
    }
    ir::Root cwd;
    std::string canon = facts_.Path(in_.cwd).canonical;
    cwd.path = canon.empty() ? in_.cwd : canon;
    cwd.source = ir::RootSource::kCwd;
    cwd.origin = Origin::Fact(absl::StrCat("working directory ", in_.cwd));
    roots.push_back(std::move(cwd));
    return roots;
  }

  // AddWorktreeRoots: a root that is a git worktree adds its metadata
  // directories, unless '.git' is protected (then they stay read-only).
  void AddWorktreeRoots(std::vector<ir::Root>& roots) {
    size_t base = roots.size();
    NoWorktreeAbove memo;
    std::optional<std::vector<std::string>> candidates;  // made when first needed
    for (size_t i = 0; i < base; ++i) {
      WorktreeMetadata wt = FindWorktreeMetadata(facts_, roots[i].path, &memo);
      if (wt.verified() && UserProtects(".git")) {
        ProtectWorktree(wt);
      } else if (wt.verified()) {
        if (!candidates) candidates = WritableCandidates(roots, base);
        // Metadata inside a path this run may write could be the command's
        // own forgery (issue 26): it adds no root. A legit layout there is
        // writable already.
        std::string inside;
        for (const std::string& c : *candidates) {
          if (PathStartsWith(wt.git_dir, c)) inside = c;
        }
        if (!inside.empty()) {
          AddSkipped(SkipKind::kWorktreeMetadata, "worktree metadata", wt.dot_git,
                     absl::StrCat("the git dir ", wt.git_dir, " lies inside the writable root ",
                                  inside, "; the sandboxed command could have forged its metadata"),
                     Origin::Fact(absl::StrCat("git worktree ", wt.dot_git)));
          continue;
        }
        Origin o = Origin::Fact(absl::StrCat("git worktree ", wt.dot_git));
        roots.push_back(NewRoot(wt.git_dir, ir::RootSource::kWorktreeGitDir, o));
        roots.push_back(NewRoot(wt.common_dir, ir::RootSource::kWorktreeCommonDir, o));
      } else if (!wt.dot_git.empty() && !wt.rejected.empty()) {
        AddSkipped(SkipKind::kWorktreeMetadata, "worktree metadata", wt.dot_git, wt.rejected,
                   Origin::Fact(absl::StrCat("git worktree ", wt.dot_git)));
      }
    }
  }

  // WritableCandidates: the canonical directories this run may bind
  // writable: the first `n` roots (listed ones and the working directory),
  // and /tmp and TMPDIR unless the policy excludes them.
  std::vector<std::string> WritableCandidates(const std::vector<ir::Root>& roots, size_t n) {
    std::vector<std::string> out;
    auto add = [&](absl::string_view p) {
      const PathInfo& info = facts_.Path(p);
      if (info.type == FileType::kDirectory && !info.canonical.empty() && info.canonical != "/") {
        out.push_back(info.canonical);
      }
    };
    for (size_t i = 0; i < n; ++i) add(roots[i].path);
    if (!plan_.policy.exclude_slash_tmp) add("/tmp");
    auto tmpdir = facts_.Env("TMPDIR");
    if (!plan_.policy.exclude_tmpdir && tmpdir && !tmpdir->empty()) add(*tmpdir);
    return out;
  }

  static ir::Root NewRoot(const std::string& path, ir::RootSource source, Origin origin) {
    ir::Root r;
    r.path = path;
    r.source = source;
    r.origin = std::move(origin);
    return r;
  }

  // ProtectWorktree: '.git' is protected: the worktree's metadata (its gitdir
  // and the main repository's .git, hooks and config included) stays read-only.
  void ProtectWorktree(const WorktreeMetadata& wt) {
    if (std::find(protected_git_.begin(), protected_git_.end(), wt.common_dir) !=
        protected_git_.end()) {
      return;  // the same worktree reached from another root
    }
    Origin o = ProtectedOrigin(".git");
    for (const std::string& p : {wt.git_dir, wt.common_dir}) {
      AddSkipped(SkipKind::kWorktreeMetadata, "worktree metadata", p,
                 "kept read-only: '.git' is in sandbox_protected_names", o);
    }
    protected_git_.push_back(wt.common_dir);
    std::string worktree = wt.dot_git.substr(0, wt.dot_git.size() - 5);
    plan_.warnings.push_back(
        ir::Warning{"protected-git-worktree",
                    absl::StrCat("'.git' is protected: the git metadata of the worktree ", worktree,
                                 " (", wt.common_dir,
                                 " and its worktrees entry) stays read-only, so git cannot "
                                 "commit there"),
                    o});
  }

  // AddTmpRoots: the host /tmp and TMPDIR, unless the policy excludes them.
  void AddTmpRoots(std::vector<ir::Root>& roots) {
    const ir::Policy& pol = plan_.policy;
    if (!pol.exclude_slash_tmp) {
      std::string canon = facts_.Path("/tmp").canonical;
      if (!canon.empty()) {
        roots.push_back(NewRoot(canon, ir::RootSource::kSlashTmp,
                                Origin::Default("workspace-write shares the host /tmp")));
      }
    } else {
      AddSkipped(SkipKind::kWritableRoot, "writable root", "/tmp",
                 Launcher() ? kLauncherPrivateTmp : "excluded by the policy", ExcludeOrigin(true));
    }
    auto tmpdir = facts_.Env("TMPDIR");
    if (!tmpdir || tmpdir->empty()) return;
    if (pol.exclude_tmpdir) {
      AddSkipped(SkipKind::kWritableRoot, "writable root", *tmpdir,
                 Launcher() ? kLauncherPrivateTmp : "TMPDIR excluded by the policy",
                 ExcludeOrigin(false));
      return;
    }
    std::string canon = facts_.Path(*tmpdir).canonical;
    if (!canon.empty()) {
      roots.push_back(NewRoot(canon, ir::RootSource::kTmpdir, Origin::Env("TMPDIR")));
    } else {
      AddSkipped(SkipKind::kWritableRoot, "writable root", *tmpdir, "TMPDIR does not resolve",
                 Origin::Env("TMPDIR"));
    }
  }

  // DecideBind: bind the root writable, or record why not.
  // `info` is facts_.Path(r.path).
  void DecideBind(ir::Root& r, const PathInfo& info,
                  absl::flat_hash_set<absl::string_view>& bound) {
    // Listed canonical (the usual case): one copy of the text for the
    // policy's list, the root, its canonical form and its bind.
    r.canonical = info.canonical == r.path ? r.path : ir::SharedString(info.canonical);
    absl::string_view spelled = SpelledRoot(r);
    std::string planted = PlantedSymlink(spelled, spelled == r.path ? &info : nullptr);
    if (info.type == FileType::kMissing || info.canonical.empty()) {
      SkipRoot(r, RootSkip::kMissing, "missing");
    } else if (info.type != FileType::kDirectory) {
      SkipRoot(r, RootSkip::kNotADirectory, "not a directory");
    } else if (info.canonical == "/") {
      SkipRoot(r, RootSkip::kCanonicalizesToRoot, "canonicalizes to /");
    } else if (!planted.empty()) {
      SkipRoot(r, RootSkip::kPlantedSymlink, PlantedReason(planted));
    } else if (!Launcher()) {
      // One hash: inserted when new, else a duplicate.
      if (bound.insert(info.canonical).second) {
        r.writable_bind = true;
      } else {
        SkipRoot(r, RootSkip::kDuplicate, "duplicate");
      }
    } else if (bound.contains(info.canonical)) {
      SkipRoot(r, RootSkip::kDuplicate, "duplicate");
    } else if (IsHostTmp(info.canonical)) {
      SkipRoot(r, RootSkip::kLauncherPrivateTmp, kLauncherPrivateTmp);
    } else {
      r.writable_bind = true;
      bound.insert(info.canonical);
    }
  }

  // AddProtected records the protected name `name` under root `r`.
  void AddProtected(ir::Root& r, const std::string& name) {
    std::string p = JoinPath(r.path, name);
    const PathInfo& pi = facts_.Path(p);
    if (pi.is_symlink) {
      // A symlink at a protected name inside a writable root: following
      // it would protect whatever it names, not the name.
      ir::Protected prot{ir::SharedString(p), pi.canonical, false,
                         "is a symlink; the sandboxed command could have planted it",
                         ProtectedOrigin(name)};
      if (r.writable_bind) {
        plan_.warnings.push_back(
            ir::Warning{"protected-name-symlink",
                        absl::StrCat(p,
                                     " is a symlink: it is not protected, and what it names may be "
                                     "writable; replace it with a directory"),
                        ProtectedOrigin(name)});
      }
      r.protected_paths.push_back(std::move(prot));
      return;
    }
    if (pi.type == FileType::kMissing) {
      AddPlaceholder(r, name, std::move(p));
      return;
    }
    // .codewhale/.deepseek: directories (docs/behavior.md B-20); a name the
    // policy adds protects a regular file (.env) as well.
    bool file_ok = pi.type == FileType::kRegular && UserProtects(name);
    if (pi.type != FileType::kDirectory && !file_ok) return;
    ir::Protected prot{ir::SharedString(std::move(p)), pi.canonical, false, "",
                       ProtectedOrigin(name)};
    if (r.canonical.empty() || !PathStartsWith(pi.canonical, r.canonical)) {
      prot.skip_reason = "resolves outside its root";
    } else if (!r.writable_bind && r.skip != RootSkip::kDuplicate) {
      prot.skip_reason = "its root is not mounted";
    }
    r.protected_paths.push_back(std::move(prot));
  }

  // AddPlaceholder: a protected name that is not there yet: an empty
  // read-only directory takes the name, so the command cannot create it
  // (docs/decisions.md). Git metadata roots hold no project config: no
  // placeholder there.
  void AddPlaceholder(ir::Root& r, const std::string& name, std::string p) {
    if (r.source == ir::RootSource::kWorktreeGitDir ||
        r.source == ir::RootSource::kWorktreeCommonDir) {
      return;
    }
    if (name != ".codewhale" && name != ".deepseek" && name != ".git") {
      // A name of the policy's own may be meant as a file (.env): a
      // directory there would be in the way; say it stays creatable.
      if (r.writable_bind) {
        plan_.warnings.push_back(
            ir::Warning{"protected-name-missing",
                        absl::StrCat(p,
                                     " does not exist, so nothing protects it: the sandboxed "
                                     "command could create it; create it first to protect it"),
                        ProtectedOrigin(name)});
      }
      return;
    }
    ir::Protected prot{ir::SharedString(std::move(p)), "", false, "", ProtectedOrigin(name), true};
    if (!r.writable_bind && r.skip != RootSkip::kDuplicate)
      prot.skip_reason = "its root is not mounted";
    r.protected_paths.push_back(std::move(prot));
  }

  // AddProtectedGit: a protected worktree's main .git inside this root stays
  // read-only too.
  void AddProtectedGit(ir::Root& r) {
    for (const std::string& g : protected_git_) {
      if (!r.writable_bind || !PathStartsWith(g, r.canonical) || g == r.canonical) continue;
      bool listed = false;
      for (const ir::Protected& q : r.protected_paths) listed = listed || q.canonical == g;
      if (!listed)
        r.protected_paths.push_back(ir::Protected{g, g, false, "", ProtectedOrigin(".git")});
    }
  }

  // IsHostTmp: the canonical host /tmp or TMPDIR (never bound under a launcher).
  bool IsHostTmp(const std::string& canonical) {
    if (canonical == facts_.Path("/tmp").canonical) return true;
    auto tmpdir = facts_.Env("TMPDIR");
    return tmpdir && !tmpdir->empty() && canonical == facts_.Path(*tmpdir).canonical;
  }

  Origin ExcludeOrigin(bool slash_tmp) const {
    if (Launcher()) return in_.spec.tool_launcher->origin;
    const auto& setting =
        slash_tmp ? in_.spec.sandbox_exclude_slash_tmp : in_.spec.sandbox_exclude_tmpdir;
    if (setting) return setting->origin;
    return Origin::Default(slash_tmp ? "exclude_slash_tmp" : "exclude_tmpdir");
  }

  static void SkipRoot(ir::Root& r, RootSkip skip, std::string reason) {
    r.skip = skip;
    r.skip_reason = std::move(reason);
  }

  void AddSkipped(ir::SkipKind kind, std::string what, std::string path, std::string reason,
                  Origin origin) {
    plan_.skipped.push_back(
        ir::Skipped{std::move(what), std::move(path), std::move(reason), std::move(origin), kind});
  }

  void SelectWrapper() {
    const ir::Policy& pol = plan_.policy;
    if (Launcher()) {  // compiler/launcher.h decides launcher plans
      launcher_user_ = LowerLauncher(
          facts_, LauncherInput{&in_.spec, in_.launcher_trusted, in_.launcher_trust_refusal},
          &plan_);
      if (plan_.kind == PlanKind::kRefused) Refuse(plan_.refusal->reason, plan_.refusal->origin);
      return;
    }
    if (!pol.ShouldSandbox()) {
      plan_.kind = PlanKind::kNone;
      AddSkipped(
          SkipKind::kLocalWrapper, "local wrapper", "",
          absl::StrCat("policy ", ir::PolicyTypeName(pol.type), " does not request a sandbox"),
          pol.origin);
      return;
    }
    if (plan_.platform == ir::Platform::kLinux) {
      plan_.wrapper.path = ir::kBwrapPath;
      plan_.wrapper.preferred = true;
      plan_.wrapper.preferred_origin = Origin::Default("prefer_bwrap is on by default");
      if (in_.spec.prefer_bwrap) {
        plan_.wrapper.preferred = in_.spec.prefer_bwrap->value;
        plan_.wrapper.preferred_origin = in_.spec.prefer_bwrap->origin;
      }
      const PathInfo& info = facts_.Path(ir::kBwrapPath);
      plan_.wrapper.executable = info.type == FileType::kRegular && (info.mode & 0111) != 0;
      if (LinuxBackend() == "landlock") {
        SelectLandlock(LinuxBackendOrigin(), "");
        return;
      }
      if (!plan_.wrapper.preferred) {
        plan_.kind = PlanKind::kNone;
        AddSkipped(SkipKind::kLocalWrapper, "local wrapper", ir::kBwrapPath, "prefer_bwrap = false",
                   plan_.wrapper.preferred_origin);
        return;
      }
      if (!plan_.wrapper.executable) {
        plan_.kind = PlanKind::kNone;
        AddSkipped(SkipKind::kLocalWrapper, "local wrapper", ir::kBwrapPath,
                   info.type == FileType::kMissing ? "missing" : "not a regular executable file",
                   Origin::Fact(ir::kBwrapPath));
        return;
      }
      ProbeResult probe = facts_.BwrapProbe();
      plan_.wrapper.probe_ok = probe.ok;
      plan_.wrapper.probe_message = probe.message;
      if (!probe.ok && LinuxBackend() == "auto" && facts_.LandlockAbi() >= 1 &&
          LandlockNamespaceFailure(probe.message)) {
        SelectLandlock(Origin::Fact("bwrap probe"), probe.message);
        return;
      }
      if (!probe.ok) {
        plan_.kind = PlanKind::kNone;
        AddSkipped(SkipKind::kLocalWrapper, "local wrapper", ir::kBwrapPath,
                   absl::StrCat("probe failed: ", probe.message), Origin::Fact("bwrap probe"));
        return;
      }
      plan_.kind = PlanKind::kLinuxBwrap;
      Origin marker = Origin::Default("bwrap child marker");
      plan_.env_set.push_back({"CODEWHALE_SANDBOX", "bwrap", marker});
      plan_.env_set.push_back({"DEEPSEEK_SANDBOX", "bwrap", marker});
      return;
    }
    if (plan_.platform == ir::Platform::kMacos) {
      // docs/behavior.md B-60 / B-30: Seatbelt iff its probe passed (prefer_bwrap ignored).
      plan_.wrapper = SeatbeltWrapper(facts_);
      if (!plan_.wrapper.probe_ok) {
        plan_.kind = PlanKind::kNone;
        AddSkipped(SkipKind::kLocalWrapper, "local wrapper", ir::kSandboxExecPath,
                   absl::StrCat("probe failed: ", plan_.wrapper.probe_message),
                   Origin::Fact("seatbelt probe"));
        return;
      }
      plan_.kind = PlanKind::kMacosSeatbelt;
      return;
    }
    plan_.kind = PlanKind::kNone;
    AddSkipped(
        SkipKind::kLocalWrapper, "local wrapper", "",
        absl::StrCat("no local wrapper is wired for platform ", ir::PlatformName(plan_.platform)),
        Origin::Fact("platform"));
  }

  // LinuxBackend: sandbox_linux_backend after layering ("auto", "bwrap",
  // "landlock"); docs/config.md.
  std::string LinuxBackend() const {
    return in_.spec.sandbox_linux_backend ? in_.spec.sandbox_linux_backend->value : "auto";
  }
  Origin LinuxBackendOrigin() const {
    return in_.spec.sandbox_linux_backend ? in_.spec.sandbox_linux_backend->origin
                                          : Origin::Default("sandbox_linux_backend auto");
  }

  // SelectLandlock makes the plan linux-landlock when the host offers
  // Landlock; `bwrap_failure` is the bwrap probe's message when Landlock is
  // the fallback ("" when it was asked for).
  void SelectLandlock(const Origin& why, const std::string& bwrap_failure) {
    int abi = facts_.LandlockAbi();
    if (abi < 1) {
      plan_.kind = PlanKind::kNone;
      AddSkipped(SkipKind::kLocalWrapper, "local wrapper", "landlock",
                 "this kernel offers no Landlock (ABI 0)", why);
      return;
    }
    plan_.kind = PlanKind::kLinuxLandlock;
    if (!bwrap_failure.empty()) {
      plan_.warnings.push_back(ir::Warning{
          "landlock-fallback",
          absl::StrCat("bubblewrap cannot make its namespaces here (", bwrap_failure,
                       "), so the plan confines the command with Landlock ABI ", abi,
                       " and seccomp instead; what that cannot hold is in the plan's skipped "
                       "list (cwsc explain)"),
          why});
    }
    Origin marker = Origin::Default("landlock child marker");
    plan_.env_set.push_back({"CODEWHALE_SANDBOX", "landlock", marker});
    plan_.env_set.push_back({"DEEPSEEK_SANDBOX", "landlock", marker});
  }

  // RefuseUnconfinedIfRequired: with sandbox_require = true (or
  // --require-sandbox), a policy that asks for a sandbox is refused when no
  // local wrapper works, instead of running unconfined (docs/config.md).
  void RefuseUnconfinedIfRequired() {
    if (plan_.kind != PlanKind::kNone || !plan_.policy.ShouldSandbox()) return;
    if (!in_.spec.sandbox_require || !in_.spec.sandbox_require->value) return;
    const ir::Origin& origin = in_.spec.sandbox_require->origin;
    bool cli = origin.kind == Origin::Kind::kCli;
    std::string cause = "no local wrapper works";
    std::string fix = "make the wrapper work (`cwsc doctor` names the cause and its fix)";
    for (const ir::Skipped& s : plan_.skipped) {
      if (s.kind != SkipKind::kLocalWrapper) continue;
      cause = s.path.empty() ? s.reason : absl::StrCat(s.path, ": ", s.reason);
      if (s.reason == "prefer_bwrap = false") fix = "set prefer_bwrap = true";
    }
    Refuse(absl::StrCat("the policy is ", ir::PolicyTypeName(plan_.policy.type),
                        " but no sandbox wrapper works here (", cause, "), and ",
                        cli ? "--require-sandbox" : "sandbox_require = true",
                        " forbids running the command unconfined; ", fix, ", or ",
                        cli ? "leave out --require-sandbox" : "set sandbox_require = false",
                        " to run it unconfined with a warning"),
           origin);
  }

  // AddMount: the paths, the reason and the origin are shared strings, so
  // a mount made from a root's or a placeholder's path copies no text.
  // Braces, not emplace_back's parentheses: clang 14 has no parenthesized
  // aggregate initialization.
  void AddMount(MountOp op, ir::SharedString src, ir::SharedString dest,
                const ir::SharedString& why, const Origin& origin) {
    plan_.mounts.push_back(Mount{op, std::move(src), std::move(dest), why, origin});
  }

  // BuildMounts lists the bwrap mounts in argv order: the base view, device
  // roots, writable binds, protected descendants, the read-only view of a
  // working directory under /tmp, extra read-only roots, then deny masks.
  absl::Status BuildMounts() {
    // Room for every mount a large policy makes: a bind and two per
    // protected name per root, one per denied path, a few dozen others.
    size_t protected_count = 0;
    for (const ir::Root& r : plan_.roots) protected_count += r.protected_paths.size();
    plan_.mounts.reserve(32 + plan_.roots.size() + 2 * protected_count + plan_.denied_read.size());
    Origin base = Origin::Default("bwrap base view");
    AddMount(MountOp::kReadOnlyBind, "/", "/", "read-only root view", base);
    AddMount(MountOp::kDev, "", "/dev", "private /dev", base);
    AddMount(MountOp::kProc, "", "/proc", "private /proc", base);
    AddKernelMasks();
    AddMount(MountOp::kTmpfs, "", "/tmp", "private /tmp", base);
    CWSC_RETURN_IF_ERROR(AddDeviceRoots());
    AddWritableBinds();
    AddProtectedMounts();
    if (plan_.policy.type == PolicyType::kReadOnly) AddReadOnlyTmpCwd();
    CWSC_RETURN_IF_ERROR(AddReadOnlyRoots());
    // Deny masks (docs/behavior.md B-43); for a launcher plan computed for the launcher's user.
    std::vector<ir::Mount> masks =
        DenyMasks(facts_, plan_.denied_read, launcher_user_ ? &*launcher_user_ : nullptr);
    AddDenyPins(masks);
    for (ir::Mount& m : masks) plan_.mounts.push_back(std::move(m));
    if (plan_.mounts.size() > kMountWarnThreshold) {
      plan_.warnings.push_back(ir::Warning{
          "many-mounts",
          absl::StrCat(plan_.mounts.size(), " mount operations; every launch pays for each one"),
          Origin::Default("mount count")});
    }
    return absl::OkStatus();
  }

  // AddDenyPins: a mask below a writable root is bound at a fixed path, so a
  // command that renamed an unmasked ancestor (`mv ~/.config ~/c`) would
  // find the secret under the new name, and the next run nothing to mask.
  // Each directory between the root and the mask is bound onto itself, with
  // the access it already has: a mount point cannot be renamed or removed
  // (EBUSY) inside the sandbox (docs/decisions.md, "Deny targets that
  // cannot be moved"). Directories inside a read-only mount need no pin.
  void AddDenyPins(const std::vector<ir::Mount>& masks) {
    absl::flat_hash_set<std::string> fixed;  // mount points already there, and pins made
    for (const ir::Mount& m : plan_.mounts) {
      if (m.dest != "/") fixed.insert(std::string(m.dest.str()));
    }
    for (const ir::Mount& mask : masks) {
      const ir::Root* root = WritableRootAbove(mask.dest.str());
      if (root == nullptr) continue;
      const std::string& dest = mask.dest.str();
      for (size_t at = root->canonical.size() + 1; at < dest.size(); ++at) {
        at = dest.find('/', at);
        if (at == std::string::npos) break;
        std::string dir = dest.substr(0, at);
        if (InsideReadOnlyMount(dir, root->canonical.str())) break;
        const PathInfo& info = facts_.Path(dir);
        if (info.type != FileType::kDirectory || info.is_symlink) break;
        if (!fixed.insert(dir).second) continue;
        AddMount(MountOp::kWritableBind, dir, dir, kDenyPinWhy, mask.origin);
      }
    }
  }

  // WritableRootAbove: the deepest root bound writable strictly above `path`.
  const ir::Root* WritableRootAbove(absl::string_view path) const {
    const ir::Root* best = nullptr;
    for (size_t i = 0; i < sorted_writable_.size(); ++i) {
      const ir::Root* r = sorted_writable_[i];
      if (!writable_mounted_[i] || absl::string_view(r->canonical) == path ||
          !PathStartsWith(path, r->canonical.str())) {
        continue;
      }
      if (best == nullptr || r->canonical.size() > best->canonical.size()) best = r;
    }
    return best;
  }

  // InsideReadOnlyMount: `dir` (below `root`) is or lies below a mount the
  // plan made read-only or private since the root's bind.
  bool InsideReadOnlyMount(absl::string_view dir, absl::string_view root) const {
    for (const ir::Mount& m : plan_.mounts) {
      absl::string_view d = m.dest;
      if (m.op == MountOp::kWritableBind || d == root) continue;
      if (d != "/" && PathStartsWith(dir, d) && PathStartsWith(d, root)) {
        return true;
      }
    }
    return false;
  }

  // AddDeviceRoots: bwrap_dev_roots that are devices, bound as themselves.
  absl::Status AddDeviceRoots() {
    if (!in_.spec.bwrap_dev_roots) return absl::OkStatus();
    for (const auto& d : in_.spec.bwrap_dev_roots->value) {
      CWSC_ASSIGN_OR_RETURN(std::string p, ExpandSettingPath(d, vars_, /*lexical=*/false));
      const PathInfo& info = facts_.Path(p);
      if ((info.type == FileType::kCharDevice || info.type == FileType::kBlockDevice) &&
          LauncherCanReach(info.canonical, SkipKind::kSetting, "bwrap_dev_roots", d.origin)) {
        AddMount(MountOp::kDeviceBind, info.canonical, info.canonical, "device root", d.origin);
      } else {
        AddSkipped(SkipKind::kSetting, "bwrap_dev_roots", p,
                   info.type == FileType::kMissing ? "missing" : "not a character or block device",
                   d.origin);
      }
    }
    return absl::OkStatus();
  }

  // AddWritableBinds: the roots bound writable, canonical, sorted by
  // component, deduplicated; fills sorted_writable_ and writable_mounted_.
  void AddWritableBinds() {
    // PathLess order by sort keys, all written into one buffer.
    struct Keyed {
      size_t at, size;
      ir::Root* root;
    };
    size_t room = 0, count = 0;
    for (const ir::Root& r : plan_.roots) {
      if (r.writable_bind) room += r.canonical.size() + 1, ++count;
    }
    std::string keys;
    keys.reserve(room);
    std::vector<Keyed> by_key;
    by_key.reserve(count);
    for (ir::Root& r : plan_.roots) {
      if (!r.writable_bind) continue;
      size_t at = keys.size();
      AppendPathSortKey(r.canonical, &keys);
      by_key.push_back(Keyed{at, keys.size() - at, &r});
    }
    const char* base = keys.data();
    std::stable_sort(by_key.begin(), by_key.end(), [base](const Keyed& a, const Keyed& b) {
      return absl::string_view(base + a.at, a.size) < absl::string_view(base + b.at, b.size);
    });
    sorted_writable_.clear();
    sorted_writable_.reserve(by_key.size());
    // Whether each root got its bind: writable roots have distinct canonical
    // paths (DecideBind), so this is "its canonical path is bound".
    writable_mounted_.assign(by_key.size(), false);
    for (size_t i = 0; i < by_key.size(); ++i) {
      ir::Root* r = by_key[i].root;
      sorted_writable_.push_back(r);
      if (!LauncherCanReach(r->canonical, SkipKind::kWritableRoot, "writable root", r->origin))
        continue;
      AddMount(MountOp::kWritableBind, r->canonical, r->canonical, WritableRootWhy(r->source),
               r->origin);  // one copy of the path, shared
      writable_mounted_[i] = true;
    }
  }

  // WritableRootWhy: the reason of a root's writable bind, made once per source.
  const ir::SharedString& WritableRootWhy(ir::RootSource source) {
    ir::SharedString& why = writable_root_whys_[static_cast<size_t>(source)];
    if (why.empty()) why = absl::StrCat("writable root (", ir::RootSourceName(source), ")");
    return why;
  }

  // AddProtectedMounts: protected descendants, canonical, sorted,
  // deduplicated. A missing name gets an empty read-only directory (tmpfs,
  // then remount-read-only).
  void AddProtectedMounts() {
    struct Prot {
      absl::string_view path;        // into plan_.roots, or into `made`
      const ir::SharedString* text;  // a placeholder's shared path (`path` is its text)
      const Origin* origin;          // of an element of plan_.roots
      bool placeholder;
    };
    size_t protected_count = 0;
    for (const ir::Root* r : sorted_writable_) protected_count += r->protected_paths.size();
    std::vector<Prot> prot;
    prot.reserve(protected_count);
    std::deque<ir::SharedString> made;  // placeholder paths spelled from a root's canonical form
    // Root by root in bind order (AddWritableBinds), which is often already
    // the order of the mounts: then no sort is needed (checked below).
    for (size_t w = 0; w < sorted_writable_.size(); ++w) {
      ir::Root& r = *sorted_writable_[w];
      const bool mounted = writable_mounted_[w];
      for (ir::Protected& p : r.protected_paths) {
        if (!p.skip_reason.empty()) continue;
        if (p.placeholder && !mounted) {
          p.skip_reason = "its root is not mounted";  // bwrap could not create it
          continue;
        }
        p.applied = true;
        absl::string_view path = p.canonical;
        const ir::SharedString* text = nullptr;
        if (p.placeholder) {
          // JoinPath(r.canonical, name): often p.path itself (the root was
          // listed canonical), made only when it is not.
          absl::string_view name = Basename(p.path);
          absl::string_view spelled = p.path;
          absl::string_view canonical = r.canonical;
          bool same = spelled.size() == canonical.size() + 1 + name.size() &&
                      absl::StartsWith(spelled, canonical) && spelled[canonical.size()] == '/';
          text = same ? &p.path : &made.emplace_back(JoinPath(canonical, name));
          path = *text;
        }
        prot.push_back(Prot{path, text, &p.origin, p.placeholder});
      }
    }
    // Duplicate roots share their protected paths; mark those applied too.
    for (ir::Root& r : plan_.roots) {
      for (ir::Protected& p : r.protected_paths) {
        if (r.skip == RootSkip::kDuplicate && p.skip_reason.empty()) p.applied = true;
      }
    }
    // PathLess order. When the bind order did not give it (or a path came
    // twice), sorted through indices and sort keys: a key compares with one
    // memcmp, and equal paths (a worktree's .git inside two roots) end up
    // side by side, the first listed first.
    std::vector<uint32_t> order(prot.size());
    for (uint32_t i = 0; i < prot.size(); ++i) order[i] = i;
    bool in_order = true;
    for (size_t i = 1; i < prot.size() && in_order; ++i) {
      in_order = PathLess(prot[i - 1].path, prot[i].path);
    }
    if (!in_order) {
      std::string keys;
      size_t room = 0;
      for (const Prot& p : prot) room += p.path.size() + 1;
      keys.reserve(room);
      std::vector<std::pair<size_t, size_t>> at(prot.size());  // a key's place in `keys`
      for (uint32_t i = 0; i < prot.size(); ++i) {
        at[i].first = keys.size();
        AppendPathSortKey(prot[i].path, &keys);
        at[i].second = keys.size() - at[i].first;
      }
      const char* base = keys.data();
      std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        absl::string_view x(base + at[a].first, at[a].second), y(base + at[b].first, at[b].second);
        return x < y || (x == y && a < b);
      });
    }
    // One copy of each reason, shared by every mount it explains.
    const ir::SharedString placeholder_why =
        "protected name does not exist: an empty placeholder takes it";
    const ir::SharedString read_only_why = "the placeholder is read-only";
    const ir::SharedString protected_why = "protected descendant stays read-only";
    const Prot* last = nullptr;
    for (uint32_t i : order) {
      const Prot& p = prot[i];
      if (last != nullptr && last->path == p.path) continue;  // once per path
      last = &p;
      if (p.placeholder) {  // both mounts share the placeholder's path
        AddMount(MountOp::kTmpfs, {}, *p.text, placeholder_why, *p.origin);
        AddMount(MountOp::kRemountReadOnly, {}, *p.text, read_only_why, *p.origin);
        continue;
      }
      std::string path(p.path);
      if (!LauncherCanReach(path, SkipKind::kWritableRoot, "protected descendant", *p.origin))
        continue;
      ir::SharedString shared(std::move(path));
      AddMount(MountOp::kReadOnlyBind, shared, shared, protected_why, *p.origin);
    }
  }

  // AddReadOnlyTmpCwd: read-only mode with a working directory under /tmp:
  // the tmpfs would hide it (bwrap: "Can't chdir"); show it read-only
  // instead, with a linked worktree's metadata under /tmp, or git cannot
  // even read its repository (git status) in the read-only view.
  void AddReadOnlyTmpCwd() {
    std::string canon = facts_.Path(in_.cwd).canonical;
    if (!canon.empty() && PathStartsWith(canon, "/tmp")) {
      AddMount(MountOp::kReadOnlyBind, canon, canon,
               "working directory under /tmp stays visible (read-only) over the private /tmp",
               Origin::Fact(absl::StrCat("working directory ", in_.cwd, " is under /tmp")));
    }
    WorktreeMetadata wt = FindWorktreeMetadata(facts_, canon.empty() ? in_.cwd : canon);
    if (!wt.verified()) return;
    std::vector<std::string> shown;
    for (const std::string& p : {wt.common_dir, wt.git_dir}) {
      bool covered = !canon.empty() && PathStartsWith(p, canon) && PathStartsWith(canon, "/tmp");
      for (const std::string& q : shown) covered = covered || PathStartsWith(p, q);
      if (!PathStartsWith(p, "/tmp") || covered) continue;
      AddMount(MountOp::kReadOnlyBind, p, p,
               "git worktree metadata under /tmp stays visible (read-only) over the private /tmp",
               Origin::Fact(absl::StrCat("git worktree ", wt.dot_git)));
      shown.push_back(p);
    }
  }

  // AddReadOnlyRoots: bwrap_ro_roots, canonicalized, not lexically
  // normalized (docs/behavior.md B-41).
  absl::Status AddReadOnlyRoots() {
    if (!in_.spec.bwrap_ro_roots) return absl::OkStatus();
    for (const auto& r : in_.spec.bwrap_ro_roots->value) {
      CWSC_ASSIGN_OR_RETURN(std::string p, ExpandSettingPath(r, vars_, /*lexical=*/false));
      const PathInfo& info = facts_.Path(p);
      std::string planted = PlantedSymlink(p);
      if (!planted.empty() && info.type == FileType::kDirectory) {
        AddSkipped(SkipKind::kSetting, "bwrap_ro_roots", p, PlantedReason(planted), r.origin);
      } else if (info.type != FileType::kDirectory) {
        AddSkipped(SkipKind::kSetting, "bwrap_ro_roots", p,
                   info.type == FileType::kMissing ? "missing" : "not a directory", r.origin);
      } else if (info.canonical == "/") {
        AddSkipped(SkipKind::kSetting, "bwrap_ro_roots", p, "canonicalizes to /", r.origin);
      } else if (LauncherCanReach(info.canonical, SkipKind::kSetting, "bwrap_ro_roots", r.origin)) {
        AddMount(MountOp::kReadOnlyBind, info.canonical, info.canonical, "extra read-only root",
                 r.origin);
      }
    }
    return absl::OkStatus();
  }

  // AddKernelMasks hides the kernel interfaces a container runtime hides
  // (the OCI default masked and read-only /proc and /sys paths) that exist
  // on this host: bwrap cannot mount over a path its /proc lacks. Only for
  // a command that runs as uid 0: for any other uid the kernel's own checks
  // refuse these writes (sysctls, sysrq: owner root) and reads (kcore,
  // timer_list, sched_debug: 0400 root), and each mount costs every launch
  // about 0.1 ms (docs/decisions.md).
  void AddKernelMasks() {
    uint32_t uid = launcher_user_ ? launcher_user_->uid : facts_.Uid();
    if (uid != 0) return;
    Origin o = Origin::Default("kernel interfaces stay out of reach (OCI default masks)");
    for (const char* p : kKernelReadOnly) {
      if (facts_.Path(p).type == FileType::kMissing) continue;
      AddMount(MountOp::kReadOnlyBind, p, p, "kernel interface stays read-only", o);
    }
    for (const char* p : kKernelMaskedFiles) {
      if (facts_.Path(p).type != FileType::kRegular) continue;
      AddMount(MountOp::kReadOnlyBind, "/dev/null", p, "kernel interface masked", o);
    }
    for (const char* p : kKernelMaskedDirs) {
      if (facts_.Path(p).type != FileType::kDirectory) continue;
      AddMount(MountOp::kTmpfs, "", p, "kernel interface masked", o);
      AddMount(MountOp::kRemountReadOnly, "", p, "the mask is read-only", o);
    }
  }

  // PlantedSymlink walks `spelled` component by component and returns the
  // first symlink a sandboxed command could have planted ("" when none):
  // one lying strictly inside a writable candidate root of this run, or in
  // a directory the user the command runs as may write (an earlier run with
  // other roots, or another workspace, could have made it; docs/decisions.md,
  // "Who could have written it"). Paths
  // whose canonical form is their lexical form traverse no symlink that
  // changes them, and cost no extra question.
  // `known`, when given, is facts_.Path(spelled).
  std::string PlantedSymlink(absl::string_view spelled, const PathInfo* known = nullptr) {
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
  absl::string_view SpelledRoot(const ir::Root& r) {
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

  std::string PlantedReason(const std::string& link) {
    std::string root;
    for (absl::string_view w : writable_) {
      if (link != w && PathStartsWith(link, w)) root = std::string(w);
    }
    if (root.empty()) {
      std::string dir = ParentPath(link);
      return absl::StrCat("passes through the symlink ", link, " in ", dir,
                          ", a directory the sandboxed user (", UserText(RunIdentity()),
                          ") may write; the sandboxed command could have planted it");
    }
    return absl::StrCat("passes through the symlink ", link, " inside the writable root ", root,
                        "; the sandboxed command could have planted it");
  }

  // RunIdentity is the user the command runs as: the launcher's user when
  // a launcher switches to one, else the engine's.
  Identity RunIdentity() {
    return launcher_user_ ? *launcher_user_ : EngineIdentity(facts_.User());
  }

  // WritableBy: `who` may create or rename entries in the directory `dir`,
  // by its owner and permission bits (a sandboxed command holds no
  // capabilities, so root is judged as the owner it is). The owner may
  // write whatever the mode says: chmod needs no capability, so a command
  // that made a link and then took the write bits off its directory wrote
  // it all the same.
  static bool WritableBy(const PathInfo& dir, const Identity& who) {
    if (dir.type != FileType::kDirectory) return false;
    if (dir.uid == who.uid) return true;
    if (who.InGroup(dir.gid)) return (dir.mode & 0020) != 0;
    return (dir.mode & 0002) != 0;
  }

  static absl::string_view Basename(absl::string_view path) {
    size_t slash = path.rfind('/');
    return slash == absl::string_view::npos ? path : path.substr(slash + 1);
  }

  const ResolveInput& in_;
  HostFacts& facts_;
  // Canonical writable candidates (ComputeRoots), viewed in the facts' answers.
  std::vector<absl::string_view> writable_;
  std::string spelled_tmpdir_;  // SpelledRoot's answer for a TMPDIR root
  LaunchPlan plan_;
  PathVars vars_;
  std::vector<Origin> configured_origins_;
  std::vector<std::string> protected_git_;  // main .git dirs of protected worktrees
  std::deque<std::pair<std::string, Origin>> protected_origins_;  // ProtectedOrigin's
  std::vector<ir::Root*> sorted_writable_;  // roots bound writable, in bind order
  std::vector<bool> writable_mounted_;      // by sorted_writable_: its bind was added
  static_assert(static_cast<size_t>(ir::RootSource::kTmpdir) == 5, "one reason per source");
  std::array<ir::SharedString, 6> writable_root_whys_;  // by ir::RootSource
  std::optional<Identity> launcher_user_;               // set when a launcher probe passed
};

}  // namespace

std::string PostureLabel(const LaunchPlan& plan, std::optional<bool> no_new_privs) {
  const ir::Policy& p = plan.policy;
  const char* net = p.network_access ? "network allowed" : "network blocked";
  if (plan.kind == PlanKind::kOpenSandbox) {
    const char* tag =
        p.type == PolicyType::kDangerFullAccess ? "full-access" : ir::PolicyTypeName(p.type);
    return absl::StrCat(tag,
                        " policy (external execution backend configured; filesystem/network "
                        "isolation unverified by Codewhale)");
  }
  std::string label;
  switch (p.type) {
    case PolicyType::kDangerFullAccess:
      label = "full access (sandbox disabled)";
      break;
    case PolicyType::kReadOnly:
      label = "read-only (shell writes are blocked; ordinary approval does not change this)";
      break;
    case PolicyType::kExternalSandbox:
      label = absl::StrCat("external sandbox (host-managed; ", net, ")");
      break;
    case PolicyType::kWorkspaceWrite:
      label =
          absl::StrCat("workspace-write (writes inside the workspace",
                       p.writable_roots.size() > 1 ? " and approved roots" : "", "; ", net, ")");
      break;
  }
  if (p.type == PolicyType::kDangerFullAccess && no_new_privs) {
    // docs/behavior.md B-22: full access says what sudo/setuid can do.
    label += *no_new_privs
                 ? "; sudo/setuid still blocked by the no-new-privs kernel flag set at startup"
                 : "; sudo/setuid allowed (no-new-privs relaxed at startup)";
  }
  if (!p.ShouldSandbox()) return label;
  bool local = plan.kind == PlanKind::kLinuxBwrap || plan.kind == PlanKind::kMacosSeatbelt ||
               plan.kind == PlanKind::kLauncherBwrap;
  if (local) return label + " (local OS sandbox applied)";
  if (plan.kind == PlanKind::kLinuxLandlock) {
    return label + " (Landlock and seccomp applied, without namespaces)";
  }
  return label + " (policy only; no execution sandbox available)";
}

absl::StatusOr<LaunchPlan> ResolvePlan(const ResolveInput& in, HostFacts& facts) {
  return Resolver(in, facts).Run();
}

}  // namespace cwsc::compiler
