// The C ABI of libcwsc (lib/cwsc.h) over the compiler, the backends and the
// verifiers. Every exported function catches every exception: nothing C++
// crosses the boundary. No state outside the objects handed out.
#include "lib/cwsc.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/bwrap.h"
#include "backends/emitted.h"
#include "backends/opensandbox.h"
#include "backends/seatbelt.h"
#include "backends/verify/expect_eval.h"
#include "compiler/compile.h"
#include "compiler/driver/check_report.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/emit.h"
#include "compiler/driver/report.h"
#include "compiler/driver/verify.h"
#include "compiler/facts/host_facts.h"
#include "compiler/file_text.h"
#include "compiler/paths.h"
#include "ir/diagnostic_status.h"
#include "ir/diagnostics.h"
#include "ir/display.h"
#include "ir/plan.h"
#include "ir/plan_json.h"
#include "lib/version.h"
#include "runtime/execute.h"
#include "runtime/host/probe_cache.h"
#include "runtime/launch.h"

using cwsc::ir::Diagnostic;

struct cwsc_diagnostics {
  struct Item {
    cwsc_severity severity = CWSC_SEVERITY_ERROR;
    std::string code;
    std::string message;
    std::string file;
    int line = 0;
    int col = 0;
  };
  std::vector<Item> items;
  std::string rendered;
};

struct cwsc_options {
  std::optional<std::string> cwd;
  std::string policy_name;
  std::optional<std::string> escalate;
  std::optional<std::string> linux_backend;
  bool no_project_config = false;
  bool unlisted_as_missing = false;
  std::vector<std::string> program;
};

struct cwsc_policy {
  cwsc::compiler::ParsedConfig parsed;
  std::string policy_name;
};

struct cwsc_facts {
  std::mutex mu;  // compiles sharing the handle take turns (HostFacts memoizes)
  std::unique_ptr<cwsc::compiler::HostFacts> facts;
  bool recorded = false;
  std::string name;  // recorded facts: the file or the name given
};

struct cwsc_plan {
  cwsc::ir::LaunchPlan plan;
  std::vector<std::string> program;
  cwsc::compiler::PathVars vars;
  // The denied paths missing at compile time: cwsc_plan_check reports a read
  // there "absent", as `cwsc why` does.
  std::vector<cwsc::ir::DeniedPath> missing_denied;
};

struct cwsc_argv {
  std::vector<std::string> tokens;
  std::vector<const char*> pointers;  // tokens' c_str(), then NULL
};

struct cwsc_verdict {
  bool allowed = false;
  std::string rule, detail, where, origin, path;
};

struct cwsc_spawn_options {
  std::optional<std::vector<std::string>> program;
  std::vector<std::string> env;
  int in = -1, out = -1, err = -1;
  double timeout_seconds = 0;
  double kill_grace_seconds = 2;
  bool require_sandbox = false;
};

struct cwsc_child {
  std::unique_ptr<cwsc::runtime::PlanChild> child;
  std::atomic<bool> done{false};
};

namespace cwsc::lib {
namespace {

// Sink collects the diagnostics of one call and hands them out at the end.
class Sink {
 public:
  explicit Sink(cwsc_diagnostics** out) : out_(out) {
    if (out_) *out_ = nullptr;
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() {
    if (!out_) return;
    try {
      *out_ = new cwsc_diagnostics(std::move(list_));
    } catch (...) {
      *out_ = nullptr;  // out of memory: no list rather than a partial one
    }
  }

  // Add records `d`; `rendered` is its text when it came as text (else it
  // is rendered here, source line and caret included).
  void Add(const Diagnostic& d, const std::string& code, const std::string* rendered = nullptr) {
    if (!out_) return;
    cwsc_diagnostics::Item it;
    it.severity = d.severity == Diagnostic::Severity::kError     ? CWSC_SEVERITY_ERROR
                  : d.severity == Diagnostic::Severity::kWarning ? CWSC_SEVERITY_WARNING
                                                                 : CWSC_SEVERITY_NOTE;
    it.code = code;
    it.message = d.message;
    it.file = d.file;
    it.line = d.line;
    it.col = d.col;
    list_.items.push_back(std::move(it));
    list_.rendered += rendered ? *rendered : d.Render();
  }

  cwsc_status Error(cwsc_status status, const std::string& code, const std::string& message,
                    const std::string& file = "") {
    Diagnostic d;
    d.file = file;
    d.message = message;
    Add(d, code);
    return status;
  }

  // FromStatus records a failed status: the diagnostics it carries (and
  // the closing line of a list that stopped at the error limit, in the
  // rendering), else its message as one error whose rendering is the
  // message itself. Nothing is read back out of a message's text.
  cwsc_status FromStatus(const absl::Status& s, cwsc_status status, const std::string& code) {
    if (std::optional<std::vector<Diagnostic>> ds = ir::DiagnosticsOf(s)) {
      for (const Diagnostic& d : *ds) Add(d, code);
      if (ir::StoppedAtErrorLimit(s) && out_) {
        list_.rendered += absl::StrCat(ir::kStoppedLine, "\n");
      }
      if (!ds->empty()) return status;
    }
    std::string text(s.message());
    if (text.empty()) text = "unknown error";
    if (text.back() != '\n') text += '\n';
    Diagnostic d;
    d.message = text.substr(0, text.size() - 1);
    Add(d, code, &text);
    return status;
  }

 private:
  cwsc_diagnostics** out_;
  cwsc_diagnostics list_;
};

// Guard runs `body` with every exception turned into CWSC_E_INTERNAL.
template <typename F>
cwsc_status Guard(cwsc_diagnostics** diags, F&& body) {
  try {
    Sink sink(diags);
    try {
      return body(sink);
    } catch (const std::bad_alloc&) {
      return sink.Error(CWSC_E_INTERNAL, "internal", "out of memory");
    } catch (const std::exception& e) {
      return sink.Error(CWSC_E_INTERNAL, "internal", absl::StrCat("internal error: ", e.what()));
    } catch (...) {
      return sink.Error(CWSC_E_INTERNAL, "internal", "internal error");
    }
  } catch (...) {
    return CWSC_E_INTERNAL;
  }
}

cwsc_status Missing(Sink& sink, const char* what) {
  return sink.Error(CWSC_E_USAGE, "usage", absl::StrCat(what, " must not be NULL"));
}

// Raw is an enum argument's value as the caller passed it. A C caller may
// pass any int in an enum parameter; in C++ reading such a value through
// the enum type is undefined, so the bits are copied out instead.
template <typename E>
int Raw(const E& e) {
  static_assert(sizeof(E) == sizeof(int));
  int raw;
  std::memcpy(&raw, &e, sizeof raw);
  return raw;
}

std::optional<compiler::ConfigFormat> FormatOf(int f) {
  switch (f) {
    case CWSC_FORMAT_AUTO:
      return compiler::ConfigFormat::kAuto;
    case CWSC_FORMAT_TOML:
      return compiler::ConfigFormat::kToml;
    case CWSC_FORMAT_DSL:
      return compiler::ConfigFormat::kDsl;
  }
  return std::nullopt;
}

cwsc_status SetString(cwsc_options* o, std::optional<std::string> cwsc_options::*field,
                      const char* value) {
  if (!o) return CWSC_E_USAGE;
  try {
    o->*field = value ? std::optional<std::string>(value) : std::nullopt;
    return CWSC_OK;
  } catch (...) {
    return CWSC_E_INTERNAL;
  }
}

// Remarks hands the config's notes and the plan's warnings to the caller.
void Remarks(Sink& sink, const compiler::CompileResult& r) {
  for (const Diagnostic& d : r.notes) sink.Add(d, "note");
  for (const ir::Warning& w : r.plan.warnings) {
    Diagnostic d;
    d.severity = Diagnostic::Severity::kWarning;
    d.message = w.message;
    sink.Add(d, w.code);
  }
}

cwsc_status Compile(const cwsc_policy& policy, const char* mode, cwsc_facts* facts,
                    const cwsc_options* options, cwsc_plan** out, Sink& sink) {
  static const cwsc_options kDefaults;
  const cwsc_options& o = options ? *options : kDefaults;
  if (!o.policy_name.empty() && o.policy_name != policy.policy_name) {
    return sink.Error(
        CWSC_E_USAGE, "usage",
        absl::StrCat("the options name policy '", o.policy_name, "' but the policy was loaded as '",
                     policy.policy_name, "': the policy name is read when the policy is loaded"));
  }
  if (!compiler::ParsePermissionMode(mode)) {
    return sink.Error(CWSC_E_INPUT, "mode", compiler::UnknownPermissionModeMessage(mode));
  }
  compiler::CompileOptions copts;
  copts.config_path = policy.parsed.path;
  copts.mode = mode;
  copts.mode_origin = ir::Origin::Cli(absl::StrCat("--mode ", mode));
  copts.cwd = o.cwd;
  copts.policy_name = policy.policy_name;
  copts.escalate = o.escalate;
  copts.linux_backend = o.linux_backend;
  copts.read_project_config = !o.no_project_config;

  std::unique_ptr<cwsc_facts> own;
  if (!facts) {
    own = std::make_unique<cwsc_facts>();
    own->facts = runtime::MakeRuntimeFacts();
    facts = own.get();
  }
  std::lock_guard<std::mutex> lock(facts->mu);
  absl::StatusOr<compiler::CompileResult> r =
      compiler::CompileParsed(policy.parsed, copts, facts->facts.get());
  if (!r.ok()) return sink.FromStatus(r.status(), CWSC_E_INPUT, "input");
  std::vector<std::string> unlisted = facts->facts->UnlistedPaths();
  if (facts->recorded && !unlisted.empty() && !o.unlisted_as_missing) {
    return sink.Error(
        CWSC_E_INPUT, "input",
        cwsc::driver::MissingFactsMessage(unlisted, cwsc::driver::FactsAsker::kLibrary),
        facts->name);
  }
  Remarks(sink, *r);
  auto plan = std::make_unique<cwsc_plan>();
  plan->plan = std::move(r->plan);
  plan->program = o.program;
  plan->vars = driver::VarsFor(plan->plan, facts->facts.get());
  plan->missing_denied = driver::MissingDenyTargets(plan->plan, facts->facts.get());
  *out = plan.release();
  return CWSC_OK;
}

cwsc_status LoadPolicy(std::string text, const std::string& name, int format,
                       const cwsc_options* options, cwsc_policy** out, Sink& sink) {
  std::optional<compiler::ConfigFormat> f = FormatOf(format);
  if (!f) return sink.Error(CWSC_E_USAGE, "usage", "unknown cwsc_format value");
  std::string policy_name = options ? options->policy_name : "";
  absl::StatusOr<compiler::ParsedConfig> p =
      compiler::ParseConfigText(std::move(text), name, *f, policy_name);
  if (!p.ok()) return sink.FromStatus(p.status(), CWSC_E_INPUT, "input");
  for (const Diagnostic& d : p->notes) sink.Add(d, "note");
  auto policy = std::make_unique<cwsc_policy>();
  policy->parsed = *std::move(p);
  policy->policy_name = std::move(policy_name);
  *out = policy.release();
  return CWSC_OK;
}

cwsc_status NewText(const std::string& text, char** out, size_t* len) {
  char* buf = static_cast<char*>(std::malloc(text.size() + 1));
  if (!buf) return CWSC_E_INTERNAL;
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  *out = buf;
  if (len) *len = text.size();
  return CWSC_OK;
}

cwsc_status Refused(Sink& sink, const ir::LaunchPlan& plan) {
  return sink.Error(CWSC_E_REFUSED, "refused",
                    absl::StrCat("refused: ", plan.refusal() ? plan.refusal()->reason : "", " (",
                                 plan.refusal() ? plan.refusal()->origin.Describe() : "", ")"));
}

// CopyStrings copies `n` C strings into `out`: CWSC_E_USAGE for a NULL
// array (with n > 0) or entry, CWSC_E_INTERNAL when out of memory.
cwsc_status CopyStrings(const char* const* v, size_t n, std::vector<std::string>* out) {
  if (n > 0 && !v) return CWSC_E_USAGE;
  try {
    std::vector<std::string> list;
    for (size_t i = 0; i < n; ++i) {
      if (!v[i]) return CWSC_E_USAGE;
      list.emplace_back(v[i]);
    }
    *out = std::move(list);
    return CWSC_OK;
  } catch (...) {
    return CWSC_E_INTERNAL;
  }
}

// OutcomeOf: a child's result once a wait said it ended, else nullptr.
const runtime::ExecOutcome* OutcomeOf(const cwsc_child* child) {
  return child && child->done.load() ? &child->child->outcome() : nullptr;
}

const cwsc_diagnostics::Item* ItemAt(const cwsc_diagnostics* d, size_t i) {
  return d && i < d->items.size() ? &d->items[i] : nullptr;
}

}  // namespace
}  // namespace cwsc::lib

using cwsc::lib::Guard;
using cwsc::lib::Missing;
using cwsc::lib::Sink;
namespace ir = cwsc::ir;
namespace backends = cwsc::backends;

extern "C" {

const char* cwsc_version(void) { return CWSC_LIB_VERSION; }
int cwsc_abi_version(void) { return CWSC_ABI_VERSION; }

const char* cwsc_status_name(cwsc_status status) {
  switch (cwsc::lib::Raw(status)) {
    case CWSC_OK:
      return "ok";
    case CWSC_E_USAGE:
      return "usage";
    case CWSC_E_INPUT:
      return "input";
    case CWSC_E_REFUSED:
      return "refused";
    case CWSC_E_NOT_APPLICABLE:
      return "not-applicable";
    case CWSC_E_INTERNAL:
      return "internal";
  }
  return "unknown";
}

void cwsc_string_free(char* text) { std::free(text); }

size_t cwsc_diagnostics_count(const cwsc_diagnostics* diags) {
  return diags ? diags->items.size() : 0;
}
size_t cwsc_diagnostics_error_count(const cwsc_diagnostics* diags) {
  size_t n = 0;
  if (diags) {
    for (const auto& it : diags->items) n += it.severity == CWSC_SEVERITY_ERROR;
  }
  return n;
}
cwsc_severity cwsc_diagnostic_severity(const cwsc_diagnostics* diags, size_t i) {
  const auto* it = cwsc::lib::ItemAt(diags, i);
  return it ? it->severity : CWSC_SEVERITY_ERROR;
}
const char* cwsc_diagnostic_code(const cwsc_diagnostics* diags, size_t i) {
  const auto* it = cwsc::lib::ItemAt(diags, i);
  return it ? it->code.c_str() : "";
}
const char* cwsc_diagnostic_message(const cwsc_diagnostics* diags, size_t i) {
  const auto* it = cwsc::lib::ItemAt(diags, i);
  return it ? it->message.c_str() : "";
}
const char* cwsc_diagnostic_file(const cwsc_diagnostics* diags, size_t i) {
  const auto* it = cwsc::lib::ItemAt(diags, i);
  return it ? it->file.c_str() : "";
}
int cwsc_diagnostic_line(const cwsc_diagnostics* diags, size_t i) {
  const auto* it = cwsc::lib::ItemAt(diags, i);
  return it ? it->line : 0;
}
int cwsc_diagnostic_col(const cwsc_diagnostics* diags, size_t i) {
  const auto* it = cwsc::lib::ItemAt(diags, i);
  return it ? it->col : 0;
}
const char* cwsc_diagnostics_render(const cwsc_diagnostics* diags) {
  return diags ? diags->rendered.c_str() : "";
}
void cwsc_diagnostics_free(cwsc_diagnostics* diags) { delete diags; }

cwsc_options* cwsc_options_new(void) { return new (std::nothrow) cwsc_options(); }
cwsc_status cwsc_options_set_cwd(cwsc_options* options, const char* cwd) {
  return cwsc::lib::SetString(options, &cwsc_options::cwd, cwd);
}
cwsc_status cwsc_options_set_policy_name(cwsc_options* options, const char* name) {
  if (!options) return CWSC_E_USAGE;
  try {
    options->policy_name = name ? name : "";
    return CWSC_OK;
  } catch (...) {
    return CWSC_E_INTERNAL;
  }
}
cwsc_status cwsc_options_set_escalate(cwsc_options* options, const char* target) {
  return cwsc::lib::SetString(options, &cwsc_options::escalate, target);
}
cwsc_status cwsc_options_set_linux_backend(cwsc_options* options, const char* name) {
  return cwsc::lib::SetString(options, &cwsc_options::linux_backend, name);
}
cwsc_status cwsc_options_set_no_project_config(cwsc_options* options, int no_project) {
  if (!options) return CWSC_E_USAGE;
  options->no_project_config = no_project != 0;
  return CWSC_OK;
}
cwsc_status cwsc_options_set_unlisted_as_missing(cwsc_options* options, int as_missing) {
  if (!options) return CWSC_E_USAGE;
  options->unlisted_as_missing = as_missing != 0;
  return CWSC_OK;
}
cwsc_status cwsc_options_set_program(cwsc_options* options, const char* const* argv, size_t argc) {
  if (!options) return CWSC_E_USAGE;
  return cwsc::lib::CopyStrings(argv, argc, &options->program);
}
void cwsc_options_free(cwsc_options* options) { delete options; }

cwsc_facts* cwsc_facts_live(void) {
  try {
    auto f = std::make_unique<cwsc_facts>();
    f->facts = cwsc::runtime::MakeRuntimeFacts();
    return f.release();
  } catch (...) {
    return nullptr;
  }
}

cwsc_status cwsc_facts_load_file(const char* path, cwsc_facts** out, cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!path) return Missing(sink, "path");
    if (!out) return Missing(sink, "out");
    absl::StatusOr<std::unique_ptr<cwsc::compiler::HostFacts>> f =
        cwsc::compiler::LoadRecordedFacts(path);
    if (!f.ok()) return sink.FromStatus(f.status(), CWSC_E_INPUT, "input");
    auto h = std::make_unique<cwsc_facts>();
    h->facts = *std::move(f);
    h->recorded = true;
    h->name = path;
    *out = h.release();
    return CWSC_OK;
  });
}

cwsc_status cwsc_facts_parse(const char* text, size_t len, const char* name, cwsc_facts** out,
                             cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!text) return Missing(sink, "text");
    if (!out) return Missing(sink, "out");
    absl::StatusOr<std::unique_ptr<cwsc::compiler::HostFacts>> f =
        cwsc::compiler::ParseRecordedFacts(std::string(text, len), name ? name : "<facts>");
    if (!f.ok()) return sink.FromStatus(f.status(), CWSC_E_INPUT, "input");
    auto h = std::make_unique<cwsc_facts>();
    h->facts = *std::move(f);
    h->recorded = true;
    h->name = name ? name : "<facts>";
    *out = h.release();
    return CWSC_OK;
  });
}

void cwsc_facts_free(cwsc_facts* facts) { delete facts; }

cwsc_status cwsc_policy_load_file(const char* path, cwsc_format format, const cwsc_options* options,
                                  cwsc_policy** out, cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!path) return Missing(sink, "path");
    if (!out) return Missing(sink, "out");
    // The limit and messages of `cwsc compile` (compiler/compile.cc).
    cwsc::compiler::CompileOptions read;
    read.config_path = path;
    read.format = cwsc::compiler::ConfigFormat::kToml;  // format checked below
    std::optional<cwsc::compiler::ConfigFormat> f = cwsc::lib::FormatOf(cwsc::lib::Raw(format));
    if (!f) return sink.Error(CWSC_E_USAGE, "usage", "unknown cwsc_format value");
    read.format = *f;
    read.policy_name = options ? options->policy_name : "";
    absl::StatusOr<cwsc::compiler::ParsedConfig> p = cwsc::compiler::ReadConfig(read);
    if (!p.ok()) return sink.FromStatus(p.status(), CWSC_E_INPUT, "input");
    for (const Diagnostic& d : p->notes) sink.Add(d, "note");
    auto policy = std::make_unique<cwsc_policy>();
    policy->parsed = *std::move(p);
    policy->policy_name = read.policy_name;
    *out = policy.release();
    return CWSC_OK;
  });
}

cwsc_status cwsc_policy_parse(const char* text, size_t len, const char* name, cwsc_format format,
                              const cwsc_options* options, cwsc_policy** out,
                              cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!text) return Missing(sink, "text");
    if (!out) return Missing(sink, "out");
    const int f = cwsc::lib::Raw(format);
    std::string n = name ? name : f == CWSC_FORMAT_DSL ? "<policy>.cwsp" : "<policy>.toml";
    return cwsc::lib::LoadPolicy(std::string(text, len), n, f, options, out, sink);
  });
}

void cwsc_policy_free(cwsc_policy* policy) { delete policy; }

cwsc_status cwsc_compile(const cwsc_policy* policy, const char* mode, cwsc_facts* facts,
                         const cwsc_options* options, cwsc_plan** out, cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!policy) return Missing(sink, "policy");
    if (!mode) return Missing(sink, "mode");
    if (!out) return Missing(sink, "out");
    return cwsc::lib::Compile(*policy, mode, facts, options, out, sink);
  });
}

cwsc_status cwsc_compile_file(const char* path, cwsc_format format, const char* mode,
                              cwsc_facts* facts, const cwsc_options* options, cwsc_plan** out,
                              cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!path) return Missing(sink, "path");
    if (!mode) return Missing(sink, "mode");
    if (!out) return Missing(sink, "out");
    std::optional<cwsc::compiler::ConfigFormat> f = cwsc::lib::FormatOf(cwsc::lib::Raw(format));
    if (!f) return sink.Error(CWSC_E_USAGE, "usage", "unknown cwsc_format value");
    // An unknown mode is reported before the file is read, as `cwsc compile` does.
    if (!cwsc::compiler::ParsePermissionMode(mode)) {
      cwsc_policy none;
      return cwsc::lib::Compile(none, mode, facts, nullptr, out, sink);
    }
    cwsc::compiler::CompileOptions read;
    read.config_path = path;
    read.format = *f;
    read.policy_name = options ? options->policy_name : "";
    absl::StatusOr<cwsc::compiler::ParsedConfig> p = cwsc::compiler::ReadConfig(read);
    if (!p.ok()) return sink.FromStatus(p.status(), CWSC_E_INPUT, "input");
    cwsc_policy policy;
    policy.parsed = *std::move(p);
    policy.policy_name = read.policy_name;
    return cwsc::lib::Compile(policy, mode, facts, options, out, sink);
  });
}

void cwsc_plan_free(cwsc_plan* plan) { delete plan; }

const char* cwsc_plan_kind(const cwsc_plan* plan) {
  return plan ? ir::PlanKindName(plan->plan.kind()) : "";
}

cwsc_status cwsc_plan_json(const cwsc_plan* plan, char** out, size_t* len,
                           cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!plan) return Missing(sink, "plan");
    if (!out) return Missing(sink, "out");
    absl::StatusOr<std::string> json = ir::PlanToJson(plan->plan);
    if (!json.ok()) return sink.FromStatus(json.status(), CWSC_E_INTERNAL, "internal");
    return cwsc::lib::NewText(*json, out, len);
  });
}

cwsc_status cwsc_plan_argv(const cwsc_plan* plan, cwsc_target target, cwsc_argv** out,
                           cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!plan) return Missing(sink, "plan");
    if (!out) return Missing(sink, "out");
    const ir::LaunchPlan& p = plan->plan;
    const int raw = cwsc::lib::Raw(target);
    if (raw != CWSC_TARGET_AUTO && raw != CWSC_TARGET_BWRAP && raw != CWSC_TARGET_SEATBELT) {
      return sink.Error(CWSC_E_USAGE, "usage", "unknown cwsc_target value");
    }
    if (p.refusal()) return cwsc::lib::Refused(sink, p);
    // What the library offers instead of an argv, for the kinds without one.
    if (raw == CWSC_TARGET_AUTO && p.landlock()) {
      return sink.Error(CWSC_E_NOT_APPLICABLE, "not-applicable",
                        "plan kind linux-landlock has no argv: the runtime applies its "
                        "ruleset to the command itself (cwsc run, cwsc exec)");
    }
    if (raw == CWSC_TARGET_AUTO && p.remote()) {
      return sink.Error(CWSC_E_NOT_APPLICABLE, "not-applicable",
                        absl::StrCat("plan kind ", ir::PlanKindName(p.kind()),
                                     " has no argv (a remote plan: "
                                     "cwsc_plan_opensandbox_json)"));
    }
    // The dispatch of `cwsc compile --target` (compiler/driver/emit.h):
    // auto is the plan kind's own argv (the program alone when unconfined).
    const char* name = raw == CWSC_TARGET_BWRAP      ? "bwrap"
                       : raw == CWSC_TARGET_SEATBELT ? "seatbelt"
                                                     : "auto";
    cwsc::driver::Emitted emitted = cwsc::driver::EmitTarget(p, name, plan->program);
    if (emitted.failure != cwsc::driver::EmitFailure::kNone) {
      return sink.Error(CWSC_E_NOT_APPLICABLE, "not-applicable",
                        std::string(emitted.status.message()));
    }
    if (!emitted.artifact.is_argv) {  // a kind whose own artifact is not an argv
      return sink.Error(CWSC_E_NOT_APPLICABLE, "not-applicable",
                        absl::StrCat("plan kind ", ir::PlanKindName(p.kind()), " has no argv"));
    }
    auto argv = std::make_unique<cwsc_argv>();
    argv->tokens = backends::Texts(emitted.artifact.argv);
    for (const std::string& s : argv->tokens) argv->pointers.push_back(s.c_str());
    argv->pointers.push_back(nullptr);
    *out = argv.release();
    return CWSC_OK;
  });
}

cwsc_status cwsc_plan_seccomp_bpf(const cwsc_plan* plan, char** out, size_t* len,
                                  cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!plan) return Missing(sink, "plan");
    if (!out) return Missing(sink, "out");
    if (!len) return Missing(sink, "len");
    const ir::LaunchPlan& p = plan->plan;
    if (p.refusal()) return cwsc::lib::Refused(sink, p);
    if (!p.syscall_filter()) {
      return sink.Error(CWSC_E_NOT_APPLICABLE, "not-applicable",
                        absl::StrCat("--target seccomp-bpf: plan kind ", ir::PlanKindName(p.kind()),
                                     " has no syscall filter"));
    }
    // The program is read back against the filter's intent, as `cwsc compile` does.
    absl::StatusOr<std::string> bpf = cwsc::driver::EmitCheckedSeccompBpf(*p.syscall_filter());
    if (!bpf.ok()) return sink.FromStatus(bpf.status(), CWSC_E_INTERNAL, "internal");
    return cwsc::lib::NewText(*bpf, out, len);
  });
}

cwsc_status cwsc_plan_sbpl(const cwsc_plan* plan, char** out, size_t* len,
                           cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!plan) return Missing(sink, "plan");
    if (!out) return Missing(sink, "out");
    const ir::LaunchPlan& p = plan->plan;
    if (p.refusal()) return cwsc::lib::Refused(sink, p);
    if (!p.seatbelt()) {
      return sink.Error(CWSC_E_NOT_APPLICABLE, "not-applicable",
                        absl::StrCat("--format sbpl: plan kind ", ir::PlanKindName(p.kind()),
                                     " has no Seatbelt profile"));
    }
    absl::StatusOr<backends::EmittedArgv> lines = backends::EmitSeatbeltProfile(p);
    if (!lines.ok())
      return sink.FromStatus(lines.status(), CWSC_E_NOT_APPLICABLE, "not-applicable");
    return cwsc::lib::NewText(backends::SeatbeltProfileText(*lines), out, len);
  });
}

cwsc_status cwsc_plan_opensandbox_json(const cwsc_plan* plan, char** out, size_t* len,
                                       cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!plan) return Missing(sink, "plan");
    if (!out) return Missing(sink, "out");
    const ir::LaunchPlan& p = plan->plan;
    if (p.refusal()) return cwsc::lib::Refused(sink, p);
    // The same dispatch as `cwsc compile --target opensandbox` (compiler/driver/emit.h).
    cwsc::driver::Emitted emitted = cwsc::driver::EmitTarget(p, "opensandbox", plan->program);
    if (emitted.failure == cwsc::driver::EmitFailure::kInput) {
      return sink.FromStatus(emitted.status, CWSC_E_INPUT, "input");
    }
    if (emitted.failure != cwsc::driver::EmitFailure::kNone) {
      return sink.Error(CWSC_E_NOT_APPLICABLE, "not-applicable",
                        std::string(emitted.status.message()));
    }
    return cwsc::lib::NewText(emitted.artifact.json, out, len);
  });
}

cwsc_status cwsc_plan_check(const cwsc_plan* plan, const char* access, const char* path,
                            cwsc_verdict** out, cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!plan) return Missing(sink, "plan");
    if (!access) return Missing(sink, "access");
    if (!out) return Missing(sink, "out");
    const std::string a = access;
    backends::AccessKind kind;
    if (a == "read") {
      kind = backends::AccessKind::kRead;
    } else if (a == "write") {
      kind = backends::AccessKind::kWrite;
    } else if (a == "exec") {
      kind = backends::AccessKind::kExec;
    } else if (a == "create") {
      kind = backends::AccessKind::kCreate;
    } else if (a == "network") {
      kind = backends::AccessKind::kNetwork;
    } else {
      return sink.Error(
          CWSC_E_USAGE, "usage",
          absl::StrCat("unknown access '", a, "': expected read, write, exec, create or network"));
    }
    std::string target;
    if (kind == backends::AccessKind::kNetwork) {
      target = path ? path : "";
    } else {
      if (!path) return Missing(sink, "path");
      absl::StatusOr<std::string> expanded = cwsc::compiler::ExpandPath(path, plan->vars);
      if (!expanded.ok()) return sink.FromStatus(expanded.status(), CWSC_E_INPUT, "input");
      target = *expanded;
    }
    absl::StatusOr<cwsc::driver::PlanArtifact> art = cwsc::driver::ArtifactOf(plan->plan);
    if (!art.ok()) return sink.FromStatus(art.status(), CWSC_E_INTERNAL, "internal");
    cwsc::driver::NoteAbsentDenyTargets(&*art, plan->missing_denied);
    cwsc::driver::Decision d = cwsc::driver::DecideOn(*art, kind, target);
    if (!d.checkable) return sink.Error(CWSC_E_NOT_APPLICABLE, "not-applicable", d.rule);
    auto v = std::make_unique<cwsc_verdict>();
    v->allowed = d.allowed;
    v->rule = d.rule;
    v->detail = d.detail;
    v->where = d.where;
    v->origin = d.origin ? d.origin->Describe() : "";
    v->path = target;
    *out = v.release();
    return CWSC_OK;
  });
}

// ---- reports: the bytes `cwsc why`, `explain`, `diff` and `check` print
// (compiler/driver/report.h, check_report.h)

namespace cwsc::lib {
namespace {

bool KnownReportFormat(const cwsc_report_format& format) {
  const int raw = Raw(format);
  return raw == CWSC_REPORT_TEXT || raw == CWSC_REPORT_JSON;
}

// ReportText is a report as `format` asks: the text, or the JSON result on
// one line, escaped as the command line's report is (ir/display.h).
cwsc_status ReportText(const cwsc::driver::Report& r, const cwsc_report_format& format, char** out,
                       size_t* len) {
  if (Raw(format) == CWSC_REPORT_TEXT) return NewText(r.text.str(), out, len);
  return NewText(
      ir::TerminalSafeJson(r.json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)),
      out, len);
}

}  // namespace
}  // namespace cwsc::lib

cwsc_status cwsc_plan_why(const cwsc_plan* plan, const char* path, const char* accesses,
                          cwsc_report_format format, char** out, size_t* len,
                          cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!plan) return Missing(sink, "plan");
    if (!path) return Missing(sink, "path");
    if (!out) return Missing(sink, "out");
    if (!cwsc::lib::KnownReportFormat(format)) {
      return sink.Error(CWSC_E_USAGE, "usage", "unknown cwsc_report_format value");
    }
    std::vector<backends::AccessKind> kinds;
    for (absl::string_view a : absl::StrSplit(accesses ? accesses : "read,write", ',')) {
      if (a == "read") {
        kinds.push_back(backends::AccessKind::kRead);
      } else if (a == "write") {
        kinds.push_back(backends::AccessKind::kWrite);
      } else if (a == "exec") {
        kinds.push_back(backends::AccessKind::kExec);
      } else {
        return sink.Error(CWSC_E_USAGE, "usage",
                          absl::StrCat("unknown access '", a, "': expected read, write or exec"));
      }
    }
    const ir::LaunchPlan& p = plan->plan;
    if (p.remote()) {
      return sink.Error(CWSC_E_NOT_APPLICABLE, "not-applicable",
                        "a remote plan has no local artifact to ask: its server enforces it");
    }
    // As `cwsc why` (compiler/driver/why.h, PlanForWhy), on the plan compiled.
    absl::StatusOr<std::string> expanded = cwsc::compiler::ExpandPath(path, plan->vars);
    if (!expanded.ok()) {
      return sink.Error(CWSC_E_INPUT, "input",
                        absl::StrCat("PATH '", path, "': ", expanded.status().message()));
    }
    absl::StatusOr<cwsc::driver::PlanArtifact> art = cwsc::driver::ArtifactOf(p);
    if (!art.ok()) return sink.FromStatus(art.status(), CWSC_E_INTERNAL, "internal");
    cwsc::driver::NoteAbsentDenyTargets(&*art, plan->missing_denied);
    const cwsc::driver::Report r =
        cwsc::driver::WhyReport(p, *art, cwsc::driver::ExplainPath(*art, *expanded, kinds));
    return cwsc::lib::ReportText(r, format, out, len);
  });
}

cwsc_status cwsc_plan_diff(const cwsc_plan* a, const char* name_a, const cwsc_plan* b,
                           const char* name_b, cwsc_report_format format, char** out, size_t* len,
                           cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!a) return Missing(sink, "a");
    if (!b) return Missing(sink, "b");
    if (!out) return Missing(sink, "out");
    if (!cwsc::lib::KnownReportFormat(format)) {
      return sink.Error(CWSC_E_USAGE, "usage", "unknown cwsc_report_format value");
    }
    absl::StatusOr<cwsc::driver::PlanDiff> diff = cwsc::driver::DiffPlans(a->plan, b->plan);
    if (!diff.ok()) return sink.FromStatus(diff.status(), CWSC_E_INTERNAL, "internal");
    const cwsc::driver::Report r =
        cwsc::driver::DiffReport(name_a ? name_a : "A", name_b ? name_b : "B", *diff);
    return cwsc::lib::ReportText(r, format, out, len);
  });
}

cwsc_status cwsc_check_file(const char* path, cwsc_format format, const char* modes,
                            cwsc_facts* facts, const cwsc_options* options,
                            cwsc_report_format report, char** out, size_t* len, int* failed,
                            cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  if (failed) *failed = 0;
  return Guard(diags, [&](Sink& sink) {
    if (!path) return Missing(sink, "path");
    if (!out) return Missing(sink, "out");
    if (!cwsc::lib::KnownReportFormat(report)) {
      return sink.Error(CWSC_E_USAGE, "usage", "unknown cwsc_report_format value");
    }
    const int raw = cwsc::lib::Raw(format);
    std::optional<cwsc::compiler::ConfigFormat> f = cwsc::lib::FormatOf(raw);
    if (!f) return sink.Error(CWSC_E_USAGE, "usage", "unknown cwsc_format value");
    static const cwsc_options kDefaults;
    const cwsc_options& o = options ? *options : kDefaults;
    // `cwsc check`'s run (compiler/driver/check_report.h), with the options
    // a compile of the library takes.
    cwsc::driver::CheckRun run;
    if (modes) {
      for (absl::string_view m : absl::StrSplit(modes, ',')) {
        std::optional<ir::PermissionMode> n = cwsc::compiler::ParsePermissionMode(m);
        if (!n)
          return sink.Error(CWSC_E_INPUT, "mode", cwsc::compiler::UnknownPermissionModeMessage(m));
        if (std::find(run.expect.modes.begin(), run.expect.modes.end(), *n) ==
            run.expect.modes.end()) {
          run.expect.modes.push_back(*n);
        }
      }
    }
    absl::StatusOr<std::string> text = cwsc::driver::ReadText(path);
    if (!text.ok()) return sink.FromStatus(text.status(), CWSC_E_INPUT, "input");
    run.input.file = path;
    run.input.text = *std::move(text);
    run.input.dsl = *f == cwsc::compiler::ConfigFormat::kDsl ||
                    (*f == cwsc::compiler::ConfigFormat::kAuto && absl::EndsWith(path, ".cwsp"));
    run.input.policy = o.policy_name;
    cwsc::compiler::CompileOptions& c = run.expect.compile;
    c.config_path = path;
    c.format = *f;
    c.cwd = o.cwd;
    c.escalate = o.escalate;
    c.linux_backend = o.linux_backend;
    c.read_project_config = !o.no_project_config;
    std::unique_ptr<cwsc_facts> own;
    if (!facts) {
      own = std::make_unique<cwsc_facts>();
      own->facts = cwsc::runtime::MakeRuntimeFacts();
      facts = own.get();
    }
    std::lock_guard<std::mutex> lock(facts->mu);
    run.expect.facts_rule = {
        facts->recorded ? std::optional<std::string>(facts->name) : std::nullopt,
        o.unlisted_as_missing};
    const cwsc::driver::CheckOutcome checked = cwsc::driver::RunCheck(
        run, [&]() -> absl::StatusOr<cwsc::compiler::HostFacts*> { return facts->facts.get(); });
    for (const Diagnostic& d : checked.notes) sink.Add(d, "note");
    for (const Diagnostic& d : checked.setting_notes) sink.Add(d, "note");
    switch (checked.stop) {
      case cwsc::driver::CheckStop::kNone:
        break;
      case cwsc::driver::CheckStop::kInput:
        return sink.FromStatus(checked.status, CWSC_E_INPUT, "input");
      case cwsc::driver::CheckStop::kNotApplicable:
        return sink.FromStatus(checked.status, CWSC_E_NOT_APPLICABLE, "not-applicable");
      case cwsc::driver::CheckStop::kInternal:
        return sink.FromStatus(checked.status, CWSC_E_INTERNAL, "internal");
    }
    if (!checked.valid_line.empty()) {
      Diagnostic d;
      d.severity = Diagnostic::Severity::kNote;
      d.file = path;
      d.message = checked.valid_line;
      sink.Add(d, "");
    }
    if (failed) *failed = checked.failed ? 1 : 0;
    return cwsc::lib::ReportText(checked.report, report, out, len);
  });
}

cwsc_status cwsc_plan_explain(const cwsc_plan* plan, cwsc_facts* facts, cwsc_target target,
                              cwsc_report_format format, char** out, size_t* len,
                              cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!plan) return Missing(sink, "plan");
    if (!out) return Missing(sink, "out");
    if (!cwsc::lib::KnownReportFormat(format)) {
      return sink.Error(CWSC_E_USAGE, "usage", "unknown cwsc_report_format value");
    }
    const int raw = cwsc::lib::Raw(target);
    if (raw != CWSC_TARGET_AUTO && raw != CWSC_TARGET_BWRAP && raw != CWSC_TARGET_SEATBELT) {
      return sink.Error(CWSC_E_USAGE, "usage", "unknown cwsc_target value");
    }
    const ir::LaunchPlan& p = plan->plan;
    // `cwsc explain`'s steps (cli/cmd_compile.cc): the artifact of the
    // target unless the plan is refused, then its lints.
    cwsc::driver::Artifact art;
    if (!p.refusal()) {
      const char* name = raw == CWSC_TARGET_BWRAP      ? "bwrap"
                         : raw == CWSC_TARGET_SEATBELT ? "seatbelt"
                                                       : "auto";
      cwsc::driver::Emitted e = cwsc::driver::EmitTarget(p, name, plan->program);
      if (e.failure == cwsc::driver::EmitFailure::kInput) {
        return sink.FromStatus(e.status, CWSC_E_INPUT, "input");
      }
      if (e.failure == cwsc::driver::EmitFailure::kInternal) {
        return sink.FromStatus(e.status, CWSC_E_INTERNAL, "internal");
      }
      if (e.failure != cwsc::driver::EmitFailure::kNone) {
        return sink.Error(CWSC_E_NOT_APPLICABLE, "not-applicable", std::string(e.status.message()));
      }
      art = std::move(e.artifact);
    }
    std::vector<cwsc::driver::Lint> lints;
    if (facts) {
      std::lock_guard<std::mutex> lock(facts->mu);
      lints = cwsc::driver::LintsOf(p, facts->facts.get());
    }
    const cwsc::driver::Report r =
        cwsc::driver::ExplainReport(p, p.refusal() ? nullptr : &art, lints, "");
    return cwsc::lib::ReportText(r, format, out, len);
  });
}

size_t cwsc_argv_count(const cwsc_argv* argv) { return argv ? argv->tokens.size() : 0; }
const char* cwsc_argv_at(const cwsc_argv* argv, size_t i) {
  return argv && i < argv->tokens.size() ? argv->tokens[i].c_str() : nullptr;
}
const char* const* cwsc_argv_data(const cwsc_argv* argv) {
  return argv ? argv->pointers.data() : nullptr;
}
void cwsc_argv_free(cwsc_argv* argv) { delete argv; }

int cwsc_verdict_allowed(const cwsc_verdict* v) { return v && v->allowed ? 1 : 0; }
const char* cwsc_verdict_rule(const cwsc_verdict* v) { return v ? v->rule.c_str() : ""; }
const char* cwsc_verdict_detail(const cwsc_verdict* v) { return v ? v->detail.c_str() : ""; }
const char* cwsc_verdict_where(const cwsc_verdict* v) { return v ? v->where.c_str() : ""; }
const char* cwsc_verdict_origin(const cwsc_verdict* v) { return v ? v->origin.c_str() : ""; }
const char* cwsc_verdict_path(const cwsc_verdict* v) { return v ? v->path.c_str() : ""; }
void cwsc_verdict_free(cwsc_verdict* v) { delete v; }

// ---- running a plan ------------------------------------------------------------

cwsc_spawn_options* cwsc_spawn_options_new(void) {
  try {
    return new cwsc_spawn_options();
  } catch (...) {
    return nullptr;
  }
}

cwsc_status cwsc_spawn_options_set_program(cwsc_spawn_options* options, const char* const* argv,
                                           size_t argc) {
  if (!options) return CWSC_E_USAGE;
  if (argc == 0) {
    options->program.reset();
    return CWSC_OK;
  }
  std::vector<std::string> program;
  cwsc_status s = cwsc::lib::CopyStrings(argv, argc, &program);
  if (s == CWSC_OK) options->program = std::move(program);
  return s;
}

cwsc_status cwsc_spawn_options_set_env(cwsc_spawn_options* options, const char* const* env,
                                       size_t count) {
  if (!options) return CWSC_E_USAGE;
  return cwsc::lib::CopyStrings(env, count, &options->env);
}

cwsc_status cwsc_spawn_options_set_stdio(cwsc_spawn_options* options, int in, int out, int err) {
  if (!options || in < -1 || out < -1 || err < -1) return CWSC_E_USAGE;
  options->in = in;
  options->out = out;
  options->err = err;
  return CWSC_OK;
}

cwsc_status cwsc_spawn_options_set_timeout(cwsc_spawn_options* options, double seconds,
                                           double kill_grace_seconds) {
  // NaN fails every comparison, so it is refused here too.
  if (!options || !(seconds >= 0) || !(kill_grace_seconds >= 0) || seconds > 1e9 ||
      kill_grace_seconds > 1e9) {
    return CWSC_E_USAGE;
  }
  options->timeout_seconds = seconds;
  options->kill_grace_seconds = kill_grace_seconds;
  return CWSC_OK;
}

cwsc_status cwsc_spawn_options_set_require_sandbox(cwsc_spawn_options* options, int require) {
  if (!options) return CWSC_E_USAGE;
  options->require_sandbox = require != 0;
  return CWSC_OK;
}

void cwsc_spawn_options_free(cwsc_spawn_options* options) { delete options; }

cwsc_status cwsc_spawn(const cwsc_plan* plan, cwsc_facts* facts, const cwsc_spawn_options* options,
                       cwsc_child** out, cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!plan) return Missing(sink, "plan");
    if (!out) return Missing(sink, "out");
    if (facts && facts->recorded) {
      return sink.Error(CWSC_E_USAGE, "usage",
                        "cwsc_spawn rechecks the plan against the running host: give it live "
                        "facts (cwsc_facts_live) or NULL, not recorded ones");
    }
    const ir::LaunchPlan& p = plan->plan;
    if (p.remote() || p.seatbelt()) {
      return sink.Error(CWSC_E_REFUSED, "not-local",
                        absl::StrCat("plan kind ", ir::PlanKindName(p.kind()),
                                     " does not run on this host through cwsc_spawn ("
                                     "opensandbox: `cwsc run` sends it to its server; "
                                     "macos-seatbelt: sandbox-exec on macOS)"));
    }
    cwsc_spawn_options defaults;
    const cwsc_spawn_options& o = options ? *options : defaults;
    cwsc::runtime::PlanSpawnOptions so;
    so.program = o.program ? *o.program : plan->program;
    if (so.program.empty()) {
      return sink.Error(CWSC_E_USAGE, "usage",
                        "no program: give one with cwsc_spawn_options_set_program or compile "
                        "the plan with cwsc_options_set_program");
    }
    so.env = o.env;
    so.stdio = {o.in, o.out, o.err};
    so.timeout_seconds = o.timeout_seconds;
    so.kill_grace_seconds = o.kill_grace_seconds;
    so.require_sandbox = o.require_sandbox;
    std::unique_ptr<cwsc_facts> own;
    if (!facts) {
      own = std::make_unique<cwsc_facts>();
      own->facts = cwsc::runtime::MakeRuntimeFacts();
      facts = own.get();
    }
    cwsc::runtime::ExecOutcome not_run;
    absl::StatusOr<std::unique_ptr<cwsc::runtime::PlanChild>> started;
    {
      std::lock_guard<std::mutex> lock(facts->mu);
      started = cwsc::runtime::SpawnPlan(p, so, facts->facts.get(), &not_run);
    }
    if (!started.ok()) {
      const char* code = not_run.cwsc_exit_code == cwsc::runtime::kExitNoSandbox ? "no-sandbox"
                         : not_run.refusal.empty()                               ? "cannot-run"
                                                                                 : "refused";
      // The reason quotes paths the command may have written: escaped as
      // `cwsc run` prints it (ir/display.h), so no engine shows them raw.
      return sink.Error(CWSC_E_REFUSED, code,
                        ir::Displayable(std::string(started.status().message())));
    }
    auto child = std::make_unique<cwsc_child>();
    child->child = *std::move(started);
    for (const std::string& w : child->child->outcome().warnings) {
      Diagnostic d;
      d.severity = Diagnostic::Severity::kWarning;
      d.message = ir::Displayable(w);
      sink.Add(d, "run");
    }
    *out = child.release();
    return CWSC_OK;
  });
}

int cwsc_child_pid(const cwsc_child* child) { return child ? child->child->pid() : -1; }
int cwsc_child_pidfd(const cwsc_child* child) { return child ? child->child->pidfd() : -1; }

cwsc_status cwsc_child_wait_timeout(cwsc_child* child, int timeout_ms, int* done) {
  if (done) *done = 0;
  if (!child) return CWSC_E_USAGE;
  try {
    bool ended = child->child->Wait(timeout_ms);
    if (ended) child->done.store(true);
    if (done) *done = ended ? 1 : 0;
    return CWSC_OK;
  } catch (...) {
    return CWSC_E_INTERNAL;
  }
}

cwsc_status cwsc_child_wait(cwsc_child* child) {
  return cwsc_child_wait_timeout(child, -1, nullptr);
}

cwsc_status cwsc_child_signal(cwsc_child* child, int sig) {
  if (!child || sig <= 0 || sig >= 65) return CWSC_E_USAGE;
  child->child->Signal(sig);
  return CWSC_OK;
}

cwsc_status cwsc_child_kill(cwsc_child* child) {
  if (!child) return CWSC_E_USAGE;
  child->child->Kill();
  return CWSC_OK;
}

int cwsc_child_exit_code(const cwsc_child* child) {
  const auto* o = cwsc::lib::OutcomeOf(child);
  return o ? o->cwsc_exit_code : 0;
}
int cwsc_child_term_signal(const cwsc_child* child) {
  const auto* o = cwsc::lib::OutcomeOf(child);
  return o && o->signal ? *o->signal : 0;
}
int cwsc_child_timed_out(const cwsc_child* child) {
  const auto* o = cwsc::lib::OutcomeOf(child);
  return o && o->timed_out ? 1 : 0;
}
int cwsc_child_sandbox_denied(const cwsc_child* child) {
  const auto* o = cwsc::lib::OutcomeOf(child);
  return o && o->sandbox_denied ? 1 : 0;
}
const char* cwsc_child_denial_message(const cwsc_child* child) {
  const auto* o = cwsc::lib::OutcomeOf(child);
  return o ? o->denial_message.c_str() : "";
}

cwsc_status cwsc_child_result_json(const cwsc_child* child, char** out, size_t* len,
                                   cwsc_diagnostics** diags) {
  if (out) *out = nullptr;
  return Guard(diags, [&](Sink& sink) {
    if (!child) return Missing(sink, "child");
    if (!out) return Missing(sink, "out");
    const cwsc::runtime::ExecOutcome* o = cwsc::lib::OutcomeOf(child);
    if (!o) {
      return sink.Error(CWSC_E_USAGE, "usage",
                        "the child has not ended: wait for it (cwsc_child_wait) first");
    }
    return cwsc::lib::NewText(cwsc::runtime::ResultToJson(*o), out, len);
  });
}

void cwsc_child_free(cwsc_child* child) {
  try {
    delete child;  // ~PlanChild ends a child that still runs
  } catch (...) {
  }
}

}  // extern "C"
