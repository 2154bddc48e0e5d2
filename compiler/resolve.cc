#include "compiler/resolve.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/config_toml.h"
#include "compiler/deny_list.h"
#include "compiler/launcher.h"
#include "compiler/lower_remote.h"
#include "compiler/lower_seatbelt.h"
#include "compiler/worktree.h"
#include "ir/diagnostics.h"
#include "ir/status_macros.h"

namespace cwsc::compiler {

const char* const kChildEnvAllowList[] = {
    "PATH", "HOME", "USER", "USERNAME", "LOGNAME", "LANG", "LANGUAGE", "LC_*", "TERM",
    "COLORTERM", "NO_COLOR", "FORCE_COLOR", "SHELL", "TMPDIR", "TMP", "TEMP",
    "__CF_USER_TEXT_ENCODING", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "FTP_PROXY",
    "PYTHONIOENCODING", "PYTHONUTF8", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "DOTNET_*",
    nullptr};

namespace {

using ir::LaunchPlan;
using ir::Mount;
using ir::MountOp;
using ir::Origin;
using ir::PlanKind;
using ir::PolicyType;

constexpr size_t kMountWarnThreshold = 50;

// Policy for the permission mode, narrowed by sandbox_mode (reference §5.2, §5.3;
// values normalized as ARCHITECTURE.md §7 item 7 says).
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
  if (in.spec.sandbox_network_access && p.ShouldSandbox()) {
    p.network_access = in.spec.sandbox_network_access->value;
    p.network_origin = in.spec.sandbox_network_access->origin;
  }
  return p;
}

// Escalation applies an approved per-command escalation (reference §5.4).
absl::Status ApplyEscalation(const ResolveInput& in, ir::Policy* p) {
  if (!in.escalate) return absl::OkStatus();
  std::string target = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*in.escalate));
  if (target != "workspace-write" && target != "danger-full-access") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--escalate: invalid value '", *in.escalate, "': expected workspace-write or danger-full-access"));
  }
  if (in.mode != "ask") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--escalate: sandbox escalation requires a one-shot user approval, but the current '",
        in.mode, "' posture cannot provide it (escalation is only possible in ask mode)"));
  }
  Origin o = Origin::Cli(absl::StrCat("--escalate ", target));
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
  return absl::InvalidArgumentError(absl::StrCat("--escalate: '", target,
                                                 "' is not strictly wider than this call's current '",
                                                 ir::PolicyTypeName(p->type), "' posture"));
}

class Resolver {
 public:
  Resolver(const ResolveInput& in, HostFacts& facts) : in_(in), facts_(facts) {}

  absl::StatusOr<LaunchPlan> Run() {
    plan_.platform = facts_.Platform();
    plan_.permission_mode = in_.mode;
    plan_.mode_origin = in_.mode_origin;
    plan_.cwd = in_.cwd;
    std::string home = facts_.Env("HOME").value_or("");
    if (home.empty()) home = facts_.User().home;
    vars_.home = home;
    vars_.workspace = in_.cwd;
    vars_.cwd = in_.cwd;
    vars_.tmpdir = facts_.Env("TMPDIR").value_or("");

    plan_.policy = PolicyFor(in_);
    CWSC_RETURN_IF_ERROR(ApplyEscalation(in_, &plan_.policy));
    if (plan_.policy.type == PolicyType::kWorkspaceWrite && plan_.policy.origin.kind != Origin::Kind::kCli) {
      plan_.policy.writable_roots.push_back(in_.cwd);  // the workspace
    }
    CWSC_RETURN_IF_ERROR(AddConfiguredRoots());
    for (const char* const* e = kChildEnvAllowList; *e != nullptr; ++e) plan_.env_allow.push_back(*e);

    // The remote backend is decided before any local wrapper or launcher.
    if (RemoteRequested()) {
      CWSC_RETURN_IF_ERROR(SelectRemote());
      plan_.posture_label = PostureLabel(plan_);
      return plan_;
    }
    // Launcher plans (compiler/launcher.h): private /tmp, built-in deny list forced on.
    if (Launcher()) {
      plan_.policy.exclude_slash_tmp = true;
      plan_.policy.exclude_tmpdir = true;
    }
    PolicySpec deny_spec = Launcher() ? ForcedDenySpec(in_.spec, &plan_) : in_.spec;
    CWSC_ASSIGN_OR_RETURN(plan_.denied_read, BuildDenyList(facts_, deny_spec, plan_.platform, vars_));
    ComputeRoots();
    SelectWrapper();
    if (plan_.kind == PlanKind::kLinuxBwrap || plan_.kind == PlanKind::kLauncherBwrap) {
      CWSC_RETURN_IF_ERROR(BuildMounts());
    }
    if (plan_.kind == PlanKind::kMacosSeatbelt) {
      CWSC_RETURN_IF_ERROR(LowerSeatbelt(facts_, in_.spec, &plan_));
    }
    plan_.posture_label = PostureLabel(plan_);
    return plan_;
  }

 private:
  bool Launcher() const { return in_.spec.tool_launcher.has_value(); }

  // LauncherCanReach: for a launcher plan, a bind whose source the launcher's
  // user cannot reach is dropped, and the plan says so.
  bool LauncherCanReach(const std::string& source, const std::string& what, const Origin& origin) {
    if (!launcher_user_) return true;
    std::string why = UnreachableReason(facts_, source, *launcher_user_);
    if (why.empty()) return true;
    AddSkipped(what, source, why, origin);
    return false;
  }

  bool RemoteRequested() const {
    if (!in_.spec.sandbox_backend) return false;
    std::string v = absl::AsciiStrToLower(absl::StripAsciiWhitespace(in_.spec.sandbox_backend->value));
    return !v.empty() && v != "none";
  }

  absl::Status SelectRemote() {
    // The deny list is listed in the plan as what the remote side does not enforce.
    CWSC_ASSIGN_OR_RETURN(plan_.denied_read, BuildDenyList(facts_, in_.spec, plan_.platform, vars_));
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
        plan_.policy.writable_roots.push_back(p);
        configured_origins_.push_back(r.origin);
      }
    }
    if (in_.spec.sandbox_exclude_tmpdir) plan_.policy.exclude_tmpdir = in_.spec.sandbox_exclude_tmpdir->value;
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

  Origin ProtectedOrigin(const std::string& name) const {
    if (in_.spec.sandbox_protected_names) {
      for (const auto& n : in_.spec.sandbox_protected_names->value) {
        if (n.value == name) return n.origin;
      }
    }
    return Origin::Default(absl::StrCat("protected name ", name));
  }

  // ComputeRoots builds the §6.3 list in order, with the bwrap verdict on each.
  void ComputeRoots() {
    const ir::Policy& pol = plan_.policy;
    if (pol.type != PolicyType::kWorkspaceWrite) return;
    std::vector<ir::Root> roots;
    size_t workspace_entries = pol.writable_roots.size() - configured_origins_.size();
    for (size_t i = 0; i < pol.writable_roots.size(); ++i) {
      ir::Root r;
      r.path = pol.writable_roots[i];
      r.source = ir::RootSource::kConfigured;
      r.origin = i < workspace_entries
                     ? Origin::Mode(absl::StrCat("workspace of permission mode ", in_.mode))
                     : configured_origins_[i - workspace_entries];
      roots.push_back(r);
    }
    {
      ir::Root r;
      std::string canon = facts_.Path(in_.cwd).canonical;
      r.path = canon.empty() ? in_.cwd : canon;
      r.source = ir::RootSource::kCwd;
      r.origin = Origin::Fact(absl::StrCat("working directory ", in_.cwd));
      roots.push_back(r);
    }
    size_t base = roots.size();
    for (size_t i = 0; i < base; ++i) {
      WorktreeMetadata wt = FindWorktreeMetadata(facts_, roots[i].path);
      if (wt.verified()) {
        Origin o = Origin::Fact(absl::StrCat("git worktree ", wt.dot_git));
        roots.push_back(ir::Root{wt.git_dir, "", ir::RootSource::kWorktreeGitDir, {}, false, "", o});
        roots.push_back(ir::Root{wt.common_dir, "", ir::RootSource::kWorktreeCommonDir, {}, false, "", o});
      } else if (!wt.dot_git.empty() && !wt.rejected.empty()) {
        AddSkipped("worktree metadata", wt.dot_git, wt.rejected,
                   Origin::Fact(absl::StrCat("git worktree ", wt.dot_git)));
      }
    }
    if (!pol.exclude_slash_tmp) {
      std::string canon = facts_.Path("/tmp").canonical;
      if (!canon.empty()) {
        roots.push_back(ir::Root{canon, "", ir::RootSource::kSlashTmp, {}, false, "",
                                 Origin::Default("workspace-write shares the host /tmp")});
      }
    } else {
      AddSkipped("writable root", "/tmp", Launcher() ? kLauncherPrivateTmp : "excluded by the policy",
                 ExcludeOrigin(true));
    }
    if (pol.exclude_tmpdir) {
      if (auto tmpdir = facts_.Env("TMPDIR"); tmpdir && !tmpdir->empty()) {
        AddSkipped("writable root", *tmpdir,
                   Launcher() ? kLauncherPrivateTmp : "TMPDIR excluded by the policy",
                   ExcludeOrigin(false));
      }
    } else {
      if (auto tmpdir = facts_.Env("TMPDIR"); tmpdir && !tmpdir->empty()) {
        std::string canon = facts_.Path(*tmpdir).canonical;
        if (!canon.empty()) {
          roots.push_back(ir::Root{canon, "", ir::RootSource::kTmpdir, {}, false, "",
                                   Origin::Env("TMPDIR")});
        } else {
          AddSkipped("writable root", *tmpdir, "TMPDIR does not resolve", Origin::Env("TMPDIR"));
        }
      }
    }
    std::set<std::string> mounted_canon;
    for (ir::Root& r : roots) {
      PathInfo info = facts_.Path(r.path);
      r.canonical = info.canonical;
      if (info.type == FileType::kMissing || info.canonical.empty()) {
        r.skip_reason = "missing";
      } else if (info.type != FileType::kDirectory) {
        r.skip_reason = "not a directory";
      } else if (info.canonical == "/") {
        r.skip_reason = "canonicalizes to /";
      } else if (mounted_canon.count(info.canonical)) {
        r.skip_reason = "duplicate";
      } else if (Launcher() && IsHostTmp(info.canonical)) {
        r.skip_reason = kLauncherPrivateTmp;
      } else {
        r.mounted = true;
        mounted_canon.insert(info.canonical);
      }
      for (const std::string& name : ProtectedNames()) {
        std::string p = JoinPath(r.path, name);
        PathInfo pi = facts_.Path(p);
        if (pi.type != FileType::kDirectory) continue;
        ir::Protected prot{p, pi.canonical, false, "", ProtectedOrigin(name)};
        if (r.canonical.empty() || !PathStartsWith(pi.canonical, r.canonical)) {
          prot.skip_reason = "resolves outside its root";
        } else if (!r.mounted && r.skip_reason != "duplicate") {
          prot.skip_reason = "its root is not mounted";
        }
        r.protected_paths.push_back(prot);
      }
      if (!r.mounted && r.skip_reason != "duplicate") {
        AddSkipped("writable root", r.path, r.skip_reason, r.origin);
      }
    }
    plan_.roots = std::move(roots);
  }

  // IsHostTmp: the canonical host /tmp or TMPDIR (never bound under a launcher).
  bool IsHostTmp(const std::string& canonical) {
    if (canonical == facts_.Path("/tmp").canonical) return true;
    auto tmpdir = facts_.Env("TMPDIR");
    return tmpdir && !tmpdir->empty() && canonical == facts_.Path(*tmpdir).canonical;
  }

  Origin ExcludeOrigin(bool slash_tmp) const {
    if (Launcher()) return in_.spec.tool_launcher->origin;
    const auto& setting = slash_tmp ? in_.spec.sandbox_exclude_slash_tmp : in_.spec.sandbox_exclude_tmpdir;
    if (setting) return setting->origin;
    return Origin::Default(slash_tmp ? "exclude_slash_tmp" : "exclude_tmpdir");
  }

  void AddSkipped(std::string what, std::string path, std::string reason, Origin origin) {
    plan_.skipped.push_back(ir::Skipped{std::move(what), std::move(path), std::move(reason),
                                        std::move(origin)});
  }

  void SelectWrapper() {
    const ir::Policy& pol = plan_.policy;
    if (Launcher()) {  // compiler/launcher.h decides launcher plans
      launcher_user_ = LowerLauncher(
          facts_, LauncherInput{&in_.spec, in_.launcher_trusted, in_.launcher_trust_refusal}, &plan_);
      if (plan_.kind == PlanKind::kRefused) Refuse(plan_.refusal->reason, plan_.refusal->origin);
      return;
    }
    if (!pol.ShouldSandbox()) {
      plan_.kind = PlanKind::kNone;
      AddSkipped("local wrapper", "", absl::StrCat("policy ", ir::PolicyTypeName(pol.type),
                                                   " does not request a sandbox"), pol.origin);
      return;
    }
    if (plan_.platform == "linux") {
      plan_.wrapper.path = "/usr/bin/bwrap";
      plan_.wrapper.preferred = true;
      plan_.wrapper.preferred_origin = Origin::Default("prefer_bwrap is on by default");
      if (in_.spec.prefer_bwrap) {
        plan_.wrapper.preferred = in_.spec.prefer_bwrap->value;
        plan_.wrapper.preferred_origin = in_.spec.prefer_bwrap->origin;
      }
      PathInfo info = facts_.Path("/usr/bin/bwrap");
      plan_.wrapper.executable = info.type == FileType::kRegular && (info.mode & 0111) != 0;
      if (!plan_.wrapper.preferred) {
        plan_.kind = PlanKind::kNone;
        AddSkipped("local wrapper", "/usr/bin/bwrap", "prefer_bwrap = false",
                   plan_.wrapper.preferred_origin);
        return;
      }
      if (!plan_.wrapper.executable) {
        plan_.kind = PlanKind::kNone;
        AddSkipped("local wrapper", "/usr/bin/bwrap",
                   info.type == FileType::kMissing ? "missing" : "not a regular executable file",
                   Origin::Fact("/usr/bin/bwrap"));
        return;
      }
      ProbeResult probe = facts_.BwrapProbe();
      plan_.wrapper.probe_ok = probe.ok;
      plan_.wrapper.probe_message = probe.message;
      if (!probe.ok) {
        plan_.kind = PlanKind::kNone;
        AddSkipped("local wrapper", "/usr/bin/bwrap",
                   absl::StrCat("probe failed: ", probe.message), Origin::Fact("bwrap probe"));
        return;
      }
      plan_.kind = PlanKind::kLinuxBwrap;
      plan_.share_net = pol.network_access;
      Origin marker = Origin::Default("bwrap child marker");
      plan_.env_set.push_back({"CODEWHALE_SANDBOX", "bwrap", marker});
      plan_.env_set.push_back({"DEEPSEEK_SANDBOX", "bwrap", marker});
      return;
    }
    if (plan_.platform == "macos") {
      // Reference §10.1 / §7.2: Seatbelt iff its probe passed (prefer_bwrap ignored).
      plan_.wrapper = SeatbeltWrapper(facts_);
      if (!plan_.wrapper.probe_ok) {
        plan_.kind = PlanKind::kNone;
        AddSkipped("local wrapper", "/usr/bin/sandbox-exec",
                   absl::StrCat("probe failed: ", plan_.wrapper.probe_message),
                   Origin::Fact("seatbelt probe"));
        return;
      }
      plan_.kind = PlanKind::kMacosSeatbelt;
      return;
    }
    plan_.kind = PlanKind::kNone;
    AddSkipped("local wrapper", "", absl::StrCat("no local wrapper is wired for platform ", plan_.platform),
               Origin::Fact("platform"));
  }

  void AddMount(MountOp op, std::string src, std::string dest, std::string why, Origin origin) {
    plan_.mounts.push_back(Mount{op, std::move(src), std::move(dest), std::move(why), std::move(origin)});
  }

  absl::Status BuildMounts() {
    Origin base = Origin::Default("bwrap base view");
    AddMount(MountOp::kRoBind, "/", "/", "read-only root view", base);
    AddMount(MountOp::kDev, "", "/dev", "private /dev", base);
    AddMount(MountOp::kProc, "", "/proc", "private /proc", base);
    AddMount(MountOp::kTmpfs, "", "/tmp", "private /tmp", base);
    if (in_.spec.bwrap_dev_roots) {
      for (const auto& d : in_.spec.bwrap_dev_roots->value) {
        CWSC_ASSIGN_OR_RETURN(std::string p, ExpandSettingPath(d, vars_));
        PathInfo info = facts_.Path(p);
        if ((info.type == FileType::kCharDevice || info.type == FileType::kBlockDevice) &&
            LauncherCanReach(info.canonical, "bwrap_dev_roots", d.origin)) {
          AddMount(MountOp::kDevBind, info.canonical, info.canonical, "device root", d.origin);
        } else {
          AddSkipped("bwrap_dev_roots", p,
                     info.type == FileType::kMissing ? "missing" : "not a character or block device",
                     d.origin);
        }
      }
    }
    // Writable binds: canonical, sorted by component, deduplicated.
    std::vector<const ir::Root*> writable;
    for (const ir::Root& r : plan_.roots) {
      if (r.mounted) writable.push_back(&r);
    }
    std::sort(writable.begin(), writable.end(),
              [](const ir::Root* a, const ir::Root* b) { return PathLess(a->canonical, b->canonical); });
    for (const ir::Root* r : writable) {
      if (!LauncherCanReach(r->canonical, "writable root", r->origin)) continue;
      AddMount(MountOp::kBind, r->canonical, r->canonical,
               absl::StrCat("writable root (", ir::RootSourceName(r->source), ")"), r->origin);
    }
    // Protected descendants: canonical, sorted, deduplicated.
    std::vector<std::pair<std::string, Origin>> prot;
    std::set<std::string> prot_seen;  // a scan of `prot` made this quadratic
    for (ir::Root& r : plan_.roots) {
      if (!r.mounted) continue;
      for (ir::Protected& p : r.protected_paths) {
        if (!p.skip_reason.empty()) continue;
        p.applied = true;
        if (prot_seen.insert(p.canonical).second) prot.emplace_back(p.canonical, p.origin);
      }
    }
    // Duplicate roots share their protected paths; mark those applied too.
    for (ir::Root& r : plan_.roots) {
      for (ir::Protected& p : r.protected_paths) {
        if (r.skip_reason == "duplicate" && p.skip_reason.empty()) p.applied = true;
      }
    }
    std::sort(prot.begin(), prot.end(),
              [](const auto& a, const auto& b) { return PathLess(a.first, b.first); });
    for (const auto& [path, origin] : prot) {
      if (!LauncherCanReach(path, "protected descendant", origin)) continue;
      AddMount(MountOp::kRoBind, path, path, "protected descendant stays read-only", origin);
    }
    // Read-only mode with a working directory under /tmp: the tmpfs would hide
    // it (bwrap: "Can't chdir"); show it read-only instead.
    if (plan_.policy.type == PolicyType::kReadOnly) {
      std::string canon = facts_.Path(in_.cwd).canonical;
      if (!canon.empty() && PathStartsWith(canon, "/tmp")) {
        AddMount(MountOp::kRoBind, canon, canon,
                 "working directory under /tmp stays visible (read-only) over the private /tmp",
                 Origin::Fact(absl::StrCat("working directory ", in_.cwd, " is under /tmp")));
      }
    }
    if (in_.spec.bwrap_ro_roots) {
      for (const auto& r : in_.spec.bwrap_ro_roots->value) {
        CWSC_ASSIGN_OR_RETURN(std::string p, ExpandSettingPath(r, vars_));
        PathInfo info = facts_.Path(p);
        if (info.type != FileType::kDirectory) {
          AddSkipped("bwrap_ro_roots", p,
                     info.type == FileType::kMissing ? "missing" : "not a directory", r.origin);
        } else if (info.canonical == "/") {
          AddSkipped("bwrap_ro_roots", p, "canonicalizes to /", r.origin);
        } else if (LauncherCanReach(info.canonical, "bwrap_ro_roots", r.origin)) {
          AddMount(MountOp::kRoBind, info.canonical, info.canonical, "extra read-only root", r.origin);
        }
      }
    }
    // Deny masks (§8.6); for a launcher plan computed for the launcher's user.
    for (ir::Mount& m : DenyMasks(facts_, plan_.denied_read, launcher_user_ ? &*launcher_user_ : nullptr)) {
      plan_.mounts.push_back(std::move(m));
    }
    if (plan_.mounts.size() > kMountWarnThreshold) {
      plan_.warnings.push_back(ir::Warning{
          "many-mounts",
          absl::StrCat(plan_.mounts.size(), " mount operations; every launch pays for each one"),
          Origin::Default("mount count")});
    }
    return absl::OkStatus();
  }

  const ResolveInput& in_;
  HostFacts& facts_;
  LaunchPlan plan_;
  PathVars vars_;
  std::vector<Origin> configured_origins_;
  std::optional<Identity> launcher_user_;  // set when a launcher probe passed
};

}  // namespace

absl::StatusOr<std::string> ExpandSettingPath(const Setting<std::string>& s, const PathVars& vars) {
  absl::StatusOr<std::string> p = ExpandPath(s.value, vars);
  if (p.ok()) return p;
  const Origin& o = s.origin;
  std::string msg = absl::StrCat(o.detail, ": ", p.status().message());
  if (o.file.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(o.Describe(), ": error: ", msg, "\n"));
  }
  return ir::ErrorAt(o.file, o.line, o.col, msg);
}

std::string PostureLabel(const LaunchPlan& plan) {
  const ir::Policy& p = plan.policy;
  const char* net = p.network_access ? "network allowed" : "network blocked";
  if (plan.kind == PlanKind::kOpenSandbox) {
    const char* tag = p.type == PolicyType::kDangerFullAccess ? "full-access" : ir::PolicyTypeName(p.type);
    return absl::StrCat(tag, " policy (external execution backend configured; filesystem/network "
                             "isolation unverified by Codewhale)");
  }
  std::string label;
  switch (p.type) {
    case PolicyType::kDangerFullAccess: label = "full access (sandbox disabled)"; break;
    case PolicyType::kReadOnly:
      label = "read-only (shell writes are blocked; ordinary approval does not change this)";
      break;
    case PolicyType::kExternalSandbox: label = absl::StrCat("external sandbox (host-managed; ", net, ")"); break;
    case PolicyType::kWorkspaceWrite:
      label = absl::StrCat("workspace-write (writes inside the workspace",
                           p.writable_roots.size() > 1 ? " and approved roots" : "", "; ", net, ")");
      break;
  }
  if (!p.ShouldSandbox()) return label;
  bool local = plan.kind == PlanKind::kLinuxBwrap || plan.kind == PlanKind::kMacosSeatbelt ||
               plan.kind == PlanKind::kLauncherBwrap;
  if (local) return label + " (local OS sandbox applied)";
  return label + " (policy only; no execution sandbox available)";
}

absl::StatusOr<LaunchPlan> ResolvePlan(const ResolveInput& in, HostFacts& facts) {
  return Resolver(in, facts).Run();
}

}  // namespace cwsc::compiler
