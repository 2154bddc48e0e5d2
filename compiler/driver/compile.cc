// A compile with the missing-facts rule applied (compiler/driver/compile.h).
#include "compiler/driver/compile.h"

#include "absl/strings/str_cat.h"
#include "compiler/facts/host_facts.h"
#include "ir/constants.h"
#include "ir/diagnostics.h"

namespace cwsc::driver {

std::string MissingFactsMessage(const std::vector<std::string>& unlisted, FactsAsker asker,
                                const std::string& mode) {
  std::string first = absl::StrCat("the facts file does not record '", unlisted.front(), "'");
  if (asker == FactsAsker::kDiff || asker == FactsAsker::kWhy) {
    return absl::StrCat(first,
                        "; record the facts again with `cwsc facts --for CONFIG`, or pass "
                        "--unlisted-as-missing");
  }
  std::string more =
      unlisted.size() > 1 ? absl::StrCat(" (and ", unlisted.size() - 1, " more paths)") : "";
  switch (asker) {
    case FactsAsker::kCheck:
      return absl::StrCat(first, more, ", which this check asks about (mode ", mode,
                          "): record the facts again with `cwsc facts --for CONFIG`, or pass "
                          "--unlisted-as-missing to treat unrecorded paths as missing");
    case FactsAsker::kLibrary:
      return absl::StrCat(first, more,
                          ", which this compile asks about: the policy changed since the facts "
                          "were recorded; record them again with `cwsc facts --for CONFIG`, or "
                          "set cwsc_options_set_unlisted_as_missing to treat unrecorded paths as "
                          "missing");
    default:
      return absl::StrCat(first, more,
                          ", which this compile asks about: the policy changed since the facts "
                          "were recorded; record them again with `cwsc facts --for CONFIG`, or "
                          "pass --unlisted-as-missing to treat unrecorded paths as missing");
  }
}

absl::StatusOr<compiler::CompileResult> CompileChecked(const compiler::CompileOptions& options,
                                                       compiler::HostFacts* facts,
                                                       const FactsRule& rule, FactsAsker asker,
                                                       const std::string& mode) {
  absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(options, facts);
  if (!r.ok()) return r.status();
  std::vector<std::string> unlisted = facts->UnlistedPaths();
  if (rule.facts_file && !unlisted.empty() && !rule.unlisted_as_missing) {
    return ir::ErrorAt(*rule.facts_file, 0, 0, MissingFactsMessage(unlisted, asker, mode));
  }
  return r;
}

absl::StatusOr<std::string> RecordFacts(const std::optional<compiler::CompileOptions>& options,
                                        compiler::HostFacts* live) {
  compiler::FactsRecorder rec(live);
  if (options) {
    rec.SetUnlistedIsError(true);
    absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(*options, &rec);
    if (!r.ok()) return r.status();
  } else {
    rec.Platform();
    rec.User();
    rec.Cwd();
    rec.Env("HOME");
    rec.Env("TMPDIR");
    rec.Path(ir::kBwrapPath);
    rec.BwrapProbe();
  }
  return rec.WriteYaml();
}

}  // namespace cwsc::driver
