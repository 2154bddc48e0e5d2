// Access questions answered from an emitted artifact, not from the plan:
// "may the confined process read / write / execute P, reach the network?"
// with the rule that decided it. `cwsc check`, `cwsc why` and `cwsc audit`
// ask them; the answers come from the same interpreters the tests trust
// (bwrap_interp.h for a bubblewrap argv, sbpl_eval.h for a Seatbelt profile).
//
//   absl::StatusOr<BwrapChecker> c = BwrapChecker::FromArgv(argv);
//   Verdict v = c->Decide(AccessKind::kWrite, "/home/me/proj/x");
//   v.allowed; v.rule;   // "--bind /home/me/proj /home/me/proj"
//
// What each kind means (docs/verification.md):
//   read    the host content at P can be read;
//   write   the host content at P can be changed (a write into a private
//           tmpfs never reaches the host, so it is "denied");
//   exec    the host file at P can be executed (bwrap: visible; Seatbelt:
//           process-exec and file-read-data both allowed);
//   create  a new file can be made in the directory P and reach the host
//           (bwrap: P/<new> is writable; Seatbelt: file-write-create there);
//   network an outbound connection (bwrap: the network namespace is shared;
//           Seatbelt: network-outbound to `path` when it is "HOST:PORT" —
//           IPv4, [IPv6] or localhost — else to 192.0.2.1:443, a
//           documentation address standing for any internet host).
//
// kCreatePrefix names the new file a create probe asks about.
#ifndef CWSC_BACKENDS_VERIFY_EXPECT_EVAL_H_
#define CWSC_BACKENDS_VERIFY_EXPECT_EVAL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/verify/bwrap_interp.h"
#include "backends/verify/sbpl_eval.h"

namespace cwsc::backends {

inline constexpr char kCreateProbeName[] = ".cwsc-create-probe";

enum class AccessKind { kRead, kWrite, kExec, kNetwork, kCreate };
const char* AccessKindName(AccessKind kind);  // "read", "write", "exec", "network", "create"

// Verdict is one decision and the rule that made it.
struct Verdict {
  bool allowed = false;
  std::string rule;    // the deciding rule as written ("--ro-bind / /", "(allow ...)")
  int layer = -1;      // bwrap: index of the deciding mount layer; -1 none
  int arg = -1;        // bwrap: argv index of the deciding flag; -1 none
  int line = 0;        // Seatbelt: 1-based profile line of the deciding rule
  std::string detail;  // what the rule leaves at P ("read-only", "hidden", an operation)
};

// ChainLink is one mount layer that covers a path, from the top.
struct ChainLink {
  int layer = 0;
  int arg = 0;
  std::string rule;    // "--tmpfs /home/me/.ssh"
  std::string effect;  // what this layer alone leaves at the path ("writable", ...)
};

class BwrapChecker {
 public:
  // FromArgv interprets a bwrap command line (a launcher prefix is allowed).
  // Paths are looked up through the argv's symlinks (BwrapView::Resolve).
  static absl::StatusOr<BwrapChecker> FromArgv(std::vector<std::string> argv,
                                               UnknownFlags unknown = UnknownFlags::kRefuse);

  Verdict Decide(AccessKind kind, const std::string& path) const;
  // Chain lists every layer whose destination is the path or one of its
  // ancestors, the top (deciding) one first.
  std::vector<ChainLink> Chain(const std::string& path) const;

  const BwrapView& view() const { return view_; }
  const std::vector<std::string>& argv() const { return argv_; }
  std::string LayerText(int layer) const;

 private:
  std::vector<std::string> argv_;
  BwrapView view_;
};

class SbplChecker {
 public:
  static absl::StatusOr<SbplChecker> FromProfile(const std::string& text, const SbplParams& params,
                                                 const std::string& name = "profile");
  // FromSandboxExecArgv reads `sandbox-exec -p PROFILE -DK=V ... --`.
  static absl::StatusOr<SbplChecker> FromSandboxExecArgv(const std::vector<std::string>& argv);

  Verdict Decide(AccessKind kind, const std::string& path) const;
  const SbplParams& params() const { return params_; }

 private:
  SbplChecker(SbplProfile p, SbplParams params)
      : profile_(std::move(p)), params_(std::move(params)) {}
  SbplProfile profile_;
  SbplParams params_;
};

// ParamsIn lists the (param "KEY") names a rule text refers to, in order.
std::vector<std::string> ParamsIn(const std::string& rule_text);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_VERIFY_EXPECT_EVAL_H_
