#include "cli/command_table.h"

namespace cwsc::cli {
namespace {

using K = ValueKind;

// ---- Values --------------------------------------------------------------

// ---- Flags shared by several commands --------------------------------------

constexpr absl::string_view kNeedsJson[] = {"--json"};
constexpr absl::string_view kNeedsFacts[] = {"--facts", "--facts-b"};
constexpr absl::string_view kNeedsFor[] = {"--for"};
constexpr absl::string_view kNeedsWhy[] = {"--why"};
constexpr absl::string_view kNeedsSbpl[] = {"--sbpl"};

constexpr Flag kMode{"--mode",
                     "",
                     "MODE",
                     K::kChoice,
                     "the permission mode to compile for (default ask; aliases suggest, auto, "
                     "bypass, yolo)",
                     driver::kModes};
constexpr Flag kFacts{"--facts", "", "FILE", K::kFile,
                      "compile against host facts recorded by `cwsc facts` instead of the live "
                      "host (share/doc/cwsc/facts.md)"};
constexpr Flag kCwd{"--cwd", "", "DIR", K::kDir,
                    "the working directory, which is the workspace (default: the current one; a "
                    "relative one is taken from it, or from the recorded one with --facts)"};
constexpr Flag kPolicy{"--policy", "", "NAME", K::kWord,
                       "the policy of a .cwsp file to use (default: its only or default policy)"};
constexpr Flag kInput{"--input",
                      "",
                      "FORMAT",
                      K::kChoice,
                      "how to read CONFIG (default: by extension, .cwsp is dsl)",
                      driver::kInputs};
constexpr Flag kEscalate{"--escalate",
                         "",
                         "POSTURE",
                         K::kChoice,
                         "apply an approved one-shot escalation, in ask mode only, to a strictly "
                         "wider posture (share/doc/cwsc/behavior.md B-12)",
                         driver::kEscalations};
constexpr Flag kNoProjectConfig{"--no-project-config", "", "", K::kNone,
                                "skip <cwd>/.codewhale/config.toml, as `codewhale serve` and "
                                "`exec` do"};
constexpr Flag kRequireSandbox{"--require-sandbox", "", "", K::kNone,
                               "refuse (nothing runs) instead of running the command unconfined "
                               "when the policy asks for a sandbox and no wrapper works here "
                               "(the sandbox_require key, share/doc/cwsc/config.md)"};
constexpr Flag kLinuxBackend{"--linux-backend",
                             "",
                             "NAME",
                             K::kChoice,
                             "the Linux sandbox to use, over the sandbox_linux_backend key "
                             "(share/doc/cwsc/config.md)",
                             driver::kLinuxBackends};
constexpr Flag kUnlistedAsMissing = Needing({"--unlisted-as-missing", "", "", K::kNone,
                                             "with --facts, treat a path the facts file does not "
                                             "record as missing instead of failing"},
                                            kNeedsFacts, "it applies to a facts file");
constexpr Flag kTimeout{"--timeout", "", "SECONDS", K::kWord,
                        "end the whole process tree after SECONDS (TERM, then KILL 2 s later)"};
constexpr Flag kJsonResult{"--json", "", "", K::kNone,
                           "write a result object into -o FILE or onto --json-fd N"};
constexpr Flag kJsonFd =
    Needing({"--json-fd", "", "N", K::kWord, "the descriptor --json writes the result onto"},
            kNeedsJson, "");
constexpr Flag kResultFile = Needing({"-o", "--output", "FILE", K::kFile,
                                      "the file --json writes the result into (replaced, never "
                                      "followed through a symlink)"},
                                     kNeedsJson, "");
constexpr Flag kReadKind{"--read", "", "", K::kNone, "explain reading only", {}, true};
constexpr Flag kWriteKind{"--write", "", "", K::kNone, "explain writing only", {}, true};
constexpr Flag kExecKind{"--exec", "", "", K::kNone, "explain executing only", {}, true};
constexpr Flag kExpect{"--expect", "", "FILE", K::kFile,
                       "also evaluate the expectations of this .cwsp file"};

// --json on a reporting command: the report as JSON on stdout.
constexpr Flag kJsonReport{"--json", "", "", K::kNone, "print the report as JSON"};

constexpr Flag kHelp{"-h", "--help", "", K::kNone, "show this help and exit"};

// ---- compile ---------------------------------------------------------------

constexpr Positional kConfigArg[] = {{"CONFIG", K::kFile, true}};
constexpr Flag kCompileFlags[] = {
    {"--target", "", "TARGET", K::kChoice, "what to print", driver::kCompileTargets},
    kMode,
    kFacts,
    kCwd,
    {"--format", "", "FORMAT", K::kChoice,
     "the form of an argv (a Seatbelt argv defaults to shell)", driver::kFormats},
    kPolicy,
    kInput,
    kEscalate,
    kNoProjectConfig,
    kUnlistedAsMissing,
    kRequireSandbox,
    kLinuxBackend,
    {"--json", "", "", K::kNone, "print the artifact in the JSON report (not with --format)"},
};

// ---- explain ---------------------------------------------------------------

constexpr Flag kExplainFlags[] = {
    {"--target", "", "TARGET", K::kChoice, "the argv to explain", driver::kExplainTargets},
    {"--stage", "", "STAGE", K::kChoice, "show one compiler stage's value instead of the argv",
     driver::kStages},
    kMode,
    kFacts,
    kCwd,
    kPolicy,
    kInput,
    kEscalate,
    kNoProjectConfig,
    kUnlistedAsMissing,
    kRequireSandbox,
    kLinuxBackend,
    kJsonReport,
};

// ---- facts -----------------------------------------------------------------

constexpr char kNoCompile[] = "without it no compile runs";
constexpr Flag kFactsFlags[] = {
    {"--for", "", "CONFIG", K::kFile,
     "record exactly the facts a compile of CONFIG consults on this host"},
    Needing(kMode, kNeedsFor, kNoCompile),
    Needing(kCwd, kNeedsFor, kNoCompile),
    Needing(kPolicy, kNeedsFor, kNoCompile),
    Needing(kInput, kNeedsFor, kNoCompile),
    {"-o", "--output", "FILE", K::kFile, "write the facts into FILE instead of stdout"},
    kJsonReport,
};

// ---- check -----------------------------------------------------------------

constexpr Positional kFileArg[] = {{"FILE", K::kFile, true}};
constexpr Flag kCheckFlags[] = {
    kPolicy,
    kInput,
    {"--managed", "", "", K::kNone, "read FILE as a managed (administrator) config layer"},
    {"--mode", "", "MODE", K::kChoice,
     "check this permission mode (repeatable, or a comma-separated list; default: the four "
     "modes, or those the expectations name)",
     driver::kModes, true},
    {"--target", "", "TARGET", K::kChoice,
     "check only plans emitting this artifact (repeatable, or a comma-separated list)",
     driver::kCheckTargets, true},
    kFacts,
    kCwd,
    kExpect,
    kUnlistedAsMissing,
    kNoProjectConfig,
    {"--live", "", "", K::kNone,
     "also run each expectation as a real probe under the sandbox on this host"},
    {"--lint", "", "", K::kNone, "compile every mode for its lints, even without expectations"},
    {"--strict", "", "", K::kNone,
     "fail (exit 1) when the config has a warning, such as an ignored key that looks like a "
     "sandbox setting"},
    kJsonReport,
};

// ---- why -------------------------------------------------------------------

constexpr Positional kWhyArgs[] = {{"PATH", K::kFile}, {"CONFIG", K::kFile, true}};
constexpr Flag kWhyFlags[] = {
    kReadKind, kWriteKind,         kExecKind,        kMode,       kFacts, kCwd, kPolicy,
    kInput,    kUnlistedAsMissing, kNoProjectConfig, kJsonReport,
};

// ---- diff ------------------------------------------------------------------

constexpr Positional kDiffArgs[] = {{"A", K::kFile}, {"B", K::kFile}};
constexpr Flag kDiffFlags[] = {
    {"--exit-code", "", "", K::kNone, "exit 1 when B widens A"},
    kMode,
    kFacts,
    {"--facts-b", "", "FILE", K::kFile, "the recorded facts to compile B against"},
    kCwd,
    kPolicy,
    kUnlistedAsMissing,
    kNoProjectConfig,
    kJsonReport,
};

// ---- audit -----------------------------------------------------------------

constexpr char kChooses[] = "--read, --write and --exec choose what --why explains";
constexpr Flag kAuditFlags[] = {
    {"--sbpl", "", "FILE", K::kFile, "audit this Seatbelt profile instead of a bwrap argv"},
    {"-D",
     "",
     "KEY=VALUE",
     K::kWord,
     "a profile parameter, as sandbox-exec's -D (repeatable)",
     {},
     true,
     kNeedsSbpl,
     "it sets a parameter of a Seatbelt profile"},
    {"--why", "", "PATH", K::kFile, "explain the decision for PATH"},
    Needing(kReadKind, kNeedsWhy, kChooses),
    Needing(kWriteKind, kNeedsWhy, kChooses),
    Needing(kExecKind, kNeedsWhy, kChooses),
    {"--expect", "", "FILE", K::kFile, "evaluate the expectations of this .cwsp file"},
    {"--home", "", "DIR", K::kDir, "$HOME for the expectations (default: $HOME)"},
    {"--workspace", "", "DIR", K::kDir,
     "$WORKSPACE for the expectations (default: the argv's --chdir)"},
    kJsonReport,
};

// ---- fmt -------------------------------------------------------------------

constexpr Positional kFmtArgs[] = {{"FILE", K::kFile, false, true}};
constexpr Flag kFmtFlags[] = {
    {"--check", "", "", K::kNone, "print the files that are not formatted; exit 1 if any"},
    {"-w", "--write", "", K::kNone, "rewrite each FILE in place"},
    {"--json", "", "", K::kNone, "with --check: the files in the JSON report"},
};

// ---- run, exec -------------------------------------------------------------

constexpr Flag kRunFlags[] = {
    kMode,   kCwd,   kTimeout,  kJsonResult,      kJsonFd,         kResultFile,
    kPolicy, kInput, kEscalate, kNoProjectConfig, kRequireSandbox, kLinuxBackend,
};
constexpr Positional kPlanArg[] = {{"PLAN.json", K::kFile}};
constexpr Flag kExecFlags[] = {kTimeout, kJsonResult, kJsonFd, kResultFile, kRequireSandbox};

// ---- doctor ----------------------------------------------------------------

constexpr Positional kOptionalConfigArg[] = {{"CONFIG", K::kFile, true}};
constexpr Flag kDoctorFlags[] = {kJsonReport};

// ---- help ------------------------------------------------------------------

constexpr Positional kHelpArgs[] = {{"COMMAND", K::kCommand, true}};

// Where a command finds CONFIG when none is given (cli/cli_options.h).
#define CWSC_DISCOVERY                                                        \
  " Without CONFIG, the config Codewhale uses: $CODEWHALE_HOME/config.toml, " \
  "~/.codewhale/config.toml, then the legacy ~/.deepseek/config.toml."

constexpr char kCompileExit[] =
    "0 ok, 2 bad input or usage, 3 plan refused, 4 target not applicable to the plan.";
constexpr char kRunExit[] =
    "The command's own (128+N when it died of signal N); 124 timed out; 125 refused or could "
    "not start (nothing ran); 3 refused because a sandbox is required and none works here "
    "(nothing ran); 126/127 program not executable / not found (unwrapped runs); 2 bad "
    "input or usage.";

constexpr Command kCommands[] = {
    {"compile", "compile a policy into a launch plan or artifact",
     "[CONFIG] [options] [-- PROGRAM ARGS...]",
     "Compile CONFIG (a Codewhale config.toml, or a .cwsp policy) for a permission mode against "
     "the live host, or against recorded host facts (--facts), and print the artifact --target "
     "names. Without a program the argv ends at `--`, so a caller can append its "
     "own." CWSC_DISCOVERY "\n\n"
     "CONFIG `-` is read from stdin (TOML, or --input dsl); diagnostics name it <stdin>. The "
     "plan's warnings go to stderr (`cwsc: warning [CODE]: MESSAGE`).",
     kConfigArg, kCompileFlags, true, kCompileExit},
    {"explain", "show every emitted token with its origin",
     "[CONFIG] [options] [-- PROGRAM ARGS...]",
     "Print every token of the emitted argv with the origin that produced it (config key with "
     "file:line:col, environment variable, mode, host fact or default), then what the plan "
     "skipped and why, then its warnings. CONFIG `-` is read from stdin." CWSC_DISCOVERY,
     kConfigArg, kExplainFlags, true, kCompileExit},
    {"facts",
     "record the host facts a compile consults",
     "[--for CONFIG] [options]",
     "Record host facts in the format of share/doc/cwsc/facts.md. With --for, compile CONFIG "
     "against the "
     "live host and record exactly the facts that compile consulted, so `cwsc compile CONFIG "
     "--facts FILE` gives byte-identical output on any machine. Without --for, record the "
     "platform, user, working directory and bwrap probe. Secrets are recorded as set/unset "
     "only.",
     {},
     kFactsFlags,
     false,
     "0 ok, 2 bad input or usage."},
    {"check", "validate a policy and evaluate its expectations", "[FILE] [options]",
     "Validate FILE (a .cwsp policy or a Codewhale config.toml) and evaluate every expectation "
     "of each policy (or of --policy NAME), plus those of --expect FILE, against the artifact "
     "each permission mode's plan emits: the bwrap argv through the mount interpreter, the "
     "Seatbelt profile through the SBPL evaluator. Each mode is compiled against the live host "
     "or --facts. Each verdict names the deciding rule and the config line behind it.\n\n"
     "Lints (share/doc/cwsc/verification.md) of every mode compiled are listed; they never fail. A "
     "config.toml without expectations is compiled in every mode (or each --mode) for its "
     "lints, and a setting a plan leaves out is a note. FILE `-` is read from stdin (TOML, or "
     "--input dsl)." CWSC_DISCOVERY,
     kFileArg, kCheckFlags, false,
     "0 every expectation holds, 1 one failed (or, with --strict, the config has a warning), 2 "
     "bad input or usage, 4 a --target the plan does not emit."},
    {"why", "the decision for one path and the rules behind it", "PATH [CONFIG] [options]",
     "Explain the decision for PATH (absolute, or starting with ~, $HOME, $WORKSPACE, $CWD or "
     "$TMPDIR) under CONFIG's plan for MODE (default ask): the verdict for reading and writing "
     "(or only the access named), the rule that decides it, and every bwrap mount layer it "
     "overrides, each with its origin. CONFIG `-` is read from stdin." CWSC_DISCOVERY,
     kWhyArgs, kWhyFlags, false, "0 ok, 2 bad input or usage, 3 plan refused."},
    {"diff", "what one policy allows that another does not", "A B [options]",
     "Compare what the sandbox of A and of B allows: A and B are policies (.cwsp or "
     "config.toml, compiled for MODE, default ask, against the live host or --facts; --facts-b "
     "gives B other facts) or plans (`cwsc compile --target plan` JSON). Every path either plan "
     "names, with its parent and a child, is read and written through both artifacts; network, "
     "plan kind and launcher are compared too. Each change names the rule of B (or A) that "
     "decides it and its origin; widening (B allows what A did not) is listed first.",
     kDiffArgs, kDiffFlags, false,
     "0 (also with changes, unless --exit-code), 1 with --exit-code when B widens A, 2 bad "
     "input or usage."},
    {"audit",
     "the access map of any bwrap argv or Seatbelt profile",
     "[options] -- bwrap ARGS...\n--sbpl FILE [-D KEY=VALUE ...] [options]",
     "Print what a sandbox allows: for a bwrap command line (a launcher before bwrap is fine; "
     "the argv after bwrap's own `--` is the program), each mount destination with what the "
     "confined process sees there, and the network; for a Seatbelt profile (parameters as "
     "sandbox-exec's -D), each parameter path with read and write verdicts, and the network. "
     "--why explains one path; --expect evaluates the expectations of a .cwsp file ($WORKSPACE: "
     "--workspace, else the argv's --chdir; $HOME: --home, else $HOME; $TMPDIR: $TMPDIR, else "
     "/tmp).",
     {},
     kAuditFlags,
     true,
     "0 ok, 1 an expectation failed, 2 bad input or usage."},
    {"fmt", "format a .cwsp policy canonically", "[--check | -w] FILE...",
     "Format .cwsp policies canonically (share/doc/cwsc/dsl.md): one statement per line, two-space "
     "indentation, comments kept. Without options the formatted text is printed. FILE `-` is "
     "read from stdin (not with -w).",
     kFmtArgs, kFmtFlags, false, "0 ok, 1 not formatted (--check), 2 bad input or usage."},
    {"run", "compile against this host, then run a program under the plan",
     "[CONFIG] [options] -- PROGRAM ARGS...",
     "Compile CONFIG for MODE (default ask) against this host and run PROGRAM under the "
     "resulting plan: bubblewrap (linux-bwrap), a launcher in front of it (launcher+bwrap), or "
     "unwrapped (none). The environment is cleared, then the plan's allow-list and markers "
     "apply; stdin and stdout are the command's own." CWSC_DISCOVERY "\n\n"
     "--json writes a result object into -o FILE or onto descriptor N (--json-fd), channels "
     "the command cannot write.",
     kConfigArg, kRunFlags, true, kRunExit},
    {"exec", "run a program under a plan compiled earlier",
     "PLAN.json [options] -- PROGRAM ARGS...",
     "Run PROGRAM under a plan compiled earlier (`cwsc compile --target plan`), possibly on "
     "another machine. The host facts the plan relies on are checked again first (platform, "
     "bubblewrap and its probe, mount sources, deny-list paths, protected directories, working "
     "directory); when one no longer holds, nothing runs (exit 125) and the reason is printed. "
     "PLAN.json `-` is read from stdin (`cwsc compile --target plan | cwsc exec - -- PROGRAM`); "
     "PROGRAM then finds its stdin at its end.",
     kPlanArg, kExecFlags, true, kRunExit},
    {"doctor", "which wrapper works here, and why not", "[CONFIG] [--json]",
     "Report which sandbox wrapper works on this host after resolving the preference "
     "(prefer_bwrap, CODEWHALE_PREFER_BWRAP), and why not when it does not: /usr/bin/bwrap "
     "missing, not a regular executable file, or its probe failing with bwrap's own message, "
     "with the host cause and its scoped fix (AppArmor user-namespace restriction, user "
     "namespaces disabled, an unprivileged container). Also: the no-new-privs state, the "
     "selected backend and the effective policy of every permission mode for CONFIG (default: "
     "an empty config). The probe always runs afresh.",
     kOptionalConfigArg, kDoctorFlags, false,
     "0 a sandbox is available, 1 none is, 2 bad input or usage."},
    {"help",
     "show the help of cwsc or of one command",
     "[COMMAND]",
     "Print the help of COMMAND, or the list of commands.",
     kHelpArgs,
     {},
     false,
     "0 ok, 2 unknown command."},
};

#undef CWSC_DISCOVERY

}  // namespace

std::span<const Command> Commands() { return kCommands; }

const Command* FindCommand(absl::string_view name) {
  for (const Command& c : kCommands) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const Flag* FindFlag(const Command& c, absl::string_view name) {
  for (const Flag& f : c.flags) {
    if (f.name == name || (!f.alias.empty() && f.alias == name)) return &f;
  }
  return nullptr;
}

const Flag& HelpFlag() { return kHelp; }

absl::string_view ProgramDescription() {
  return "cwsc compiles a sandbox policy (Codewhale config.toml or a .cwsp policy), a "
         "permission mode and host facts into a launch plan, and the plan into a bubblewrap "
         "argv, a Seatbelt profile, a launcher command or an OpenSandbox request.";
}

}  // namespace cwsc::cli
