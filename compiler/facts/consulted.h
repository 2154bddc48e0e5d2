// ConsultedRecorder passes every question of a compile on and keeps the
// answers the plan records (ir::Consulted): the user (or its id alone,
// when that is all the compile asked), the environment
// variables read, whether API key variables are set, every path asked
// about, the bwrap and Seatbelt probes (a launcher plan's own probe is
// asked again by runtime/launcher_check.h, with its argv). The exec-time
// recheck asks the same questions again (runtime/replay.h). No file content
// and no secret is kept: an API key variable is recorded as set or not, and
// a URL's user information is withheld (ConsultedEnvValue).
//
//   ConsultedRecorder rec(facts);
//   ... compile against &rec ...
//   plan.consulted = rec.Take();
#ifndef CWSC_COMPILER_FACTS_CONSULTED_H_
#define CWSC_COMPILER_FACTS_CONSULTED_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "compiler/facts/forwarding_facts.h"
#include "ir/plan.h"

namespace cwsc::compiler {

class ConsultedRecorder : public ForwardingFacts {
 public:
  using ForwardingFacts::ForwardingFacts;

  UserInfo User() override;
  uint32_t Uid() override;
  std::optional<std::string> Env(absl::string_view name) override;
  bool EnvIsSet(absl::string_view name) override;
  const PathInfo& Path(absl::string_view path) override;
  ProbeResult BwrapProbe() override;
  int LandlockAbi() override;
  ProbeResult SeatbeltProbe() override;

  // Take returns what was asked: variables sorted by name, paths in the
  // order the compile first asked about them (the same for the same
  // inputs), each the record the facts keep. The recorder is spent
  // afterwards.
  ir::Consulted Take();

 private:
  std::optional<UserInfo> user_;
  std::optional<uint32_t> uid_;
  // Variables in the order first asked, sorted by Take. A compile asks a
  // few dozen: a look along the list costs less than a tree's nodes.
  absl::InlinedVector<ir::ConsultedEnv, 24> env_;
  absl::InlinedVector<ir::ConsultedSecret, 4> secrets_;
  // Each path asked, in order, as the record its answer keeps
  // (PathInfo::record, made here the first time in the facts' arena,
  // HostFacts::Records; it is never changed or freed while a plan names
  // it). Take hands the plan these pointers and the arena, so a plan costs
  // one pointer per path however many compiles share a record. The
  // recorder's id on an answer (RecordMemo::recorder) says it was asked in
  // this compile, so a path asked again costs a comparison. A path whose
  // answer's record names another path (facts that share one answer among
  // paths) or no longer matches (an answer edited in place) gets a record
  // of this compile's own, in `owned_`, once (`apart_`).
  // One recorder at a time per facts object: facts are not shared between
  // threads (libcwsc holds a handle's lock for a whole compile), and a
  // compile starts no other.
  const uint64_t id_ = NextId();
  static uint64_t NextId();
  std::shared_ptr<ir::ConsultedArena> arena_;
  std::vector<const ir::ConsultedPath*> asked_;
  absl::flat_hash_set<std::string> apart_;
  std::shared_ptr<ir::ConsultedArena> owned_;
  std::optional<bool> bwrap_, seatbelt_;
  std::optional<int> landlock_;
};

// ConsultedEnvValue is the plan's record of a variable's value: the value,
// with the user information of a URL in it ("https://user:pw@host")
// replaced by "(withheld)"; the replay compares the live value the same way.
std::optional<std::string> ConsultedEnvValue(const std::optional<std::string>& value);

// ConsultedPathOf is the plan's record of one answer, its texts viewing
// `path` and `info`'s: an arena keeps a copy (ir::ConsultedArena::Add); the
// recorder reuses PathInfo::record when it is still this.
ir::ConsultedPath ConsultedPathOf(absl::string_view path, const PathInfo& info);

// SameAnswer: `info` is the answer `recorded` keeps (ConsultedPathOf's
// fields), compared without building a record.
bool SameAnswer(const ir::ConsultedPath& recorded, const PathInfo& info);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_FACTS_CONSULTED_H_
