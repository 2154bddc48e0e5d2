#include "fuzz/targets.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backends/argv_format.h"
#include "backends/bwrap.h"
#include "backends/opensandbox.h"
#include "backends/seatbelt.h"
#include "backends/verify/bwrap_interp.h"
#include "backends/verify/sbpl_eval.h"
#include "compiler/compile.h"
#include "compiler/config_toml.h"
#include "compiler/dsl_format.h"
#include "compiler/facts/host_facts.h"
#include "ir/plan_json.h"
#include "runtime/execute.h"
#include "runtime/opensandbox.h"

namespace cwsc::fuzz {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The recorded hosts of examples/facts, read once.
const std::vector<std::string>& FactsTexts() {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> out;
    for (const char* name :
         {"linux-workspace", "linux-locked-down", "macos-workspace", "linux-readonly"}) {
      std::string t =
          ReadAll(std::string(CWSC_FUZZ_SOURCE_ROOT "/examples/facts/") + name + ".yaml");
      Check(!t.empty(), "cannot read examples/facts (CWSC_FUZZ_SOURCE_ROOT)");
      out.push_back(std::move(t));
    }
    return out;
  }();
  return texts;
}

// Recorded facts answer from memory and keep no state: parsed once each.
compiler::HostFacts* Facts(size_t which) {
  static const std::vector<std::unique_ptr<compiler::HostFacts>> facts = [] {
    std::vector<std::unique_ptr<compiler::HostFacts>> out;
    for (const std::string& text : FactsTexts()) {
      auto f = compiler::ParseRecordedFacts(text, "facts.yaml");
      Check(f.ok(), "an example facts file does not parse");
      out.push_back(std::move(*f));
    }
    return out;
  }();
  return facts[which % facts.size()].get();
}

// InMemoryFile is a memfd the compiler reads by its /proc/self/fd path.
class InMemoryFile {
 public:
  InMemoryFile() : fd_(memfd_create("cwsc-fuzz", MFD_CLOEXEC)) {
    Check(fd_ >= 0, "memfd_create failed");
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  const std::string& Write(std::string_view data) {
    Check(ftruncate(fd_, 0) == 0, "ftruncate failed");
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(done));
      Check(n > 0, "pwrite failed");
      done += static_cast<size_t>(n);
    }
    return path_;
  }

 private:
  int fd_;
  std::string path_;
};

const char* const kModes[] = {"ask", "plan", "auto-review", "full-access"};

// Errors are one or more rendered diagnostics: never empty, always ending in a newline.
void CheckError(const absl::Status& s) {
  Check(!s.ok(), "not an error");
  Check(!s.message().empty() && s.message().back() == '\n', "an error message without a newline");
}

// Artifacts emits everything a plan can become and checks the plan JSON round
// trip; `compiled`: the plan comes from the compiler (not from a plan file,
// which may name any wrapper), so its argv must read back.
void Artifacts(const ir::LaunchPlan& plan, bool compiled = true) {
  std::vector<std::string> program = {"/bin/echo", "hi"};
  if (auto argv = backends::EmitBwrapArgv(plan, program); argv.ok()) {
    std::vector<std::string> tokens = backends::Texts(*argv);
    for (auto f : {backends::ArgvFormat::kShell, backends::ArgvFormat::kNul,
                   backends::ArgvFormat::kJson, backends::ArgvFormat::kLines}) {
      (void)backends::FormatArgv(tokens, f);
    }
    auto view = backends::InterpretBwrapArgv(tokens);
    if (compiled && plan.kind() == ir::PlanKind::kLinuxBwrap) {
      Check(view.ok(), "the bwrap interpreter rejects an emitted argv");
    }
  }
  if (auto sb = backends::EmitSeatbeltProfile(plan); sb.ok()) {
    std::string text = backends::SeatbeltProfileText(*sb);
    backends::SbplParams params;
    if (plan.seatbelt()) {
      for (const auto& p : backends::SeatbeltParams(*plan.seatbelt())) params[p.key] = p.value;
    }
    auto prof = backends::SbplProfile::Parse(text, params, "emitted.sb");
    if (compiled) Check(prof.ok(), "the SBPL evaluator rejects an emitted profile");
    if (prof.ok()) (void)prof->CanRead(plan.cwd);
  }
  if (plan.remote()) {
    auto reqs = backends::ReviewRequests(plan, program, std::nullopt);
    (void)backends::FormatReviewText(plan, reqs);
    (void)backends::FormatReviewJson(plan, reqs);
  }
  absl::StatusOr<std::string> json = ir::PlanToJson(plan);
  if (json.ok()) {
    absl::StatusOr<ir::LaunchPlan> back = ir::PlanFromJson(*json, "plan.json");
    Check(back.ok(), "a written plan does not read back");
    Check(*back == plan, "a plan changes through JSON");
  }
}

// CompileAll compiles in one mode (picked with the host by `pick`, so every
// mode meets every host).
void CompileAll(const std::string& path, compiler::ConfigFormat format, size_t pick) {
  for (const char* mode : {kModes[(pick / 4) % 4]}) {
    compiler::HostFacts* facts = Facts(pick);
    compiler::CompileOptions o;
    o.config_path = path;
    o.format = format;
    o.mode = mode;
    absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(o, facts);
    if (!r.ok()) {
      CheckError(r.status());
      continue;
    }
    Artifacts(r->plan);
  }
}

}  // namespace

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "cwsc fuzz: invariant broken: %s\n", what);
  std::abort();
}

void ConfigToml(std::string_view data) {
  static InMemoryFile file;
  // The input is the config itself (a regression file is a config.toml);
  // its length picks the recorded host.
  CompileAll(file.Write(data), compiler::ConfigFormat::kToml, data.size());
  // The reader's fast path for string lists (compiler/toml_lists.h), taken
  // on every list, reads what toml++ alone reads.
  std::string text(data);
  auto fast =
      compiler::ReadTomlConfig(text, "c.toml", compiler::Layer::kUser, {.fast_list_min = 1});
  auto slow =
      compiler::ReadTomlConfig(text, "c.toml", compiler::Layer::kUser, {.fast_list_min = SIZE_MAX});
  Check(fast.ok() == slow.ok(), "the string-list fast path changes whether a config reads");
  if (slow.ok()) {
    Check(fast->spec == slow->spec && fast->notes == slow->notes,
          "the string-list fast path changes what a config says");
  } else {
    Check(fast.status() == slow.status(), "the string-list fast path changes an error");
  }
}

void Dsl(std::string_view data) {
  static InMemoryFile file;
  const std::string& path = file.Write(data);
  CompileAll(path, compiler::ConfigFormat::kDsl, data.size());
  std::string text(data);
  absl::StatusOr<std::string> formatted = compiler::FormatDsl(text, "p.cwsp");
  if (formatted.ok()) {
    absl::StatusOr<std::string> again = compiler::FormatDsl(*formatted, "p.cwsp");
    Check(again.ok(), "formatted DSL does not format again");
    Check(*again == *formatted, "the DSL formatter is not idempotent");
  } else {
    CheckError(formatted.status());
  }
}

void Facts(std::string_view data) {
  static InMemoryFile file;
  // A local and a remote config, so env overrides reach both lowerings.
  static const std::string configs[] = {ReadAll(CWSC_FUZZ_SOURCE_ROOT "/examples/workspace.toml"),
                                        ReadAll(CWSC_FUZZ_SOURCE_ROOT "/examples/remote.toml")};
  const std::string& config = configs[(data.size() / 4) % 2];
  absl::StatusOr<std::unique_ptr<compiler::HostFacts>> facts =
      compiler::ParseRecordedFacts(std::string(data), "facts.yaml");
  if (!facts.ok()) {
    CheckError(facts.status());
    return;
  }
  const std::string& path = file.Write(config);
  for (const char* mode : {kModes[data.size() % 4]}) {
    compiler::CompileOptions o;
    o.config_path = path;
    o.format = compiler::ConfigFormat::kToml;
    o.mode = mode;
    absl::StatusOr<compiler::CompileResult> r = compiler::CompileConfig(o, facts->get());
    if (!r.ok()) {
      CheckError(r.status());
      continue;
    }
    Artifacts(r->plan);
  }
}

void PlanJson(std::string_view data) {
  absl::StatusOr<ir::LaunchPlan> plan = ir::PlanFromJson(std::string(data), "plan.json");
  if (!plan.ok()) {
    CheckError(plan.status());
    return;
  }
  // exec's checks against a recorded host, then what exec would build.
  (void)runtime::RecheckPlan(*plan, Facts(data.size()));
  (void)runtime::PrepareCommand(*plan, {"/bin/true"}, {"HOME=/home/dev", "PATH=/usr/bin"});
  (void)runtime::ChildEnv(*plan, {"HOME=/home/dev", "PATH=/usr/bin", "A=b"});
  Artifacts(*plan, /*compiled=*/false);
}

void Sbpl(std::string_view data) {
  backends::SbplParams params = {
      {"WRITABLE_ROOT_0", "/work"}, {"CWD", "/work"}, {"HOME", "/Users/dev"}};
  auto prof =
      backends::SbplProfile::Parse(absl::string_view(data.data(), data.size()), params, "fuzz.sb");
  if (!prof.ok()) {
    Check(!prof.status().message().empty(), "an empty SBPL error");
    return;
  }
  for (const char* p : {"/", "/work/a", "/Users/dev/.ssh/id_rsa", "/private/tmp/x", "/dev/null"}) {
    (void)prof->CanRead(p);
    (void)prof->CanWrite(p);
  }
  (void)prof->CanConnect(backends::SbplNet::kIPv4, "127.0.0.1", 8080);
  (void)prof->CanConnect(backends::SbplNet::kIPv6, "::1", 443);
  (void)prof->CanConnectUnix("/private/var/run/mDNSResponder");
  backends::SbplRequest req;
  req.operation = "mach-lookup";
  req.global_name = "com.apple.system.logger";
  (void)prof->Decide(req);
  req = {};
  req.operation = "signal";
  req.same_sandbox = true;
  (void)prof->Decide(req);
}

void OpenSandbox(std::string_view data) {
  std::string out, err;
  runtime::OutputSink to_out = [&](std::string_view s) { out.append(s); };
  runtime::OutputSink to_err = [&](std::string_view s) { err.append(s); };
  absl::StatusOr<int> code = runtime::ReadCodewhaleBody(std::string(data), to_out, to_err);
  if (!code.ok()) Check(!code.status().message().empty(), "an empty Codewhale error");
  // The same bytes as an execd stream: whole, and cut into chunks at every 7th byte.
  runtime::ExecdStreamResult whole = runtime::ReadExecdStream({data}, 1 << 16, to_out, to_err);
  std::vector<std::string_view> chunks;
  for (size_t i = 0; i < data.size(); i += 7) chunks.push_back(data.substr(i, 7));
  runtime::ExecdStreamResult cut = runtime::ReadExecdStream(chunks, 1 << 16, to_out, to_err);
  if (whole.ok) {
    Check(cut.ok, "an execd stream reads differently when it arrives in pieces");
    Check(cut.exit_code == whole.exit_code && cut.complete == whole.complete &&
              cut.command_id == whole.command_id,
          "an execd stream means something else when it arrives in pieces");
  }
}

void BwrapArgv(std::string_view data) {
  std::vector<std::string> argv;
  size_t start = 0;
  for (size_t i = 0; i <= data.size(); ++i) {
    if (i == data.size() || data[i] == '\0') {
      argv.emplace_back(data.substr(start, i - start));
      start = i + 1;
    }
  }
  absl::StatusOr<backends::BwrapView> view = backends::InterpretBwrapArgv(argv);
  if (!view.ok()) return;
  for (const char* p :
       {"/", "/home/dev/proj", "/home/dev/.ssh/id_rsa", "/tmp/x", "/dev/null", "/proc/self"}) {
    (void)view->Find(p);
  }
}

}  // namespace cwsc::fuzz
