#include "compiler/lower_remote.h"

#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/constants.h"

namespace cwsc::compiler {
namespace {

using ir::Origin;
using ir::PlanKind;
using ir::PolicyType;

std::string Norm(const std::string& s) {
  return absl::AsciiStrToLower(absl::StripAsciiWhitespace(s));
}

void Refuse(ir::LaunchPlan* plan, std::string reason, Origin origin) {
  ir::Refuse(plan, ir::Refusal{std::move(reason), std::move(origin)});
}

// KeySource says where the runtime reads the key; never the key itself.
ir::ApiKeySource KeySource(const PolicySpec& spec) {
  using Kind = ir::ApiKeySource::Kind;
  if (spec.sandbox_api_key) {
    const Origin& o = spec.sandbox_api_key->origin;  // a config key, or the variable that set it
    if (o.kind == Origin::Kind::kEnv) return {Kind::kEnv, o.detail, o};
    return {Kind::kConfig, "", o};
  }
  if (spec.sandbox_api_key_env) {
    return {Kind::kEnv, spec.sandbox_api_key_env->value, spec.sandbox_api_key_env->origin};
  }
  if (spec.sandbox_api_key_file) {
    return {Kind::kFile, spec.sandbox_api_key_file->value, spec.sandbox_api_key_file->origin};
  }
  return {};
}

std::vector<std::string> NotEnforced(const PolicySpec& spec, const ir::LaunchPlan& plan,
                                     ir::Contract contract) {
  std::vector<std::string> out;
  const ir::Policy& pol = plan.policy;
  if (pol.type == PolicyType::kReadOnly) {
    out.push_back("read-only filesystem (the remote side decides what the command may write)");
  } else if (pol.type == PolicyType::kWorkspaceWrite) {
    out.push_back(absl::StrCat(
        "writes limited to the writable roots (",
        pol.writable_roots.empty() ? std::string("none") : absl::StrJoin(pol.writable_roots, ", "),
        "; the remote side decides what the command may write)"));
    std::vector<std::string> names(std::begin(ir::kConfigDirNames), std::end(ir::kConfigDirNames));
    if (spec.sandbox_protected_names) {
      for (const auto& n : spec.sandbox_protected_names->value) names.push_back(n.value);
    }
    out.push_back(absl::StrCat("read-only protected directories (", absl::StrJoin(names, ", "),
                               ") under each writable root"));
  }
  if (!plan.denied_read.empty()) {
    std::vector<std::string> first;
    for (size_t i = 0; i < plan.denied_read.size() && i < 3; ++i) {
      first.push_back(plan.denied_read[i].path);
    }
    out.push_back(absl::StrCat("read deny list (", plan.denied_read.size(),
                               " paths: ", absl::StrJoin(first, ", "),
                               plan.denied_read.size() > 3 ? ", ..." : "", ")"));
  } else if (!spec.sandbox_read_denylist_defaults || spec.sandbox_read_denylist_defaults->value ||
             spec.sandbox_denied_read_paths) {
    out.push_back("read deny list (credential stores such as ~/.ssh; configured denied paths)");
  }
  if (!pol.network_access && contract != ir::Contract::kLifecycle && pol.ShouldSandbox()) {
    out.push_back(absl::StrCat("network blocked (the ", ir::ContractName(contract),
                               " contract carries no network policy)"));
  }
  if (spec.bwrap_ro_roots || spec.bwrap_dev_roots) {
    out.push_back("bwrap_ro_roots / bwrap_dev_roots (local bubblewrap settings)");
  }
  out.push_back(
      "child environment allow-list (the remote side has its own environment; only the plan's "
      "env_set is sent)");
  return out;
}

}  // namespace

std::optional<std::string> CheckRemoteUrl(const std::string& url) {
  for (unsigned char c : url) {
    if (c <= 0x20 || c == 0x7f) return "it contains a space or control character";
    if (c >= 0x80) return "it contains a byte outside ASCII";
  }
  size_t start;
  if (url.rfind("http://", 0) == 0) {
    start = 7;
  } else if (url.rfind("https://", 0) == 0) {
    start = 8;
  } else {
    return "it must start with http:// or https://";
  }
  size_t end = url.find_first_of("/?#", start);
  std::string authority =
      url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (authority.find('@') != std::string::npos) {
    return "it must not contain user information (set the key with sandbox_api_key)";
  }
  if (authority.empty() || authority[0] == ':') return "it has no host";
  size_t colon = authority.rfind(':');
  if (colon != std::string::npos && authority.find(']') == std::string::npos) {
    std::string port = authority.substr(colon + 1);
    if (port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) == 0 ||
        std::stoi(port) > 65535) {
      return "its port is not a number from 1 to 65535";
    }
  }
  if (url.find_first_of("?#") != std::string::npos) {
    return "it must not have a query or fragment";
  }
  return std::nullopt;
}

void LowerRemote(const PolicySpec& spec, ir::LaunchPlan* plan) {
  // Local-wrapper parts do not apply to a remote run.
  plan->launch = ir::Unconfined{};
  if (!spec.sandbox_backend) return;
  const Setting<SandboxBackend>& b = *spec.sandbox_backend;
  if (b.value.kind != BackendKind::kOpenSandbox) {
    Refuse(plan,
           absl::StrCat("unsupported sandbox_backend '", b.value.text,
                        "': shell execution is refused; choose a supported backend "
                        "(opensandbox) or explicitly select none"),
           b.origin);
    return;
  }
  ir::Remote rm;
  rm.contract = ir::Contract::kCodewhale;
  Origin contract_origin = b.origin;
  if (spec.sandbox_opensandbox_api) {  // parsed by the frontends
    rm.contract = spec.sandbox_opensandbox_api->value;
    contract_origin = spec.sandbox_opensandbox_api->origin;
  }
  // The URL of the selected API.
  const Setting<std::string>* url_setting = spec.sandbox_url ? &*spec.sandbox_url : nullptr;
  const char* url_key = "sandbox_url";
  if (rm.contract == ir::Contract::kExecd && spec.sandbox_execd_url) {
    url_setting = &*spec.sandbox_execd_url;
    url_key = "sandbox_execd_url";
  }
  std::string url = url_setting ? url_setting->value : kDefaultSandboxUrl;
  rm.url_origin = url_setting ? url_setting->origin
                              : Origin::Default(absl::StrCat("sandbox_url ", kDefaultSandboxUrl));
  if (std::optional<std::string> why = CheckRemoteUrl(url)) {
    bool has_userinfo = why->find("user information") != std::string::npos;
    Refuse(plan,
           absl::StrCat(
               url_key, " ",
               // Escaped: the reason must stay text (and UTF-8 for the plan JSON).
               has_userinfo ? std::string("(value withheld)") : "'" + absl::CHexEscape(url) + "'",
               " cannot be used: ", *why, "; shell execution is refused"),
           rm.url_origin);
    return;
  }
  while (!url.empty() && url.back() == '/') url.pop_back();
  rm.url = url;
  rm.api_key = KeySource(spec);
  if (spec.sandbox_remote_cwd) rm.remote_cwd = spec.sandbox_remote_cwd->value;
  if (rm.contract == ir::Contract::kLifecycle) {
    if (!spec.sandbox_image || Norm(spec.sandbox_image->value).empty()) {
      Refuse(plan,
             "sandbox_opensandbox_api = \"lifecycle\" needs sandbox_image (the container image "
             "to create the sandbox from); shell execution is refused",
             contract_origin);
      return;
    }
    rm.image = spec.sandbox_image->value;
    if (spec.sandbox_execd_port) rm.execd_port = spec.sandbox_execd_port->value;
    if (spec.sandbox_keep) rm.keep = spec.sandbox_keep->value;
    if (rm.api_key.kind == ir::ApiKeySource::Kind::kNone) {
      plan->warnings.push_back(ir::Warning{
          "opensandbox-no-api-key",
          "the lifecycle API requires OPEN-SANDBOX-API-KEY; no sandbox_api_key is configured",
          contract_origin});
    }
  }
  rm.not_enforced = NotEnforced(spec, *plan, rm.contract);
  plan->launch = std::move(rm);
}

}  // namespace cwsc::compiler
