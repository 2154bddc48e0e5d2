#include "compiler/driver/format.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/argv_format.h"
#include "backends/launch_script.h"
#include "backends/seatbelt.h"
#include "backends/seccomp_filter.h"
#include "compiler/driver/names.h"
#include "ir/display.h"

namespace cwsc::driver {
namespace {

Written Fail(EmitFailure failure, absl::Status status) {
  Written w;
  w.failure = failure;
  w.status = std::move(status);
  return w;
}

}  // namespace

absl::Status CheckFormat(const std::string& target, const std::optional<std::string>& format) {
  if (!format) return absl::OkStatus();
  // --format shapes an argv: a target that prints something else takes none.
  if (!(target == "opensandbox" && *format == "json")) {
    const char* prints = target == "plan"          ? "the plan JSON"
                         : target == "seccomp"     ? "a listing"
                         : target == "landlock"    ? "a listing"
                         : target == "seccomp-bpf" ? "a BPF program"
                         : target == "opensandbox"
                             ? "the requests as text, or as JSON with --format json"
                             : nullptr;
    if (prints != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--format ", *format, " does not apply to --target ", target, ": it prints ", prints));
    }
  }
  if (!IsNamed(kFormats, *format)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown --format '", *format, "' (", NameList(kFormats), ")"));
  }
  return absl::OkStatus();
}

Written WriteArtifact(const ir::LaunchPlan& plan, const Artifact& art, const std::string& target,
                      const std::optional<std::string>& format, absl::string_view version) {
  Written w;
  // --format script prints one sh script that runs the argv safely as printed.
  if (format && *format == "script") {
    absl::StatusOr<std::string> text = backends::EmitLaunchScript(
        plan, art.is_argv ? backends::Texts(art.argv) : std::vector<std::string>{}, version);
    if (!text.ok()) return Fail(EmitFailure::kNotApplicable, text.status());
    w.output = *std::move(text);
    return w;
  }
  if (!art.is_argv) {
    if (format && *format == "json" && !art.json.empty()) {
      w.output = ir::TerminalSafeJson(art.json);
    } else {
      // The plan JSON, inert on a terminal like every JSON cwsc prints.
      w.output = art.target == "plan" ? ir::TerminalSafeJson(art.text) : art.text;
    }
    return w;
  }
  const bool seatbelt_argv = plan.seatbelt() && !art.argv.empty() && target != "bwrap";
  // --format sbpl prints the Seatbelt profile text alone (the golden-review form).
  if (format && *format == "sbpl") {
    if (!seatbelt_argv) {
      return Fail(EmitFailure::kNotApplicable,
                  absl::InvalidArgumentError(absl::StrCat("--format sbpl: plan kind ",
                                                          ir::PlanKindName(plan.kind()),
                                                          " has no Seatbelt profile")));
    }
    absl::StatusOr<backends::EmittedArgv> lines = backends::EmitSeatbeltProfile(plan);
    if (!lines.ok()) return Fail(EmitFailure::kNotApplicable, lines.status());
    // The profile as sandbox-exec gets it, then a newline for the terminal.
    w.output = backends::SeatbeltProfileText(*lines) + "\n";
    return w;
  }
  // The profile token holds newlines: without --format, show a Seatbelt argv as one shell line.
  backends::ArgvFormat form = backends::ArgvFormat::kLines;
  if (format) {
    form = *backends::ParseArgvFormat(*format);
  } else if (seatbelt_argv) {
    form = backends::ArgvFormat::kShell;
  }
  absl::StatusOr<std::string> text = backends::FormatArgv(backends::Texts(art.argv), form);
  if (!text.ok()) return Fail(EmitFailure::kInput, text.status());
  // The forms people read say what the argv needs besides itself
  // (docs/cli.md, "Targets and formats").
  if ((form == backends::ArgvFormat::kLines || form == backends::ArgvFormat::kShell) &&
      plan.kind() == ir::PlanKind::kLinuxBwrap && plan.syscall_filter() && !seatbelt_argv) {
    w.note = absl::StrCat(
        "run as printed, this argv passes on the caller's whole environment and needs its "
        "seccomp program on descriptor ",
        backends::kSeccompFd, " (`--target seccomp-bpf`); `--format script` sets up both");
  }
  // `json` is the one argv form made for reading too: its C1 and bidi
  // characters are escaped (the same tokens). `shell`, `lines` and `nul` are
  // the bytes as they are (docs/decisions.md, "What cwsc prints is escaped").
  w.output = form == backends::ArgvFormat::kJson ? ir::TerminalSafeJson(*text) : *std::move(text);
  return w;
}

}  // namespace cwsc::driver
