#include "runtime/doctor.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/compile.h"
#include "ir/constants.h"
#include "nlohmann/json.hpp"

namespace cwsc::runtime {
namespace {

std::optional<std::string> ReadTrimmed(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return std::string(absl::StripAsciiWhitespace(absl::string_view(s.data(), s.size())));
}

bool FileExists(const char* path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

std::string Collapse(const std::string& s) {
  std::vector<std::string> parts = absl::StrSplit(absl::string_view(s.data(), s.size()),
                                                  absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
  return absl::StrJoin(parts, " ");
}

nlohmann::ordered_json OptString(const std::string& s) {
  return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

nlohmann::ordered_json OptString(const std::optional<std::string>& s) {
  return s ? nlohmann::ordered_json(*s) : nlohmann::ordered_json(nullptr);
}

}  // namespace

HostSignals ReadHostSignals() {
  HostSignals s;
  s.apparmor_restrict_userns =
      ReadTrimmed("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  s.max_user_namespaces = ReadTrimmed("/proc/sys/user/max_user_namespaces");
  s.unprivileged_userns_clone = ReadTrimmed("/proc/sys/kernel/unprivileged_userns_clone");
  s.uid_map = Collapse(ReadTrimmed("/proc/self/uid_map").value_or(""));
  s.dockerenv = FileExists("/.dockerenv");
  s.containerenv = FileExists("/run/.containerenv");
  const char* c = std::getenv("container");
  if (c != nullptr) s.container_env = c;
  struct stat st;
  s.bwrap_setuid = stat(ir::kBwrapPath, &st) == 0 && (st.st_mode & S_ISUID) != 0;
  s.uid = getuid();
  return s;
}

bool InContainer(const HostSignals& s) {
  return s.dockerenv || s.containerenv || !s.container_env.empty() ||
         (!s.uid_map.empty() && s.uid_map != "0 0 4294967295");
}

std::vector<Cause> DiagnoseWrapper(const compiler::PathInfo& info,
                                   const compiler::ProbeResult& probe, const HostSignals& host) {
  std::vector<Cause> out;
  if (info.type == compiler::FileType::kMissing) {
    out.push_back({"bwrap-missing", "/usr/bin/bwrap does not exist",
                   "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap); cwsc runs "
                   "/usr/bin/bwrap only and never searches PATH"});
    return out;
  }
  if (info.type != compiler::FileType::kRegular || (info.mode & 0111) == 0) {
    out.push_back({"bwrap-not-executable",
                   absl::StrCat("/usr/bin/bwrap is ",
                                info.type == compiler::FileType::kRegular
                                    ? "a regular file without an execute bit"
                                    : absl::StrCat("a ", compiler::FileTypeName(info.type),
                                                   ", not a regular file")),
                   "reinstall bubblewrap so /usr/bin/bwrap is a regular executable file "
                   "(apt-get install --reinstall bubblewrap)"});
    return out;
  }
  if (probe.ok) return out;
  if (host.apparmor_restrict_userns && *host.apparmor_restrict_userns == "1") {
    out.push_back(
        {"apparmor-userns-restricted",
         "kernel.apparmor_restrict_unprivileged_userns = 1: AppArmor denies user "
         "namespaces to unconfined programs",
         "give bwrap alone the right with an AppArmor profile, e.g. /etc/apparmor.d/bwrap "
         "containing `abi <abi/4.0>, include <tunables/global> profile bwrap "
         "/usr/bin/bwrap flags=(unconfined) { userns, }`, then `apparmor_parser -r "
         "/etc/apparmor.d/bwrap`; setting the sysctl to 0 works too but lifts the "
         "restriction for every program"});
  }
  if (host.max_user_namespaces && *host.max_user_namespaces == "0") {
    out.push_back({"userns-disabled",
                   "user.max_user_namespaces = 0: no user namespace may be created",
                   "allow user namespaces: `sysctl -w user.max_user_namespaces=15000` and persist "
                   "it in /etc/sysctl.d/"});
  }
  if (host.unprivileged_userns_clone && *host.unprivileged_userns_clone == "0") {
    out.push_back(
        {"userns-clone-disabled",
         "kernel.unprivileged_userns_clone = 0: unprivileged users may not create user "
         "namespaces",
         "`sysctl -w kernel.unprivileged_userns_clone=1` and persist it in /etc/sysctl.d/"});
  }
  if (InContainer(host)) {
    std::vector<std::string> marks;
    if (host.dockerenv) marks.push_back("/.dockerenv");
    if (host.containerenv) marks.push_back("/run/.containerenv");
    if (!host.container_env.empty()) marks.push_back("container=" + host.container_env);
    if (!host.uid_map.empty() && host.uid_map != "0 0 4294967295") {
      marks.push_back("uid_map '" + host.uid_map + "'");
    }
    out.push_back({"unprivileged-container",
                   absl::StrCat("running inside a container (", absl::StrJoin(marks, ", "),
                                "); its seccomp/AppArmor profile or user namespace usually blocks "
                                "the nested namespaces bwrap needs"),
                   "allow nested user namespaces for this container only (Docker: "
                   "--security-opt seccomp=<profile allowing clone/unshare of user namespaces> "
                   "and --security-opt apparmor=unconfined; Podman: --security-opt "
                   "unmask=/proc/sys), or run cwsc on the host"});
  }
  if (out.empty()) {
    out.push_back(
        {"probe-failed",
         absl::StrCat(
             "the probe failed with bwrap's own message: ",
             probe.message.empty() ? absl::StrCat("exit status ", probe.exit_code) : probe.message),
         "run the probe by hand to investigate: /usr/bin/bwrap --unshare-all "
         "--die-with-parent --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --chdir / "
         "-- /bin/true"});
  }
  return out;
}

absl::StatusOr<DoctorReport> RunDoctor(const std::string& config, compiler::HostFacts* facts,
                                       const HostSignals& host) {
  DoctorReport r;
  r.host = host;
  r.platform = facts->Platform();
  compiler::PathInfo info = facts->Path(r.wrapper_path);
  r.wrapper_type = compiler::FileTypeName(info.type);
  r.wrapper_executable = info.type == compiler::FileType::kRegular && (info.mode & 0111) != 0;
  r.no_new_privs_active = NoNewPrivsActive();

  std::optional<std::string> startup_mode;
  for (ir::PermissionMode pm : ir::kPermissionModes) {
    const char* mode = ir::PermissionModeName(pm);
    compiler::CompileOptions o;
    o.config_path = config;
    o.mode = mode;
    o.mode_origin = ir::Origin::Cli(absl::StrCat("cwsc doctor mode ", mode));
    ModePolicy m;
    m.mode = mode;
    absl::StatusOr<compiler::CompileResult> res = compiler::CompileConfig(o, facts);
    if (!res.ok()) {
      // A bad config is the caller's error, not a per-mode fact.
      if (absl::IsInvalidArgument(res.status())) return res.status();
      m.refusal = std::string(res.status().message());
      r.modes.push_back(m);
      continue;
    }
    const ir::LaunchPlan& p = res->plan;
    if (res->merged.sandbox_mode)
      startup_mode = ir::PolicyTypeName(res->merged.sandbox_mode->value.type);
    m.policy = ir::PolicyTypeName(p.policy.type);
    m.sandbox_kind = ir::PlanKindName(p.kind());
    m.network = p.policy.network_access;
    m.posture = p.posture_label;
    if (p.refusal()) m.refusal = p.refusal()->reason;
    if (pm == ir::PermissionMode::kAsk) {
      r.command_kind = ir::PlanKindName(p.kind());
      const bool unconfined = std::holds_alternative<ir::Unconfined>(p.launch);
      r.command_unconfined = unconfined && p.policy.ShouldSandbox();
      if (p.refusal()) {
        r.command_why = p.refusal()->reason;
      } else if (unconfined) {
        for (const ir::Skipped& s : p.skipped) {
          if (s.kind != ir::SkipKind::kLocalWrapper) continue;
          r.command_why = s.path.empty() ? s.reason : absl::StrCat(s.path, ": ", s.reason);
        }
      }
      if (res->merged.sandbox_require && res->merged.sandbox_require->value) {
        r.require_sandbox = true;
        r.require_origin = res->merged.sandbox_require->origin.Describe();
      }
      r.wrapper_preferred = p.wrapper.preferred;
      r.preference_origin = p.wrapper.preferred_origin.Describe();
      r.backend = p.remote() ? "opensandbox" : "local";
      if (p.refusal() && res->merged.sandbox_backend) {
        r.backend = res->merged.sandbox_backend->value.text;
      }
      if (res->merged.tool_launcher && !p.remote()) {
        r.tool_launcher = res->merged.tool_launcher->value;
        if (p.refusal()) r.launcher_refusal = p.refusal()->reason;
        for (const ir::Warning& w : p.warnings) r.launcher_warnings.emplace_back(w.code, w.message);
      }
    }
    r.modes.push_back(m);
  }
  const char* env_mode = std::getenv("CODEWHALE_SANDBOX_MODE");
  if (env_mode != nullptr) startup_mode = env_mode;
  const char* nnp = std::getenv("CODEWHALE_NO_NEW_PRIVS");
  r.no_new_privs_at_run =
      DecideNoNewPrivs(nnp ? std::optional<std::string>(nnp) : std::nullopt, startup_mode, false);

  if (r.platform != "linux") {
    r.reason = absl::StrCat("cwsc doctor checks bubblewrap, which exists only on Linux (platform ",
                            r.platform, ")");
    return r;
  }
  // The probe only runs for an executable wrapper; a fresh result is taken
  // so the report shows bwrap's own message.
  r.probe = facts->BwrapProbe();
  bool works = r.wrapper_executable && r.probe.ok;
  r.sandbox_available = works && r.wrapper_preferred;
  r.sandbox_kind = r.sandbox_available ? "linux-bwrap" : "";
  if (!works) {
    r.causes = DiagnoseWrapper(info, r.probe, host);
    if (info.type == compiler::FileType::kMissing) {
      r.reason = "/usr/bin/bwrap is missing";
    } else if (!r.wrapper_executable) {
      r.reason = "/usr/bin/bwrap is not a regular executable file";
    } else {
      r.reason =
          absl::StrCat("the bwrap probe failed: ",
                       r.probe.message.empty() ? absl::StrCat("exit status ", r.probe.exit_code)
                                               : r.probe.message);
    }
  } else if (!r.wrapper_preferred) {
    r.reason = absl::StrCat("bubblewrap works but is not preferred (", r.preference_origin, ")");
  }
  // Landlock instead of bubblewrap (docs/runtime.md, "The Landlock backend").
  if (r.command_kind == "linux-landlock") {
    r.sandbox_available = true;
    r.sandbox_kind = "linux-landlock";
    r.reason = absl::StrCat(
        works ? "sandbox_linux_backend asks for Landlock"
              : absl::StrCat("bubblewrap does not work here (", r.reason, ")"),
        "; commands are confined with Landlock and seccomp, which hold less (cwsc explain lists "
        "what)");
  }
  // With a launcher, commands run under bubblewrap as the launcher's user or
  // not at all: the launcher probe (in the ask-mode plan) decides.
  if (!r.tool_launcher.empty()) {
    r.sandbox_available = r.launcher_refusal.empty();
    r.sandbox_kind = r.sandbox_available ? "linux-bwrap" : "";
    r.reason = r.launcher_refusal;
  }
  return r;
}

std::string DoctorToJson(const DoctorReport& r) {
  using J = nlohmann::ordered_json;
  J j;
  j["platform"] = r.platform;
  j["sandbox"] = {{"available", r.sandbox_available},
                  {"kind", OptString(r.sandbox_kind)},
                  {"reason", OptString(r.reason)},
                  {"tool_launcher", r.tool_launcher.empty() ? J(nullptr) : J(r.tool_launcher)}};
  if (r.tool_launcher.empty()) {
    j["launcher"] = nullptr;
  } else {
    J warnings = J::array();
    for (const auto& [code, message] : r.launcher_warnings) {
      warnings.push_back({{"code", code}, {"message", message}});
    }
    j["launcher"] = {{"argv", r.tool_launcher},
                     {"runs", r.launcher_refusal.empty()},
                     {"refusal", OptString(r.launcher_refusal)},
                     {"warnings", warnings}};
  }
  J probe = {
      {"ran", r.probe.ran},
      {"ok", r.probe.ok},
      {"exit_code", r.probe.ran && r.probe.exit_code >= 0 ? J(r.probe.exit_code) : J(nullptr)},
      {"message", OptString(r.probe.message)}};
  j["wrapper"] = {{"path", r.wrapper_path},
                  {"type", r.wrapper_type},
                  {"executable", r.wrapper_executable},
                  {"setuid", r.host.bwrap_setuid},
                  {"preferred", r.wrapper_preferred},
                  {"preference_origin", r.preference_origin},
                  {"probe", probe}};
  J causes = J::array();
  for (const Cause& c : r.causes)
    causes.push_back({{"code", c.code}, {"detail", c.detail}, {"fix", c.fix}});
  j["causes"] = causes;
  j["no_new_privs"] = {{"active", r.no_new_privs_active ? J(*r.no_new_privs_active) : J(nullptr)},
                       {"run_applies", r.no_new_privs_at_run.apply},
                       {"run_reason", r.no_new_privs_at_run.reason}};
  j["backend"] = r.backend;
  j["command"] = {{"mode", "ask"},
                  {"sandbox_kind", OptString(r.command_kind)},
                  {"why", OptString(r.command_why)},
                  {"require_sandbox", r.require_sandbox},
                  {"require_origin", OptString(r.require_origin)}};
  J modes = J::array();
  for (const ModePolicy& m : r.modes) {
    modes.push_back({{"mode", m.mode},
                     {"policy", OptString(m.policy)},
                     {"sandbox_kind", OptString(m.sandbox_kind)},
                     {"network", m.network},
                     {"posture", OptString(m.posture)},
                     {"refusal", OptString(m.refusal)}});
  }
  j["modes"] = modes;
  j["host"] = {
      {"uid", r.host.uid},
      {"in_container", InContainer(r.host)},
      {"uid_map", r.host.uid_map},
      {"max_user_namespaces", OptString(r.host.max_user_namespaces)},
      {"apparmor_restrict_unprivileged_userns", OptString(r.host.apparmor_restrict_userns)},
      {"unprivileged_userns_clone", OptString(r.host.unprivileged_userns_clone)}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

ir::Text DoctorToText(const DoctorReport& r) {
  // Paths, the probe's and bwrap's messages, the launcher's argv and the
  // host's sysctl values are values: ir::Text shows each escaped.
  ir::Text out;
  out << "sandbox: " << (r.sandbox_available ? r.sandbox_kind : std::string("none"))
      << (r.sandbox_available ? " (available)" : " (unavailable)") << "\n";
  if (!r.reason.empty()) out << "  why: " << r.reason << "\n";
  out << "wrapper: " << r.wrapper_path << " (" << r.wrapper_type
      << (r.wrapper_executable ? ", executable" : "") << (r.host.bwrap_setuid ? ", setuid" : "")
      << ")\n";
  out << "  preferred: " << (r.wrapper_preferred ? "yes" : "no") << " (" << r.preference_origin
      << ")\n";
  out << "  probe: ";
  if (!r.probe.ran) {
    out << "not run";
  } else if (r.probe.ok) {
    out << "ok";
  } else if (r.probe.message.empty()) {
    out << "failed: exit status " << r.probe.exit_code;
  } else {
    out << "failed: " << r.probe.message;
  }
  out << "\n";
  if (!r.tool_launcher.empty()) {
    out << "launcher: " << absl::StrJoin(r.tool_launcher, " ");
    if (r.launcher_refusal.empty()) {
      out << " (probe passed)";
    } else {
      out << " (refused: " << r.launcher_refusal << ")";
    }
    out << "\n";
    for (const auto& [code, message] : r.launcher_warnings) {
      out << "  warning [" << code << "]: " << message << "\n";
    }
  }
  for (const Cause& c : r.causes) {
    out << "cause [" << c.code << "]: " << c.detail << "\n  fix: " << c.fix << "\n";
  }
  out << "no-new-privs: "
      << (!r.no_new_privs_active   ? "unknown"
          : *r.no_new_privs_active ? "active"
                                   : "not active")
      << " in this process; `cwsc run` "
      << (r.no_new_privs_at_run.apply ? "applies it" : "skips it") << " ("
      << r.no_new_privs_at_run.reason << ")\n";
  out << "backend: " << r.backend << "\n";
  if (!r.command_kind.empty()) {
    out << "command (ask mode): " << r.command_kind;
    if (r.command_unconfined) out << " (unconfined, with a warning)";
    if (!r.command_why.empty()) out << ": " << r.command_why;
    out << "\n";
  }
  out << "when no wrapper works: ";
  if (r.require_sandbox) {
    out << "refuse (" << r.require_origin << ")\n";
  } else {
    out << "run unconfined with a warning (sandbox_require = true or --require-sandbox refuses "
           "instead)\n";
  }
  out << "modes:\n";
  for (const ModePolicy& m : r.modes) {
    if (!m.refusal.empty() && m.policy.empty()) {
      out << "  " << m.mode << ": error: " << m.refusal << "\n";
      continue;
    }
    out << "  " << m.mode << ": " << m.policy << ", " << m.sandbox_kind << ", network "
        << (m.network ? "on" : "off");
    if (!m.refusal.empty()) out << ", refused: " << m.refusal;
    out << "\n";
  }
  out << "host: uid " << r.host.uid << (InContainer(r.host) ? ", in a container" : "")
      << ", user.max_user_namespaces=" << r.host.max_user_namespaces.value_or("n/a")
      << ", kernel.apparmor_restrict_unprivileged_userns="
      << r.host.apparmor_restrict_userns.value_or("n/a") << "\n";
  return out;
}

}  // namespace cwsc::runtime
