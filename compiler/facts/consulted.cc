// The recorder of what a compile consulted (compiler/facts/consulted.h).
#include "compiler/facts/consulted.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace cwsc::compiler {

UserInfo ConsultedRecorder::User() {
  if (!user_) user_ = inner().User();
  return *user_;
}

// The uid is recorded with the rest of the user: one question, one answer.
uint32_t ConsultedRecorder::Uid() {
  if (!user_) user_ = inner().User();
  return inner().Uid();
}

std::optional<std::string> ConsultedRecorder::Env(absl::string_view name) {
  std::optional<std::string> v = inner().Env(name);
  // The facts answer a variable the same way each time: kept once.
  if (env_.find(name) == env_.end()) env_.emplace(std::string(name), ConsultedEnvValue(v));
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
  if (secrets_.find(name) == secrets_.end()) secrets_.emplace(std::string(name), set);
  return set;
}

const PathInfo& ConsultedRecorder::Path(absl::string_view path) {
  const PathInfo& info = inner().Path(path);
  if (asked_.empty()) {
    asked_.reserve(128);  // a workspace compile asks about 80 paths
    by_answer_.reserve(128);
  }
  auto [it, first] = by_answer_.try_emplace(&info, asked_.size());
  if (first) {
    asked_.push_back({std::string(path), &info});
  } else if (asked_[it->second].path != path && !shared_.contains(path)) {
    shared_.emplace(path);  // another path with the same shared answer
    asked_.push_back({std::string(path), &info});
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
  p.path = std::string(path);
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
  }
  for (auto& [name, value] : env_) c.env.push_back({name, value});
  for (auto& [name, set] : secrets_) c.secrets.push_back({name, set});
  by_answer_.clear();
  shared_.clear();
  c.paths.reserve(asked_.size());
  for (Asked& a : asked_) {
    c.paths.push_back(ConsultedPathOf("", *a.info));
    c.paths.back().path = std::move(a.path);
  }
  asked_.clear();
  if (bwrap_) c.probes.push_back({"bwrap", *bwrap_});
  if (seatbelt_) c.probes.push_back({"seatbelt", *seatbelt_});
  c.landlock_abi = landlock_;
  return c;
}

}  // namespace cwsc::compiler
