// The record of what a compile asked the host (ir::Consulted), a part of
// every plan (ir/plan.h) that the facts also keep per answer
// (compiler/facts/host_facts.h), so it stands in a header of its own.
#ifndef CWSC_IR_CONSULTED_H_
#define CWSC_IR_CONSULTED_H_

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "ir/shared_string.h"

namespace cwsc::ir {

// Consulted is what the compile asked the host and the answers it got
// (compiler/facts/consulted.h records them): the exec-time recheck asks the
// same questions again and refuses a run when an answer differs, naming the
// old and the new one (runtime/replay.h). Only facts a plan may show: an
// API key variable is recorded as set or not, never its value, and no file
// content is kept.
//
// A path record's texts are views: the arena that keeps the record keeps
// them (ConsultedArena), and a plan keeps the arenas of its records
// (ConsultedPaths). So a record is used where its list is, and a copy of
// one outlives the list only as a value to add to another list
// (ConsultedPaths::push_back copies the texts). The facts keep each
// answer's record once (compiler/facts/host_facts.h, PathInfo::record), and
// every plan compiled against them copies a pointer, not text.
struct ConsultedPath {
  absl::string_view path;
  std::string type;      // "missing", "file", "directory", "char-device", "block-device", "other"
  bool symlink = false;  // lstat: the path itself is a symlink
  absl::string_view target;     // its content when it is one
  absl::string_view canonical;  // realpath; "" when that fails
  std::string mode;             // the permission bits, "0755" ("" when missing)
  int uid = 0;
  int gid = 0;
  bool operator==(const ConsultedPath&) const = default;
};
// ConsultedArena keeps path records, and their texts, for the plans that
// name them: the facts keep one for the records of their answers
// (HostFacts::Records), a compile one for the records of its own, a plan
// read from JSON one for all of its. A record is added once and never
// changed or moved after, so a plan points at it while any other is added
// (facts are used by one thread at a time; a plan may be read by another
// meanwhile).
//
// Records and texts are kept in chunks of their own, not one allocation
// each: the facts' records live as long as the facts, and made one by one
// among a compile's short-lived allocations they would leave every later
// compile's allocations scattered between them (docs/performance.md, "The
// facts' long-lived memory apart": twice the time at 10,000 roots).
class ConsultedArena {
 public:
  ConsultedArena() = default;
  ConsultedArena(const ConsultedArena&) = delete;
  ConsultedArena& operator=(const ConsultedArena&) = delete;
  // Add keeps a copy of `p` with copies of its texts (a canonical path
  // equal to the path shares its text) and returns it.
  const ConsultedPath* Add(const ConsultedPath& p);

 private:
  absl::string_view Keep(absl::string_view text);
  // Chunks grow from a plan's few dozen records to the facts' thousands.
  static constexpr size_t kMaxRecords = 256;
  static constexpr size_t kMaxText = size_t{64} << 10;
  std::vector<std::unique_ptr<ConsultedPath[]>> records_;
  size_t records_size_ = 8, records_left_ = 0;  // the last chunk's
  std::vector<std::unique_ptr<char[]>> texts_;
  size_t text_size_ = 512, text_left_ = 0;  // the last chunk's
  char* text_at_ = nullptr;
};

inline absl::string_view ConsultedArena::Keep(absl::string_view text) {
  if (text.empty()) return {};
  if (text.size() > text_left_) {
    if (!texts_.empty()) text_size_ = std::min(text_size_ * 2, kMaxText);
    const size_t size = std::max(text_size_, text.size());  // a long text: a chunk its size
    texts_.emplace_back(new char[size]);
    text_at_ = texts_.back().get();
    text_left_ = size;
  }
  std::copy(text.begin(), text.end(), text_at_);
  absl::string_view kept(text_at_, text.size());
  text_at_ += text.size();
  text_left_ -= text.size();
  return kept;
}

inline const ConsultedPath* ConsultedArena::Add(const ConsultedPath& p) {
  if (records_left_ == 0) {
    if (!records_.empty()) records_size_ = std::min(records_size_ * 2, kMaxRecords);
    records_.push_back(std::make_unique<ConsultedPath[]>(records_size_));
    records_left_ = records_size_;
  }
  ConsultedPath& r = records_.back()[records_size_ - records_left_--];
  r.path = Keep(p.path);
  r.type = p.type;
  r.symlink = p.symlink;
  r.target = Keep(p.target);
  r.canonical = p.canonical == p.path ? r.path : Keep(p.canonical);
  r.mode = p.mode;
  r.uid = p.uid;
  r.gid = p.gid;
  return &r;
}

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
  void push_back(const ConsultedPath& p) {
    // An arena another copy of the list shares is left to both as it is.
    if (own_ && own_.use_count() > 1) arenas_.push_back(std::move(own_));
    if (!own_) own_ = std::make_shared<ConsultedArena>();
    items_.push_back(own_->Add(p));
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
