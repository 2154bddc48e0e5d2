// Shared fixtures of the Seatbelt tests: a recorded macOS host, hand-built
// plans, lowering, emission and the evaluator read back from the argv.
#ifndef CWSC_TESTS_BACKENDS_SEATBELT_FIXTURES_H_
#define CWSC_TESTS_BACKENDS_SEATBELT_FIXTURES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/seatbelt.h"
#include "backends/verify/sbpl_eval.h"
#include "compiler/facts/host_facts.h"
#include "compiler/lower_seatbelt.h"
#include "gtest/gtest.h"

namespace cwsc::backends::sbtest {

using compiler::HostFacts;
using ir::PolicyType;

// A macOS host: /Users/dev/proj (with .codewhale) and /Users/dev/extra (with .deepseek).
inline std::string MacFacts(const std::string& env_extra = "", bool probe_ok = true,
                            bool has_cache = true, bool has_home = true,
                            const std::string& paths_extra = "") {
  return absl::StrCat(
      "cwsc_facts: 1\nplatform: macos\n"
      "user: {uid: 501, gid: 20, groups: [20], name: dev, home: /Users/dev}\n"
      "cwd: /Users/dev/proj\n"
      "env:\n",
      has_home ? "  HOME: /Users/dev\n" : "  HOME: null\n", "  TMPDIR: /var/folders/xy/abc/T/\n",
      env_extra,
      "paths:\n"
      "  /Users/dev/proj: {type: directory, canonical: /Users/dev/proj, mode: \"0755\", uid: 501, "
      "gid: 20}\n"
      "  /Users/dev/proj/.codewhale: {type: directory, canonical: /Users/dev/proj/.codewhale, "
      "mode: \"0755\", uid: 501, gid: 20}\n"
      "  /Users/dev/extra: {type: directory, canonical: /Users/dev/extra, mode: \"0755\", uid: "
      "501, gid: 20}\n"
      "  /Users/dev/extra/.deepseek: {type: directory, canonical: /Users/dev/extra/.deepseek, "
      "mode: \"0755\", uid: 501, gid: 20}\n"
      "  /Users/dev/.cargo: {type: directory, canonical: /Users/dev/.cargo, mode: \"0755\", uid: "
      "501, gid: 20}\n"
      "  /tmp: {type: directory, symlink: true, canonical: /private/tmp, mode: \"1777\", uid: 0, "
      "gid: 0}\n"
      "  /var/folders/xy/abc/T/: {type: directory, canonical: /private/var/folders/xy/abc/T, mode: "
      "\"0700\", uid: 501, gid: 20}\n"
      "  /var/folders/xy/abc/C/: {type: directory, canonical: /private/var/folders/xy/abc/C, mode: "
      "\"0700\", uid: 501, gid: 20}\n"
      "  /usr/bin/sandbox-exec: {type: file, canonical: /usr/bin/sandbox-exec, mode: \"0755\", "
      "uid: 0, gid: 0}\n",
      paths_extra, "seatbelt_probe: {ran: true, ok: ", probe_ok ? "true" : "false",
      ", exit_code: ", probe_ok ? "0" : "65", ", message: \"",
      probe_ok ? "" : "sandbox-exec: sandbox_apply: Operation not permitted", "\"}\n",
      has_cache ? "darwin_user_cache_dir: /var/folders/xy/abc/C/\n" : "");
}

inline std::unique_ptr<HostFacts> Facts(const std::string& yaml) {
  absl::StatusOr<std::unique_ptr<HostFacts>> f = compiler::ParseRecordedFacts(yaml, "facts.yaml");
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *std::move(f) : nullptr;
}

inline ir::Root MakeRoot(const std::string& path, std::vector<std::string> protected_paths = {}) {
  ir::Root r;
  r.path = path;
  r.canonical = path;
  r.origin = ir::Origin::Default(absl::StrCat("root ", path));
  for (const std::string& p : protected_paths) {
    r.protected_paths.push_back({p, p, false, "", ir::Origin::Default("protected")});
  }
  return r;
}

inline ir::LaunchPlan MakePlan(PolicyType type, bool network, std::vector<ir::Root> roots = {},
                               std::vector<std::string> denied = {}) {
  ir::LaunchPlan plan;
  plan.launch = ir::Seatbelt{};
  plan.platform = ir::Platform::kMacos;
  plan.cwd = "/Users/dev/proj";
  plan.policy.type = type;
  plan.policy.network_access = network;
  if (type == PolicyType::kWorkspaceWrite) plan.roots = std::move(roots);
  for (const std::string& d : denied)
    plan.denied_read.push_back({d, d, ir::Origin::Default("deny")});
  return plan;
}

// The default policy of docs/behavior.md B-13: workspace-write, roots [cwd, /tmp, TMPDIR].
inline ir::LaunchPlan DefaultPlan(bool network = false) {
  return MakePlan(PolicyType::kWorkspaceWrite, network,
                  {MakeRoot("/Users/dev/proj", {"/Users/dev/proj/.codewhale"}),
                   MakeRoot("/private/tmp"), MakeRoot("/private/var/folders/xy/abc/T")});
}

// Lowered runs LowerSeatbelt on `plan` with the facts.
inline ir::LaunchPlan Lowered(ir::LaunchPlan plan, const std::string& facts_yaml = MacFacts()) {
  std::unique_ptr<HostFacts> facts = Facts(facts_yaml);
  absl::Status s = compiler::LowerSeatbelt(*facts, compiler::PolicySpec{}, &plan);
  EXPECT_TRUE(s.ok()) << s;
  return plan;
}

inline std::string Profile(const ir::LaunchPlan& plan) {
  absl::StatusOr<EmittedArgv> lines = EmitSeatbeltProfile(plan);
  EXPECT_TRUE(lines.ok()) << lines.status();
  return lines.ok() ? SeatbeltProfileText(*lines) : "";
}

inline std::vector<std::string> Argv(const ir::LaunchPlan& plan,
                                     std::vector<std::string> program = {}) {
  absl::StatusOr<EmittedArgv> argv = EmitSeatbeltArgv(plan, program);
  EXPECT_TRUE(argv.ok()) << argv.status();
  return argv.ok() ? Texts(*argv) : std::vector<std::string>{};
}

inline bool HasParam(const ir::LaunchPlan& plan, const std::string& key) {
  for (const SeatbeltParam& p : SeatbeltParams(*plan.seatbelt())) {
    if (p.key == key) return true;
  }
  return false;
}

inline std::string ParamValue(const ir::LaunchPlan& plan, const std::string& key) {
  for (const SeatbeltParam& p : SeatbeltParams(*plan.seatbelt())) {
    if (p.key == key) return p.value;
  }
  return "<absent>";
}

// Evaluate reads the emitted argv back (not the plan) into the evaluator.
inline SbplProfile Evaluate(const ir::LaunchPlan& plan) {
  absl::StatusOr<SandboxExecCall> call = ParseSandboxExecArgv(Argv(plan, {"/usr/bin/true"}));
  EXPECT_TRUE(call.ok()) << call.status();
  absl::StatusOr<SbplProfile> p = SbplProfile::Parse(call->profile, call->params);
  EXPECT_TRUE(p.ok()) << p.status();
  return *p;
}

inline int Count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + 1)) {
    ++n;
  }
  return n;
}

}  // namespace cwsc::backends::sbtest

#endif  // CWSC_TESTS_BACKENDS_SEATBELT_FIXTURES_H_
