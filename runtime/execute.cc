#include "runtime/execute.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/bwrap.h"
#include "backends/seccomp_filter.h"
#include "backends/verify/bwrap_interp.h"
#include "ir/constants.h"
#include "ir/display.h"
#include "ir/status_macros.h"
#include "nlohmann/json.hpp"
#include "runtime/attribution.h"
#include "runtime/bind_fds.h"
#include "runtime/foreground.h"
#include "runtime/host/probe_cache.h"
#include "runtime/host/spawn.h"
#include "runtime/landlock.h"
#include "runtime/launch.h"
#include "runtime/launcher_check.h"
#include "runtime/mount_check.h"
#include "runtime/opensandbox.h"
#include "runtime/protected_dirs.h"
#include "runtime/protected_walk.h"
#include "runtime/replay.h"

extern char** environ;

namespace cwsc::runtime {
namespace {

using compiler::FileType;
using compiler::PathInfo;
using ir::LaunchPlan;
using ir::MountOp;

absl::string_view Sv(const std::string& s) { return absl::string_view(s.data(), s.size()); }

bool Allowed(const std::string& name, const std::vector<std::string>& allow) {
  for (const std::string& entry : allow) {  // ASCII case-insensitive, without copies
    absl::string_view e = Sv(entry);
    if (!e.empty() && e.back() == '*') {
      if (absl::StartsWithIgnoreCase(Sv(name), e.substr(0, e.size() - 1))) return true;
    } else if (absl::EqualsIgnoreCase(Sv(name), e)) {
      return true;
    }
  }
  return false;
}

std::string ParentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

std::string Base(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The exec-time recheck of a bubblewrap plan (docs/runtime.md): one
// function per row, run in this order by CheckBwrapPlan. Each returns
// FailedPrecondition with the reason the plan cannot run here.

// CheckMaskDirectory: a masking tmpfs (a deny mask, a kernel mask, a
// placeholder: every tmpfs but the base view's /tmp, which ir::Validate
// holds to /tmp) masks a directory that must still be one, or a
// placeholder bwrap can create in a writable bind.
absl::Status CheckMaskDirectory(size_t i, const ir::Mount& m, compiler::HostFacts& facts,
                                const backends::BwrapView& view) {
  if (m.op != MountOp::kTmpfs || m.role == ir::MountRole::kBase) return absl::OkStatus();
  const PathInfo& d = facts.Path(m.dest);
  bool creatable = d.type == FileType::kMissing && !d.is_symlink &&
                   view.Find(ParentOf(m.dest)).access == backends::Access::kWritable;
  if (d.type != FileType::kDirectory && !creatable) {
    return absl::FailedPreconditionError(
        absl::StrCat("mount ", i + 1, " (", backends::MountOpFlag(m.op), " ", m.dest.str(), ": ",
                     m.why.str(), ") expects a directory, but ", m.dest.str(), " is now ",
                     d.type == FileType::kMissing ? "missing" : compiler::FileTypeName(d.type),
                     "; compile the plan again"));
  }
  return absl::OkStatus();
}

// CheckFileMask: a /dev/null mask still covers a file (bwrap cannot bind a
// file over a directory).
absl::Status CheckFileMask(size_t i, const ir::Mount& m, compiler::HostFacts& facts) {
  if (m.source == "/dev/null" && facts.Path(m.dest).type == FileType::kDirectory) {
    return absl::FailedPreconditionError(
        absl::StrCat("mount ", i + 1, " (", m.why.str(), ") masks the file ", m.dest.str(),
                     ", which is now a directory; compile the plan again"));
  }
  return absl::OkStatus();
}

// CheckMounts runs CheckMaskDirectory or CheckFileMask on every mount; what
// a bind's source is now, the replay of the plan's facts has asked.
absl::Status CheckMounts(const LaunchPlan& plan, compiler::HostFacts& facts,
                         const backends::BwrapView& view) {
  const std::span<const ir::Mount> mounts = plan.mounts();
  for (size_t i = 0; i < mounts.size(); ++i) {
    const ir::Mount& m = mounts[i];
    absl::Status s = m.source.empty() || m.source == "/"  // "/" always exists
                         ? CheckMaskDirectory(i, m, facts, view)
                         : CheckFileMask(i, m, facts);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// CheckSyscallFilter: a plan without the seccomp stage (compiled by an older
// cwsc) would run without the terminal and socket rules.
absl::Status CheckSyscallFilter(const LaunchPlan& plan) {
  const ir::Bwrap* bwrap = plan.bwrap();
  if (bwrap != nullptr && bwrap->launcher.empty() && !bwrap->syscall_filter) {
    return absl::FailedPreconditionError(
        "the plan has no syscall filter (it was compiled by an older cwsc); compile the plan "
        "again");
  }
  return absl::OkStatus();
}

// CheckKernelMasks: the kernel interfaces of ir/constants.h this host has
// are masked, for a command that runs as root here: a mount of the plan at
// the interface itself (a read-only bind, a /dev/null file, a tmpfs) or a
// tmpfs above it decides what the sandbox sees there. What `--proc /proc`
// or the root's bind shows is the kernel's own, in reach of root.
absl::Status CheckKernelMasks(const LaunchPlan& plan, compiler::HostFacts& facts,
                              const backends::BwrapView& view) {
  // Under a launcher the command runs as the launcher's user, not root.
  const ir::Bwrap* bwrap = plan.bwrap();
  if (bwrap == nullptr || !bwrap->launcher.empty() || facts.Uid() != 0) return absl::OkStatus();
  std::vector<const char*> kernel(std::begin(ir::kKernelReadOnly), std::end(ir::kKernelReadOnly));
  kernel.insert(kernel.end(), std::begin(ir::kKernelMaskedFiles), std::end(ir::kKernelMaskedFiles));
  kernel.insert(kernel.end(), std::begin(ir::kKernelMaskedDirs), std::end(ir::kKernelMaskedDirs));
  for (const char* k : kernel) {
    if (facts.Path(k).type == FileType::kMissing) continue;
    backends::Lookup seen = view.Find(k);
    bool masked = false;
    if (seen.layer >= 0 && static_cast<size_t>(seen.layer) < view.layers.size()) {
      const backends::MountLayer& l = view.layers[static_cast<size_t>(seen.layer)];
      bool hides =
          seen.access == backends::Access::kHidden || seen.access == backends::Access::kPrivate;
      masked = l.op != "--proc" && l.op != "--dev" &&
               (l.dest == k ? hides || seen.access == backends::Access::kReadOnly : hides);
    }
    if (!masked) {
      return absl::FailedPreconditionError(
          absl::StrCat("the kernel interface ", k,
                       " exists on this host but the plan does not mask it; "
                       "compile the plan again"));
    }
  }
  return absl::OkStatus();
}

// CheckDeniedHardLinks: a denied file with a second hard link is readable
// under the other name, which no mask and no Landlock rule hides (both go
// by path). A command that could write the file's directory while the file
// was missing can leave such a name (`touch ~/.netrc; ln ~/.netrc notes`)
// and read the secret the user writes there later. The run is refused,
// naming the file and how to find the other names.
absl::Status CheckDeniedHardLinks(const LaunchPlan& plan) {
  for (const ir::DeniedPath& d : plan.denied_read) {
    struct stat st {};
    // Followed: a denied symlink is masked with what it names.
    if (stat(d.path.str().c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        "the denied file ", d.path.str(), " (", d.rule, ") has ", st.st_nlink,
        " hard links; the sandbox could read it under another name; remove the extra links "
        "(find / -xdev -samefile ",
        d.path.str(), ")"));
  }
  return absl::OkStatus();
}

// FileKind names what lstat found, for a refusal.
const char* FileKind(mode_t mode) {
  if (S_ISLNK(mode)) return "a symlink";
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a directory";
}

// CheckProtectedNameTypes: a protected name in a writable root is a
// directory (bound read-only), missing (an empty read-only directory takes
// it), or, for a name of the policy's own, a regular file. Anything else is
// not protected at all: the command removes a FIFO, socket or file at
// `.codewhale` and makes the directory with a config of its own, or fills
// the directory a symlink there names (dangling or not). An earlier run
// whose root was the parent's parent could have left it. The run is
// refused, naming it, before anything follows it.
absl::Status CheckProtectedNameTypes(const LaunchPlan& plan) {
  for (const ir::Root& r : plan.roots) {
    if (!r.writable_bind || r.canonical.empty()) continue;
    std::set<std::string> names(std::begin(ir::kConfigDirNames), std::end(ir::kConfigDirNames));
    for (const ir::Protected& p : r.protected_paths) names.insert(Base(p.path));
    names.erase(".git");  // a worktree's .git is a file; worktree discovery judges it
    for (const std::string& name : names) {
      std::string path = r.canonical.str() + "/" + name;
      struct stat st {};
      if (lstat(path.c_str(), &st) != 0) continue;  // missing: a placeholder takes it
      if (S_ISDIR(st.st_mode)) continue;
      bool builtin = std::find(std::begin(ir::kConfigDirNames), std::end(ir::kConfigDirNames),
                               name) != std::end(ir::kConfigDirNames);
      if (S_ISREG(st.st_mode) && !builtin) continue;
      return absl::FailedPreconditionError(absl::StrCat(
          "the protected name ", path, " is ", FileKind(st.st_mode),
          ", so nothing protects it: the sandboxed command could put a directory with a config "
          "of its own there",
          S_ISLNK(st.st_mode) ? " or in what it names" : "",
          "; an earlier run could have left it; remove it or make it a directory"));
    }
  }
  return absl::OkStatus();
}

// CheckNewProtectedDirs: a protected directory that appeared under a
// writable root after the compile would be writable.
absl::Status CheckNewProtectedDirs(const LaunchPlan& plan, compiler::HostFacts& facts,
                                   const backends::BwrapView& view) {
  for (const ir::Root& r : plan.roots) {
    if (!r.writable_bind) continue;
    std::set<std::string> names(std::begin(ir::kConfigDirNames), std::end(ir::kConfigDirNames));
    for (const ir::Protected& p : r.protected_paths) names.insert(Base(p.path));
    for (const std::string& name : names) {
      std::string path = r.canonical + "/" + name;
      const PathInfo& info = facts.Path(path);
      if (info.type != FileType::kDirectory || info.canonical.empty()) continue;
      if (view.Find(info.canonical).access == backends::Access::kWritable) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the protected directory ", path,
            " appeared after the plan was compiled and would be writable; compile the plan "
            "again"));
      }
    }
  }
  return absl::OkStatus();
}

// CheckProtectedLinks: no protected directory holds a file with a second
// hard link or a symlink leading out of it, at any depth; a walk that runs
// out of budget refuses (runtime/protected_walk.h).
absl::Status CheckProtectedLinks(const LaunchPlan& plan) {
  std::set<std::string> walked;  // duplicate roots share their protected paths
  size_t budget = kProtectedWalkBudget;
  for (const ir::Root& r : plan.roots) {
    for (const ir::Protected& p : r.protected_paths) {
      if (!p.applied || p.placeholder || p.canonical.empty()) continue;
      if (!walked.insert(p.canonical).second) continue;
      CWSC_RETURN_IF_ERROR(CheckProtectedTree(p.canonical, r.canonical, &budget));
    }
  }
  return absl::OkStatus();
}

// CheckWorkingDirectory: the working directory exists and is visible inside
// the sandbox.
absl::Status CheckWorkingDirectory(const LaunchPlan& plan, compiler::HostFacts& facts,
                                   const backends::BwrapView& view) {
  const PathInfo& cwd = facts.Path(plan.cwd);
  if (cwd.type != FileType::kDirectory) {
    return absl::FailedPreconditionError(
        absl::StrCat("the working directory ", plan.cwd, " is ",
                     cwd.type == FileType::kMissing ? "missing" : "not a directory"));
  }
  backends::Lookup seen = view.Find(cwd.canonical.empty() ? plan.cwd : cwd.canonical);
  if (seen.access == backends::Access::kReadOnly || seen.access == backends::Access::kWritable) {
    return absl::OkStatus();
  }
  std::string by;
  if (seen.layer >= 0 && static_cast<size_t>(seen.layer) < view.layers.size()) {
    const backends::MountLayer& l = view.layers[static_cast<size_t>(seen.layer)];
    by = absl::StrCat(" (hidden by `", l.op, l.source.empty() ? "" : " " + l.source, " ", l.dest,
                      "`)");
  }
  return absl::FailedPreconditionError(
      absl::StrCat("the working directory ", plan.cwd, " would not be visible inside the sandbox",
                   by, "; run from a directory outside it or choose a mode that binds it"));
}

// CheckBwrapPlan re-checks what an emitted bwrap argv relies on, one row of
// the recheck table at a time, against the view the argv would give: first
// the facts the compile consulted, asked again (runtime/replay.h), then the
// checks of the plan against the host as it is.
absl::Status CheckBwrapPlan(const LaunchPlan& plan, compiler::HostFacts* facts) {
  // A launcher plan runs bwrap as the launcher's user: its own probe
  // decides (compiler/launcher.h), not the engine user's bwrap probe.
  if (!plan.bwrap()->launcher.empty()) CWSC_RETURN_IF_ERROR(RecheckLauncher(plan, *facts));
  absl::StatusOr<backends::EmittedArgv> argv = backends::EmitBwrapArgv(plan, {"/bin/true"});
  if (!argv.ok()) return argv.status();
  absl::StatusOr<backends::BwrapView> view = backends::InterpretBwrapArgv(backends::Texts(*argv));
  if (!view.ok()) return view.status();
  CWSC_RETURN_IF_ERROR(ReplayConsulted(plan, *facts, &*view));
  CWSC_RETURN_IF_ERROR(CheckMounts(plan, *facts, *view));
  CWSC_RETURN_IF_ERROR(CheckSyscallFilter(plan));
  CWSC_RETURN_IF_ERROR(CheckKernelMasks(plan, *facts, *view));
  CWSC_RETURN_IF_ERROR(CheckDeniedHardLinks(plan));
  CWSC_RETURN_IF_ERROR(CheckProtectedNameTypes(plan));
  CWSC_RETURN_IF_ERROR(CheckNewProtectedDirs(plan, *facts, *view));
  CWSC_RETURN_IF_ERROR(CheckProtectedLinks(plan));
  return CheckWorkingDirectory(plan, *facts, *view);
}

// Say prints one line of cwsc's own on stderr. The text quotes values a
// command or the host may have written (a path, bwrap's stderr), so it is
// shown escaped (ir/display.h).
void Say(const std::string& text) {
  std::fprintf(stderr, "cwsc: %s\n", ir::Displayable(text).c_str());
}

}  // namespace

std::vector<std::string> CurrentEnviron() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

std::vector<std::string> ChildEnv(const LaunchPlan& plan, const std::vector<std::string>& parent) {
  std::vector<std::string> env;
  for (const std::string& kv : parent) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    if (Allowed(kv.substr(0, eq), plan.env_allow)) env.push_back(kv);
  }
  for (const ir::EnvVar& v : plan.env_set) {
    std::string kv = v.name + "=" + v.value;
    bool replaced = false;
    for (std::string& e : env) {
      if (e.compare(0, v.name.size() + 1, v.name + "=") == 0) {
        e = kv;
        replaced = true;
      }
    }
    if (!replaced) env.push_back(kv);
  }
  return env;
}

absl::Status RecheckPlan(const LaunchPlan& plan, compiler::HostFacts* facts) {
  std::string platform = facts->Platform();
  if (ir::PlatformName(plan.platform) != platform) {
    return absl::FailedPreconditionError(absl::StrCat("the plan was compiled for ",
                                                      ir::PlatformName(plan.platform),
                                                      ", but this host is ", platform));
  }
  // A host whose managed config pins a launcher runs nothing else (docs/launcher.md).
  if (platform == "linux") {
    absl::Status pinned = CheckHostLauncher(plan, *facts);
    if (!pinned.ok()) return pinned;
  }
  if (plan.bwrap()) return CheckBwrapPlan(plan, facts);
  // A Landlock ruleset and an unconfined run: no path the compile asked
  // about may have changed, and (Landlock) no denied file has a second name.
  CWSC_RETURN_IF_ERROR(ReplayConsulted(plan, *facts, nullptr));
  if (plan.landlock()) CWSC_RETURN_IF_ERROR(CheckDeniedHardLinks(plan));
  if (std::holds_alternative<ir::Unconfined>(plan.launch) || plan.landlock()) {
    const PathInfo& cwd = facts->Path(plan.cwd);
    if (cwd.type != FileType::kDirectory) {
      return absl::FailedPreconditionError(
          absl::StrCat("the working directory ", plan.cwd, " is ",
                       cwd.type == FileType::kMissing ? "missing" : "not a directory"));
    }
  }
  return absl::OkStatus();
}

bool RefusedForWantOfASandbox(const LaunchPlan& plan) {
  if (!plan.refusal()) return false;
  // The refusal's origin is the setting that asked for it (compiler/resolve_wrapper.cc,
  // RefuseUnconfinedIfRequired): the key in a config, or the flag.
  const ir::Origin& o = plan.refusal()->origin;
  if (o.kind == ir::Origin::Kind::kCli) return o.detail == "--require-sandbox";
  return o.detail == "sandbox_require" || o.detail == "sandboxRequire";
}

absl::StatusOr<PreparedCommand> PrepareCommand(const LaunchPlan& plan,
                                               const std::vector<std::string>& program,
                                               const std::vector<std::string>& parent_env) {
  if (program.empty()) return absl::InvalidArgumentError("no program given after `--`");
  PreparedCommand cmd;
  cmd.sandbox_kind = ir::PlanKindName(plan.kind());
  // The one place that decides how each plan kind runs.
  absl::Status st = std::visit(
      ir::Overloaded{
          [&](const ir::Refusal& r) { return absl::FailedPreconditionError(r.reason); },
          [](const ir::Remote&) {
            return absl::FailedPreconditionError(
                "opensandbox plans run on a remote OpenSandbox server (ExecutePlan sends them "
                "there); there is no local command to prepare");
          },
          [](const ir::Seatbelt&) {
            return absl::FailedPreconditionError(
                "macos-seatbelt plans run only on macOS (sandbox-exec); this runtime executes "
                "linux-bwrap, launcher+bwrap and none plans");
          },
          [&](const ir::Unconfined&) {
            cmd.argv = program;
            cmd.cwd = plan.cwd;
            if (plan.policy.ShouldSandbox()) {
              cmd.warnings.push_back(absl::StrCat(
                  "the command runs without a sandbox although the policy is ",
                  ir::PolicyTypeName(plan.policy.type),
                  plan.skipped.empty() ? std::string()
                                       : absl::StrCat(" (", plan.skipped.back().what, ": ",
                                                      plan.skipped.back().reason, ")")));
            }
            return absl::OkStatus();
          },
          [&](const ir::LandlockLaunch&) {
            // The runtime confines the child itself (runtime/landlock.h).
            cmd.argv = program;
            cmd.cwd = plan.cwd;
            for (const ir::Warning& w : plan.warnings) {
              if (w.code == "landlock-fallback") cmd.warnings.push_back(w.message);
            }
            return absl::OkStatus();
          },
          [&](const ir::Bwrap&) {
            absl::StatusOr<backends::EmittedArgv> argv = backends::EmitBwrapArgv(plan, program);
            if (!argv.ok()) return argv.status();
            cmd.argv = backends::Texts(*argv);
            return absl::OkStatus();
          }},
      plan.launch);
  if (!st.ok()) return st;
  cmd.env = ChildEnv(plan, parent_env);
  return cmd;
}

ExecOutcome ExecutePlan(const LaunchPlan& plan, const ExecRequest& request,
                        compiler::HostFacts* facts) {
  if (plan.remote()) return ExecuteRemote(plan, request);  // opensandbox.h
  LaunchOptions options;
  options.program = request.program;
  options.parent_env = CurrentEnviron();
  options.require_sandbox = request.require_sandbox;
  options.foreground_shim = AtTerminalInForeground();
  options.timeout_seconds = request.timeout_seconds;
  options.kill_grace_seconds = request.kill_grace_seconds;
  LaunchRefusal refusal;
  std::unique_ptr<LocalLaunch> launch = LocalLaunch::Prepare(plan, options, facts, &refusal);
  if (!launch) {
    ExecOutcome out;
    out.sandbox_kind = ir::PlanKindName(plan.kind());
    out.refusal = refusal.reason;
    out.cwsc_exit_code = refusal.exit_code;
    Say("refused: " + refusal.reason);
    return out;
  }
  for (const std::string& w : launch->warnings()) Say("warning: " + w);
  std::fflush(stderr);
  SpawnError err;
  absl::StatusOr<SpawnResult> r = SpawnAndWait(launch->request(), &err);
  launch->EndHolds();
  ExecOutcome out = r.ok() ? launch->Finish(*r) : launch->SpawnFailed(r.status(), err);
  out.warnings = launch->warnings();
  if (!r.ok()) {
    Say(out.error);
  } else if (!out.refusal.empty()) {
    Say("refused: " + out.refusal);
  } else if (out.timed_out) {
    std::fprintf(stderr, "cwsc: timed out after %g s; the command and its processes were ended\n",
                 request.timeout_seconds);
  } else if (!out.error.empty()) {
    Say(out.error);  // the program could not be started inside the sandbox
  } else if (out.sandbox_denied) {
    Say(absl::StrCat("sandbox denied (", out.sandbox_kind, "): ", out.denial_message,
                     " Effective sandbox posture: ", plan.posture_label, "."));
  }
  return out;
}

std::string ResultToJson(const ExecOutcome& o) {
  nlohmann::ordered_json j;
  j["sandbox_kind"] = o.sandbox_kind;
  j["ran"] = o.ran;
  j["exit_code"] = o.ran ? nlohmann::ordered_json(o.exit_code) : nlohmann::ordered_json(nullptr);
  j["signal"] = o.signal ? nlohmann::ordered_json(*o.signal) : nlohmann::ordered_json(nullptr);
  j["timed_out"] = o.timed_out;
  j["sandbox_denied"] = o.sandbox_denied;
  j["denial_message"] =
      o.sandbox_denied ? nlohmann::ordered_json(o.denial_message) : nlohmann::ordered_json(nullptr);
  j["refused"] =
      o.refusal.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.refusal);
  j["error"] = o.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.error);
  j["cwsc_exit_code"] = o.cwsc_exit_code;
  if (o.sandbox_kind == "opensandbox") j["not_enforced"] = o.not_enforced;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace cwsc::runtime
