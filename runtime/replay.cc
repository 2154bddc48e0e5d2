// The replay of a plan's consulted facts (runtime/replay.h).
#include "runtime/replay.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/bwrap.h"
#include "compiler/facts/consulted.h"
#include "ir/constants.h"
#include "ir/status_macros.h"

namespace cwsc::runtime {
namespace {

using compiler::FileType;
using compiler::PathInfo;

constexpr char kAgain[] = "; compile the plan again";

absl::Status Changed(const std::string& what, const std::string& then, const std::string& now,
                     const std::string& use = "") {
  return absl::FailedPreconditionError(
      absl::StrCat(what, use.empty() ? "" : " (" + use + ")", " was ", then,
                   " when the plan was compiled and is ", now, " now", kAgain));
}

std::string Quoted(const std::optional<std::string>& v) {
  return v ? absl::StrCat("'", *v, "'") : "unset";
}

absl::Status ReplayUser(const ir::ConsultedUser& then, const compiler::UserInfo& now) {
  if (static_cast<uint32_t>(then.uid) != now.uid) {
    return Changed("the user's uid", absl::StrCat(then.uid), absl::StrCat(now.uid));
  }
  if (then.name != now.name) return Changed("the user's name", then.name, now.name);
  if (static_cast<uint32_t>(then.gid) != now.gid) {
    return Changed("the user's group", absl::StrCat(then.gid), absl::StrCat(now.gid));
  }
  std::vector<int> groups;
  for (uint32_t g : now.groups) groups.push_back(static_cast<int>(g));
  if (then.groups != groups) {
    return Changed("the user's group list", absl::StrCat("[", absl::StrJoin(then.groups, ","), "]"),
                   absl::StrCat("[", absl::StrJoin(groups, ","), "]"));
  }
  if (then.home != now.home) return Changed("the user's home directory", then.home, now.home);
  return absl::OkStatus();
}

absl::Status ReplayProbe(const ir::ConsultedProbe& then, compiler::HostFacts& facts) {
  if (then.name == "bwrap") {
    compiler::ProbeResult now = facts.BwrapProbe();
    if (then.ok && !now.ok) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the plan needs bubblewrap, but it does not work on this host: ",
          now.message.empty() ? absl::StrCat("probe exit status ", now.exit_code) : now.message,
          " (run `cwsc doctor` for the cause)"));
    }
    if (!then.ok && now.ok) return Changed("bubblewrap's probe", "failing", "passing");
  } else if (then.name == "seatbelt") {
    bool now = facts.SeatbeltProbe().ok;
    if (then.ok != now) {
      return Changed("the sandbox-exec probe", then.ok ? "passing" : "failing",
                     now ? "passing" : "failing");
    }
  }
  return absl::OkStatus();
}

// What the plan uses `path` for, to name it in a refusal.
std::string UseOf(const ir::LaunchPlan& plan, absl::string_view path) {
  const std::span<const ir::Mount> mounts = plan.mounts();
  for (size_t i = 0; i < mounts.size(); ++i) {
    const ir::Mount& m = mounts[i];
    if (m.source.str() == path || m.dest.str() == path) {
      return absl::StrCat("mount ", i + 1, ": ", m.why.str());
    }
  }
  for (const ir::DeniedPath& d : plan.denied_read) {
    if (d.path.str() == path) return absl::StrCat("denied path ", d.rule);
  }
  if (plan.cwd == path) return "the working directory";
  return "";
}

std::string Kind(const ir::ConsultedPath& p) {
  if (p.type == "missing") return p.symlink ? "a dangling symlink" : "missing";
  std::string kind = p.type == "file" ? "a file" : absl::StrCat("a ", p.type);
  return p.symlink ? absl::StrCat("a symlink to ", kind) : kind;
}

// The first way `now` differs from `then`, as a refusal; OK when equal.
absl::Status ComparePath(const ir::LaunchPlan& plan, const ir::ConsultedPath& then,
                         const ir::ConsultedPath& now) {
  const std::string use = UseOf(plan, then.path);
  const std::string path(then.path);
  if (then.type != now.type || then.symlink != now.symlink) {
    return Changed(path, Kind(then), Kind(now), use);
  }
  if (then.target != now.target) {
    return Changed(path, absl::StrCat("a symlink to '", then.target, "'"),
                   absl::StrCat("a symlink to '", now.target, "'"), use);
  }
  if (then.canonical != now.canonical) {
    auto where = [](absl::string_view c) {
      return c.empty() ? std::string("resolving to nothing") : absl::StrCat("resolving to ", c);
    };
    return Changed(path, where(then.canonical), where(now.canonical), use);
  }
  if (then.mode != now.mode) {
    return Changed(path, absl::StrCat("of mode ", then.mode), absl::StrCat("of mode ", now.mode),
                   use);
  }
  if (then.uid != now.uid || then.gid != now.gid) {
    return Changed(path, absl::StrCat("owned by ", then.uid, ":", then.gid),
                   absl::StrCat("owned by ", now.uid, ":", now.gid), use);
  }
  return absl::OkStatus();
}

bool AtOrBelow(absl::string_view path, absl::string_view dir) {
  if (dir == "/") return true;
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

// Unseen: the sandbox cannot see `path` (see the header), so its change to
// `now` does not change what the sandbox sees. At a mask's own mount point
// bwrap mounts by name and follows a symlink there, so the point must still
// be itself: not a symlink, and resolving to itself where it exists.
bool Unseen(const ir::LaunchPlan& plan, const backends::BwrapView& view, absl::string_view path,
            const PathInfo& now) {
  for (const ir::Mount& m : plan.mounts()) {
    if (!m.source.empty() && m.source != "/" && m.source != "/dev/null" &&
        AtOrBelow(m.source.str(), path)) {
      return false;
    }
  }
  backends::Lookup seen = view.Find(std::string(path));
  if (seen.access != backends::Access::kHidden && seen.access != backends::Access::kPrivate) {
    return false;
  }
  if (seen.layer >= 0 && static_cast<size_t>(seen.layer) < view.layers.size() &&
      view.layers[static_cast<size_t>(seen.layer)].dest == path) {
    return !now.is_symlink && (now.type == FileType::kMissing || now.canonical == path);
  }
  return true;
}

// Unrecorded: a mount source or denied path the compile did not ask about
// under that spelling (a worktree's metadata found through its .git file, a
// plan edited since) is judged as it is now: a source still exists as the
// kind bwrap binds and resolves to itself; a denied path that exists is
// hidden by the plan's view.
absl::Status Unrecorded(const ir::LaunchPlan& plan, compiler::HostFacts& facts,
                        const backends::BwrapView* view,
                        const absl::flat_hash_set<absl::string_view>& known) {
  const std::span<const ir::Mount> mounts = plan.mounts();
  for (size_t i = 0; i < mounts.size(); ++i) {
    const ir::Mount& m = mounts[i];
    if (m.source.empty() || m.source == "/" || m.source == "/dev/null") continue;
    if (known.contains(m.source.str())) continue;
    const PathInfo& s = facts.Path(m.source.str());
    bool ok = s.type == FileType::kDirectory;
    if (m.op == ir::MountOp::kDeviceBind) {
      ok = s.type == FileType::kCharDevice || s.type == FileType::kBlockDevice;
    } else if (m.role == ir::MountRole::kKernelReadOnly) {
      ok = s.type != FileType::kMissing;
    }
    const std::string what = absl::StrCat("mount ", i + 1, " (", backends::MountOpFlag(m.op), " ",
                                          m.source.str(), ": ", m.why.str(), ")");
    if (!ok) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, " needs ", m.source.str(), ", which is now ",
          s.type == FileType::kMissing ? "missing" : compiler::FileTypeName(s.type), kAgain));
    }
    if (s.canonical != m.source) {
      return absl::FailedPreconditionError(
          absl::StrCat(what, ": ", m.source.str(), " now resolves to ",
                       s.canonical.empty() ? "nothing" : s.canonical, kAgain));
    }
  }
  if (view == nullptr) return absl::OkStatus();
  for (const ir::DeniedPath& d : plan.denied_read) {
    if (known.contains(d.path.str())) continue;
    backends::Access a = view->Find(d.path.str()).access;
    if (a == backends::Access::kHidden || a == backends::Access::kPrivate) continue;
    if (facts.Path(d.path.str()).type != FileType::kMissing) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the denied path ", d.path.str(), " (", d.rule,
          ") exists, and the plan neither hides it nor records what it was when compiled", kAgain));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReplayConsulted(const ir::LaunchPlan& plan, compiler::HostFacts& facts,
                             const backends::BwrapView* view) {
  if (!plan.consulted) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the plan records none of the facts its compile consulted (made by hand or edited)",
        kAgain));
  }
  const ir::Consulted& c = *plan.consulted;
  // Whether this host can run the plan's sandbox at all comes first.
  for (const ir::ConsultedProbe& p : c.probes) {
    CWSC_RETURN_IF_ERROR(ReplayProbe(p, facts));
  }
  if (c.landlock_abi) {
    int now = facts.LandlockAbi();
    if (now != *c.landlock_abi) {
      return Changed("the host's Landlock ABI", absl::StrCat(*c.landlock_abi), absl::StrCat(now));
    }
  }
  if (c.user) CWSC_RETURN_IF_ERROR(ReplayUser(*c.user, facts.User()));
  if (c.uid && static_cast<uint32_t>(*c.uid) != facts.Uid()) {
    return Changed("the user's uid", absl::StrCat(*c.uid), absl::StrCat(facts.Uid()));
  }
  for (const ir::ConsultedEnv& e : c.env) {
    std::optional<std::string> now = compiler::ConsultedEnvValue(facts.Env(e.name));
    if (now != e.value) {
      return Changed(absl::StrCat("the environment variable ", e.name.str()), Quoted(e.value),
                     Quoted(now));
    }
  }
  for (const ir::ConsultedSecret& s : c.secrets) {
    bool now = facts.EnvIsSet(s.name);
    if (now != s.set) {
      return Changed(absl::StrCat("the environment variable ", s.name.str()),
                     s.set ? "set" : "unset", now ? "set" : "unset");
    }
  }
  absl::flat_hash_set<absl::string_view> known;
  known.reserve(c.paths.size());
  for (const ir::ConsultedPath& p : c.paths) known.insert(p.path);
  facts.ExpectPaths(c.paths.size());
  auto changed = [&](const ir::ConsultedPath& then) {
    const PathInfo& info = facts.Path(then.path);
    return !compiler::SameAnswer(then, info) &&
           (view == nullptr || !Unseen(plan, *view, then.path, info));
  };
  for (const ir::ConsultedPath& then : c.paths) {
    if (!changed(then)) continue;
    // The records are in the order the compile asked: name the outermost
    // changed path above this one (a moved root, not a file below it).
    const ir::ConsultedPath* first = &then;
    for (const ir::ConsultedPath& other : c.paths) {
      if (other.path.size() < first->path.size() && AtOrBelow(then.path, other.path) &&
          changed(other)) {
        first = &other;
      }
    }
    return ComparePath(plan, *first,
                       compiler::ConsultedPathOf(first->path, facts.Path(first->path)));
  }
  return Unrecorded(plan, facts, view, known);
}

}  // namespace cwsc::runtime
