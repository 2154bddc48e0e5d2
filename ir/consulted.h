// The record of what a compile asked the host (ir::Consulted), a part of
// every plan (ir/plan.h) that the facts also keep per answer
// (compiler/facts/host_facts.h), so it stands in a header of its own.
#ifndef CWSC_IR_CONSULTED_H_
#define CWSC_IR_CONSULTED_H_

#include <algorithm>
#include <cstddef>
#include <deque>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/shared_string.h"

namespace cwsc::ir {

// Consulted is what the compile asked the host and the answers it got
// (compiler/facts/consulted.h records them): the exec-time recheck asks the
// same questions again and refuses a run when an answer differs, naming the
// old and the new one (runtime/replay.h). Only facts a plan may show: an
// API key variable is recorded as set or not, never its value, and no file
// content is kept.
//
// The text of a path's record is shared (SharedString): the facts keep each
// answer's record once (compiler/facts/host_facts.h, PathInfo::record), and
// every plan compiled against them copies references, not text.
struct ConsultedPath {
  SharedString path;
  std::string type;        // "missing", "file", "directory", "char-device", "block-device", "other"
  bool symlink = false;    // lstat: the path itself is a symlink
  SharedString target;     // its content when it is one
  SharedString canonical;  // realpath; "" when that fails
  std::string mode;        // the permission bits, "0755" ("" when missing)
  int uid = 0;
  int gid = 0;
  bool operator==(const ConsultedPath&) const = default;
};
// ConsultedArena keeps path records for the plans that name them: the
// facts keep one for the records of their answers (HostFacts::Records), a
// compile one for the records of its own, a plan read from JSON one for
// all of its. A record is added once and never changed or moved after, so
// a plan points at it while any other is added (facts are used by one
// thread at a time; a plan may be read by another meanwhile).
class ConsultedArena {
 public:
  const ConsultedPath* Add(ConsultedPath p) { return &records_.emplace_back(std::move(p)); }

 private:
  std::deque<ConsultedPath> records_;
};

// ConsultedPaths is the plan's list of path records: each a record an arena
// keeps, and the arenas it draws on kept alive. A compile against facts
// that answered before shares their records: the plan's list is one pointer
// per path, made and freed without touching a record (docs/performance.md).
//
//   for (const ConsultedPath& p : plan.consulted->paths) ...
class ConsultedPaths {
 public:
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = ConsultedPath;
    using difference_type = std::ptrdiff_t;
    using pointer = const ConsultedPath*;
    using reference = const ConsultedPath&;
    Iterator() = default;
    explicit Iterator(const ConsultedPath* const* at) : at_(at) {}
    const ConsultedPath& operator*() const { return **at_; }
    const ConsultedPath* operator->() const { return *at_; }
    Iterator& operator++() {
      ++at_;
      return *this;
    }
    Iterator operator++(int) { return Iterator(at_++); }
    bool operator==(const Iterator&) const = default;

   private:
    const ConsultedPath* const* at_ = nullptr;
  };

  ConsultedPaths() = default;
  // Records of its own (a plan read from JSON, a test's).
  ConsultedPaths(std::initializer_list<ConsultedPath> records)
      : ConsultedPaths(std::vector<ConsultedPath>(records)) {}
  explicit ConsultedPaths(std::vector<ConsultedPath> records);
  // Records `arenas` keep (the recorder's Take).
  ConsultedPaths(std::vector<const ConsultedPath*> items,
                 std::vector<std::shared_ptr<const ConsultedArena>> arenas)
      : items_(std::move(items)), arenas_(std::move(arenas)) {}

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const ConsultedPath& operator[](size_t i) const { return *items_[i]; }
  const ConsultedPath& at(size_t i) const { return *items_.at(i); }
  Iterator begin() const { return Iterator(items_.data()); }
  Iterator end() const { return Iterator(items_.data() + items_.size()); }
  // push_back adds a record of the list's own (a plan read or edited).
  void push_back(ConsultedPath p) {
    // An arena another copy of the list shares is left to both as it is.
    if (own_ && own_.use_count() > 1) arenas_.push_back(std::move(own_));
    if (!own_) own_ = std::make_shared<ConsultedArena>();
    items_.push_back(own_->Add(std::move(p)));
  }
  // Equal records in the same order, wherever they are kept.
  friend bool operator==(const ConsultedPaths& a, const ConsultedPaths& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  std::vector<const ConsultedPath*> items_;
  std::vector<std::shared_ptr<const ConsultedArena>> arenas_;
  std::shared_ptr<ConsultedArena> own_;  // where push_back adds
};

inline ConsultedPaths::ConsultedPaths(std::vector<ConsultedPath> records) {
  items_.reserve(records.size());
  for (ConsultedPath& p : records) push_back(std::move(p));
}

// A variable's name is shared too: the recorder keeps one copy of each
// name for the whole process (compiler/facts/consulted.cc).
struct ConsultedEnv {
  SharedString name;
  std::optional<std::string> value;  // null: unset
  bool operator==(const ConsultedEnv&) const = default;
};
struct ConsultedSecret {
  SharedString name;  // a variable that may hold an API key
  bool set = false;
  bool operator==(const ConsultedSecret&) const = default;
};
struct ConsultedUser {
  int uid = 0;
  int gid = 0;
  std::vector<int> groups;
  std::string name;
  std::string home;
  bool operator==(const ConsultedUser&) const = default;
};
struct ConsultedProbe {
  std::string name;  // "bwrap", "seatbelt"
  bool ok = false;
  bool operator==(const ConsultedProbe&) const = default;
};
struct Consulted {
  // The user: `user` when the compile read the passwd entry (name, home,
  // groups), else `uid` when it asked only for the user id; at most one.
  std::optional<ConsultedUser> user;
  std::optional<int> uid;
  std::vector<ConsultedEnv> env;         // sorted by name
  std::vector<ConsultedSecret> secrets;  // sorted by name
  ConsultedPaths paths;                  // in the order first asked
  std::vector<ConsultedProbe> probes;    // in the order above
  std::optional<int> landlock_abi;
  bool operator==(const Consulted&) const = default;
};

}  // namespace cwsc::ir

#endif  // CWSC_IR_CONSULTED_H_
