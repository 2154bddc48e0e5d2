#include "cli/cli_options.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/json_report.h"
#include "compiler/driver/config_search.h"
#include "compiler/driver/names.h"
#include "ir/diagnostic_status.h"
#include "ir/display.h"
#include "runtime/host/live_facts.h"
#include "runtime/result_channel.h"

namespace cwsc::cli {

CommonOptions CommonOptionsOf(const ParsedArgs& p) {
  CommonOptions o;
  o.help = p.help;
  if (!p.positionals.empty()) o.config = p.positionals[0];
  for (const auto& [name, value] : p.flags) {
    if (name == "--json")
      o.json = true;
    else if (name == "--check")
      o.check = true;
    else if (name == "--no-project-config")  // what `codewhale serve`/`exec` do
      o.no_project_config = true;
    else if (name == "--unlisted-as-missing")  // docs/facts.md
      o.unlisted_as_missing = true;
    else if (name == "--require-sandbox")  // docs/config.md sandbox_require
      o.require_sandbox = true;
    else if (name == "--target")
      o.target = value;
    else if (name == "--linux-backend")  // docs/config.md sandbox_linux_backend
      o.linux_backend = value;
    else if (name == "--mode") {
      o.mode = value;
      o.mode_given = true;
    } else if (name == "--facts")
      o.facts = value;
    else if (name == "--cwd")
      o.cwd = value;
    else if (name == "--format")
      o.format = value;
    else if (name == "--policy")
      o.policy = value;
    else if (name == "--input")
      o.input = value;
    else if (name == "--escalate")
      o.escalate = value;
    else if (name == "--stage")
      o.stage = value;
    else if (name == "-o")
      o.output = value;
    else if (name == "--timeout")
      o.timeout = value;
    else if (name == "--json-fd")
      o.json_fd = value;
    else if (name == "--for")
      o.config = value;
  }
  o.program = p.program;
  o.saw_dashdash = p.saw_dashdash;
  return o;
}

namespace {

// Stdin is bounded: a config holds at most 4 MiB, a plan a few.
constexpr size_t kMaxStdinBytes = 64 * 1024 * 1024;

}  // namespace

std::vector<backends::AccessKind> AccessKindsOf(const ParsedArgs& p) {
  std::vector<backends::AccessKind> kinds;
  for (const auto& [name, value] : p.flags) {
    if (name == "--read") kinds.push_back(backends::AccessKind::kRead);
    if (name == "--write") kinds.push_back(backends::AccessKind::kWrite);
    if (name == "--exec") kinds.push_back(backends::AccessKind::kExec);
  }
  return kinds;
}

std::string InputName(const std::string& path) { return path == "-" ? "<stdin>" : path; }

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  if (path != "-") {
    std::ifstream in(path, std::ios::binary);
    if (!in) return ir::ErrorAt(path, 0, 0, "cannot read the file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static std::optional<std::string> text;  // stdin is read once per process
  if (!text) {
    std::string data;
    char buf[65536];
    for (;;) {
      ssize_t n = read(0, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ir::ErrorAt("<stdin>", 0, 0, "cannot read stdin");
      if (n == 0) break;
      data.append(buf, static_cast<size_t>(n));
      if (data.size() > kMaxStdinBytes) {
        return ir::ErrorAt("<stdin>", 0, 0, "stdin holds more than 64 MiB");
      }
    }
    text = std::move(data);
  }
  return *text;
}

int DiscoverConfig(absl::string_view command, CommonOptions* o) {
  if (!o->config.empty()) return kExitOk;
  driver::ConfigSearch s = driver::FindUserConfig();
  if (s.found) {
    o->config = *s.found;
    o->config_discovered = true;
    return kExitOk;
  }
  return PrintUsageError(
      command,
      absl::StrCat("no CONFIG given and no config file found; looked for ",
                   s.candidates.empty() ? "nothing" : absl::StrJoin(s.candidates, ", "), s.note));
}

absl::StatusOr<std::unique_ptr<compiler::HostFacts>> MakeFacts(const CommonOptions& o) {
  if (o.facts) return compiler::LoadRecordedFacts(*o.facts);
  return runtime::MakeLiveFacts();
}

absl::StatusOr<compiler::CompileOptions> ToCompileOptions(const CommonOptions& o) {
  compiler::CompileOptions c;
  c.config_path = InputName(o.config);
  if (o.config == "-") {
    absl::StatusOr<std::string> text = ReadInput("-");
    if (!text.ok()) return text.status();
    c.config_text = *std::move(text);
  }
  c.mode = o.mode;
  c.mode_origin = o.mode_given ? ir::Origin::Cli(absl::StrCat("--mode ", o.mode))
                               : ir::Origin::Default("permission mode ask");
  c.cwd = o.cwd;
  c.policy_name = o.policy;
  c.escalate = o.escalate;
  c.read_project_config = !o.no_project_config;
  c.require_sandbox = o.require_sandbox;
  c.force_landlock = o.target == "landlock";
  c.linux_backend = o.linux_backend;
  if (o.input) {
    if (*o.input == "toml") {
      c.format = compiler::ConfigFormat::kToml;
    } else if (*o.input == "dsl") {
      c.format = compiler::ConfigFormat::kDsl;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("--input: unknown input format '", *o.input,
                                                     "' (", driver::NameList(driver::kInputs),
                                                     ")"));
    }
  }
  return c;
}

// An error of cwsc's own names no file: one line, `cwsc: error: MESSAGE` (a
// line break in it came from a value, and is escaped like the rest of it).
void PrintError(const std::string& message) {
  std::string m = message;
  while (!m.empty() && m.back() == '\n') m.pop_back();
  m = ir::Displayable(m);
  if (m.empty()) m = "unknown error";
  if (JsonReport* report = ActiveReport()) {
    report->AddDiagnostic({ir::Diagnostic::Severity::kError, "", 0, 0, m, ""});
  }
  std::fputs(absl::StrCat("cwsc: error: ", m, "\n").c_str(), stderr);
}

bool Failed(const absl::Status& s) {
  if (s.ok()) return false;
  PrintError(s);
  return true;
}

void PrintError(const absl::Status& status) {
  if (std::optional<std::vector<ir::Diagnostic>> diagnostics = ir::DiagnosticsOf(status)) {
    for (const ir::Diagnostic& d : *diagnostics) {
      if (JsonReport* report = ActiveReport()) report->AddDiagnostic(d);
      // An error that names no file is cwsc's own: `cwsc: error: MESSAGE`.
      std::string text = d.Render();
      if (d.file.empty() && d.severity == ir::Diagnostic::Severity::kError) {
        text = absl::StrCat("cwsc: ", text);
      }
      std::fputs(text.c_str(), stderr);
    }
    // The closing line of a list that stopped at the error limit.
    if (ir::StoppedAtErrorLimit(status)) {
      if (JsonReport* report = ActiveReport()) {
        report->AddDiagnostic({ir::Diagnostic::Severity::kError, "", 0, 0, ir::kStoppedLine, ""});
      }
      std::fputs(absl::StrCat(ir::kStoppedLine, "\n").c_str(), stderr);
    }
    return;
  }
  PrintError(std::string(status.message()));
}

void PrintNotes(const std::vector<ir::Diagnostic>& notes) {
  for (const auto& n : notes) {
    if (JsonReport* report = ActiveReport()) report->AddDiagnostic(n);
    std::fputs(n.Render().c_str(), stderr);
  }
}

void PrintSettingNote(const ir::Diagnostic& note) {
  if (note.file.empty()) {
    PrintNote(note.message);
  } else {
    PrintNotes({note});
  }
}

void PrintWarning(const std::string& code, const std::string& message) {
  std::string shown = ir::Displayable(message);
  if (JsonReport* report = ActiveReport()) report->Add({"warning", code, shown, "", 0, 0});
  std::fprintf(stderr, "cwsc: warning [%s]: %s\n", ir::Displayable(code).c_str(), shown.c_str());
}

void PrintNote(const std::string& message) {
  std::string shown = ir::Displayable(message);
  if (JsonReport* report = ActiveReport()) report->Add({"note", "", shown, "", 0, 0});
  std::fprintf(stderr, "cwsc: note: %s\n", shown.c_str());
}

bool WriteFileReplacing(const std::string& path, const std::string& text) {
  absl::StatusOr<runtime::ResultChannel> c = runtime::OpenResultChannel(path, std::nullopt);
  if (!c.ok()) {  // its directory cannot be opened, or it names no file
    PrintError(ir::ErrorAt(path, 0, 0, "cannot write the file"));
    return false;
  }
  int err = 0;
  const bool ok = runtime::WriteResult(*c, text, &err);
  close(c->dir_fd);
  if (!ok) {
    PrintError(ir::ErrorAt(path, 0, 0, absl::StrCat("cannot write the file: ", strerror(err))));
  }
  return ok;
}

int WriteOut(std::string_view bytes, int rc) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) == bytes.size() &&
      std::fflush(stdout) == 0) {
    return rc;
  }
  PrintError("cannot write the output");
  return kExitUsage;
}

int PrintReport(driver::Report report, int rc) {
  if (JsonReport* json = ActiveReport()) {
    json->SetResult(std::move(report.json));
    return rc;
  }
  return WriteOut(report.text.str(), rc);
}

void PrintErrText(const ir::Text& text) { std::fputs(text.str().c_str(), stderr); }

void PrintRefused(const std::string& reason, const ir::Origin& origin) {
  std::string shown = ir::Displayable(reason);
  std::string where = ir::Displayable(origin.Describe());
  if (JsonReport* report = ActiveReport()) {
    report->Add({"error", "refused", absl::StrCat(shown, " (", where, ")"), origin.file,
                 origin.line, origin.col});
  }
  std::fprintf(stderr, "cwsc: refused: %s\n  (%s)\n", shown.c_str(), where.c_str());
}

}  // namespace cwsc::cli
