#include "compiler/key_lookalikes.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "compiler/config_key_table.h"

namespace cwsc::compiler {
namespace {

constexpr absl::string_view kMode =
    "a mode, \"read-only\" or \"workspace-write\", not a boolean; prefer_bwrap = false turns "
    "bubblewrap off";

// The words are those of the sandbox keys cwsc reads that no ordinary
// Codewhale key holds (model, api_key, base_url, mcp_servers, tui, features,
// ... stay silent): a generic word such as "path", "url" or "key" is not here.
// A word row names the key most keys with that word mean; the first word of
// the table found in a key decides, so the more specific words come first.
constexpr LookAlike kTable[] = {
    {"network_access", false, "Codex", "sandbox_network_access", ""},
    {"writable_roots", false, "Codex", "sandbox_writable_roots", ""},
    {"exclude_slash_tmp", false, "Codex", "sandbox_exclude_slash_tmp", ""},
    {"exclude_tmpdir_env_var", false, "Codex", "sandbox_exclude_tmpdir", ""},
    {"sandbox_permissions", false, "Codex", "sandbox_mode",
     "a mode, \"read-only\" or \"workspace-write\", and sandbox_network_access = true for the "
     "network"},
    {"sandbox", false, "Gemini CLI and Claude Code", "sandbox_mode", kMode},
    {"writable", true, "", "sandbox_writable_roots", ""},
    {"writeable", true, "", "sandbox_writable_roots", ""},
    {"network", true, "", "sandbox_network_access", ""},
    {"deny", true, "", "sandbox_denied_read_paths", ""},
    {"denied", true, "", "sandbox_denied_read_paths", ""},
    {"denylist", true, "", "sandbox_denied_read_paths", ""},
    {"launcher", true, "", "tool_launcher", ""},
    {"require", true, "", "sandbox_require", ""},
    {"landlock", true, "", "sandbox_linux_backend", ""},
    {"required", true, "", "sandbox_require", ""},
    {"protected", true, "", "sandbox_protected_names", ""},
    {"opensandbox", true, "", "sandbox_backend", ""},
    {"bwrap", true, "", "prefer_bwrap", ""},
    {"bubblewrap", true, "", "prefer_bwrap", ""},
    {"sandbox", true, "", "sandbox_mode", ""},
    {"sandboxed", true, "", "sandbox_mode", ""},
};

// Each row names a key of the config-key table to set instead.
constexpr bool EveryUseIsAKey() {
  for (const LookAlike& l : kTable) {
    if (!IsConfigKeyName(std::string_view(l.use.data(), l.use.size()))) return false;
  }
  return true;
}
static_assert(EveryUseIsAKey(), "a look-alike row names a key the config-key table lacks");

// Words splits a key at '_', '-', '.' and where a lower-case letter or digit
// meets an upper-case one, lower-cased: "sandboxNetwork_x" -> sandbox, network, x.
std::vector<std::string> Words(absl::string_view key) {
  std::vector<std::string> out(1);
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    bool boundary = c == '_' || c == '-' || c == '.';
    if (!boundary && absl::ascii_isupper(c) && i > 0 &&
        (absl::ascii_islower(key[i - 1]) || absl::ascii_isdigit(key[i - 1]))) {
      out.emplace_back();
    }
    if (boundary) {
      out.emplace_back();
      continue;
    }
    out.back() += absl::ascii_tolower(c);
  }
  return out;
}

}  // namespace

std::span<const LookAlike> LookAlikes() { return kTable; }

const LookAlike* LookAlikeFor(absl::string_view key, bool whole_only) {
  for (const LookAlike& l : kTable) {
    if (!l.word && absl::EqualsIgnoreCase(key, l.name)) return &l;
  }
  if (whole_only) return nullptr;
  std::vector<std::string> words = Words(key);
  for (const LookAlike& l : kTable) {
    if (!l.word) continue;
    for (const std::string& w : words) {
      if (w == l.name) return &l;
    }
  }
  return nullptr;
}

}  // namespace cwsc::compiler
