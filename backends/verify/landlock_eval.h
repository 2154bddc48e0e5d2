// LandlockChecker reads a Landlock listing back (the text `cwsc compile
// --target landlock` prints, backends/landlock.h) and answers the access
// questions of expect_eval.h from it, as the kernel would decide them: an
// access the ruleset handles is allowed at P only when a rule on P or on
// one of its ancestors grants it (a rule "every entry of D except N"
// stands for one rule per entry of D other than N).
//
//   absl::StatusOr<LandlockChecker> c = LandlockChecker::FromListing(text);
//   Verdict v = c->Decide(AccessKind::kWrite, "/home/me/proj/x");
//   v.allowed; v.rule;   // "allow ... beneath /home/me/proj"
#ifndef CWSC_BACKENDS_VERIFY_LANDLOCK_EVAL_H_
#define CWSC_BACKENDS_VERIFY_LANDLOCK_EVAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/verify/expect_eval.h"

namespace cwsc::backends {

class LandlockChecker {
 public:
  static absl::StatusOr<LandlockChecker> FromListing(const std::string& text);
  Verdict Decide(AccessKind kind, const std::string& path) const;

 private:
  struct Rule {
    std::string path;
    bool entries = false;             // "every entry of PATH except ..."
    std::vector<std::string> except;  // entries: the names left out
    uint64_t access = 0;
    std::string text;  // the listing line, without its comment
    int line = 0;
  };
  bool Covers(const Rule& r, const std::string& path) const;
  uint64_t handled_fs_ = 0;
  bool network_handled_ = false;
  std::vector<Rule> rules_;
};

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_VERIFY_LANDLOCK_EVAL_H_
