#include "compiler/deny_list.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/spec_paths.h"
#include "ir/status_macros.h"

namespace cwsc::compiler {
namespace {

const char* const kHomeRules[] = {".ssh",
                                  ".gnupg",
                                  ".aws",
                                  ".config/gcloud",
                                  ".azure",
                                  ".kube",
                                  ".oci",
                                  ".config/doctl",
                                  ".config/fly",
                                  ".vercel",
                                  ".wrangler/config",
                                  ".config/gh/hosts.yml",
                                  ".config/glab-cli",
                                  ".netrc",
                                  "_netrc",
                                  ".pgpass",
                                  ".my.cnf",
                                  ".npmrc",
                                  ".pypirc",
                                  ".git-credentials",
                                  ".cargo/credentials",
                                  ".cargo/credentials.toml",
                                  ".docker/config.json",
                                  ".m2/settings-security.xml",
                                  ".gradle/gradle.properties",
                                  ".codewhale/secrets",
                                  ".deepseek/secrets",
                                  ".codewhale/credentials",
                                  ".deepseek/credentials",
                                  ".kimi/credentials",
                                  ".claude/.credentials.json",
                                  ".codewhale-cu/recordings",
                                  ".mozilla",
                                  ".config/google-chrome",
                                  ".config/chromium",
                                  ".config/BraveSoftware"};

const char* const kMacHomeRules[] = {"Library/Keychains",
                                     "Library/Application Support/Google/Chrome",
                                     "Library/Application Support/Firefox",
                                     "Library/Application Support/BraveSoftware",
                                     "Library/Safari",
                                     "Library/Cookies"};

void AddUnique(std::vector<BuiltinDenyRule>& rules, std::string path, std::string label) {
  path = LexicalNormalize(path);
  for (const auto& r : rules) {
    if (r.path == path) return;
  }
  rules.push_back({std::move(path), std::move(label)});
}

// HomeVariable reads a directory (or file) variable as Codewhale does:
// trimmed, `~` and `$HOME` expanded; empty or still relative = not set.
std::optional<std::string> HomeVariable(HostFacts& facts, const char* name,
                                        const std::string& home) {
  auto raw = facts.Env(name);
  if (!raw) return std::nullopt;
  std::string v(absl::StripAsciiWhitespace(*raw));
  if (!home.empty()) {
    if (v == "~" || absl::StartsWith(v, "~/")) {
      v = home + v.substr(1);
    } else if (v == "$HOME" || absl::StartsWith(v, "$HOME/")) {
      v = home + v.substr(5);
    } else if (v == "${HOME}" || absl::StartsWith(v, "${HOME}/")) {
      v = home + v.substr(7);
    }
  }
  if (!absl::StartsWith(v, "/")) return std::nullopt;
  return LexicalNormalize(v);
}

}  // namespace

std::vector<BuiltinDenyRule> BuiltinDenyRules(HostFacts& facts, const std::string& platform,
                                              const std::string& home) {
  std::vector<BuiltinDenyRule> rules;
  for (const char* p : {"/etc/shadow", "/etc/sudoers", "/etc/ssh"}) AddUnique(rules, p, p);
  // The same secrets under other names on Linux (docs/decisions.md): shadow
  // backups, group passwords, sudo drop-ins, old password hashes, TLS keys.
  if (platform == "linux") {
    for (const char* p : {"/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers.d",
                          "/etc/security/opasswd", "/etc/ssl/private"}) {
      AddUnique(rules, p, p);
    }
  }
  if (platform == "macos") AddUnique(rules, "/Library/Keychains", "/Library/Keychains");
  // Right after the machine-wide entries, in Codewhale's order: the active
  // Codewhale home, the legacy ~/.deepseek home, then the Codex auth file.
  if (auto cw = HomeVariable(facts, "CODEWHALE_HOME", home)) {
    AddUnique(rules, JoinPath(*cw, "secrets"), "$CODEWHALE_HOME/secrets");
    AddUnique(rules, JoinPath(*cw, "credentials"), "$CODEWHALE_HOME/credentials");
  } else if (!home.empty()) {
    AddUnique(rules, JoinPath(home, ".codewhale/secrets"), "~/.codewhale/secrets");
    AddUnique(rules, JoinPath(home, ".codewhale/credentials"), "~/.codewhale/credentials");
  }
  if (!home.empty()) {
    AddUnique(rules, JoinPath(home, ".deepseek/secrets"), "~/.deepseek/secrets");
    AddUnique(rules, JoinPath(home, ".deepseek/credentials"), "~/.deepseek/credentials");
  }
  if (auto auth = HomeVariable(facts, "OPENAI_CODEX_AUTH_FILE", home)) {
    AddUnique(rules, *auth, "$OPENAI_CODEX_AUTH_FILE");
  } else if (auto codex_home = HomeVariable(facts, "CODEX_HOME", home)) {
    AddUnique(rules, JoinPath(*codex_home, "auth.json"), "$CODEX_HOME/auth.json");
  } else if (!home.empty()) {
    AddUnique(rules, JoinPath(home, ".codex/auth.json"), "~/.codex/auth.json");
  }
  if (home.empty()) return rules;
  for (const char* rel : kHomeRules) AddUnique(rules, JoinPath(home, rel), absl::StrCat("~/", rel));
  if (platform == "macos") {
    for (const char* rel : kMacHomeRules) {
      AddUnique(rules, JoinPath(home, rel), absl::StrCat("~/", rel));
    }
  }
  return rules;
}

absl::StatusOr<std::vector<ir::DeniedPath>> BuildDenyList(HostFacts& facts, const PolicySpec& spec,
                                                          const std::string& platform,
                                                          const PathVars& vars) {
  // Rules in order: built-ins (less exemptions), then user additions.
  std::vector<ir::DeniedPath> rules;
  bool defaults =
      !spec.sandbox_read_denylist_defaults || spec.sandbox_read_denylist_defaults->value;
  if (defaults) {
    std::vector<std::string> exempt;  // literal and resolved spellings
    if (spec.sandbox_read_denylist_exempt) {
      for (const auto& e : spec.sandbox_read_denylist_exempt->value) {
        CWSC_ASSIGN_OR_RETURN(std::string p, ExpandSettingPath(e, vars));
        exempt.push_back(p);
        std::string canon = facts.Path(p).canonical;
        if (!canon.empty() && canon != p) exempt.push_back(canon);
      }
    }
    std::vector<BuiltinDenyRule> builtins = BuiltinDenyRules(facts, platform, vars.home);
    rules.reserve(builtins.size());
    for (const BuiltinDenyRule& r : builtins) {
      std::string canon = facts.Path(r.path).canonical;
      bool dropped = false;
      for (const std::string& e : exempt) {
        dropped =
            dropped || PathStartsWith(r.path, e) || (!canon.empty() && PathStartsWith(canon, e));
      }
      if (dropped) continue;
      rules.push_back(
          {r.path, r.label, ir::Origin::Default(absl::StrCat("built-in deny list: ", r.label))});
    }
  }
  if (spec.sandbox_denied_read_paths) {
    rules.reserve(rules.size() + spec.sandbox_denied_read_paths->value.size());
    facts.ExpectPaths(spec.sandbox_denied_read_paths->value.size());
    for (const auto& d : spec.sandbox_denied_read_paths->value) {
      CWSC_ASSIGN_OR_RETURN(std::string p, ExpandSettingPath(d, vars));
      rules.push_back({std::move(p), d.value, d.origin});
    }
  }
  // docs/behavior.md B-53: canonical spelling first when it differs, then the literal one;
  // no repeats.
  // At most two entries a rule: `out` never moves its strings, so `listed`
  // can view them (and the facts' answers, which stay put) instead of
  // holding copies. A scan of `out` made this quadratic.
  std::vector<ir::DeniedPath> out;
  out.reserve(rules.size() * 2);
  absl::flat_hash_set<absl::string_view> listed;
  listed.reserve(rules.size() * 2);
  for (ir::DeniedPath& r : rules) {
    const std::string& canon = facts.Path(r.path).canonical;
    if (!canon.empty() && canon != r.path && listed.insert(canon).second) {
      out.push_back({canon, r.rule, r.origin});
    }
    // One hash: listed (viewing its moved place in `out`) unless a repeat.
    out.push_back(std::move(r));
    if (!listed.insert(out.back().path).second) out.pop_back();
  }
  return out;
}

}  // namespace cwsc::compiler
