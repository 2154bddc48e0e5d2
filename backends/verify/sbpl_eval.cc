#include "backends/verify/sbpl_eval.h"

#include <arpa/inet.h>

#include <cstring>
#include <regex>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "backends/verify/sbpl_sexpr.h"

namespace cwsc::backends {
namespace {

// Bounds the cost of compiling and matching one (regex ...) literal.
constexpr size_t kMaxRegexBytes = 1024;


using sbpl_internal::Node;

// --- Rules -------------------------------------------------------------------

struct Filter {
  enum class Kind {
    kSubpath, kLiteral, kRegex, kAll, kAny, kNot, kExtension, kVnode, kTarget,
    kGlobalName, kRemoteIp, kRemoteUnix
  };
  Kind kind = Kind::kLiteral;
  std::string value;               // path, extension, vnode type, name, unix socket path
  std::shared_ptr<std::regex> re;  // kRegex
  std::vector<Filter> children;    // kAll / kAny / kNot
  int family = 0;                  // kRemoteIp: 0 = ip, 4 = ip4, 6 = ip6
  bool localhost = false;          // kRemoteIp: host "localhost" (else "*")
  int port = -1;                   // kRemoteIp: -1 = "*"
};

struct Rule {
  bool allow = false;
  std::vector<std::string> operations;
  std::vector<Filter> filters;  // any matches; empty = unconditional
  int line = 0;
  std::string text;
};

const std::set<std::string>& KnownOperations() {
  static const std::set<std::string>* ops = new std::set<std::string>{
      "default", "file-read*", "file-read-data", "file-read-metadata", "file-write*",
      "file-write-data", "file-write-create", "file-write-unlink", "file-ioctl",
      "process-exec", "process-fork", "signal", "process-info*", "user-preference-read",
      "sysctl-read", "ipc-posix-sem", "ipc-posix-shm-read*", "ipc-posix-shm-write-create",
      "ipc-posix-shm-write-data", "ipc-posix-shm-write-unlink", "pseudo-tty", "mach-lookup",
      "network-outbound", "network-inbound", "network-bind", "system-socket",
      "appleevent-send", "lsopen"};
  return *ops;
}

bool OperationMatches(const std::string& rule_op, const std::string& op) {
  if (rule_op == "default" || rule_op == op) return true;
  if (!rule_op.empty() && rule_op.back() == '*') {
    return absl::StartsWith(op, absl::string_view(rule_op.data(), rule_op.size() - 1));
  }
  return false;
}

bool IsLoopback(SbplNet family, const std::string& address) {
  if (family == SbplNet::kIPv4) {
    in_addr a{};
    if (inet_pton(AF_INET, address.c_str(), &a) != 1) return false;
    return (ntohl(a.s_addr) >> 24) == 127;
  }
  if (family == SbplNet::kIPv6) {
    in6_addr a{};
    if (inet_pton(AF_INET6, address.c_str(), &a) != 1) return false;
    return std::memcmp(&a, &in6addr_loopback, sizeof(a)) == 0;
  }
  return false;
}

bool FilterMatches(const Filter& f, const SbplRequest& r) {
  switch (f.kind) {
    case Filter::Kind::kSubpath:
      if (r.path.empty()) return false;
      if (f.value == "/") return r.path[0] == '/';
      return r.path == f.value ||
             (absl::StartsWith(r.path, f.value) && r.path.size() > f.value.size() &&
              r.path[f.value.size()] == '/');
    case Filter::Kind::kLiteral:
      return !r.path.empty() && r.path == f.value;
    case Filter::Kind::kRegex:
      return !r.path.empty() && std::regex_search(r.path, *f.re);
    case Filter::Kind::kAll:
      for (const Filter& c : f.children) {
        if (!FilterMatches(c, r)) return false;
      }
      return true;
    case Filter::Kind::kAny:
      for (const Filter& c : f.children) {
        if (FilterMatches(c, r)) return true;
      }
      return false;
    case Filter::Kind::kNot:
      return !FilterMatches(f.children[0], r);
    case Filter::Kind::kExtension:
      for (const std::string& e : r.extensions) {
        if (e == f.value) return true;
      }
      return false;
    case Filter::Kind::kVnode:
      return r.vnode_type == f.value;
    case Filter::Kind::kTarget:
      return r.same_sandbox;
    case Filter::Kind::kGlobalName:
      return r.global_name == f.value;
    case Filter::Kind::kRemoteIp: {
      if (r.net != SbplNet::kIPv4 && r.net != SbplNet::kIPv6) return false;
      if (f.family == 4 && r.net != SbplNet::kIPv4) return false;
      if (f.family == 6 && r.net != SbplNet::kIPv6) return false;
      if (f.port >= 0 && f.port != r.port) return false;
      if (f.localhost && !IsLoopback(r.net, r.address)) return false;
      return true;
    }
    case Filter::Kind::kRemoteUnix:
      return r.net == SbplNet::kUnix && r.socket_path == f.value;
  }
  return false;
}

class Compiler {
 public:
  Compiler(absl::string_view name, absl::string_view text, const SbplParams& params)
      : name_(name), text_(text), params_(params) {}

  absl::StatusOr<std::vector<Rule>> Compile(const std::vector<Node>& forms) {
    std::vector<Rule> rules;
    bool seen_version = false;
    for (const Node& form : forms) {
      if (form.items.empty() || form.items[0].kind != Node::Kind::kSymbol) {
        return Err(form, "a form must start with a symbol");
      }
      const std::string& head = form.items[0].text;
      if (head == "version") {
        if (seen_version) return Err(form, "duplicate (version ...)");
        if (!rules.empty()) return Err(form, "(version 1) must come first");
        if (form.items.size() != 2 || form.items[1].kind != Node::Kind::kNumber ||
            form.items[1].text != "1") {
          return Err(form, "only (version 1) is supported");
        }
        seen_version = true;
        continue;
      }
      if (head != "allow" && head != "deny") {
        return Err(form, absl::StrCat("unsupported form '", head, "'"));
      }
      if (!seen_version) return Err(form, "(version 1) must come first");
      absl::StatusOr<Rule> rule = CompileRule(form, head == "allow");
      if (!rule.ok()) return rule.status();
      rules.push_back(*std::move(rule));
    }
    if (!seen_version) return sbpl_internal::SexprError(name_, 1, 1, "missing (version 1)");
    return rules;
  }

 private:
  absl::Status Err(const Node& n, absl::string_view msg) const {
    return sbpl_internal::SexprError(name_, n.line, n.col, msg);
  }

  absl::StatusOr<Rule> CompileRule(const Node& form, bool allow) {
    Rule rule;
    rule.allow = allow;
    rule.line = form.line;
    rule.text = std::string(text_.substr(form.begin, form.end - form.begin));
    size_t i = 1;
    for (; i < form.items.size() && form.items[i].kind == Node::Kind::kSymbol; ++i) {
      const std::string& op = form.items[i].text;
      if (!KnownOperations().count(op)) {
        return Err(form.items[i], absl::StrCat("unknown operation '", op, "'"));
      }
      rule.operations.push_back(op);
    }
    if (rule.operations.empty()) return Err(form, "a rule needs at least one operation");
    for (; i < form.items.size(); ++i) {
      if (form.items[i].kind != Node::Kind::kList) {
        return Err(form.items[i], "expected a filter after the operations");
      }
      absl::StatusOr<Filter> f = CompileFilter(form.items[i]);
      if (!f.ok()) return f.status();
      rule.filters.push_back(*std::move(f));
    }
    for (const std::string& op : rule.operations) {
      if (op == "default" && (rule.operations.size() != 1 || !rule.filters.empty())) {
        return Err(form, "'default' takes no other operation and no filter");
      }
    }
    return rule;
  }

  // PathValue reads "string" or (param "KEY") and checks it is absolute.
  absl::StatusOr<std::string> PathValue(const Node& n) {
    std::string value;
    if (n.kind == Node::Kind::kString) {
      value = n.text;
    } else if (n.kind == Node::Kind::kList && n.items.size() == 2 &&
               n.items[0].kind == Node::Kind::kSymbol && n.items[0].text == "param" &&
               n.items[1].kind == Node::Kind::kString) {
      auto it = params_.find(n.items[1].text);
      if (it == params_.end()) {
        return Err(n, absl::StrCat("parameter '", n.items[1].text, "' is not defined"));
      }
      value = it->second;
    } else {
      return Err(n, "expected a path string or (param \"KEY\")");
    }
    if (value.empty() || value[0] != '/') {
      return Err(n, absl::StrCat("path must be absolute: \"", value, "\""));
    }
    while (value.size() > 1 && value.back() == '/') value.pop_back();
    return value;
  }

  absl::StatusOr<std::string> StringArg(const Node& n) {
    if (n.items.size() != 2 || n.items[1].kind != Node::Kind::kString) {
      return Err(n, absl::StrCat("(", n.items[0].text, " ...) takes one string"));
    }
    return n.items[1].text;
  }

  absl::StatusOr<Filter> CompileFilter(const Node& n) {
    if (n.items.empty() || n.items[0].kind != Node::Kind::kSymbol) {
      return Err(n, "a filter must start with a symbol");
    }
    const std::string& head = n.items[0].text;
    Filter f;
    if (head == "subpath" || head == "literal" || head == "path") {
      if (n.items.size() != 2) return Err(n, absl::StrCat("(", head, " ...) takes one path"));
      absl::StatusOr<std::string> v = PathValue(n.items[1]);
      if (!v.ok()) return v.status();
      f.kind = head == "subpath" ? Filter::Kind::kSubpath : Filter::Kind::kLiteral;
      f.value = *v;
      return f;
    }
    if (head == "regex") {
      if (n.items.size() != 2 || n.items[1].kind != Node::Kind::kRegex) {
        return Err(n, "(regex ...) takes one #\"...\" literal");
      }
      f.kind = Filter::Kind::kRegex;
      if (n.items[1].text.size() > kMaxRegexBytes) {
        return Err(n.items[1], absl::StrCat("regular expression longer than ", kMaxRegexBytes,
                                            " bytes"));
      }
      try {
        // __polynomial (libstdc++) matches breadth-first: time polynomial in
        // the pattern and the path. The default depth-first matcher takes
        // exponential time on patterns like #"#****J**Q" (fuzz target sbpl).
        f.re = std::make_shared<std::regex>(n.items[1].text,
                                            std::regex::extended | std::regex_constants::__polynomial);
      } catch (const std::regex_error&) {
        return Err(n.items[1], "invalid regular expression");
      }
      return f;
    }
    if (head == "require-all" || head == "require-any" || head == "require-not") {
      if (n.items.size() < 2) return Err(n, absl::StrCat("(", head, ") needs a filter"));
      if (head == "require-not" && n.items.size() != 2) {
        return Err(n, "(require-not ...) takes exactly one filter");
      }
      f.kind = head == "require-all"   ? Filter::Kind::kAll
               : head == "require-any" ? Filter::Kind::kAny
                                       : Filter::Kind::kNot;
      for (size_t i = 1; i < n.items.size(); ++i) {
        if (n.items[i].kind != Node::Kind::kList) return Err(n.items[i], "expected a filter");
        absl::StatusOr<Filter> c = CompileFilter(n.items[i]);
        if (!c.ok()) return c.status();
        f.children.push_back(*std::move(c));
      }
      return f;
    }
    if (head == "extension" || head == "global-name") {
      absl::StatusOr<std::string> v = StringArg(n);
      if (!v.ok()) return v.status();
      f.kind = head == "extension" ? Filter::Kind::kExtension : Filter::Kind::kGlobalName;
      f.value = *v;
      return f;
    }
    if (head == "vnode-type") {
      static const std::set<std::string> kTypes = {"REGULAR-FILE", "DIRECTORY", "SYMLINK",
                                                   "CHARACTER-DEVICE", "BLOCK-DEVICE", "FIFO",
                                                   "SOCKET"};
      if (n.items.size() != 2 || n.items[1].kind != Node::Kind::kSymbol ||
          !kTypes.count(n.items[1].text)) {
        return Err(n, "(vnode-type ...) takes one vnode type symbol");
      }
      f.kind = Filter::Kind::kVnode;
      f.value = n.items[1].text;
      return f;
    }
    if (head == "target") {
      if (n.items.size() != 2 || n.items[1].kind != Node::Kind::kSymbol ||
          n.items[1].text != "same-sandbox") {
        return Err(n, "only (target same-sandbox) is supported");
      }
      f.kind = Filter::Kind::kTarget;
      return f;
    }
    if (head == "remote") return CompileRemote(n);
    return Err(n, absl::StrCat("unsupported filter '", head, "'"));
  }

  absl::StatusOr<Filter> CompileRemote(const Node& n) {
    Filter f;
    if (n.items.size() != 3 || n.items[1].kind != Node::Kind::kSymbol) {
      return Err(n, "(remote ...) takes a kind and one argument");
    }
    const std::string& kind = n.items[1].text;
    if (kind == "unix-socket") {
      const Node& a = n.items[2];
      if (a.kind != Node::Kind::kList || a.items.size() != 2 ||
          a.items[0].kind != Node::Kind::kSymbol || a.items[0].text != "path-literal") {
        return Err(a, "(remote unix-socket ...) takes (path-literal \"...\")");
      }
      absl::StatusOr<std::string> v = PathValue(a.items[1]);
      if (!v.ok()) return v.status();
      f.kind = Filter::Kind::kRemoteUnix;
      f.value = *v;
      return f;
    }
    if (kind != "ip" && kind != "ip4" && kind != "ip6") {
      return Err(n.items[1], absl::StrCat("unsupported remote kind '", kind, "'"));
    }
    if (n.items[2].kind != Node::Kind::kString) return Err(n.items[2], "expected \"host:port\"");
    const std::string& hp = n.items[2].text;
    size_t colon = hp.rfind(':');
    if (colon == std::string::npos) return Err(n.items[2], "expected \"host:port\"");
    std::string host = hp.substr(0, colon);
    std::string port = hp.substr(colon + 1);
    if (host != "*" && host != "localhost") return Err(n.items[2], "host must be * or localhost");
    int port_num = -1;
    if (port != "*") {
      if (port.empty() || port.size() > 5 ||
          port.find_first_not_of("0123456789") != std::string::npos ||
          !absl::SimpleAtoi(port, &port_num) || port_num < 1 || port_num > 65535) {
        return Err(n.items[2], "port must be * or 1-65535");
      }
    }
    f.kind = Filter::Kind::kRemoteIp;
    f.family = kind == "ip4" ? 4 : kind == "ip6" ? 6 : 0;
    f.localhost = host == "localhost";
    f.port = port_num;
    return f;
  }

  absl::string_view name_;
  absl::string_view text_;
  const SbplParams& params_;
};

}  // namespace

struct SbplProfile::Impl {
  std::vector<Rule> rules;
};

SbplProfile::SbplProfile(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
SbplProfile::~SbplProfile() = default;

absl::StatusOr<SbplProfile> SbplProfile::Parse(absl::string_view text, const SbplParams& params,
                                               absl::string_view name) {
  absl::StatusOr<std::vector<Node>> forms = sbpl_internal::ReadSexprs(text, name);
  if (!forms.ok()) return forms.status();
  Compiler compiler(name, text, params);
  absl::StatusOr<std::vector<Rule>> rules = compiler.Compile(*forms);
  if (!rules.ok()) return rules.status();
  auto impl = std::make_shared<Impl>();
  impl->rules = *std::move(rules);
  return SbplProfile(std::move(impl));
}

SbplDecision SbplProfile::Decide(const SbplRequest& request) const {
  SbplDecision d;
  for (size_t i = 0; i < impl_->rules.size(); ++i) {
    const Rule& rule = impl_->rules[i];
    bool op_match = false;
    for (const std::string& op : rule.operations) {
      if (OperationMatches(op, request.operation)) op_match = true;
    }
    if (!op_match) continue;
    bool match = rule.filters.empty();
    for (const Filter& f : rule.filters) {
      if (FilterMatches(f, request)) {
        match = true;
        break;
      }
    }
    if (!match) continue;
    d.allowed = rule.allow;
    d.rule = static_cast<int>(i);
    d.line = rule.line;
    d.rule_text = rule.text;
  }
  return d;
}

bool SbplProfile::CanRead(absl::string_view path) const {
  SbplRequest r;
  r.operation = "file-read-data";
  r.path = std::string(path);
  return Decide(r).allowed;
}

bool SbplProfile::CanWrite(absl::string_view path) const {
  SbplRequest r;
  r.path = std::string(path);
  r.vnode_type = "REGULAR-FILE";
  r.operation = "file-write-data";
  if (!Decide(r).allowed) return false;
  r.operation = "file-write-create";
  return Decide(r).allowed;
}

bool SbplProfile::CanConnect(SbplNet family, absl::string_view address, int port) const {
  SbplRequest r;
  r.operation = "network-outbound";
  r.net = family;
  r.address = std::string(address);
  r.port = port;
  return Decide(r).allowed;
}

bool SbplProfile::CanConnectUnix(absl::string_view socket_path) const {
  SbplRequest r;
  r.operation = "network-outbound";
  r.net = SbplNet::kUnix;
  r.socket_path = std::string(socket_path);
  return Decide(r).allowed;
}

int SbplProfile::rule_count() const { return static_cast<int>(impl_->rules.size()); }

absl::StatusOr<SandboxExecCall> ParseSandboxExecArgv(const std::vector<std::string>& argv) {
  SandboxExecCall call;
  if (argv.size() < 3 || argv[1] != "-p") {
    return absl::InvalidArgumentError("sandbox-exec argv must start with WRAPPER -p PROFILE");
  }
  call.wrapper = argv[0];
  call.profile = argv[2];
  size_t i = 3;
  for (; i < argv.size() && argv[i] != "--"; ++i) {
    const std::string& a = argv[i];
    if (!absl::StartsWith(a, "-D")) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected sandbox-exec argument '", a, "'"));
    }
    size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 2) {
      return absl::InvalidArgumentError(absl::StrCat("-D element without KEY=: '", a, "'"));
    }
    std::string key = a.substr(2, eq - 2);
    if (!call.params.emplace(key, a.substr(eq + 1)).second) {
      return absl::InvalidArgumentError(absl::StrCat("parameter ", key, " given twice"));
    }
    call.param_order.push_back(key);
  }
  if (i >= argv.size()) return absl::InvalidArgumentError("sandbox-exec argv has no \"--\"");
  call.program.assign(argv.begin() + static_cast<long>(i) + 1, argv.end());
  return call;
}

}  // namespace cwsc::backends
