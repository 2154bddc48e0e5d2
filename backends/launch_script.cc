#include "backends/launch_script.h"

#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/argv_format.h"
#include "backends/seccomp_filter.h"

namespace cwsc::backends {
namespace {

bool IsShellName(absl::string_view s) {
  if (s.empty() || absl::ascii_isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// ReadsSeccompFd: the argv holds `--seccomp 3`.
bool ReadsSeccompFd(const std::vector<std::string>& argv) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--") return false;  // the command's own arguments
    if (argv[i] == "--seccomp") return true;
  }
  return false;
}

// PrintfLines writes `bytes` as printf commands of octal escapes, 16 bytes a
// line: every byte, NUL included, and no character sh or printf reads.
std::string PrintfLines(absl::string_view bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 16) {
    out += "  printf '";
    for (size_t k = i; k < bytes.size() && k < i + 16; ++k) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\%03o", static_cast<unsigned char>(bytes[k]));
      out += esc;
    }
    out += "'\n";
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> EmitLaunchScript(const ir::LaunchPlan& plan,
                                             const std::vector<std::string>& argv,
                                             absl::string_view tool_version) {
  const char* kind = ir::PlanKindName(plan.kind());
  if (plan.landlock() || plan.remote()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--format script: a ", kind,
                     " plan is applied by cwsc itself, not by a program a script can run; use "
                     "`cwsc run`"));
  }
  if (argv.empty()) return absl::FailedPreconditionError("--format script: the argv is empty");
  if (argv[0].find('=') != std::string::npos) {
    return absl::FailedPreconditionError(
        "--format script: the program's name holds '=', which env would take for a variable");
  }
  std::string bpf;
  if (ReadsSeccompFd(argv)) {
    if (!plan.syscall_filter()) {
      return absl::FailedPreconditionError(
          "--format script: the argv reads a seccomp program the plan does not have");
    }
    absl::StatusOr<std::string> prog = EmitSeccompBpf(*plan.syscall_filter());
    if (!prog.ok()) return prog.status();
    bpf = *std::move(prog);
  }

  // The environment: the allow-list's variables with the values they have
  // where the script runs (never a value from the compile), then the
  // plan's markers. Names reach eval only as shell identifiers.
  std::string exact, prefixes;
  for (const std::string& entry : plan.env_allow) {
    if (!entry.empty() && entry.back() == '*') {
      absl::string_view prefix = absl::string_view(entry).substr(0, entry.size() - 1);
      if (!IsShellName(prefix)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "--format script: the environment allow-list entry '", entry, "' is not a name"));
      }
      absl::StrAppend(&prefixes, prefixes.empty() ? "" : " ", prefix);
    } else {
      if (!IsShellName(entry)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "--format script: the environment allow-list entry '", entry, "' is not a name"));
      }
      absl::StrAppend(&exact, exact.empty() ? "" : " ", entry);
    }
  }
  std::string out;
  absl::StrAppend(
      &out, "#!/bin/sh\n", "# The launch script of a ", kind, " plan, written by cwsc ",
      tool_version, " (`cwsc compile --format script`).\n",
      "# It runs the argv `--format lines` prints with the environment the plan\n", "# allows",
      bpf.empty() ? "" : " and the syscall filter on descriptor 3 (bwrap's --seccomp 3)", ".\n",
      "# It does not do what `cwsc run` adds: the exec-time checks of the host,\n",
      "# binds by descriptor, placeholders for protected names, the foreground\n",
      "# shim, the exit status of a refusal (docs/runtime.md). Prefer `cwsc run`.\n",
      "# Every tool is named by its full path: a directory on PATH may be one the\n",
      "# command could write.\n", "set -e\n",
      "# The environment: only these variables pass, with the values they have\n",
      "# here, then the plan's markers.\n", "set --\n");
  if (!exact.empty()) {
    absl::StrAppend(&out, "for cwsc_name in ", exact, "; do\n",
                    "  eval \"if [ -n \\\"\\${$cwsc_name+x}\\\" ]; then set -- \\\"\\$@\\\" "
                    "\\\"$cwsc_name=\\${$cwsc_name}\\\"; fi\"\n",
                    "done\n");
  }
  if (!prefixes.empty()) {
    // Names come from `env`'s output: a value with a newline could add a
    // line, but only a name of a variable that is set and has the prefix
    // passes, which the allow-list allows.
    std::string sed;
    for (absl::string_view p : absl::StrSplit(prefixes, ' ')) {
      absl::StrAppend(&sed, " -e 's/^\\(", p, "[A-Za-z0-9_]*\\)=.*/\\1/p'");
    }
    absl::StrAppend(&out, "for cwsc_name in $(/usr/bin/env | /usr/bin/sed -n", sed, "); do\n",
                    "  eval \"if [ -n \\\"\\${$cwsc_name+x}\\\" ]; then set -- \\\"\\$@\\\" "
                    "\\\"$cwsc_name=\\${$cwsc_name}\\\"; fi\"\n",
                    "done\n");
  }
  for (const ir::EnvVar& v : plan.env_set) {
    if (!IsShellName(v.name)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--format script: the plan sets a variable whose name is not a name: '", v.name, "'"));
    }
    absl::StrAppend(&out, "set -- \"$@\" ", ShellQuote(absl::StrCat(v.name, "=", v.value)), "\n");
  }
  if (!bpf.empty()) {
    size_t rules = plan.syscall_filter()->rules.size();
    absl::StrAppend(&out, "# The syscall filter (", rules, rules == 1 ? " rule" : " rules",
                    ", `cwsc compile --target seccomp` lists them), ", bpf.size(),
                    " bytes of BPF,\n# on descriptor 3; the file is gone once it is open.\n",
                    "cwsc_bpf=$(/usr/bin/mktemp)\n{\n", PrintfLines(bpf), "} > \"$cwsc_bpf\"\n",
                    "exec 3< \"$cwsc_bpf\"\n", "/bin/rm -f \"$cwsc_bpf\"\n");
  }
  absl::StrAppend(&out, "exec /usr/bin/env -i \"$@\"");
  for (const std::string& token : argv) absl::StrAppend(&out, " \\\n  ", ShellQuote(token));
  out += "\n";
  return out;
}

}  // namespace cwsc::backends
