#include "compiler/compile.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/config_key_table.h"
#include "compiler/config_toml.h"
#include "compiler/dsl_frontend.h"
#include "compiler/facts/config_secrets.h"
#include "compiler/facts/consulted.h"
#include "compiler/file_text.h"
#include "compiler/launcher.h"
#include "compiler/layers.h"
#include "compiler/paths.h"
#include "compiler/resolve.h"
#include "compiler/spec_paths.h"
#include "ir/diagnostics.h"
#include "ir/status_macros.h"
#include "ir/validate.h"

namespace cwsc::compiler {
namespace {

// Bounds what the TOML and DSL parsers hold in memory (docs/config.md).
constexpr size_t kMaxConfigBytes = 4 * 1024 * 1024;

constexpr char kNoWorkingDirectory[] =
    "the working directory no longer exists (it was removed, or cannot be reached); "
    "change to an existing directory or pass --cwd DIR";

// UsageError is an error about the invocation, not a file: rendered
// `error: MESSAGE`.
absl::Status UsageError(const std::string& message) { return ir::ErrorAt("", 0, 0, message); }

absl::StatusOr<std::string> ReadConfigFile(const std::string& path) {
  FileText t = ReadFileText(path, {.limit = kMaxConfigBytes});
  if (t.open_errno != 0) {
    return ir::ErrorAt(path, 0, 0,
                       absl::StrCat("cannot read the config: ", std::strerror(t.open_errno)));
  }
  if (t.too_large) {
    return ir::ErrorAt(path, 0, 0, "the config is larger than 4 MiB");
  }
  if (!t.ok()) {
    return ir::ErrorAt(path, 0, 0, "cannot read the config");
  }
  return std::move(t.data);
}

// A policy list holds at most this many entries (docs/config.md): compile
// time and memory grow with every entry, and 50,000 paths is far past any real
// policy (bench/scale_bench.cc measures the cost per entry).
constexpr size_t kMaxListEntries = 50000;

absl::Status CheckPolicySize(const PolicySpec& spec) {
  for (const ConfigKey& k : ConfigKeys()) {  // every list key, in the table's order
    const auto* member = std::get_if<std::optional<Setting<PathList>> PolicySpec::*>(&k.field);
    if (member == nullptr) continue;
    const std::optional<Setting<PathList>>& list = spec.**member;
    if (!list || list->value.size() <= kMaxListEntries) continue;
    const ir::Origin& o = list->origin;
    return ir::ErrorAt(o.file, o.line, o.col,
                       absl::StrCat("'", std::string(k.name), "' has ", list->value.size(),
                                    " entries; a policy list holds at most ", kMaxListEntries),
                       "");
  }
  return absl::OkStatus();
}

absl::StatusOr<CompileResult> CompileSpec(PolicySpec merged, const ParsedConfig& parsed,
                                          const CompileOptions& options, HostFacts* facts);

}  // namespace

absl::StatusOr<ParsedConfig> ParseConfigText(std::string text, const std::string& path,
                                             ConfigFormat format, const std::string& policy_name) {
  ParsedConfig parsed;
  parsed.path = path;
  if (format == ConfigFormat::kAuto) {
    format = absl::EndsWith(path, ".cwsp") ? ConfigFormat::kDsl : ConfigFormat::kToml;
  }
  if (format == ConfigFormat::kDsl) {
    CWSC_ASSIGN_OR_RETURN(DslResult dsl, ReadDslPolicy(text, path, policy_name, Layer::kUser));
    parsed.user = std::move(dsl.spec);
  } else {
    if (!policy_name.empty()) {
      return ir::ErrorAt(path, 0, 0,
                         "--policy selects a policy of a .cwsp file; this is a TOML config (use "
                         "--input dsl if it is a policy)");
    }
    CWSC_ASSIGN_OR_RETURN(ConfigLayer layer, ReadTomlConfig(text, path, Layer::kUser));
    parsed.user = std::move(layer.spec);
    parsed.notes = std::move(layer.notes);
  }
  parsed.text = std::move(text);
  return parsed;
}

absl::StatusOr<ParsedConfig> ReadConfig(const CompileOptions& options) {
  std::string text;
  if (options.config_text) {  // the CLI read it already (stdin: `-`)
    if (options.config_text->size() > kMaxConfigBytes) {
      return ir::ErrorAt(options.config_path, 0, 0, "the config is larger than 4 MiB");
    }
    text = *options.config_text;
  } else {
    CWSC_ASSIGN_OR_RETURN(text, ReadConfigFile(options.config_path));
  }
  return ParseConfigText(std::move(text), options.config_path, options.format, options.policy_name);
}

absl::StatusOr<CompileResult> CompileConfig(const CompileOptions& options, HostFacts* facts) {
  // An unknown mode is reported before the config is read (CompileParsed's
  // first check gives the error).
  if (!ParsePermissionMode(options.mode)) return CompileParsed(ParsedConfig{}, options, facts);
  CWSC_ASSIGN_OR_RETURN(ParsedConfig parsed, ReadConfig(options));
  PolicySpec user = std::move(parsed.user);  // read once: moved, not copied
  return CompileSpec(std::move(user), parsed, options, facts);
}

absl::StatusOr<CompileResult> CompileParsed(const ParsedConfig& parsed,
                                            const CompileOptions& options, HostFacts* facts) {
  return CompileSpec(parsed.user, parsed, options, facts);
}

namespace {

// NoteMissingRoots: a configured writable root that does not exist is left
// out of the sandbox; say so at its entry, once per path, rather than drop
// it without a word (a typo in a root would otherwise go unseen).
void NoteMissingRoots(const ir::LaunchPlan& plan, std::vector<ir::Diagnostic>* notes) {
  absl::flat_hash_set<absl::string_view> noted;  // a list scan per root was quadratic
  for (const ir::Root& r : plan.roots) {
    if (r.source != ir::RootSource::kConfigured || r.skip != ir::RootSkip::kMissing) continue;
    // The permission mode's workspace is the working directory, whose
    // absence `run` refuses on its own.
    if (r.origin.kind == ir::Origin::Kind::kMode) continue;
    if (!noted.insert(absl::string_view(r.path)).second) continue;
    const ir::Origin& o = r.origin;
    std::string msg = absl::StrCat("the writable root '", r.path.str(),
                                   "' does not exist, so the sandbox leaves it out; create it, "
                                   "or remove the entry");
    if (o.file.empty()) absl::StrAppend(&msg, " (", o.Describe(), ")");
    notes->push_back(ir::Diagnostic{ir::Diagnostic::Severity::kNote, o.file.str(), o.line, o.col,
                                    std::move(msg), ""});
  }
}

// CompileSpec compiles `merged` (the user layer of `parsed`, which it does
// not read again) for `options`.
absl::StatusOr<CompileResult> CompileSpec(PolicySpec merged, const ParsedConfig& parsed,
                                          const CompileOptions& options, HostFacts* host) {
  CompileResult result;
  // Every answer the compile acts on is kept in the plan, for the recheck
  // to ask again (compiler/facts/consulted.h).
  ConsultedRecorder consulted(host);
  HostFacts* facts = &consulted;
  std::optional<ir::PermissionMode> mode = ParsePermissionMode(options.mode);
  if (!mode) return UsageError(UnknownPermissionModeMessage(options.mode));
  // Any other name is an error, from the command line and the library
  // alike: never a silent bubblewrap plan (docs/decisions.md).
  std::optional<LinuxBackend> linux_backend;
  if (options.linux_backend) {
    linux_backend = ParseLinuxBackend(*options.linux_backend);
    if (!linux_backend) {
      return UsageError(absl::StrCat("--linux-backend: invalid value '", *options.linux_backend,
                                     "': expected auto, bwrap or landlock"));
    }
  }
  const std::string& text = parsed.text;
  result.notes = parsed.notes;
  std::vector<ir::Expectation> expectations = merged.expectations;  // only the DSL writes them
  CWSC_ASSIGN_OR_RETURN(PolicySpec env, EnvOverrides(*facts, &result.notes));
  Overlay(merged, env);
  CWSC_ASSIGN_OR_RETURN(ManagedLayer managed, ReadManagedLayer(*facts, merged, &result.notes));
  LauncherTrust trust;  // compiler/launcher.h: only a trusted managed file may set tool_launcher
  if (managed.spec.tool_launcher)
    trust = CheckLauncherTrust(*facts, managed, merged.managed_config_path);
  Overlay(merged, managed.spec);

  std::string cwd = options.cwd ? *options.cwd : facts->Cwd();
  if (options.cwd && cwd.empty()) {
    return UsageError("--cwd must not be empty");
  }
  // A relative --cwd is taken from the working directory (the recorded one
  // with --facts), as a shell would.
  if (!absl::StartsWith(cwd, "/")) {
    std::string base = facts->Cwd();
    // No working directory (HostFacts::Cwd is "" when it was removed): an
    // error, never a guess such as "/" (docs/decisions.md).
    if (base.empty()) return UsageError(kNoWorkingDirectory);
    cwd = LexicalNormalize(JoinPath(base, cwd));
  }
  if (options.read_project_config) {
    CWSC_RETURN_IF_ERROR(ApplyProjectLayer(*facts, cwd, merged, &result.notes));
  }
  CWSC_RETURN_IF_ERROR(CheckPolicySize(merged));
  CWSC_RETURN_IF_ERROR(ValidateSpecPaths(merged));
  // Requirements (docs/behavior.md B-3 step 4): a configured sandbox_mode outside
  // the administrator's allow-list is a load error.
  CWSC_ASSIGN_OR_RETURN(Requirements req, ReadRequirements(*facts, merged));
  if (merged.sandbox_mode && !req.Allows(merged.sandbox_mode->value.type)) {
    const ir::Origin& o = merged.sandbox_mode->origin;
    std::string msg = absl::StrCat("sandbox_mode '", merged.sandbox_mode->value.text,
                                   "' is not allowed by requirements (", req.Describe(), ")");
    if (o.file.empty()) {
      return ir::ErrorAt(o.Describe(), 0, 0, msg);  // the place is the origin
    }
    std::optional<std::string> src =
        o.file == parsed.path ? std::optional<std::string>(text) : facts->ReadFile(o.file.str());
    return ir::ErrorAt(o.file, o.line, o.col, msg,
                       src ? ir::SourceLineAt(MaskSecrets(*src), o.line) : "");
  }
  if (linux_backend) {
    merged.sandbox_linux_backend = Setting<LinuxBackend>{
        *linux_backend, ir::Origin::Cli(absl::StrCat("--linux-backend ", *options.linux_backend))};
  }
  if (options.force_landlock) {
    merged.sandbox_linux_backend =
        Setting<LinuxBackend>{LinuxBackend::kLandlock, ir::Origin::Cli("--target landlock")};
  }
  if (options.require_sandbox) {
    merged.sandbox_require = Setting<bool>{true, ir::Origin::Cli("--require-sandbox")};
  }
  ResolveInput in;
  in.requirements = req;
  in.spec = std::move(merged);
  in.mode = *mode;
  in.mode_origin = options.mode_origin;
  in.cwd = cwd;
  in.escalate = options.escalate;
  in.launcher_trusted = trust.trusted;
  in.launcher_trust_refusal = trust.refusal;
  {
    absl::StatusOr<ir::LaunchPlan> plan = ResolvePlan(in, *facts);
    merged = std::move(in.spec);  // lent to the resolver, not copied (large policies)
    if (!plan.ok()) return plan.status();
    result.plan = *std::move(plan);
  }
  if (const ir::Bwrap* b = result.plan.bwrap(); b && !b->launcher.empty()) {
    result.plan.warnings.insert(result.plan.warnings.end(), trust.warnings.begin(),
                                trust.warnings.end());
  }
  NoteMissingRoots(result.plan, &result.notes);
  result.plan.expectations = std::move(expectations);
  result.plan.consulted = consulted.Take();
  result.merged = std::move(merged);
#ifndef NDEBUG
  // Debug builds (the sanitizer suites among them) hold every plan the
  // compiler makes to the rules `cwsc exec` reads plans by (ir/validate.h).
  if (std::vector<ir::PlanProblem> problems = ir::Validate(result.plan); !problems.empty()) {
    return absl::InternalError(absl::StrCat(
        "the compiler made an invalid plan: ", problems[0].pointer, ": ", problems[0].message));
  }
#endif
  return result;
}

}  // namespace

}  // namespace cwsc::compiler
