/*
 * cwsc.h: the C ABI of libcwsc, the cwsc sandbox policy compiler as a library.
 *
 * An engine compiles a policy (a Codewhale config.toml or a .cwsp policy) for
 * a permission mode against host facts into a plan, then reads the plan's
 * artifact (the bubblewrap argv, a Seatbelt profile, the OpenSandbox
 * requests) or asks the plan an access question, and spawns the sandbox
 * itself. Every result is the one the `cwsc` program gives for the same
 * inputs (docs/embedding.md).
 *
 *   cwsc_policy* policy = NULL;
 *   cwsc_diagnostics* diags = NULL;
 *   if (cwsc_policy_load_file("policy.toml", CWSC_FORMAT_AUTO, NULL, &policy, &diags)
 *       != CWSC_OK) { ... print cwsc_diagnostics_render(diags) ... }
 *   cwsc_diagnostics_free(diags);
 *   cwsc_facts* facts = cwsc_facts_live();        // reused across compiles
 *   cwsc_plan* plan = NULL;
 *   cwsc_compile(policy, "ask", facts, NULL, &plan, NULL);
 *   cwsc_argv* argv = NULL;
 *   cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &argv, NULL);
 *   for (size_t i = 0; i < cwsc_argv_count(argv); ++i) puts(cwsc_argv_at(argv, i));
 *   cwsc_argv_free(argv); cwsc_plan_free(plan); cwsc_facts_free(facts);
 *   cwsc_policy_free(policy);
 *
 * Conventions of every function:
 *   - A function that can fail returns a cwsc_status; CWSC_OK (0) is success.
 *     Out-parameters are written only on success (a failed call leaves *out
 *     NULL when out is not NULL).
 *   - `cwsc_diagnostics** diags` may be NULL. When it is not, *diags always
 *     receives a new list (empty on a clean success; warnings and notes on a
 *     success with remarks; the errors on a failure) that the caller frees
 *     with cwsc_diagnostics_free. A NULL required argument fails with
 *     CWSC_E_USAGE and a diagnostic naming the argument.
 *   - Every object a function hands out is owned by the caller and freed with
 *     its own free function (free functions accept NULL). Strings returned by
 *     accessors (`const char*`) belong to the object they came from and stay
 *     valid until it is freed. Text results (`char** out`) are NUL-terminated
 *     and freed with cwsc_string_free.
 *   - Strings passed in are copied; the caller may free them after the call.
 *   - No C++ exception crosses this interface, and the library keeps no
 *     global mutable state that a caller can see: different objects may be
 *     used from different threads at the same time. (Inside, a compile
 *     keeps the names of the environment variables it has recorded in a
 *     table of its thread, and numbers its recorders with an atomic
 *     counter; neither changes any result.) One object may be read (every `const`
 *     parameter) from several threads at once. A cwsc_facts handle may be
 *     shared: compiles that use the same handle take turns on it.
 *
 * ABI policy: CWSC_ABI_VERSION is the soname's number (libcwsc.so.0). A
 * release may add functions and enum values; it removes or changes none
 * without a new ABI version. Every object is opaque, so its layout is no
 * part of the ABI.
 */
#ifndef CWSC_H_
#define CWSC_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CWSC_API __attribute__((visibility("default")))
#else
#define CWSC_API
#endif

/* The ABI version this header describes: the soname is libcwsc.so.<it>. */
#define CWSC_ABI_VERSION 0

/* cwsc_status is the result of every call that can fail. The numbers of
 * CWSC_E_INPUT, CWSC_E_REFUSED and CWSC_E_NOT_APPLICABLE are the `cwsc`
 * program's exit codes for the same outcome. */
typedef enum cwsc_status {
  CWSC_OK = 0,
  CWSC_E_USAGE = 1,          /* misuse of the API: a NULL required argument, a bad enum value */
  CWSC_E_INPUT = 2,          /* bad input: a policy, facts file, mode, cwd or path the
                                compiler rejects (diagnostics say where) */
  CWSC_E_REFUSED = 3,        /* the plan refuses to run the command (no artifact) */
  CWSC_E_NOT_APPLICABLE = 4, /* the plan does not emit the artifact asked for */
  CWSC_E_INTERNAL = 5        /* a bug or resource exhaustion inside the library */
} cwsc_status;

/* cwsc_format is the format of a policy text. */
typedef enum cwsc_format {
  CWSC_FORMAT_AUTO = 0, /* by the name's extension: ".cwsp" is the DSL, else TOML */
  CWSC_FORMAT_TOML = 1, /* a Codewhale config.toml */
  CWSC_FORMAT_DSL = 2   /* a .cwsp policy (docs/dsl.md) */
} cwsc_format;

/* cwsc_target picks the argv cwsc_plan_argv emits (`cwsc compile --target`). */
typedef enum cwsc_target {
  CWSC_TARGET_AUTO = 0,    /* the argv of the plan's kind (none: the program alone) */
  CWSC_TARGET_BWRAP = 1,   /* the bubblewrap argv */
  CWSC_TARGET_SEATBELT = 2 /* the sandbox-exec argv */
} cwsc_target;

typedef enum cwsc_severity {
  CWSC_SEVERITY_ERROR = 0,
  CWSC_SEVERITY_WARNING = 1,
  CWSC_SEVERITY_NOTE = 2
} cwsc_severity;

typedef struct cwsc_diagnostics cwsc_diagnostics;     /* a list of diagnostics */
typedef struct cwsc_options cwsc_options;             /* compile options */
typedef struct cwsc_policy cwsc_policy;               /* a parsed policy, reusable */
typedef struct cwsc_facts cwsc_facts;                 /* host facts: live or recorded */
typedef struct cwsc_plan cwsc_plan;                   /* a compiled launch plan */
typedef struct cwsc_argv cwsc_argv;                   /* an argv: a list of strings */
typedef struct cwsc_verdict cwsc_verdict;             /* the answer to an access question */
typedef struct cwsc_spawn_options cwsc_spawn_options; /* how cwsc_spawn starts a command */
typedef struct cwsc_child cwsc_child;                 /* a command started by cwsc_spawn */

/* ---- version ---------------------------------------------------------- */

/* cwsc_version is the library's release ("0.1.0"), the same as `cwsc --version`. */
CWSC_API const char* cwsc_version(void);
/* cwsc_abi_version is the CWSC_ABI_VERSION the library was built with. */
CWSC_API int cwsc_abi_version(void);
/* cwsc_status_name is "ok", "usage", "input", "refused", "not-applicable",
 * "internal", or "unknown" for another value. */
CWSC_API const char* cwsc_status_name(cwsc_status status);
/* cwsc_string_free frees a text result (NULL is allowed). */
CWSC_API void cwsc_string_free(char* text);

/* ---- diagnostics -------------------------------------------------------- */

/* The number of diagnostics in the list (0 for NULL). */
CWSC_API size_t cwsc_diagnostics_count(const cwsc_diagnostics* diags);
/* The number of errors among them (0 for NULL). */
CWSC_API size_t cwsc_diagnostics_error_count(const cwsc_diagnostics* diags);
/* The accessors of diagnostic `i` (0-based). Out of range or NULL: severity
 * CWSC_SEVERITY_ERROR, strings "", numbers 0.
 *   code      a stable identifier: "input" (a policy or facts error),
 *             "mode" (unknown permission mode), "usage" (API misuse),
 *             "refused", "not-applicable", "internal", "note" (a remark of
 *             the config reader), or a plan warning's own code
 *             ("bwrap-unavailable", ...);
 *   message   the text, without position or severity;
 *   file      the input it is about ("" when none);
 *   line, col 1-based position in `file`; 0 when there is none. */
CWSC_API cwsc_severity cwsc_diagnostic_severity(const cwsc_diagnostics* diags, size_t i);
CWSC_API const char* cwsc_diagnostic_code(const cwsc_diagnostics* diags, size_t i);
CWSC_API const char* cwsc_diagnostic_message(const cwsc_diagnostics* diags, size_t i);
CWSC_API const char* cwsc_diagnostic_file(const cwsc_diagnostics* diags, size_t i);
CWSC_API int cwsc_diagnostic_line(const cwsc_diagnostics* diags, size_t i);
CWSC_API int cwsc_diagnostic_col(const cwsc_diagnostics* diags, size_t i);
/* cwsc_diagnostics_render is the whole list as the `cwsc` program prints it
 * (`file:line:col: error: message`, the source line and a caret). "" for NULL. */
CWSC_API const char* cwsc_diagnostics_render(const cwsc_diagnostics* diags);
CWSC_API void cwsc_diagnostics_free(cwsc_diagnostics* diags);

/* ---- options -------------------------------------------------------------- */

/* cwsc_options_new makes options with the `cwsc compile` defaults: the
 * facts' working directory, project config read, no escalation, no
 * program. NULL only when out of memory. A NULL cwsc_options* wherever
 * options are taken means these defaults. */
CWSC_API cwsc_options* cwsc_options_new(void);
/* --cwd DIR: the working directory of the command (relative: from the facts'). NULL resets. */
CWSC_API cwsc_status cwsc_options_set_cwd(cwsc_options* options, const char* cwd);
/* --policy NAME: which policy of a .cwsp file (read by cwsc_policy_load_*). NULL resets. */
CWSC_API cwsc_status cwsc_options_set_policy_name(cwsc_options* options, const char* name);
/* --escalate MODE: an approved per-command escalation target. NULL resets. */
CWSC_API cwsc_status cwsc_options_set_escalate(cwsc_options* options, const char* target);
/* --linux-backend NAME: sandbox_linux_backend = NAME over every layer
 * ("auto", "bwrap", "landlock", any case; docs/config.md). NULL resets.
 * Any other name fails the compile (CWSC_E_INPUT), as it fails the program. */
CWSC_API cwsc_status cwsc_options_set_linux_backend(cwsc_options* options, const char* name);
/* --no-project-config when nonzero: the project's .codewhale/config.toml is not read. */
CWSC_API cwsc_status cwsc_options_set_no_project_config(cwsc_options* options, int no_project);
/* --unlisted-as-missing when nonzero: recorded facts answer "missing" for a
 * path they do not record instead of failing the compile. */
CWSC_API cwsc_status cwsc_options_set_unlisted_as_missing(cwsc_options* options, int as_missing);
/* -- PROGRAM ARGS...: the command the plan wraps (argc strings; argc 0 clears). */
CWSC_API cwsc_status cwsc_options_set_program(cwsc_options* options, const char* const* argv,
                                              size_t argc);
CWSC_API void cwsc_options_free(cwsc_options* options);

/* ---- facts ------------------------------------------------------------------ */

/* cwsc_facts_live answers from the running host; answers are memoized in
 * the handle, so a handle reused across compiles is the fast path, and a new
 * handle sees a changed host (a created directory, a changed environment).
 * The bwrap probe's passing verdict is cached between processes of the same
 * user as `cwsc run` caches it (docs/runtime.md; CWSC_PROBE_CACHE=0 turns it
 * off). NULL only when out of memory. */
CWSC_API cwsc_facts* cwsc_facts_live(void);
/* cwsc_facts_load_file reads a recorded facts file (YAML or JSON, `cwsc facts`). */
CWSC_API cwsc_status cwsc_facts_load_file(const char* path, cwsc_facts** out,
                                          cwsc_diagnostics** diags);
/* cwsc_facts_parse parses recorded facts from `text` (`len` bytes); `name`
 * is the name diagnostics and origins carry (NULL: "<facts>"). */
CWSC_API cwsc_status cwsc_facts_parse(const char* text, size_t len, const char* name,
                                      cwsc_facts** out, cwsc_diagnostics** diags);
CWSC_API void cwsc_facts_free(cwsc_facts* facts);

/* ---- policy ------------------------------------------------------------------ */

/* cwsc_policy_load_file reads and parses a policy once; the options'
 * policy name selects a .cwsp policy (options may be NULL). */
CWSC_API cwsc_status cwsc_policy_load_file(const char* path, cwsc_format format,
                                           const cwsc_options* options, cwsc_policy** out,
                                           cwsc_diagnostics** diags);
/* cwsc_policy_parse parses a policy from `text` (`len` bytes) named `name`
 * (NULL: "<policy>.toml" or "<policy>.cwsp" by format; with CWSC_FORMAT_AUTO
 * the name's extension decides). */
CWSC_API cwsc_status cwsc_policy_parse(const char* text, size_t len, const char* name,
                                       cwsc_format format, const cwsc_options* options,
                                       cwsc_policy** out, cwsc_diagnostics** diags);
CWSC_API void cwsc_policy_free(cwsc_policy* policy);

/* ---- compile ------------------------------------------------------------------ */

/* cwsc_compile compiles a parsed policy for permission `mode` ("plan", "ask",
 * "auto-review", "full-access" or an alias) against `facts` (NULL: new live
 * facts for this call) with `options` (NULL: defaults) into a plan. A plan
 * that refuses the command is still a plan (CWSC_OK; cwsc_plan_kind says
 * "refused"). Warnings of the plan and notes of the config come back as
 * diagnostics. Recorded facts that lack a path the compile asks about fail
 * with CWSC_E_INPUT unless the options say unlisted-as-missing, as `cwsc compile` does. */
CWSC_API cwsc_status cwsc_compile(const cwsc_policy* policy, const char* mode, cwsc_facts* facts,
                                  const cwsc_options* options, cwsc_plan** out,
                                  cwsc_diagnostics** diags);
/* cwsc_compile_file is cwsc_policy_load_file then cwsc_compile. */
CWSC_API cwsc_status cwsc_compile_file(const char* path, cwsc_format format, const char* mode,
                                       cwsc_facts* facts, const cwsc_options* options,
                                       cwsc_plan** out, cwsc_diagnostics** diags);
CWSC_API void cwsc_plan_free(cwsc_plan* plan);

/* ---- the plan ------------------------------------------------------------------ */

/* cwsc_plan_kind is the plan's kind as in its JSON: "linux-bwrap",
 * "launcher+bwrap", "macos-seatbelt", "opensandbox", "none" or "refused" ("" for NULL). */
CWSC_API const char* cwsc_plan_kind(const cwsc_plan* plan);
/* cwsc_plan_json is the plan as canonical JSON, the bytes of `cwsc compile --target plan`. */
CWSC_API cwsc_status cwsc_plan_json(const cwsc_plan* plan, char** out, size_t* len,
                                    cwsc_diagnostics** diags);
/* cwsc_plan_argv is the argv to execute, ending with the options' program:
 * the tokens of `cwsc compile --target <target> --format nul`. A refused plan
 * gives CWSC_E_REFUSED; a target the plan does not emit CWSC_E_NOT_APPLICABLE. */
CWSC_API cwsc_status cwsc_plan_argv(const cwsc_plan* plan, cwsc_target target, cwsc_argv** out,
                                    cwsc_diagnostics** diags);
/* cwsc_plan_seccomp_bpf is the plan's syscall filter as the BPF program
 * bwrap reads: a bwrap argv holding `--seccomp 3` needs these bytes on file
 * descriptor 3 of the bwrap process (`cwsc compile --target seccomp-bpf`).
 * Binary: `*len` bytes (a NUL follows them). CWSC_E_NOT_APPLICABLE when the
 * plan has no syscall filter. */
CWSC_API cwsc_status cwsc_plan_seccomp_bpf(const cwsc_plan* plan, char** out, size_t* len,
                                           cwsc_diagnostics** diags);
/* cwsc_plan_sbpl is a Seatbelt plan's profile text, the output of
 * `cwsc compile --format sbpl` without the newline the program adds. */
CWSC_API cwsc_status cwsc_plan_sbpl(const cwsc_plan* plan, char** out, size_t* len,
                                    cwsc_diagnostics** diags);
/* cwsc_plan_opensandbox_json is a remote plan's HTTP requests as JSON, the
 * API key redacted: `cwsc compile --target opensandbox --format json`. */
CWSC_API cwsc_status cwsc_plan_opensandbox_json(const cwsc_plan* plan, char** out, size_t* len,
                                                cwsc_diagnostics** diags);

/* cwsc_plan_check asks the plan's emitted artifact whether the confined
 * command may `access` ("read", "write", "exec", "create" or "network") the
 * `path` (absolute, or starting with ~, $HOME, $WORKSPACE, $CWD or $TMPDIR;
 * for network NULL or "HOST:PORT"), with the engine of `cwsc check`: the bwrap
 * argv through the mount interpreter, a Seatbelt profile through the SBPL
 * evaluator. A plan with no OS sandbox (none) allows everything; a refused
 * plan denies everything (the rule names the refusal); a remote plan gives
 * CWSC_E_NOT_APPLICABLE (its server enforces the policy). A read or exec at
 * or below a denied path that was missing when the plan was compiled is
 * denied with detail "absent" (nothing there to read; docs/verification.md). */
CWSC_API cwsc_status cwsc_plan_check(const cwsc_plan* plan, const char* access, const char* path,
                                     cwsc_verdict** out, cwsc_diagnostics** diags);

/* ---- reports ------------------------------------------------------------------- */

/* cwsc_report_format picks how a report is given: the text `cwsc` prints for
 * people, every value escaped for a terminal, or the JSON `result` of the
 * command's --json report, on one line (docs/cli.md, "JSON output"). */
typedef enum cwsc_report_format { CWSC_REPORT_TEXT = 0, CWSC_REPORT_JSON = 1 } cwsc_report_format;

/* cwsc_plan_why is `cwsc why PATH` for the plan: the decision for each of
 * `accesses` at `path` (as cwsc_plan_check takes it) and the chain behind it:
 * for a bwrap argv every mount layer covering the path, the deciding one
 * first, each with the plan element (config line) that emitted it; for a
 * Seatbelt profile the deciding rule and its parameters; then what the plan
 * skipped at the path. `accesses` is NULL for "read,write", or a comma list of
 * "read", "write" and "exec". The bytes equal what `cwsc why` prints for the
 * same plan (CWSC_REPORT_TEXT), or its --json result (CWSC_REPORT_JSON). A
 * remote plan gives CWSC_E_NOT_APPLICABLE. Free *out with cwsc_string_free. */
CWSC_API cwsc_status cwsc_plan_why(const cwsc_plan* plan, const char* path, const char* accesses,
                                   cwsc_report_format format, char** out, size_t* len,
                                   cwsc_diagnostics** diags);

/* cwsc_check_file is `cwsc check FILE`: the file validated as every compile
 * reads it, and its expectations (a .cwsp file's policies' expect lines,
 * or the one policy cwsc_options_set_policy_name names) decided in each
 * mode of `modes` (NULL for every mode, or a comma list as `--mode` takes)
 * on the artifact each mode's plan emits, against `facts` (NULL: new live
 * facts for the call), with the options' working directory, escalation,
 * Linux backend, project config and unlisted-as-missing rule. The report's
 * bytes equal what `cwsc check` prints (CWSC_REPORT_TEXT) or its --json
 * result (CWSC_REPORT_JSON): every verdict with the rule that decided it
 * and the config line that emitted it, the lints, the counts. *failed is 1
 * when an expectation failed (the program's exit code 1), else 0. The
 * config's notes and each mode's skipped settings come back as notes.
 * Free *out with cwsc_string_free. */
CWSC_API cwsc_status cwsc_check_file(const char* path, cwsc_format format, const char* modes,
                                     cwsc_facts* facts, const cwsc_options* options,
                                     cwsc_report_format report, char** out, size_t* len,
                                     int* failed, cwsc_diagnostics** diags);

/* cwsc_plan_explain is `cwsc explain --target TARGET` for the plan: the plan
 * kind and policy, then each token of the argv with the plan element that
 * emitted it (a Seatbelt profile line by line; a remote plan's URL and
 * requests, key redacted; a Landlock ruleset one rule a line), or the
 * refusal; then what the plan skipped, its warnings and, with `facts` (as
 * the plan was compiled against; NULL for none), its lints. The bytes equal
 * what `cwsc explain` prints (CWSC_REPORT_TEXT) or its --json result
 * (CWSC_REPORT_JSON). Free *out with cwsc_string_free. */
/* cwsc_plan_diff is `cwsc diff A B` for two plans: both artifacts asked the
 * same questions (read and write on every path either plan names, their
 * parents and a child of each, and the network), only the answers compared:
 * the accesses B allows that A denied (widened) first, then those B denies
 * that A allowed (narrowed), each with the rule of each side that decides
 * it, then what else differs (plan kind, launcher, wrapper). `name_a` and
 * `name_b` name the plans in the JSON ("a", "b"; NULL for "A" and "B"). The
 * bytes equal what `cwsc diff` prints for the same plans (CWSC_REPORT_TEXT)
 * or its --json result (CWSC_REPORT_JSON); "widened" there is what an
 * escalation would grant. Free *out with cwsc_string_free. */
CWSC_API cwsc_status cwsc_plan_diff(const cwsc_plan* a, const char* name_a, const cwsc_plan* b,
                                    const char* name_b, cwsc_report_format format, char** out,
                                    size_t* len, cwsc_diagnostics** diags);

CWSC_API cwsc_status cwsc_plan_explain(const cwsc_plan* plan, cwsc_facts* facts, cwsc_target target,
                                       cwsc_report_format format, char** out, size_t* len,
                                       cwsc_diagnostics** diags);

/* ---- argv and verdicts ----------------------------------------------------------- */

CWSC_API size_t cwsc_argv_count(const cwsc_argv* argv);
/* Token `i`, NUL-terminated (NULL when out of range). */
CWSC_API const char* cwsc_argv_at(const cwsc_argv* argv, size_t i);
/* cwsc_argv_data is a NULL-terminated `char* const*` array of the tokens, for execv. */
CWSC_API const char* const* cwsc_argv_data(const cwsc_argv* argv);
CWSC_API void cwsc_argv_free(cwsc_argv* argv);

/* 1 when the access is allowed, 0 when denied (0 for NULL). */
CWSC_API int cwsc_verdict_allowed(const cwsc_verdict* verdict);
/* The deciding rule as emitted ("--ro-bind / /", "(allow file-read* ...)"). */
CWSC_API const char* cwsc_verdict_rule(const cwsc_verdict* verdict);
/* What the rule leaves at the path ("read-only", "writable", "hidden", ...). */
CWSC_API const char* cwsc_verdict_detail(const cwsc_verdict* verdict);
/* Where the rule is in the artifact ("layer 4, argv 17", "profile line 40"; "" when none). */
CWSC_API const char* cwsc_verdict_where(const cwsc_verdict* verdict);
/* The plan element (config line, mode, default) that emitted the rule ("" when unknown). */
CWSC_API const char* cwsc_verdict_origin(const cwsc_verdict* verdict);
/* The path asked about, after expansion. */
CWSC_API const char* cwsc_verdict_path(const cwsc_verdict* verdict);
CWSC_API void cwsc_verdict_free(cwsc_verdict* verdict);

/* ---- running a plan ------------------------------------------------------------ */

/* cwsc_spawn runs a local plan's command (linux-bwrap, launcher+bwrap,
 * linux-landlock, none) as `cwsc run` does, through the same code: the
 * exec-time rechecks against the running host, the refusals (hard links,
 * planted symlinks, a changed host), the bind sources opened and checked
 * before bwrap mounts them, the mount gate, the sealed seccomp program,
 * descriptors closed, the environment cleared. It returns once the command
 * has started; the child is its own process group.
 *
 *   cwsc_spawn_options* so = cwsc_spawn_options_new();
 *   const char* env[] = {"PATH=/usr/bin:/bin", "HOME=/home/me"};
 *   cwsc_spawn_options_set_env(so, env, 2);
 *   cwsc_spawn_options_set_stdio(so, 0, 1, 2);
 *   cwsc_spawn_options_set_timeout(so, 60, 2);
 *   cwsc_child* child = NULL;
 *   if (cwsc_spawn(plan, facts, so, &child, &diags) == CWSC_OK) {
 *     cwsc_child_wait(child);
 *     int code = cwsc_child_exit_code(child);   // as `cwsc run` exits
 *   }
 *   cwsc_child_free(child);
 *
 * `facts` must be live facts (cwsc_facts_live) or NULL (new live facts for
 * the call): the rechecks ask the running host, so recorded facts are
 * CWSC_E_USAGE. A handle shared with compiles takes turns as they do.
 * When nothing ran the result is CWSC_E_REFUSED with one error whose code
 * says why: "refused" (the plan is refused, or a recheck failed: the
 * message names the path and what changed), "no-sandbox" (the options
 * require a sandbox and the plan has none), "cannot-run" (the program or
 * the sandbox could not be started), "not-local" (an opensandbox or
 * macos-seatbelt plan). Warnings of the run (an unconfined run, the
 * Landlock fallback) come back as warning diagnostics on success.
 *
 * The child's process is made by a thread of the library that lives as long
 * as the process: the kernel ends a child whose parent-death signal is set
 * (bwrap's --die-with-parent) when the thread that made it exits, so the
 * engine may call cwsc_spawn from a short-lived thread. A process made by
 * fork(2) has none of its parent's threads: it gets a spawning thread of its
 * own on its first cwsc_spawn. Thread safety: cwsc_spawn may run on many threads at once;
 * one child's wait, signal and kill may be called from different threads;
 * cwsc_child_free once, after every other call on it has returned. */
CWSC_API cwsc_spawn_options* cwsc_spawn_options_new(void);
/* The command: `argc` strings. Without one (argc 0, the default), the
 * program the plan was compiled with (cwsc_options_set_program). */
CWSC_API cwsc_status cwsc_spawn_options_set_program(cwsc_spawn_options* options,
                                                    const char* const* argv, size_t argc);
/* The environment offered to the command, `count` NAME=VALUE strings. Only
 * the plan's allow-list passes (docs/runtime.md), then the plan's markers
 * are set. The engine's own environment is never read: without this call
 * the command gets the markers alone. */
CWSC_API cwsc_status cwsc_spawn_options_set_env(cwsc_spawn_options* options, const char* const* env,
                                                size_t count);
/* The command's stdin, stdout and stderr: descriptors of the caller, each
 * duplicated into the child (the caller keeps and closes its own), or -1
 * for /dev/null (the default for all three). */
CWSC_API cwsc_status cwsc_spawn_options_set_stdio(cwsc_spawn_options* options, int in, int out,
                                                  int err);
/* A timeout in seconds (0: none, the default): the command's process group
 * gets SIGTERM when it fires and, after `kill_grace_seconds` (default 2),
 * SIGKILL, as `cwsc run --timeout` does. It fires whether or not a wait is
 * running (an engine may watch the pidfd alone). */
CWSC_API cwsc_status cwsc_spawn_options_set_timeout(cwsc_spawn_options* options, double seconds,
                                                    double kill_grace_seconds);
/* Nonzero: a `none` plan whose policy asks for a sandbox is refused
 * ("no-sandbox") instead of run unconfined (`cwsc run --require-sandbox`). */
CWSC_API cwsc_status cwsc_spawn_options_set_require_sandbox(cwsc_spawn_options* options,
                                                            int require);
CWSC_API void cwsc_spawn_options_free(cwsc_spawn_options* options);

CWSC_API cwsc_status cwsc_spawn(const cwsc_plan* plan, cwsc_facts* facts,
                                const cwsc_spawn_options* options, cwsc_child** out,
                                cwsc_diagnostics** diags);

/* The process id of the child (bwrap, sudo or the program itself), which is
 * also its process group; -1 for NULL. */
CWSC_API int cwsc_child_pid(const cwsc_child* child);
/* A pidfd of it, readable once it has exited (poll it with the engine's own
 * loop, then call cwsc_child_wait_timeout with 0); -1 when the kernel has no
 * pidfd_open. It belongs to the child object. */
CWSC_API int cwsc_child_pidfd(const cwsc_child* child);
/* cwsc_child_wait waits until the command has ended and been reaped, and the
 * rest of its process group has been killed. */
CWSC_API cwsc_status cwsc_child_wait(cwsc_child* child);
/* As cwsc_child_wait for at most `timeout_ms` milliseconds (0: look only);
 * *done is 1 once the command has ended, 0 otherwise. */
CWSC_API cwsc_status cwsc_child_wait_timeout(cwsc_child* child, int timeout_ms, int* done);
/* Sends signal `sig` to the command's process group, as `cwsc run`
 * forwards the signals it receives (SIGINT for Ctrl-C): bwrap itself is
 * spared, so the command can handle it. Nothing once it has ended. */
CWSC_API cwsc_status cwsc_child_signal(cwsc_child* child, int sig);
/* Sends SIGKILL to the whole process group. */
CWSC_API cwsc_status cwsc_child_kill(cwsc_child* child);
/* The result, once a wait said the command ended (before that: 0, "").
 *   exit_code       what `cwsc run` exits with: the command's status
 *                   (128+N for signal N), 124 when the timeout fired, 125
 *                   when the sandbox was refused at its mount gate,
 *                   126/127 when the program could not be started inside
 *                   the sandbox;
 *   term_signal     N when the child died of signal N, else 0;
 *   timed_out       1 when the timeout fired;
 *   sandbox_denied  1 when the failure is attributed to the sandbox
 *                   (bwrap's stderr and status; docs/runtime.md), with
 *                   denial_message saying what it denied. */
CWSC_API int cwsc_child_exit_code(const cwsc_child* child);
CWSC_API int cwsc_child_term_signal(const cwsc_child* child);
CWSC_API int cwsc_child_timed_out(const cwsc_child* child);
CWSC_API int cwsc_child_sandbox_denied(const cwsc_child* child);
CWSC_API const char* cwsc_child_denial_message(const cwsc_child* child);
/* The result as the JSON object of the "result" member of `cwsc run --json`. */
CWSC_API cwsc_status cwsc_child_result_json(const cwsc_child* child, char** out, size_t* len,
                                            cwsc_diagnostics** diags);
/* Frees the child; one still running is killed with its group and reaped
 * first (an engine that drops a child ends it). NULL is allowed. */
CWSC_API void cwsc_child_free(cwsc_child* child);

#ifdef __cplusplus
}
#endif

#endif /* CWSC_H_ */
