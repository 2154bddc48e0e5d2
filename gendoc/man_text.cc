// What only the man pages say (gendoc/man_text.h).
#include "gendoc/man_text.h"

namespace cwsc::gendoc {
namespace {

// ---- EXAMPLES ------------------------------------------------------------------
// Real command lines, with only flags of their command (cli_docs_test checks
// them against --help). File names are the reader's own: config.toml, a
// policy.cwsp, facts.yaml, plan.json.

constexpr Example kCompileExamples[] = {
    {"cwsc compile config.toml --mode ask -- sh -c 'make test'",
     "the bubblewrap argv for ask mode, ending with the program"},
    {"cwsc compile config.toml --target plan", "the launch plan as JSON"},
    {"cwsc compile config.toml --facts facts.yaml",
     "the same bytes on any machine, from host facts recorded by cwsc facts"},
    {"cwsc compile config.toml --target seccomp", "the syscall filter, for review"},
    {"cwsc compile config.toml --format shell", "the argv as one line for sh"},
};
constexpr Example kExplainExamples[] = {
    {"cwsc explain config.toml --mode plan", "every token of the plan mode's argv with its origin"},
    {"cwsc explain config.toml --json", "the same as a JSON report"},
    {"cwsc explain config.toml --stage layered",
     "each setting after layering, with the file, variable or flag it came from"},
};
constexpr Example kFactsExamples[] = {
    {"cwsc facts --for config.toml -o facts.yaml", "record the host facts a compile uses"},
    {"cwsc facts", "this host's platform, user, working directory and bwrap probe"},
};
constexpr Example kCheckExamples[] = {
    {"cwsc check policy.cwsp", "evaluate the policy's expectations in every mode"},
    {"cwsc check config.toml --lint --strict", "the config's lints; exit 1 when it has a warning"},
    {"cwsc check policy.cwsp --mode ask --live",
     "also run each expectation as a real probe under the sandbox"},
};
constexpr Example kWhyExamples[] = {
    {"cwsc why ~/.ssh config.toml", "whether the command may read and write ~/.ssh, and why"},
    {"cwsc why /etc/hosts config.toml --write --mode plan",
     "the rule that decides writing /etc/hosts in plan mode"},
};
constexpr Example kDiffExamples[] = {
    {"cwsc diff old.toml new.toml --exit-code", "what new.toml allows that old.toml did not"},
    {"cwsc diff plan-a.json plan-b.json --json", "two compiled plans compared, as JSON"},
};
constexpr Example kAuditExamples[] = {
    {"cwsc audit --why /etc/shadow -- bwrap --ro-bind / / --tmpfs /tmp -- sh",
     "what a bwrap command line allows, and the decision for /etc/shadow"},
    {"cwsc audit --sbpl profile.sb -D HOME=/Users/me", "the access map of a Seatbelt profile"},
};
constexpr Example kFmtExamples[] = {
    {"cwsc fmt -w policy.cwsp", "format a policy in place"},
    {"cwsc fmt --check policy.cwsp", "list it when it is not formatted; exit 1 then"},
};
constexpr Example kRunExamples[] = {
    {"cwsc run config.toml -- make test", "run make test confined, in ask mode"},
    {"cwsc run config.toml --timeout 600 --json -o result.json -- make test",
     "the same with a time limit, the result as JSON in result.json"},
};
constexpr Example kExecExamples[] = {
    {"cwsc exec plan.json -- make test",
     "run make test under a plan from cwsc compile --target plan"},
    {"cwsc exec plan.json --json -o result.json -- make test", "the result as JSON in result.json"},
};
constexpr Example kDoctorExamples[] = {
    {"cwsc doctor", "which sandbox works on this host, and why not"},
    {"cwsc doctor config.toml --json",
     "the same, with each mode's policy for config.toml, as JSON"},
};
constexpr Example kHelpExamples[] = {
    {"cwsc help compile", "every option of cwsc compile"},
    {"cwsc help", "the list of commands"},
};

constexpr struct {
  absl::string_view command;
  std::span<const Example> examples;
} kExamples[] = {
    {"compile", kCompileExamples}, {"explain", kExplainExamples}, {"facts", kFactsExamples},
    {"check", kCheckExamples},     {"why", kWhyExamples},         {"diff", kDiffExamples},
    {"audit", kAuditExamples},     {"fmt", kFmtExamples},         {"run", kRunExamples},
    {"exec", kExecExamples},       {"doctor", kDoctorExamples},   {"help", kHelpExamples},
};

// ---- ENVIRONMENT -----------------------------------------------------------------

// The commands that compile a policy against this host: the environment
// layer, the deny list and TMPDIR apply to each.
#define CWSC_COMPILING "compile explain facts check why diff run doctor"
#define CWSC_COMPILING_AND_EXEC "compile explain facts check why diff run exec doctor"

constexpr EnvironmentVariable kEnvironment[] = {
    {"HOME", "", "compile explain facts check why diff audit run exec doctor",
     "the home directory: ~ and $HOME in policies and expectations, where CONFIG is found when "
     "none is given, and the credential stores the built-in deny list hides (exec refuses a plan "
     "compiled for another home)"},
    {"TMPDIR", "", "compile explain facts check why diff audit run doctor",
     "the temporary directory: $TMPDIR in policies and expectations, and a writable root of "
     "workspace-write plans unless the policy excludes it"},
    {"CODEWHALE_HOME", "", CWSC_COMPILING,
     "the Codewhale home: CONFIG is $CODEWHALE_HOME/config.toml when none is given, and the "
     "built-in deny list hides its secrets and credentials (a relative value is ignored)"},
    {"CODEWHALE_SANDBOX_MODE", "DEEPSEEK_SANDBOX_MODE", CWSC_COMPILING_AND_EXEC,
     "the sandbox_mode setting of the environment layer, which can only narrow a mode's policy (an "
     "invalid "
     "value is an error); also the startup mode run and exec decide no-new-privs for"},
    {"CODEWHALE_SANDBOX_BACKEND", "DEEPSEEK_SANDBOX_BACKEND", CWSC_COMPILING,
     "the sandbox_backend setting of the environment layer"},
    {"CODEWHALE_SANDBOX_URL", "DEEPSEEK_SANDBOX_URL", CWSC_COMPILING,
     "the sandbox_url setting of the environment layer: the OpenSandbox server"},
    {"CODEWHALE_SANDBOX_API_KEY", "DEEPSEEK_SANDBOX_API_KEY", CWSC_COMPILING_AND_EXEC,
     "the OpenSandbox API key: a compile records only that it is set, run and exec send it"},
    {"CODEWHALE_PREFER_BWRAP", "DEEPSEEK_PREFER_BWRAP", CWSC_COMPILING,
     "the prefer_bwrap setting of the environment layer: 1 or true (any case) is true, any other "
     "non-blank "
     "value false (the legacy name is deprecated)"},
    {"CODEWHALE_REQUIREMENTS_PATH", "DEEPSEEK_REQUIREMENTS_PATH", CWSC_COMPILING,
     "the requirements file, whose allowed_sandbox_modes is an administrator's allow-list of "
     "modes (default /etc/codewhale/requirements.toml)"},
    {"CODEWHALE_MANAGED_CONFIG_PATH", "DEEPSEEK_MANAGED_CONFIG_PATH", CWSC_COMPILING_AND_EXEC,
     "the managed (administrator) config, the only layer whose tool_launcher is honoured "
     "(default /etc/codewhale/managed_config.toml)"},
    {"CODEWHALE_NO_NEW_PRIVS", "", CWSC_COMPILING_AND_EXEC,
     "whether run and exec set no-new-privs before they start anything: 0, false, no, off or "
     "disabled skip it, any other value forces it (the plan's posture label says which)"},
    {"CODEX_HOME", "", CWSC_COMPILING,
     "the Codex home, whose auth.json the built-in deny list hides (default ~/.codex)"},
    {"OPENAI_CODEX_AUTH_FILE", "", CWSC_COMPILING,
     "the Codex auth file the built-in deny list hides, instead of $CODEX_HOME/auth.json"},
    {"CARGO_HOME", "", CWSC_COMPILING,
     "the Cargo home a Seatbelt (macOS) plan lets the command write (default ~/.cargo)"},
    {"NPM_CONFIG_CACHE", "", CWSC_COMPILING,
     "the npm cache a Seatbelt (macOS) plan lets the command write (default ~/.npm)"},
    {"HTTP_PROXY", "HTTPS_PROXY ALL_PROXY http_proxy https_proxy all_proxy", CWSC_COMPILING,
     "a loopback proxy a read-only Seatbelt (macOS) plan with network lets the command reach; "
     "without one its network is denied"},
    {"CWSC_PROBE_CACHE", "", "run exec",
     "0 turns off the cache of the bubblewrap probe's passing verdict between runs"},
    {"XDG_RUNTIME_DIR", "", "run exec",
     "where the bubblewrap probe's verdict is cached: $XDG_RUNTIME_DIR/cwsc, else /tmp/cwsc-UID"},
    {"container", "", "doctor",
     "set by container runtimes: doctor then reports the host as a container"},
};

#undef CWSC_COMPILING
#undef CWSC_COMPILING_AND_EXEC

}  // namespace

std::span<const Example> ExamplesOf(absl::string_view command) {
  for (const auto& e : kExamples) {
    if (e.command == command) return e.examples;
  }
  return {};
}

std::span<const EnvironmentVariable> EnvironmentVariables() { return kEnvironment; }

}  // namespace cwsc::gendoc
