#include "backends/verify/landlock_eval.h"

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace cwsc::backends {
namespace {

// The kernel's names for the rights (Documentation/userspace-api/landlock.rst),
// spelled in lower case as the listing does; read here independently of ir/.
const std::map<std::string, uint64_t>& FsRights() {
  static const std::map<std::string, uint64_t> m = {
      {"execute", 1ULL << 0},    {"write_file", 1ULL << 1}, {"read_file", 1ULL << 2},
      {"read_dir", 1ULL << 3},   {"remove_dir", 1ULL << 4}, {"remove_file", 1ULL << 5},
      {"make_char", 1ULL << 6},  {"make_dir", 1ULL << 7},   {"make_reg", 1ULL << 8},
      {"make_sock", 1ULL << 9},  {"make_fifo", 1ULL << 10}, {"make_block", 1ULL << 11},
      {"make_sym", 1ULL << 12},  {"refer", 1ULL << 13},     {"truncate", 1ULL << 14},
      {"ioctl_dev", 1ULL << 15},
  };
  return m;
}

absl::StatusOr<uint64_t> ParseRights(absl::string_view text, int line) {
  uint64_t out = 0;
  if (text == "none") return out;
  for (absl::string_view name : absl::StrSplit(text, '|')) {
    auto it = FsRights().find(std::string(name));
    if (it == FsRights().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("landlock listing line ", line, ": unknown access right '", name, "'"));
    }
    out |= it->second;
  }
  return out;
}

bool Under(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir ||
         (absl::StartsWith(path, dir) && path.size() > dir.size() && path[dir.size()] == '/');
}

}  // namespace

absl::StatusOr<LandlockChecker> LandlockChecker::FromListing(const std::string& text) {
  LandlockChecker c;
  int n = 0;
  bool saw_header = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++n;
    if (line.empty()) continue;
    if (absl::ConsumePrefix(&line, "# handled filesystem: ")) {
      auto r = ParseRights(line, n);
      if (!r.ok()) return r.status();
      c.handled_fs_ = *r;
      saw_header = true;
      continue;
    }
    if (absl::ConsumePrefix(&line, "# handled network: ")) {
      c.network_handled_ = absl::StrContains(line, "connect_tcp");
      continue;
    }
    if (absl::StartsWith(line, "#")) continue;
    absl::string_view body = line.substr(0, line.find("  # "));
    Rule r;
    r.text = std::string(body);
    r.line = n;
    if (!absl::ConsumePrefix(&body, "allow ")) {
      return absl::InvalidArgumentError(
          absl::StrCat("landlock listing line ", n, ": expected 'allow RIGHTS beneath PATH'"));
    }
    size_t at = body.find(" beneath ");
    if (at == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("landlock listing line ", n, ": expected 'allow RIGHTS beneath PATH'"));
    }
    auto rights = ParseRights(body.substr(0, at), n);
    if (!rights.ok()) return rights.status();
    r.access = *rights;
    absl::string_view where = body.substr(at + 9);
    if (absl::ConsumePrefix(&where, "every entry of ")) {
      size_t ex = where.find(" except ");
      if (ex == absl::string_view::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("landlock listing line ", n, ": 'every entry of' without 'except'"));
      }
      r.entries = true;
      r.path = std::string(where.substr(0, ex));
      for (absl::string_view name : absl::StrSplit(where.substr(ex + 8), ", ")) {
        r.except.emplace_back(name);
      }
    } else {
      r.path = std::string(where);
    }
    c.rules_.push_back(std::move(r));
  }
  if (!saw_header) {
    return absl::InvalidArgumentError("not a Landlock listing: no '# handled filesystem:' line");
  }
  return c;
}

bool LandlockChecker::Covers(const Rule& r, const std::string& path) const {
  if (!r.entries) return Under(path, r.path);
  if (path == r.path || !Under(path, r.path)) return false;
  std::string rest = r.path == "/" ? path.substr(1) : path.substr(r.path.size() + 1);
  std::string first = rest.substr(0, rest.find('/'));
  for (const std::string& e : r.except) {
    if (e == first) return false;
  }
  return true;
}

Verdict LandlockChecker::Decide(AccessKind kind, const std::string& path) const {
  Verdict v;
  if (kind == AccessKind::kNetwork) {
    v.allowed = !network_handled_;
    v.rule = network_handled_ ? "handled network: connect_tcp (no port is granted)"
                              : "network not handled";
    return v;
  }
  uint64_t need = 0;
  std::string where = path;
  switch (kind) {
    case AccessKind::kRead:
      need = 1ULL << 2;  // read_file
      break;
    case AccessKind::kWrite:
      need = 1ULL << 1;  // write_file
      break;
    case AccessKind::kExec:
      need = 1ULL << 0;  // execute
      break;
    case AccessKind::kCreate:
      need = 1ULL << 8;  // make_reg, in the directory itself
      break;
    case AccessKind::kNetwork:
      break;
  }
  if ((handled_fs_ & need) == 0) {
    v.allowed = true;
    v.rule = "not handled by the ruleset";
    return v;
  }
  for (const Rule& r : rules_) {
    if ((r.access & need) != 0 && Covers(r, where)) {
      v.allowed = true;
      v.rule = r.text;
      v.line = r.line;
      return v;
    }
  }
  v.allowed = false;
  // A grant of the entries of an ancestor that leaves out the entry on the
  // way to P is what refuses it (a denied path's complement); name the
  // nearest such ancestor's.
  const Rule* nearest = nullptr;
  std::string left_out;
  for (const Rule& r : rules_) {
    if (!r.entries || (r.access & need) == 0 || path == r.path || !Under(path, r.path)) continue;
    if (nearest != nullptr && nearest->path.size() >= r.path.size()) continue;
    std::string rest = r.path == "/" ? path.substr(1) : path.substr(r.path.size() + 1);
    std::string first = rest.substr(0, rest.find('/'));
    for (const std::string& e : r.except) {
      if (e != first) continue;
      nearest = &r;
      left_out = absl::StrCat(r.path == "/" ? "" : r.path, "/", first);
    }
  }
  if (nearest != nullptr) {
    v.rule = nearest->text;
    v.line = nearest->line;
    v.detail = absl::StrCat("leaves out ", left_out);
    return v;
  }
  v.rule = absl::StrCat("no rule grants ", AccessKindName(kind), " at ", path);
  return v;
}

}  // namespace cwsc::backends
