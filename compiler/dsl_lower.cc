// The semantic pass of the .cwsp frontend: names, duplicates, paths,
// variables, layer rules, and the lowering of each statement to the
// PolicySpec field the TOML frontend fills for the same Codewhale key.
#include "compiler/dsl_lower.h"

#include <algorithm>
#include <map>

#include "PolicyParser.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "antlr4-runtime.h"
#include "compiler/dsl_text.h"
#include "compiler/modes.h"

namespace cwsc::compiler {
namespace {

using antlr4::Token;
using grammar::PolicyParser;
using P = PolicyParser;

// HasSyntaxError is true when the parser recovered inside `tree`: such a
// statement is not lowered, its error is already reported.
bool HasSyntaxError(antlr4::tree::ParseTree* tree) {
  if (dynamic_cast<antlr4::tree::ErrorNode*>(tree) != nullptr) return true;
  if (auto* ctx = dynamic_cast<antlr4::ParserRuleContext*>(tree)) {
    if (ctx->exception != nullptr) return true;
  }
  for (antlr4::tree::ParseTree* child : tree->children) {
    if (HasSyntaxError(child)) return true;
  }
  return false;
}

constexpr const char* kModes[] = {"read-only", "workspace-write", "danger-full-access",
                                  "external-sandbox"};

bool IsEnvName(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      return false;
    }
  }
  return true;
}

class Lowerer {
 public:
  Lowerer(const std::string& file, Layer layer, DslSink* sink)
      : file_(file), layer_(layer), sink_(sink) {}

  void Policy(P::PolicyContext* pc, DslFile* out) {
    if (pc->name == nullptr || HasSyntaxError(pc->name)) return;
    DslPolicy policy;
    policy.name = pc->name->getText();
    policy.line = static_cast<int>(pc->name->getStart()->getLine());
    policy.col = static_cast<int>(pc->name->getStart()->getCharPositionInLine()) + 1;
    for (const DslPolicy& other : out->policies) {
      if (other.name == policy.name) {
        Error(pc->name->getStart(), absl::StrCat("duplicate policy name '", policy.name,
                                                 "' (first defined at line ", other.line, ")"));
        return;
      }
    }
    if (pc->parent != nullptr && !HasSyntaxError(pc->parent)) {
      policy.parent = pc->parent->getText();
      const DslPolicy* parent = nullptr;
      for (const DslPolicy& other : out->policies) {
        if (other.name == policy.parent) parent = &other;
      }
      if (parent == nullptr) {
        Error(pc->parent->getStart(),
              absl::StrCat("unknown policy '", policy.parent,
                           "' after 'extends'; a policy can only extend one defined above it"));
      } else {
        policy.spec = parent->spec;
        policy.spec.expectations.clear();  // each policy states its own expectations
      }
    }
    seen_.clear();
    spec_ = &policy.spec;
    for (P::StatementContext* st : pc->statement()) {
      if (sink_->Full()) break;
      if (!HasSyntaxError(st)) Statement(st);
    }
    out->policies.push_back(std::move(policy));
  }

 private:
  void Error(Token* t, const std::string& message) {
    sink_->Error(static_cast<int>(t->getLine()), static_cast<int>(t->getCharPositionInLine()) + 1,
                 message);
  }

  // At is the origin of a setting: the statement, where it is, and which
  // layer the file stands for (as the TOML frontend marks its keys).
  ir::Origin At(Token* t, const std::string& detail) const {
    ir::Origin o = ir::Origin::Config(detail, file_, static_cast<int>(t->getLine()),
                                      static_cast<int>(t->getCharPositionInLine()) + 1);
    if (layer_ == Layer::kManaged) o.kind = ir::Origin::Kind::kManaged;
    if (layer_ == Layer::kProject) o.kind = ir::Origin::Kind::kProject;
    return o;
  }

  // Once reports a scalar set twice in one policy; true when it is the first.
  bool Once(const std::string& key, const std::string& statement, Token* t) {
    auto [it, inserted] = seen_.emplace(key, t->getLine());
    if (inserted) return true;
    if (key == statement) {
      Error(t, absl::StrCat("'", statement, "' is already set in this policy (at line ", it->second,
                            ")"));
    } else {
      Error(t, absl::StrCat("'", statement, "' sets ", key,
                            ", which is already set in this policy (at line ", it->second, ")"));
    }
    return false;
  }

  // String decodes a STRING token; reports bad escapes.
  std::optional<DslString> String(Token* t) {
    DslString s = UnescapeDslString(t->getText());
    if (!s.error.empty()) {
      sink_->Error(static_cast<int>(t->getLine()),
                   static_cast<int>(t->getCharPositionInLine()) + 1 + s.error_offset, s.error);
      return std::nullopt;
    }
    return s;
  }

  std::optional<std::string> Path(P::PathContext* pc) {
    Token* t = pc->STRING()->getSymbol();
    std::optional<DslString> s = String(t);
    if (!s) return std::nullopt;
    if (std::string problem = CheckDslPathValue(*s); !problem.empty()) {
      Error(t, problem);
      return std::nullopt;
    }
    return s->value;
  }

  void Paths(P::PathListContext* list, const std::string& detail, Token* keyword,
             std::optional<Setting<PathList>>* field) {
    PathList entries;
    for (P::PathContext* pc : list->path()) {
      if (std::optional<std::string> p = Path(pc)) {
        entries.push_back(Setting<std::string>{*p, At(pc->getStart(), detail)});
      }
    }
    if (!field->has_value()) *field = Setting<PathList>{{}, At(keyword, detail)};
    for (auto& e : entries) (*field)->value.push_back(std::move(e));
  }

  static bool On(P::OnOffContext* c) { return c->ON() != nullptr; }

  void Statement(P::StatementContext* st) {
    Token* kw = st->getStart();
    if (auto* s = dynamic_cast<P::ModeStmtContext*>(st)) {
      std::string mode = s->modeName()->getText();
      if (std::find(std::begin(kModes), std::end(kModes), mode) == std::end(kModes)) {
        Error(s->modeName()->getStart(),
              absl::StrCat("unknown mode '", mode,
                           "'; expected read-only, workspace-write, danger-full-access or "
                           "external-sandbox"));
      } else if (Once("mode", "mode", kw)) {
        spec_->sandbox_mode = Setting<SandboxMode>{*ParseSandboxMode(mode), At(kw, "mode")};
      }
    } else if (auto* s = dynamic_cast<P::NetworkStmtContext*>(st)) {
      if (Once("network", "network", kw)) {
        spec_->sandbox_network_access = Setting<bool>{On(s->onOff()), At(kw, "network")};
      }
    } else if (auto* s = dynamic_cast<P::WritableStmtContext*>(st)) {
      Paths(s->pathList(), "writable", kw, &spec_->sandbox_writable_roots);
    } else if (auto* s = dynamic_cast<P::ReadOnlyStmtContext*>(st)) {
      Paths(s->pathList(), "read_only", kw, &spec_->bwrap_ro_roots);
    } else if (auto* s = dynamic_cast<P::DeviceStmtContext*>(st)) {
      Paths(s->pathList(), "device", kw, &spec_->bwrap_dev_roots);
    } else if (auto* s = dynamic_cast<P::DenyReadStmtContext*>(st)) {
      Paths(s->pathList(), "deny read", kw, &spec_->sandbox_denied_read_paths);
    } else if (auto* s = dynamic_cast<P::ExemptReadStmtContext*>(st)) {
      Paths(s->pathList(), "exempt read", kw, &spec_->sandbox_read_denylist_exempt);
    } else if (auto* s = dynamic_cast<P::DenyDefaultsStmtContext*>(st)) {
      if (Once("deny_defaults", "deny_defaults", kw)) {
        spec_->sandbox_read_denylist_defaults =
            Setting<bool>{On(s->onOff()), At(kw, "deny_defaults")};
      }
    } else if (auto* s = dynamic_cast<P::TmpStmtContext*>(st)) {
      Tmp(s, kw);
    } else if (auto* s = dynamic_cast<P::ProtectStmtContext*>(st)) {
      Protect(s, kw);
    } else if (auto* s = dynamic_cast<P::WrapperStmtContext*>(st)) {
      std::string name = s->wrapperName()->getText();
      if (name != "bwrap") {
        Error(s->wrapperName()->getStart(),
              absl::StrCat("unknown wrapper '", name, "'; only bwrap has a preference"));
      } else if (Once("wrapper bwrap prefer", "wrapper bwrap prefer", kw)) {
        spec_->prefer_bwrap = Setting<bool>{On(s->onOff()), At(kw, "wrapper bwrap prefer")};
      }
    } else if (auto* s = dynamic_cast<P::LinuxBackendStmtContext*>(st)) {
      std::string name = absl::AsciiStrToLower(s->linuxBackendName()->getText());
      if (name != "auto" && name != "bwrap" && name != "landlock") {
        Error(s->linuxBackendName()->getStart(),
              absl::StrCat("unknown Linux backend '", s->linuxBackendName()->getText(),
                           "'; expected auto, bwrap or landlock"));
      } else if (Once("linux_backend", "linux_backend", kw)) {
        spec_->sandbox_linux_backend = {{*ParseLinuxBackend(name), At(kw, "linux_backend")}};
      }
    } else if (auto* s = dynamic_cast<P::RequireSandboxStmtContext*>(st)) {
      if (Once("require_sandbox", "require_sandbox", kw)) {
        spec_->sandbox_require = Setting<bool>{On(s->onOff()), At(kw, "require_sandbox")};
      }
    } else if (auto* s = dynamic_cast<P::BackendStmtContext*>(st)) {
      Backend(s, kw);
    } else if (auto* s = dynamic_cast<P::LauncherStmtContext*>(st)) {
      Launcher(s, kw);
    } else if (auto* s = dynamic_cast<P::ManagedConfigStmtContext*>(st)) {
      if (layer_ == Layer::kManaged || layer_ == Layer::kProject) {
        Error(kw, "'managed_config' can only be set in a user policy");
      } else if (std::optional<std::string> p = Path(s->path())) {
        if (Once("managed_config", "managed_config", kw)) {
          spec_->managed_config_path = Setting<std::string>{*p, At(kw, "managed_config")};
        }
      }
    } else if (auto* s = dynamic_cast<P::ExpectStmtContext*>(st)) {
      Expect(s, kw);
    } else if (dynamic_cast<P::UnknownStmtContext*>(st) != nullptr) {
      Error(kw,
            absl::StrCat("unknown statement '", kw->getText(), "'; expected ", kDslStatementList));
    }
  }

  void Tmp(P::TmpStmtContext* s, Token* kw) {
    bool priv = s->tmpStance()->PRIVATE() != nullptr;
    std::string stmt = s->which->getText();
    std::string detail = absl::StrCat(stmt, " ", priv ? "private" : "shared");
    if (stmt == "tmp" || stmt == "slash_tmp") {
      if (Once("slash_tmp", stmt, kw)) {
        spec_->sandbox_exclude_slash_tmp = Setting<bool>{priv, At(kw, detail)};
      }
    }
    if (stmt == "tmp" || stmt == "tmpdir") {
      if (Once("tmpdir", stmt, kw)) {
        spec_->sandbox_exclude_tmpdir = Setting<bool>{priv, At(kw, detail)};
      }
    }
  }

  void Protect(P::ProtectStmtContext* s, Token* kw) {
    PathList entries;
    for (P::ProtectNameContext* pn : s->nameList()->protectName()) {
      Token* t = pn->STRING()->getSymbol();
      std::optional<DslString> name = String(t);
      if (!name) continue;
      if (std::string problem = CheckProtectName(name->value); !problem.empty()) {
        Error(t, problem);
        continue;
      }
      entries.push_back(Setting<std::string>{name->value, At(t, "protect")});
    }
    if (!spec_->sandbox_protected_names) {
      spec_->sandbox_protected_names = Setting<PathList>{{}, At(kw, "protect")};
    }
    for (auto& e : entries) spec_->sandbox_protected_names->value.push_back(std::move(e));
  }

  void Backend(P::BackendStmtContext* s, Token* kw) {
    std::string name = s->backendName()->getText();
    if (name != "none" && name != "opensandbox") {
      Error(s->backendName()->getStart(),
            absl::StrCat("unknown backend '", name, "'; expected none or opensandbox"));
      return;
    }
    if (!Once("backend", "backend", kw)) return;
    spec_->sandbox_backend = Setting<SandboxBackend>{{ParseBackend(name), name}, At(kw, "backend")};
    for (P::BackendSettingContext* bs : s->backendSetting()) {
      Token* skw = bs->getStart();
      if (name != "opensandbox") {
        Error(skw, absl::StrCat("'", skw->getText(), "' only applies to backend opensandbox"));
        continue;
      }
      if (auto* u = dynamic_cast<P::UrlSettingContext*>(bs)) {
        Url(u->url(), skw, &spec_->sandbox_url);
      } else if (auto* u = dynamic_cast<P::ExecdUrlSettingContext*>(bs)) {
        Url(u->url(), skw, &spec_->sandbox_execd_url);
      } else if (auto* a = dynamic_cast<P::ApiKeySettingContext*>(bs)) {
        ApiKey(a, skw);
      } else if (auto* a = dynamic_cast<P::ApiSettingContext*>(bs)) {
        std::string api = a->word()->getText();
        if (api != "codewhale" && api != "execd" && api != "lifecycle") {
          Error(a->word()->getStart(), absl::StrCat("unknown OpenSandbox api '", api,
                                                    "'; expected codewhale, execd or lifecycle"));
        } else if (Once("api", "api", skw)) {
          spec_->sandbox_opensandbox_api = {{*ParseContract(api), At(skw, "backend api")}};
        }
      } else if (auto* im = dynamic_cast<P::ImageSettingContext*>(bs)) {
        std::optional<DslString> v = String(im->STRING()->getSymbol());
        if (!v) continue;
        if (v->value.empty()) {
          Error(im->STRING()->getSymbol(), "empty image");
        } else if (Once("image", "image", skw)) {
          spec_->sandbox_image = Setting<std::string>{v->value, At(skw, "backend image")};
        }
      } else if (auto* pt = dynamic_cast<P::ExecdPortSettingContext*>(bs)) {
        std::string digits = pt->NUMBER()->getText();
        if (digits.size() > 5 || std::stoi(digits) < 1 || std::stoi(digits) > 65535) {
          Error(pt->NUMBER()->getSymbol(), "the execd port must be a number from 1 to 65535");
        } else if (Once("execd_port", "execd_port", skw)) {
          spec_->sandbox_execd_port =
              Setting<int>{std::stoi(digits), At(skw, "backend execd_port")};
        }
      } else if (auto* k = dynamic_cast<P::KeepSettingContext*>(bs)) {
        if (Once("keep", "keep", skw)) {
          spec_->sandbox_keep = Setting<bool>{On(k->onOff()), At(skw, "backend keep")};
        }
      } else if (auto* rc = dynamic_cast<P::RemoteCwdSettingContext*>(bs)) {
        Token* t = rc->STRING()->getSymbol();
        std::optional<DslString> v = String(t);
        if (!v) continue;
        if (v->value.empty() || v->value[0] != '/') {
          Error(t, absl::StrCat("remote_cwd is a path inside the remote sandbox and must be "
                                "absolute: ",
                                QuoteForMessage(v->value)));
        } else if (Once("remote_cwd", "remote_cwd", skw)) {
          spec_->sandbox_remote_cwd = Setting<std::string>{v->value, At(skw, "backend remote_cwd")};
        }
      }
    }
  }

  void Url(P::UrlContext* u, Token* skw, std::optional<Setting<std::string>>* field) {
    Token* t = u->STRING()->getSymbol();
    std::optional<DslString> url = String(t);
    if (!url) return;
    std::string key = skw->getText();
    if (url->value.rfind("http://", 0) != 0 && url->value.rfind("https://", 0) != 0) {
      Error(t, absl::StrCat("'", key, "' must start with http:// or https://: ",
                            QuoteForMessage(url->value)));
    } else if (Once(key, key, skw)) {
      *field = Setting<std::string>{url->value, At(skw, "backend " + key)};
    }
  }

  void ApiKey(P::ApiKeySettingContext* a, Token* skw) {
    if (auto* lit = dynamic_cast<P::ApiKeyLiteralContext*>(a->apiKey())) {
      Error(lit->getStart(),
            "a policy must not hold the API key itself; write api_key env \"VARIABLE\"; or "
            "api_key file \"/path/to/key\";");
      return;
    }
    auto* ref = dynamic_cast<P::ApiKeyRefContext*>(a->apiKey());
    if (ref == nullptr || !Once("api_key", "api_key", skw)) return;
    Token* t = ref->keyRef()->STRING()->getSymbol();
    std::optional<DslString> value = String(t);
    if (!value) return;
    if (ref->source->getType() == P::ENV) {
      if (!IsEnvName(value->value)) {
        Error(t, absl::StrCat("not an environment variable name: ", QuoteForMessage(value->value)));
        return;
      }
      spec_->sandbox_api_key_env =
          Setting<std::string>{value->value, At(skw, "backend api_key env")};
    } else {
      if (std::string problem = CheckDslPathValue(*value); !problem.empty()) {
        Error(t, problem);
        return;
      }
      // The runtime opens this file as written, so it must not need expanding.
      if (value->value[0] != '/') {
        Error(t, absl::StrCat("the API key file must be an absolute path without variables: ",
                              QuoteForMessage(value->value)));
        return;
      }
      spec_->sandbox_api_key_file =
          Setting<std::string>{value->value, At(skw, "backend api_key file")};
    }
  }

  void Launcher(P::LauncherStmtContext* s, Token* kw) {
    if (layer_ != Layer::kManaged) {
      Error(kw, "only a managed config may set 'launcher'");
      return;
    }
    std::vector<std::string> argv;
    for (P::ArgContext* arg : s->argList()->arg()) {
      Token* t = arg->STRING()->getSymbol();
      std::optional<DslString> v = String(t);
      if (!v) return;
      if (v->value.empty()) {
        Error(t, "empty launcher argument");
        return;
      }
      argv.push_back(v->value);
    }
    if (Once("launcher", "launcher", kw)) {
      spec_->tool_launcher = Setting<std::vector<std::string>>{argv, At(kw, "launcher")};
    }
  }

  // NetworkTarget checks `expect network "HOST:PORT"`: an IPv4 address,
  // [IPv6] or localhost, and a port 1-65535.
  std::optional<std::string> NetworkTarget(Token* t) {
    std::string text = t->getText();
    std::string v = text.size() >= 2 ? text.substr(1, text.size() - 2) : "";
    size_t colon = v.rfind(':');
    std::string host = colon == std::string::npos ? "" : v.substr(0, colon);
    std::string port = colon == std::string::npos ? "" : v.substr(colon + 1);
    bool port_ok =
        !port.empty() && port.size() <= 5 &&
        std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        std::stoi(port) >= 1 && std::stoi(port) <= 65535;
    auto v4 = [](const std::string& h) {
      int parts = 0;
      size_t i = 0;
      while (i <= h.size()) {
        size_t j = h.find('.', i);
        if (j == std::string::npos) j = h.size();
        std::string part = h.substr(i, j - i);
        if (part.empty() || part.size() > 3 ||
            !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
            std::stoi(part) > 255) {
          return false;
        }
        ++parts;
        i = j + 1;
      }
      return parts == 4;
    };
    bool v6 = host.size() > 2 && host.front() == '[' && host.back() == ']' &&
              host.find_first_not_of("0123456789abcdefABCDEF:", 1) == host.size() - 1;
    if (!port_ok || !(host == "localhost" || v4(host) || v6)) {
      Error(t, absl::StrCat("network target '", v,
                            "': expected HOST:PORT with an IPv4 address, "
                            "[IPv6] or localhost, and a port 1-65535"));
      return std::nullopt;
    }
    return v;
  }

  void Expect(P::ExpectStmtContext* s, Token* kw) {
    ir::Expectation e;
    e.allowed = s->verdict()->ALLOWED() != nullptr;
    e.origin = At(kw, "expect");
    if (auto* p = dynamic_cast<P::ExpectPathContext*>(s->expectWhat())) {
      size_t t = p->access->getType();
      e.kind = t == P::WRITE    ? ir::Expectation::Kind::kWrite
               : t == P::EXEC   ? ir::Expectation::Kind::kExec
               : t == P::CREATE ? ir::Expectation::Kind::kCreate
                                : ir::Expectation::Kind::kRead;
      std::optional<std::string> path = Path(p->path());
      if (!path) return;
      e.path = *path;
    } else {
      e.kind = ir::Expectation::Kind::kNetwork;
      auto* n = dynamic_cast<P::ExpectNetworkContext*>(s->expectWhat());
      if (n != nullptr && n->target != nullptr) {
        std::optional<std::string> target = NetworkTarget(n->target);
        if (!target) return;
        e.path = *target;
      }
    }
    for (P::ModeNameContext* m : s->modeName()) {
      std::optional<ir::PermissionMode> mode = ParsePermissionMode(m->getText());
      if (!mode) {
        Error(m->getStart(), absl::StrCat("unknown permission mode '", m->getText(),
                                          "'; expected plan, ask, auto-review or full-access"));
        return;
      }
      if (std::find(e.modes.begin(), e.modes.end(), *mode) != e.modes.end()) {
        Error(m->getStart(),
              absl::StrCat("permission mode '", ir::PermissionModeName(*mode), "' is named twice"));
        return;
      }
      e.modes.push_back(*mode);
    }
    spec_->expectations.push_back(std::move(e));
  }

  std::string file_;
  Layer layer_;
  DslSink* sink_;
  PolicySpec* spec_ = nullptr;
  std::map<std::string, size_t> seen_;  // scalar key -> line that set it
};

}  // namespace

void LowerDslTree(antlr4::ParserRuleContext* file_tree, const std::string& file, Layer layer,
                  DslSink* sink, DslFile* out) {
  auto* tree = dynamic_cast<P::FileContext*>(file_tree);
  if (tree == nullptr) return;
  Lowerer lowerer(file, layer, sink);
  for (P::PolicyContext* pc : tree->policy()) {
    if (sink->Full()) break;
    lowerer.Policy(pc, out);
  }
}

}  // namespace cwsc::compiler
