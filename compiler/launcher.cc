#include "compiler/launcher.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "compiler/modes.h"
#include "compiler/paths.h"
#include "ir/constants.h"

namespace cwsc::compiler {
namespace {

using ir::Origin;
using ir::PlanKind;

std::string Octal(uint32_t mode) { return absl::StrFormat("%04o", mode); }

std::string Base(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Where(const Origin& o) {
  if (o.file.empty()) return o.Describe();
  return absl::StrCat(o.file.str(), ":", o.line, ":", o.col);
}

// The path itself, then each directory above it, up to "/".
std::vector<std::string> SelfAndAncestors(const std::string& path) {
  std::vector<std::string> out;
  std::string cur = LexicalNormalize(path);
  while (true) {
    out.push_back(cur);
    if (cur == "/") break;
    cur = ParentPath(cur);
  }
  return out;
}

// SudoIsNonInteractive: -n, --non-interactive, or a flag cluster such as
// -nu (before any option that takes a value), before the first "--".
bool SudoIsNonInteractive(const std::vector<std::string>& launcher) {
  for (size_t i = 1; i < launcher.size(); ++i) {
    const std::string& a = launcher[i];
    if (a == "--") break;
    if (a == "-n" || a == "--non-interactive") return true;
    if (a.size() > 2 && a[0] == '-' && a[1] != '-') {
      for (size_t k = 1; k < a.size(); ++k) {
        if (a[k] == 'n') return true;
        if (std::string("ugphCDrtURT").find(a[k]) != std::string::npos) break;  // takes a value
      }
    }
  }
  return false;
}

}  // namespace

std::string UserText(const Identity& who) {
  return absl::StrCat("uid ", who.uid, ", groups ", absl::StrJoin(who.gids, " "));
}

bool Identity::InGroup(uint32_t gid) const {
  return std::find(gids.begin(), gids.end(), gid) != gids.end();
}

Identity EngineIdentity(const UserInfo& user) {
  Identity id;
  id.uid = user.uid;
  id.gids = user.groups;
  id.gids.push_back(user.gid);
  std::sort(id.gids.begin(), id.gids.end());
  id.gids.erase(std::unique(id.gids.begin(), id.gids.end()), id.gids.end());
  return id;
}

bool CanSearch(const PathInfo& dir, const Identity& who) {
  if (who.uid == 0) return true;
  if (dir.uid == who.uid) return (dir.mode & 0100) != 0;
  if (who.InGroup(dir.gid)) return (dir.mode & 0010) != 0;
  return (dir.mode & 0001) != 0;
}

std::string WhyChangeable(HostFacts& facts, const std::string& path, const Identity& who,
                          const std::string& label) {
  if (who.uid == 0) return absl::StrCat(label, " has uid 0 (root), which can change any file");
  std::vector<std::string> chain = SelfAndAncestors(path);
  for (size_t i = 0; i < chain.size(); ++i) {
    const std::string& p = chain[i];
    const PathInfo& info = facts.Path(p);
    if (info.type == FileType::kMissing) continue;
    if (info.uid == who.uid) {
      return absl::StrCat(p, " is owned by ", label, " (uid ", who.uid, ")");
    }
    bool group_class = who.InGroup(info.gid);
    bool writable = group_class ? (info.mode & 0020) != 0 : (info.mode & 0002) != 0;
    // Outside the owning group, group write bits may be a POSIX ACL's mask
    // over an entry naming `who` (cwsc reads no ACL; docs/decisions.md, "An
    // ACL entry is a writer").
    bool acl_mask = !group_class && !writable && (info.mode & 0020) != 0;
    if (!writable && !acl_mask) continue;
    // In a sticky directory only an entry's owner may rename or remove it;
    // the entry below (chain[i - 1]) is not owned by `who` (checked above).
    if (i > 0 && info.type == FileType::kDirectory && (info.mode & 01000) != 0) continue;
    if (group_class) {
      return absl::StrCat(p, " is group-writable (mode ", Octal(info.mode), ", group ", info.gid,
                          ") and ", label, " is in that group");
    }
    if (acl_mask) {
      return absl::StrCat(p, " is group-writable (mode ", Octal(info.mode), ", group ", info.gid,
                          "): with a POSIX ACL those bits are its mask, and an entry may let ",
                          label, " write it");
    }
    return absl::StrCat(p, " is writable by every user (mode ", Octal(info.mode), ")");
  }
  return "";
}

std::optional<std::string> FirstUnsearchable(HostFacts& facts, const std::string& path,
                                             const Identity& who) {
  std::vector<std::string> chain = SelfAndAncestors(path);
  // Highest first; the path itself is not an ancestor.
  for (size_t i = chain.size(); i-- > 1;) {
    const PathInfo& info = facts.Path(chain[i]);
    if (info.type != FileType::kDirectory) return std::nullopt;
    if (!CanSearch(info, who)) return chain[i];
  }
  return std::nullopt;
}

std::string UnreachableReason(HostFacts& facts, const std::string& source, const Identity& user) {
  std::optional<std::string> dir = FirstUnsearchable(facts, source, user);
  if (!dir) return "";
  return absl::StrCat("the launcher's user (uid ", user.uid, ") cannot reach it: it cannot search ",
                      *dir);
}

LauncherTrust CheckLauncherTrust(HostFacts& facts, const ManagedLayer& managed,
                                 const std::optional<Setting<std::string>>& pointer) {
  LauncherTrust t;
  const std::string& file = managed.path;
  auto refuse = [&](const std::string& rule) {
    t.trusted = false;
    t.refusal = absl::StrCat("tool_launcher in ", file, " is refused: ", rule);
    return t;
  };
  std::string platform = facts.Platform();
  if (platform != "linux") {
    return refuse(
        absl::StrCat("a launcher is honored only on Linux (this host is ", platform, ")"));
  }
  bool default_path = file == kDefaultManagedConfigPath || file == kLegacyManagedConfigPath;
  if (!managed.from_env_or_default && !default_path) {
    return refuse(absl::StrCat(
        "the managed file was named by managed_config_path (",
        pointer ? pointer->origin.Describe() : std::string("a user config"),
        "); a launcher is honored only from the file named by CODEWHALE_MANAGED_CONFIG_PATH or "
        "the default managed path ",
        kDefaultManagedConfigPath));
  }
  if (file.empty() || file[0] != '/') {
    return refuse("the managed path must be absolute");
  }
  const PathInfo& info = facts.Path(file);
  if (info.is_symlink) {
    return refuse(absl::StrCat("the managed path is a symlink (to ",
                               info.canonical.empty() ? std::string("nothing") : info.canonical,
                               "); name the real file"));
  }
  if (info.canonical != file) {
    return refuse(absl::StrCat(
        "the managed path is reached through a symlink or a non-canonical spelling (it resolves "
        "to ",
        info.canonical.empty() ? std::string("nothing") : info.canonical, "); name the real file"));
  }
  if (info.type != FileType::kRegular) return refuse("the managed path is not a regular file");
  UserInfo user = facts.User();
  std::string label = absl::StrCat("the engine's user", user.name.empty() ? "" : " ", user.name);
  std::string why = WhyChangeable(facts, file, EngineIdentity(user), label);
  if (!why.empty()) {
    return refuse(absl::StrCat(
        "the engine's user can change it or a directory above it: ", why,
        " (checked with mode bits and group membership; group write bits also count as a "
        "POSIX ACL's mask)"));
  }
  if (!managed.spec.sandbox_mode) {
    return refuse(
        "the managed file must set sandbox_mode itself, to workspace-write or read-only (a "
        "sandbox_mode from a user config or the environment does not count)");
  }
  ir::PolicyType mode = managed.spec.sandbox_mode->value.type;
  if (mode != ir::PolicyType::kWorkspaceWrite && mode != ir::PolicyType::kReadOnly) {
    return refuse(
        absl::StrCat("its sandbox_mode '", managed.spec.sandbox_mode->value.text, "' (",
                     Where(managed.spec.sandbox_mode->origin),
                     ") would skip the sandbox; it must be workspace-write or read-only"));
  }
  for (const std::string& p : SelfAndAncestors(file)) {
    const PathInfo& pi = facts.Path(p);
    if (pi.uid != 0) {
      t.warnings.push_back(ir::Warning{
          "managed-not-root-owned",
          absl::StrCat(p, " is owned by uid ", pi.uid,
                       ", not root; its owner can change the launcher; keep the managed file and "
                       "every directory above it root-owned"),
          Origin::Fact(absl::StrCat("owner of ", p))});
      break;
    }
  }
  t.trusted = true;
  return t;
}

std::vector<ir::Mount> DenyMasks(HostFacts& facts, const std::vector<ir::DeniedPath>& denied,
                                 const Identity* launcher_user) {
  std::vector<ir::Mount> out;
  out.reserve(denied.size());
  std::vector<std::string> raised;
  for (const ir::DeniedPath& d : denied) {
    if (launcher_user != nullptr) {
      bool covered = false;
      for (const std::string& r : raised) covered = covered || PathStartsWith(d.path, r);
      if (covered) continue;
      if (std::optional<std::string> top = FirstUnsearchable(facts, d.path, *launcher_user)) {
        raised.push_back(*top);
        out.push_back(ir::Mount{
            ir::MountOp::kTmpfs, "", *top,
            absl::StrCat("deny read ", d.rule, " (masked at ", *top, ": the launcher's user uid ",
                         launcher_user->uid, " cannot search it)"),
            d.origin, ir::MountRole::kDenyMask});
        continue;
      }
    }
    const PathInfo& info = facts.Path(d.path);
    if (info.type == FileType::kMissing) continue;
    // "deny read <rule>", sized once.
    constexpr absl::string_view kDeny = "deny read ";
    std::string why;
    why.reserve(kDeny.size() + d.rule.size());
    why.append(kDeny.data(), kDeny.size()).append(d.rule);
    // The mask shares the denied path's text, and every file mask one "/dev/null".
    static const ir::SharedString* const kDevNull = new ir::SharedString("/dev/null");
    if (info.type == FileType::kDirectory) {
      out.push_back(ir::Mount{
          ir::MountOp::kTmpfs, {}, d.path, std::move(why), d.origin, ir::MountRole::kDenyMask});
    } else {
      out.push_back(ir::Mount{ir::MountOp::kReadOnlyBind, *kDevNull, d.path, std::move(why),
                              d.origin, ir::MountRole::kDenyMask});
    }
  }
  return out;
}

namespace {

// ProbeFlag spells a deny mask for the probe argv, as backends::MountOpFlag
// spells it for the plan's argv (launcher_test checks they agree).
const char* ProbeFlag(ir::MountOp op) {
  switch (op) {
    case ir::MountOp::kReadOnlyBind:
      return "--ro-bind";
    case ir::MountOp::kWritableBind:
      return "--bind";
    case ir::MountOp::kDeviceBind:
      return "--dev-bind";
    case ir::MountOp::kDev:
      return "--dev";
    case ir::MountOp::kProc:
      return "--proc";
    case ir::MountOp::kTmpfs:
      return "--tmpfs";
    case ir::MountOp::kRemountReadOnly:
      return "--remount-ro";
  }
  return "--ro-bind";
}

}  // namespace

std::vector<std::string> LauncherProbeBwrapArgv(const std::vector<ir::Mount>& masks) {
  // The plain probe argv (docs/behavior.md B-40) with the deny masks before --chdir.
  std::vector<std::string> base = BwrapProbeArgv();
  auto chdir = std::find(base.begin(), base.end(), "--chdir");
  std::vector<std::string> argv(base.begin(), chdir);
  for (const ir::Mount& m : masks) {
    argv.push_back(ProbeFlag(m.op));
    if (!m.source.empty()) argv.push_back(m.source);
    argv.push_back(m.dest);
  }
  argv.insert(argv.end(), chdir, base.end());
  return argv;
}

std::vector<ir::Warning> LintLauncher(HostFacts& facts, const std::vector<std::string>& launcher,
                                      const Origin& origin, const Identity* user) {
  std::vector<ir::Warning> out;
  if (launcher.empty()) return out;
  const std::string& first = launcher[0];
  if (first.empty() || first[0] != '/') {
    out.push_back({"launcher-not-absolute",
                   absl::StrCat("the launcher's first program '", first,
                                "' is not an absolute path; cwsc never searches PATH, so name it "
                                "as /usr/bin/",
                                Base(first), " or wherever it is installed"),
                   origin});
  }
  if (Base(first) == "sudo" && !SudoIsNonInteractive(launcher)) {
    out.push_back({"launcher-sudo-without-n",
                   "the launcher runs sudo without -n; without it sudo may wait for a password "
                   "instead of failing at once",
                   origin});
  }
  // Programs the launcher names (absolute paths of regular files), then bwrap.
  std::vector<std::pair<std::string, std::string>> programs;
  for (const std::string& a : launcher) {
    if (a.empty() || a[0] != '/') continue;
    if (facts.Path(a).type != FileType::kRegular) continue;
    programs.emplace_back(a, "the launcher program");
  }
  for (const auto& [path, what] : programs) {
    std::optional<std::string> text = facts.ReadFile(path);
    if (text && absl::StartsWith(*text, "#!")) {
      std::string line = text->substr(0, text->find('\n'));
      out.push_back({"launcher-runs-script",
                     absl::StrCat(path, " is a script (", line,
                                  "); the launcher runs with the engine's environment, working "
                                  "directory and stdin and must ignore all three: use a setuid "
                                  "switcher such as `sudo -n`"),
                     origin});
    }
  }
  if (user != nullptr) {
    programs.emplace_back(ir::kBwrapPath, "bubblewrap");
    std::string label = absl::StrCat("the launcher's user (uid ", user->uid, ")");
    for (const auto& [path, what] : programs) {
      std::string why = WhyChangeable(facts, path, *user, "the launcher's user");
      if (why.empty()) continue;
      out.push_back({"launcher-path-writable",
                     absl::StrCat(what, " ", path, " can be changed by ", label, ": ", why,
                                  "; that user could replace it and escape the sandbox"),
                     origin});
    }
  }
  return out;
}

PolicySpec ForcedDenySpec(const PolicySpec& spec, ir::LaunchPlan* plan) {
  PolicySpec out = spec;
  if (spec.sandbox_read_denylist_defaults && !spec.sandbox_read_denylist_defaults->value) {
    plan->skipped.push_back(ir::Skipped{"sandbox_read_denylist_defaults", "",
                                        "the built-in deny list stays on under a launcher",
                                        spec.sandbox_read_denylist_defaults->origin});
  }
  out.sandbox_read_denylist_defaults.reset();
  if (spec.sandbox_read_denylist_exempt) {
    for (const auto& e : spec.sandbox_read_denylist_exempt->value) {
      plan->skipped.push_back(ir::Skipped{"sandbox_read_denylist_exempt", e.value,
                                          "deny-list exceptions are not applied under a launcher",
                                          e.origin});
    }
  }
  out.sandbox_read_denylist_exempt.reset();
  return out;
}

std::optional<Identity> LowerLauncher(HostFacts& facts, const LauncherInput& in,
                                      ir::LaunchPlan* plan) {
  const std::vector<std::string>& launcher = in.spec->tool_launcher->value;
  const Origin& origin = in.spec->tool_launcher->origin;
  std::string loc = Where(origin);
  std::optional<Identity> user;
  auto finish = [&]() {
    std::vector<ir::Warning> lint = LintLauncher(facts, launcher, origin, user ? &*user : nullptr);
    plan->warnings.insert(plan->warnings.end(), lint.begin(), lint.end());
    return plan->refusal() ? std::nullopt : user;
  };
  auto refuse = [&](std::string reason, Origin why) {
    ir::Refuse(plan, ir::Refusal{std::move(reason), std::move(why)});
    return finish();
  };
  if (!in.trusted) return refuse(in.trust_refusal, origin);
  const ir::Policy& pol = plan->policy;
  if (!pol.ShouldSandbox()) {
    return refuse(absl::StrCat("tool_launcher (", loc,
                               ") runs commands under bubblewrap or not at all, and the policy is ",
                               ir::PolicyTypeName(pol.type), " (", pol.origin.Describe(),
                               "), which skips the sandbox"),
                  pol.origin);
  }
  plan->wrapper.path = ir::kBwrapPath;
  plan->wrapper.preferred = true;
  plan->wrapper.preferred_origin = Origin::Default("prefer_bwrap is on by default");
  if (in.spec->prefer_bwrap) {
    plan->wrapper.preferred = in.spec->prefer_bwrap->value;
    plan->wrapper.preferred_origin = in.spec->prefer_bwrap->origin;
  }
  if (!plan->wrapper.preferred) {
    return refuse(absl::StrCat("tool_launcher (", loc,
                               ") runs commands under bubblewrap or not at all, and prefer_bwrap = "
                               "false (",
                               plan->wrapper.preferred_origin.Describe(), ")"),
                  plan->wrapper.preferred_origin);
  }
  const PathInfo& bwrap = facts.Path(ir::kBwrapPath);
  plan->wrapper.executable = bwrap.type == FileType::kRegular && (bwrap.mode & 0111) != 0;
  if (!plan->wrapper.executable) {
    return refuse(absl::StrCat("tool_launcher (", loc,
                               ") runs commands under bubblewrap or not at all, and /usr/bin/bwrap "
                               "is ",
                               bwrap.type == FileType::kMissing ? "missing"
                                                                : "not a regular executable file"),
                  Origin::Fact(ir::kBwrapPath));
  }
  LauncherUser who = facts.LauncherUserOf(launcher);
  if (!who.ok) {
    plan->wrapper.probe_message = who.message;
    return refuse(absl::StrCat("the launcher probe failed: `", absl::StrJoin(launcher, " "),
                               " /usr/bin/id -u` did not report the launcher's user: ",
                               who.message.empty() ? std::string("no reason given") : who.message),
                  Origin::Fact("launcher probe"));
  }
  user = Identity{who.uid, who.gids};
  std::vector<ir::Mount> masks = DenyMasks(facts, plan->denied_read, &*user);
  ProbeResult probe = facts.LauncherProbe(launcher, LauncherProbeBwrapArgv(masks));
  plan->wrapper.probe_ok = probe.ok;
  plan->wrapper.probe_message = probe.message;
  if (!probe.ok) {
    return refuse(
        absl::StrCat("the launcher probe failed: a wrapped /bin/true with the deny masks "
                     "did not run as the launcher's user (",
                     UserText(*user),
                     "): ", probe.message.empty() ? std::string("no reason given") : probe.message),
        Origin::Fact("launcher probe"));
  }
  ir::Bwrap& launch = plan->launch.emplace<ir::Bwrap>();
  launch.launcher = launcher;
  launch.launcher_origin = origin;
  Origin marker = Origin::Default("bwrap child marker");
  plan->env_set.push_back({ir::kSandboxMarker, ir::kBwrapMarkerValue, marker});
  plan->env_set.push_back({ir::kSandboxMarkerLegacy, ir::kBwrapMarkerValue, marker});
  plan->warnings.push_back({"launcher-user",
                            absl::StrCat("commands run as the launcher's user (", UserText(*user),
                                         "); masks and binds are computed for that user"),
                            Origin::Fact("launcher probe")});
  return finish();
}

}  // namespace cwsc::compiler
