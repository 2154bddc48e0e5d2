#include "compiler/driver/lints.h"

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/paths.h"

namespace cwsc::driver {
namespace {

bool Allowed(const PlanArtifact& art, backends::AccessKind k, const std::string& path) {
  Decision d = DecideOn(art, k, path);
  return d.checkable && d.allowed;
}

// Credentials that must not be readable by a command that can also reach the
// network (relative to the home directory).
const char* const kSecrets[] = {".ssh/id_ed25519", ".ssh/id_rsa",          ".aws/credentials",
                                ".netrc",          ".config/gh/hosts.yml", ".docker/config.json"};

}  // namespace

std::string LintLocation(const ir::Origin& o) {
  if (!o.file.empty() && o.line > 0) return absl::StrCat(o.file.str(), ":", o.line, ":", o.col);
  return o.Describe();
}

ir::Text RenderLintWarning(const Lint& l) {
  const ir::Origin& o = l.origin;
  ir::Text t;
  if (!o.file.empty() && o.line > 0) {
    t << o.file.str() << ":" << o.line << ":" << o.col << ": warning [" << l.code
      << "]: " << l.message;
  } else {
    t << "cwsc: warning [" << l.code << "]: " << l.message << " (" << o.Describe() << ")";
  }
  t << "\n  fix: " << l.fix << "\n";
  return t;
}

std::vector<Lint> LintPlan(const PlanArtifact& art, const compiler::PathVars& vars,
                           compiler::HostFacts* facts) {
  std::vector<Lint> out;
  const ir::LaunchPlan& plan = *art.plan;
  if (!art.bwrap && !art.sbpl) return out;  // nothing local to read
  // deny-shadowed: a denied path the artifact still lets the command read.
  for (const ir::DeniedPath& d : plan.denied_read) {
    if (!Allowed(art, backends::AccessKind::kRead, d.path)) continue;
    if (facts->Path(d.path).type == compiler::FileType::kMissing) continue;  // nothing to read
    Decision why = DecideOn(art, backends::AccessKind::kRead, d.path);
    out.push_back(
        {"deny-shadowed", d.origin,
         absl::StrCat("'", d.path.str(), "' is denied but stays readable: ", why.rule,
                      why.where.empty() ? "" : absl::StrCat(" (", why.where, ")"), " decides"),
         "remove the writable or read-only path that exposes it, or narrow it"});
  }
  for (const ir::Root& r : plan.roots) {
    std::string root = r.canonical.empty() ? r.path.str() : r.canonical.str();
    if (root.empty()) continue;
    // git-writable: hooks and config in a writable .git run outside the sandbox.
    std::string git = compiler::JoinPath(root, ".git");
    if (facts->Path(git).type == compiler::FileType::kDirectory &&
        Allowed(art, backends::AccessKind::kWrite, compiler::JoinPath(git, "hooks/pre-commit"))) {
      out.push_back({"git-writable", r.origin,
                     absl::StrCat("the writable root '", root,
                                  "' holds a writable '.git': a hook or "
                                  "config written there runs outside the sandbox at the next git "
                                  "command"),
                     "add `protect \".git\";` (TOML: list .git in the protected names)"});
    }
    // tmp-root-shared-tmp: a root under /tmp means little while all of /tmp is writable.
    if (!r.origin.file.empty() && StrictlyInside(root, "/tmp") &&
        Allowed(art, backends::AccessKind::kWrite, "/tmp/cwsc-lint-probe")) {
      out.push_back({"tmp-root-shared-tmp", r.origin,
                     absl::StrCat("the writable root '", root,
                                  "' is under /tmp, and the host /tmp "
                                  "is writable anyway: every other user's files there are too"),
                     "set `slash_tmp private;` (TOML: sandbox_exclude_slash_tmp = true)"});
    }
    // protected-is-file: a protected name that is a file cannot hold a config directory.
    for (const ir::Protected& p : r.protected_paths) {
      if (facts->Path(p.path).type == compiler::FileType::kRegular) {
        out.push_back(
            {"protected-is-file", p.origin,
             absl::StrCat("the protected name '", p.path.str(), "' is a file, not a directory"),
             "check the name; protection keeps a directory read-only"});
      }
    }
  }
  // duplicate-root / nested-root among configured roots: for each, the first
  // other root (in plan order) that is the same path (an earlier one, or one
  // no config wrote) or an ancestor. Roots are grouped by path, and a root's
  // ancestors looked up, so a policy of many roots costs n log n, not n².
  absl::flat_hash_map<std::string, std::vector<size_t>> by_path;  // indices ascending
  std::vector<std::string> normal(plan.roots.size());
  for (size_t j = 0; j < plan.roots.size(); ++j) {
    if (plan.roots[j].canonical.empty()) continue;
    normal[j] = compiler::LexicalNormalize(plan.roots[j].canonical);
    by_path[normal[j]].push_back(j);
  }
  for (size_t i = 0; i < plan.roots.size(); ++i) {
    const ir::Root& a = plan.roots[i];
    if (a.origin.file.empty() || a.canonical.empty()) continue;  // only what a config wrote
    size_t dup = SIZE_MAX, outer = SIZE_MAX;
    for (size_t j : by_path[normal[i]]) {
      if (j != i && (j < i || plan.roots[j].origin.file.empty())) {
        dup = j;
        break;
      }
    }
    for (std::string up = normal[i]; up != "/";) {
      size_t slash = up.rfind('/');
      if (slash == std::string::npos) break;  // not absolute: no ancestors to name
      up.resize(slash == 0 ? 1 : slash);
      if (auto it = by_path.find(up); it != by_path.end()) outer = std::min(outer, it->second[0]);
    }
    if (dup != SIZE_MAX && dup < outer) {
      out.push_back({"duplicate-root", a.origin,
                     absl::StrCat("the writable root '", a.path.str(), "' is already writable (",
                                  LintLocation(plan.roots[dup].origin), ")"),
                     "remove one of them"});
    } else if (outer != SIZE_MAX) {
      const ir::Root& b = plan.roots[outer];
      out.push_back(
          {"nested-root", a.origin,
           absl::StrCat("the writable root '", a.path.str(), "' lies inside the writable root '",
                        b.path.str(), "' (", LintLocation(b.origin), ")"),
           "remove the inner one"});
    }
  }
  // network-with-secrets: reading credentials and reaching the network.
  if (Allowed(art, backends::AccessKind::kNetwork, "") && !vars.home.empty()) {
    for (const char* s : kSecrets) {
      std::string p = compiler::JoinPath(vars.home, s);
      if (!Allowed(art, backends::AccessKind::kRead, p)) continue;
      if (facts->Path(p).type != compiler::FileType::kRegular) continue;
      out.push_back({"network-with-secrets", plan.policy.network_origin,
                     absl::StrCat("the network is reachable and '", p, "' is readable"),
                     absl::StrCat("turn the network off, or `deny read \"~/", s, "\";`")});
    }
  }
  // launcher-without-n: sudo that may prompt hangs a non-interactive agent.
  const ir::Bwrap* bwrap = plan.bwrap();
  if (bwrap && !bwrap->launcher.empty() && absl::EndsWith(bwrap->launcher.front(), "sudo")) {
    bool n = false;
    for (const std::string& a : bwrap->launcher) n = n || a == "-n" || a == "--non-interactive";
    if (!n) {
      out.push_back({"launcher-without-n", bwrap->launcher_origin,
                     "the launcher runs sudo without -n: a password prompt would hang the command",
                     "add \"-n\" after sudo"});
    }
  }
  // One root listed twice (the mode's and the working directory) is one finding.
  std::vector<Lint> unique;
  absl::flat_hash_set<std::string> seen;
  for (Lint& l : out) {
    if (seen.insert(absl::StrCat(l.code, "\n", l.message)).second) unique.push_back(std::move(l));
  }
  return unique;
}

std::vector<Lint> LintsOf(const ir::LaunchPlan& plan, compiler::HostFacts* facts) {
  absl::StatusOr<PlanArtifact> art = ArtifactOf(plan);
  if (!art.ok()) return {};
  return LintPlan(*art, VarsFor(plan, facts), facts);
}

}  // namespace cwsc::driver
