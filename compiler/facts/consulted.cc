// The recorder of what a compile consulted (compiler/facts/consulted.h).
#include "compiler/facts/consulted.h"

#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace cwsc::compiler {

namespace {

// InternedName is `name` as a SharedString, one copy per name and thread:
// every plan's record of a variable shares it, so recording the few dozen
// variables a compile asks about allocates nothing once each name has been
// seen (no lock: a table per thread; the text is shared between threads
// like any SharedString's). The names are the compiler's own (its
// configuration keys' variables) and those a policy spells, so the tables
// stay small.
ir::SharedString InternedName(absl::string_view name) {
  thread_local absl::flat_hash_map<absl::string_view, ir::SharedString> names;
  auto it = names.find(name);
  if (it != names.end()) return it->second;
  ir::SharedString s = std::string(name);
  names.emplace(absl::string_view(s.str()), s);  // the text stays where it is
  return s;
}

}  // namespace

UserInfo ConsultedRecorder::User() {
  if (!user_) user_ = inner().User();
  return *user_;
}

// The uid alone is a question of its own: a compile that needs no more
// records no more, so the recheck asks no passwd entry and a change to the
// user's groups or home does not refuse a plan that never read them.
uint32_t ConsultedRecorder::Uid() {
  uint32_t uid = inner().Uid();
  if (!uid_) uid_ = uid;
  return uid;
}

std::optional<std::string> ConsultedRecorder::Env(absl::string_view name) {
  std::optional<std::string> v = inner().Env(name);
  // The facts answer a variable the same way each time: kept once.
  for (const ir::ConsultedEnv& e : env_) {
    if (e.name == name) return v;
  }
  env_.push_back({InternedName(name), ConsultedEnvValue(v)});
  return v;
}

std::optional<std::string> ConsultedEnvValue(const std::optional<std::string>& value) {
  if (!value) return value;
  std::string v = *value;
  size_t scheme = v.find("://");
  while (scheme != std::string::npos) {
    size_t start = scheme + 3;
    size_t end = v.find_first_of("/?#", start);
    size_t at = v.rfind('@', end == std::string::npos ? std::string::npos : end);
    if (at != std::string::npos && at >= start && (end == std::string::npos || at < end)) {
      v.replace(start, at - start, "(withheld)");
    }
    scheme = v.find("://", start);
  }
  return v;
}

bool ConsultedRecorder::EnvIsSet(absl::string_view name) {
  bool set = inner().EnvIsSet(name);
  for (const ir::ConsultedSecret& s : secrets_) {
    if (s.name == name) return set;
  }
  secrets_.push_back({InternedName(name), set});
  return set;
}

uint64_t ConsultedRecorder::NextId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

const PathInfo& ConsultedRecorder::Path(absl::string_view path) {
  const PathInfo& info = inner().Path(path);
  const RecordMemo& m = info.record;
  if (m.recorder != id_) {
    // First asked in this compile. The answer's record is made once for
    // all the compiles against these facts, and never changed after: a
    // plan may share it. A record kept elsewhere than these facts' arena
    // (an answer a decorator keeps for another object) is made again here.
    m.recorder = id_;
    m.used = false;
    if (!arena_) arena_ = inner().Records();
    if (!m.value || m.arena != arena_.get()) {
      m.value = arena_->Add(ConsultedPathOf(path, info));
      m.arena = arena_.get();
      m.path = m.value->path;
      m.Keep(info);
      m.current = true;
    } else {
      m.current = m.Matches(info);  // false: an answer edited in place
    }
    if (asked_.empty()) asked_.reserve(128);  // a workspace compile asks about 80 paths
  }
  if (m.current && m.path == path) {
    if (!m.used) {
      m.used = true;
      asked_.push_back(m.value);
    }
  } else if (apart_.emplace(path).second) {
    // Another path with the same answer (facts that share one), or an
    // answer no longer its record: this compile's own record.
    if (!owned_) owned_ = std::make_shared<ir::ConsultedArena>();
    asked_.push_back(owned_->Add(ConsultedPathOf(path, info)));
  }
  return info;
}

ProbeResult ConsultedRecorder::BwrapProbe() {
  ProbeResult r = inner().BwrapProbe();
  bwrap_ = r.ok;
  return r;
}

int ConsultedRecorder::LandlockAbi() {
  landlock_ = inner().LandlockAbi();
  return *landlock_;
}

ProbeResult ConsultedRecorder::SeatbeltProbe() {
  ProbeResult r = inner().SeatbeltProbe();
  seatbelt_ = r.ok;
  return r;
}

namespace {

// The permission bits as four octal digits, "0755".
std::string ModeText(uint32_t mode) {
  const uint32_t m = mode & 07777;
  return {static_cast<char>('0' + ((m >> 9) & 7)), static_cast<char>('0' + ((m >> 6) & 7)),
          static_cast<char>('0' + ((m >> 3) & 7)), static_cast<char>('0' + (m & 7))};
}

}  // namespace

ir::ConsultedPath ConsultedPathOf(absl::string_view path, const PathInfo& info) {
  ir::ConsultedPath p;
  p.path = path;
  p.type = FileTypeName(info.type);
  p.symlink = info.is_symlink;
  p.target = info.target;
  p.canonical = info.canonical;
  if (info.type != FileType::kMissing) p.mode = ModeText(info.mode);
  p.uid = static_cast<int>(info.uid);
  p.gid = static_cast<int>(info.gid);
  return p;
}

bool SameAnswer(const ir::ConsultedPath& recorded, const PathInfo& info) {
  if (recorded.type != FileTypeName(info.type) || recorded.symlink != info.is_symlink ||
      recorded.target != info.target || recorded.canonical != info.canonical ||
      recorded.uid != static_cast<int>(info.uid) || recorded.gid != static_cast<int>(info.gid)) {
    return false;
  }
  if (info.type == FileType::kMissing) return recorded.mode.empty();
  const std::string& r = recorded.mode;
  const int m = static_cast<int>(info.mode & 07777);
  return r.size() == 4 && r[0] - '0' == ((m >> 9) & 7) && r[1] - '0' == ((m >> 6) & 7) &&
         r[2] - '0' == ((m >> 3) & 7) && r[3] - '0' == (m & 7);
}

ir::Consulted ConsultedRecorder::Take() {
  ir::Consulted c;
  if (user_) {
    ir::ConsultedUser u;
    u.uid = static_cast<int>(user_->uid);
    u.gid = static_cast<int>(user_->gid);
    for (uint32_t g : user_->groups) u.groups.push_back(static_cast<int>(g));
    u.name = user_->name;
    u.home = user_->home;
    c.user = std::move(u);
  } else if (uid_) {
    c.uid = static_cast<int>(*uid_);
  }
  auto by_name = [](const auto& a, const auto& b) { return a.name.str() < b.name.str(); };
  std::sort(env_.begin(), env_.end(), by_name);
  std::sort(secrets_.begin(), secrets_.end(), by_name);
  c.env.assign(std::make_move_iterator(env_.begin()), std::make_move_iterator(env_.end()));
  c.secrets.assign(std::make_move_iterator(secrets_.begin()),
                   std::make_move_iterator(secrets_.end()));
  env_.clear();
  secrets_.clear();
  std::vector<std::shared_ptr<const ir::ConsultedArena>> arenas;
  if (arena_) arenas.push_back(std::move(arena_));
  if (owned_) arenas.push_back(std::move(owned_));
  c.paths = ir::ConsultedPaths(std::move(asked_), std::move(arenas));
  asked_ = {};
  arena_ = nullptr;
  owned_ = nullptr;
  apart_.clear();
  if (bwrap_) c.probes.push_back({"bwrap", *bwrap_});
  if (seatbelt_) c.probes.push_back({"seatbelt", *seatbelt_});
  c.landlock_abi = landlock_;
  return c;
}

}  // namespace cwsc::compiler
