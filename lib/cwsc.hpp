// cwsc.hpp: a header-only C++17 API over the C ABI of cwsc.h. Handles are
// RAII types (move-only); errors come back as a Result carrying the status
// and the diagnostics, never as exceptions from the library (std::bad_alloc
// from the standard library in this header is the caller's own).
//
//   cwsc::Facts facts = cwsc::Facts::Live();
//   cwsc::Result<cwsc::Policy> policy = cwsc::Policy::LoadFile("policy.toml");
//   if (!policy) { std::cerr << policy.diagnostics().Render(); return 2; }
//   cwsc::Result<cwsc::Plan> plan = policy->Compile("ask", &facts);
//   cwsc::Result<std::vector<std::string>> argv = plan->Argv(CWSC_TARGET_BWRAP);
//
// Thread safety and ownership are those of cwsc.h (docs/embedding.md).
#ifndef CWSC_HPP_
#define CWSC_HPP_

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cwsc.h"

namespace cwsc {

namespace detail {
template <typename T, void (*Free)(T*)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T* p) : p_(p) {}
  Handle(Handle&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      Free(p_);
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { Free(p_); }
  T* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  T* p_ = nullptr;
};
}  // namespace detail

// Diagnostic is one entry of a Diagnostics list, copied out.
struct Diagnostic {
  cwsc_severity severity = CWSC_SEVERITY_ERROR;
  std::string code;
  std::string message;
  std::string file;
  int line = 0;
  int col = 0;
};

class Diagnostics {
 public:
  Diagnostics() = default;
  explicit Diagnostics(cwsc_diagnostics* d) : h_(d) {}
  size_t size() const { return cwsc_diagnostics_count(h_.get()); }
  size_t error_count() const { return cwsc_diagnostics_error_count(h_.get()); }
  Diagnostic operator[](size_t i) const {
    const cwsc_diagnostics* d = h_.get();
    return {cwsc_diagnostic_severity(d, i), cwsc_diagnostic_code(d, i),
            cwsc_diagnostic_message(d, i),  cwsc_diagnostic_file(d, i),
            cwsc_diagnostic_line(d, i),     cwsc_diagnostic_col(d, i)};
  }
  std::string Render() const { return cwsc_diagnostics_render(h_.get()); }
  const cwsc_diagnostics* get() const { return h_.get(); }

 private:
  detail::Handle<cwsc_diagnostics, cwsc_diagnostics_free> h_;
};

// Result<T> is a value or a failure status, with the call's diagnostics.
template <typename T>
class Result {
 public:
  Result(cwsc_status status, std::optional<T> value, Diagnostics diags)
      : status_(status), value_(std::move(value)), diags_(std::move(diags)) {}
  bool ok() const { return status_ == CWSC_OK && value_.has_value(); }
  explicit operator bool() const { return ok(); }
  cwsc_status status() const { return status_; }
  const Diagnostics& diagnostics() const { return diags_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  cwsc_status status_;
  std::optional<T> value_;
  Diagnostics diags_;
};

class Options {
 public:
  Options() : h_(cwsc_options_new()) {}
  Options& Cwd(const std::string& dir) {
    cwsc_options_set_cwd(h_.get(), dir.c_str());
    return *this;
  }
  Options& PolicyName(const std::string& name) {
    cwsc_options_set_policy_name(h_.get(), name.c_str());
    return *this;
  }
  Options& Escalate(const std::string& mode) {
    cwsc_options_set_escalate(h_.get(), mode.c_str());
    return *this;
  }
  Options& LinuxBackend(const std::string& name) {
    cwsc_options_set_linux_backend(h_.get(), name.c_str());
    return *this;
  }
  Options& NoProjectConfig(bool on = true) {
    cwsc_options_set_no_project_config(h_.get(), on ? 1 : 0);
    return *this;
  }
  Options& UnlistedAsMissing(bool on = true) {
    cwsc_options_set_unlisted_as_missing(h_.get(), on ? 1 : 0);
    return *this;
  }
  Options& Program(const std::vector<std::string>& argv) {
    std::vector<const char*> p;
    for (const std::string& a : argv) p.push_back(a.c_str());
    cwsc_options_set_program(h_.get(), p.data(), p.size());
    return *this;
  }
  const cwsc_options* get() const { return h_.get(); }

 private:
  detail::Handle<cwsc_options, cwsc_options_free> h_;
};

class Facts {
 public:
  static Facts Live() { return Facts(cwsc_facts_live()); }
  static Result<Facts> LoadFile(const std::string& path) {
    cwsc_facts* f = nullptr;
    cwsc_diagnostics* d = nullptr;
    cwsc_status s = cwsc_facts_load_file(path.c_str(), &f, &d);
    return Wrap(s, f, d);
  }
  static Result<Facts> Parse(const std::string& text, const std::string& name = "<facts>") {
    cwsc_facts* f = nullptr;
    cwsc_diagnostics* d = nullptr;
    cwsc_status s = cwsc_facts_parse(text.data(), text.size(), name.c_str(), &f, &d);
    return Wrap(s, f, d);
  }
  cwsc_facts* get() const { return h_.get(); }

 private:
  explicit Facts(cwsc_facts* f) : h_(f) {}
  static Result<Facts> Wrap(cwsc_status s, cwsc_facts* f, cwsc_diagnostics* d) {
    std::optional<Facts> v;
    if (s == CWSC_OK) v.emplace(Facts(f));
    return Result<Facts>(s, std::move(v), Diagnostics(d));
  }
  detail::Handle<cwsc_facts, cwsc_facts_free> h_;
};

// Verdict is the answer to an access question, copied out.
struct Verdict {
  bool allowed = false;
  std::string rule, detail, where, origin, path;
};

// SpawnOptions is how Plan::Spawn starts the command (cwsc_spawn_options_*).
class SpawnOptions {
 public:
  SpawnOptions() : h_(cwsc_spawn_options_new()) {}
  SpawnOptions& Program(const std::vector<std::string>& argv) {
    std::vector<const char*> p;
    for (const std::string& a : argv) p.push_back(a.c_str());
    cwsc_spawn_options_set_program(h_.get(), p.data(), p.size());
    return *this;
  }
  // The environment offered to the command (NAME=VALUE); the plan's
  // allow-list filters it. Without it the command gets the plan's markers only.
  SpawnOptions& Env(const std::vector<std::string>& env) {
    std::vector<const char*> p;
    for (const std::string& e : env) p.push_back(e.c_str());
    cwsc_spawn_options_set_env(h_.get(), p.data(), p.size());
    return *this;
  }
  SpawnOptions& Stdio(int in, int out, int err) {
    cwsc_spawn_options_set_stdio(h_.get(), in, out, err);
    return *this;
  }
  SpawnOptions& Timeout(double seconds, double kill_grace_seconds = 2) {
    cwsc_spawn_options_set_timeout(h_.get(), seconds, kill_grace_seconds);
    return *this;
  }
  SpawnOptions& RequireSandbox(bool on = true) {
    cwsc_spawn_options_set_require_sandbox(h_.get(), on ? 1 : 0);
    return *this;
  }
  const cwsc_spawn_options* get() const { return h_.get(); }

 private:
  detail::Handle<cwsc_spawn_options, cwsc_spawn_options_free> h_;
};

// ChildResult is how a spawned command ended, copied out.
struct ChildResult {
  int exit_code = 0;    // as `cwsc run` exits (124 timeout, 125 refused at the gate, ...)
  int term_signal = 0;  // N when it died of signal N
  bool timed_out = false;
  bool sandbox_denied = false;
  std::string denial_message;
};

// Child is a running command (cwsc_child). Destroying it ends the command
// and its process group when it still runs.
class Child {
 public:
  explicit Child(cwsc_child* c) : h_(c) {}
  int Pid() const { return cwsc_child_pid(h_.get()); }
  int Pidfd() const { return cwsc_child_pidfd(h_.get()); }
  ChildResult Wait() {
    cwsc_child_wait(h_.get());
    return Collect();
  }
  // The result once the command ended within `timeout_ms`; nothing otherwise.
  std::optional<ChildResult> WaitFor(int timeout_ms) {
    int done = 0;
    cwsc_child_wait_timeout(h_.get(), timeout_ms, &done);
    if (!done) return std::nullopt;
    return Collect();
  }
  void Signal(int sig) { cwsc_child_signal(h_.get(), sig); }
  void Kill() { cwsc_child_kill(h_.get()); }
  cwsc_child* get() const { return h_.get(); }

 private:
  ChildResult Collect() const {
    const cwsc_child* c = h_.get();
    return {cwsc_child_exit_code(c), cwsc_child_term_signal(c), cwsc_child_timed_out(c) != 0,
            cwsc_child_sandbox_denied(c) != 0, cwsc_child_denial_message(c)};
  }
  detail::Handle<cwsc_child, cwsc_child_free> h_;
};

class Plan {
 public:
  explicit Plan(cwsc_plan* p) : h_(p) {}
  std::string Kind() const { return cwsc_plan_kind(h_.get()); }
  Result<std::string> Json() const { return Text(cwsc_plan_json); }
  Result<std::string> Sbpl() const { return Text(cwsc_plan_sbpl); }
  Result<std::string> SeccompBpf() const { return Text(cwsc_plan_seccomp_bpf); }
  Result<std::string> OpenSandboxJson() const { return Text(cwsc_plan_opensandbox_json); }
  Result<std::vector<std::string>> Argv(cwsc_target target = CWSC_TARGET_AUTO) const {
    cwsc_argv* a = nullptr;
    cwsc_diagnostics* d = nullptr;
    cwsc_status s = cwsc_plan_argv(h_.get(), target, &a, &d);
    std::optional<std::vector<std::string>> v;
    if (s == CWSC_OK) {
      v.emplace();
      for (size_t i = 0; i < cwsc_argv_count(a); ++i) v->push_back(cwsc_argv_at(a, i));
    }
    cwsc_argv_free(a);
    return {s, std::move(v), Diagnostics(d)};
  }
  Result<Verdict> Check(const std::string& access, const std::string& path) const {
    cwsc_verdict* r = nullptr;
    cwsc_diagnostics* d = nullptr;
    cwsc_status s = cwsc_plan_check(h_.get(), access.c_str(), path.c_str(), &r, &d);
    std::optional<Verdict> v;
    if (s == CWSC_OK) {
      v = Verdict{cwsc_verdict_allowed(r) != 0, cwsc_verdict_rule(r),   cwsc_verdict_detail(r),
                  cwsc_verdict_where(r),        cwsc_verdict_origin(r), cwsc_verdict_path(r)};
    }
    cwsc_verdict_free(r);
    return {s, std::move(v), Diagnostics(d)};
  }
  // The reports of `cwsc why`, `cwsc explain` and `cwsc diff`, text or JSON
  // (cwsc_plan_why, cwsc_plan_explain, cwsc_plan_diff).
  Result<std::string> Why(const std::string& path, const char* accesses = nullptr,
                          cwsc_report_format format = CWSC_REPORT_TEXT) const {
    return Report([&](char** t, size_t* n, cwsc_diagnostics** d) {
      return cwsc_plan_why(h_.get(), path.c_str(), accesses, format, t, n, d);
    });
  }
  Result<std::string> Explain(Facts* facts = nullptr, cwsc_target target = CWSC_TARGET_AUTO,
                              cwsc_report_format format = CWSC_REPORT_TEXT) const {
    return Report([&](char** t, size_t* n, cwsc_diagnostics** d) {
      return cwsc_plan_explain(h_.get(), facts ? facts->get() : nullptr, target, format, t, n, d);
    });
  }
  // DiffTo is what changes from this plan (A) to `b` (B).
  Result<std::string> DiffTo(const Plan& b, cwsc_report_format format = CWSC_REPORT_TEXT) const {
    return Report([&](char** t, size_t* n, cwsc_diagnostics** d) {
      return cwsc_plan_diff(h_.get(), nullptr, b.get(), nullptr, format, t, n, d);
    });
  }
  // Spawn runs the plan's command (cwsc_spawn) with `facts` (nullptr: new
  // live facts for the call).
  Result<Child> Spawn(const SpawnOptions& options, Facts* facts = nullptr) const {
    cwsc_child* c = nullptr;
    cwsc_diagnostics* d = nullptr;
    cwsc_status s = cwsc_spawn(h_.get(), facts ? facts->get() : nullptr, options.get(), &c, &d);
    std::optional<Child> v;
    if (s == CWSC_OK) v.emplace(c);
    return {s, std::move(v), Diagnostics(d)};
  }
  const cwsc_plan* get() const { return h_.get(); }

 private:
  template <typename F>
  static Result<std::string> Report(F f) {
    char* t = nullptr;
    size_t n = 0;
    cwsc_diagnostics* d = nullptr;
    cwsc_status s = f(&t, &n, &d);
    std::optional<std::string> v;
    if (s == CWSC_OK) v.emplace(t, n);
    cwsc_string_free(t);
    return {s, std::move(v), Diagnostics(d)};
  }
  template <typename F>
  Result<std::string> Text(F f) const {
    return Report([&](char** t, size_t* n, cwsc_diagnostics** d) { return f(h_.get(), t, n, d); });
  }
  detail::Handle<cwsc_plan, cwsc_plan_free> h_;
};

class Policy {
 public:
  static Result<Policy> LoadFile(const std::string& path, cwsc_format format = CWSC_FORMAT_AUTO,
                                 const Options* options = nullptr) {
    cwsc_policy* p = nullptr;
    cwsc_diagnostics* d = nullptr;
    cwsc_status s =
        cwsc_policy_load_file(path.c_str(), format, options ? options->get() : nullptr, &p, &d);
    return Wrap(s, p, d);
  }
  static Result<Policy> Parse(const std::string& text, cwsc_format format,
                              const std::string& name = "", const Options* options = nullptr) {
    cwsc_policy* p = nullptr;
    cwsc_diagnostics* d = nullptr;
    cwsc_status s =
        cwsc_policy_parse(text.data(), text.size(), name.empty() ? nullptr : name.c_str(), format,
                          options ? options->get() : nullptr, &p, &d);
    return Wrap(s, p, d);
  }
  // Compile with `facts` (nullptr: new live facts for this call).
  Result<Plan> Compile(const std::string& mode, Facts* facts = nullptr,
                       const Options* options = nullptr) const {
    cwsc_plan* p = nullptr;
    cwsc_diagnostics* d = nullptr;
    cwsc_status s = cwsc_compile(h_.get(), mode.c_str(), facts ? facts->get() : nullptr,
                                 options ? options->get() : nullptr, &p, &d);
    std::optional<Plan> v;
    if (s == CWSC_OK) v.emplace(p);
    return {s, std::move(v), Diagnostics(d)};
  }
  const cwsc_policy* get() const { return h_.get(); }

 private:
  explicit Policy(cwsc_policy* p) : h_(p) {}
  static Result<Policy> Wrap(cwsc_status s, cwsc_policy* p, cwsc_diagnostics* d) {
    std::optional<Policy> v;
    if (s == CWSC_OK) v.emplace(Policy(p));
    return Result<Policy>(s, std::move(v), Diagnostics(d));
  }
  detail::Handle<cwsc_policy, cwsc_policy_free> h_;
};

// CheckReport is `cwsc check`'s report and whether an expectation failed.
struct CheckReport {
  std::string report;
  bool failed = false;
};

// CheckFile is `cwsc check FILE` (cwsc_check_file): `modes` nullptr for
// every mode, `facts` nullptr for new live facts.
inline Result<CheckReport> CheckFile(const std::string& path, const char* modes = nullptr,
                                     Facts* facts = nullptr, const Options* options = nullptr,
                                     cwsc_report_format format = CWSC_REPORT_TEXT,
                                     cwsc_format input = CWSC_FORMAT_AUTO) {
  char* t = nullptr;
  size_t n = 0;
  int failed = 0;
  cwsc_diagnostics* d = nullptr;
  cwsc_status s = cwsc_check_file(path.c_str(), input, modes, facts ? facts->get() : nullptr,
                                  options ? options->get() : nullptr, format, &t, &n, &failed, &d);
  std::optional<CheckReport> v;
  if (s == CWSC_OK) v = CheckReport{std::string(t, n), failed != 0};
  cwsc_string_free(t);
  return {s, std::move(v), Diagnostics(d)};
}

inline std::string Version() { return cwsc_version(); }

}  // namespace cwsc

#endif  // CWSC_HPP_
