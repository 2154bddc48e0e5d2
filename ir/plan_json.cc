#include "ir/plan_json.h"

#include <nlohmann/json.hpp>

#include <climits>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace cwsc::ir {
namespace {

using Json = nlohmann::ordered_json;

// ---- writing -------------------------------------------------------------

Json OriginJson(const Origin& o) {
  Json j;
  j["kind"] = Origin::KindName(o.kind);
  j["detail"] = o.detail;
  if (!o.file.empty()) {
    j["file"] = o.file;
    j["line"] = o.line;
    j["col"] = o.col;
  }
  return j;
}

Json PolicyJson(const Policy& p) {
  Json j;
  j["type"] = PolicyTypeName(p.type);
  j["writable_roots"] = p.writable_roots;
  j["network_access"] = p.network_access;
  j["exclude_tmpdir"] = p.exclude_tmpdir;
  j["exclude_slash_tmp"] = p.exclude_slash_tmp;
  j["origin"] = OriginJson(p.origin);
  j["network_origin"] = OriginJson(p.network_origin);
  return j;
}

Json RootJson(const Root& r) {
  Json j;
  j["path"] = r.path;
  j["canonical"] = r.canonical;
  j["source"] = RootSourceName(r.source);
  j["mounted"] = r.mounted;
  j["skip_reason"] = r.skip_reason;
  Json prot = Json::array();
  for (const Protected& p : r.protected_paths) {
    prot.push_back(Json{{"path", p.path},
                        {"canonical", p.canonical},
                        {"applied", p.applied},
                        {"skip_reason", p.skip_reason},
                        {"placeholder", p.placeholder},
                        {"origin", OriginJson(p.origin)}});
  }
  j["protected"] = prot;
  j["origin"] = OriginJson(r.origin);
  return j;
}

std::string Hex(uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[v & 0xf]);
    v >>= 4;
  } while (v != 0);
  return "0x" + out;
}

Json SyscallFilterJson(const SyscallFilter& f) {
  Json rules = Json::array();
  for (const SyscallRule& r : f.rules) {
    Json args = Json::array();
    for (const ArgTest& a : r.args) {
      args.push_back(Json{{"index", a.index}, {"mask", Hex(a.mask)}, {"value", Hex(a.value)}});
    }
    rules.push_back(Json{{"syscall", r.syscall},
                         {"args", args},
                         {"errno", r.errno_value},
                         {"why", r.why},
                         {"origin", OriginJson(r.origin)}});
  }
  return Json{{"default", "allow"}, {"other_architectures", "kill-process"}, {"rules", rules}};
}

Json PlanJson(const LaunchPlan& p) {
  Json j;
  j["schema_version"] = p.schema_version;
  j["kind"] = PlanKindName(p.kind);
  j["platform"] = p.platform;
  j["permission_mode"] = p.permission_mode;
  j["mode_origin"] = OriginJson(p.mode_origin);
  j["policy"] = PolicyJson(p.policy);
  j["posture_label"] = p.posture_label;
  j["cwd"] = p.cwd;
  if (p.refusal) {
    j["refusal"] = Json{{"reason", p.refusal->reason}, {"origin", OriginJson(p.refusal->origin)}};
  } else {
    j["refusal"] = nullptr;
  }
  j["wrapper"] = Json{{"path", p.wrapper.path},
                      {"preferred", p.wrapper.preferred},
                      {"preferred_origin", OriginJson(p.wrapper.preferred_origin)},
                      {"executable", p.wrapper.executable},
                      {"probe_ok", p.wrapper.probe_ok},
                      {"probe_message", p.wrapper.probe_message}};
  j["share_net"] = p.share_net;
  j["syscall_filter"] = p.syscall_filter ? SyscallFilterJson(*p.syscall_filter) : Json(nullptr);
  j["launcher"] = p.launcher;
  if (!p.launcher.empty()) j["launcher_origin"] = OriginJson(p.launcher_origin);
  Json roots = Json::array();
  for (const Root& r : p.roots) roots.push_back(RootJson(r));
  j["roots"] = roots;
  Json mounts = Json::array();
  for (const Mount& m : p.mounts) {
    mounts.push_back(Json{{"op", MountOpFlag(m.op)},
                          {"source", m.source},
                          {"dest", m.dest},
                          {"why", m.why},
                          {"origin", OriginJson(m.origin)}});
  }
  j["mounts"] = mounts;
  Json denied = Json::array();
  for (const DeniedPath& d : p.denied_read) {
    denied.push_back(Json{{"path", d.path}, {"rule", d.rule}, {"origin", OriginJson(d.origin)}});
  }
  j["denied_read"] = denied;
  Json env = Json::object();
  env["allow"] = p.env_allow;
  Json set = Json::array();
  for (const EnvVar& e : p.env_set) {
    set.push_back(Json{{"name", e.name}, {"value", e.value}, {"origin", OriginJson(e.origin)}});
  }
  env["set"] = set;
  j["env"] = env;
  if (p.seatbelt) {
    Json sb;
    Json params = Json::array();
    for (const Param& prm : p.seatbelt->params) {
      params.push_back(
          Json{{"key", prm.key}, {"value", prm.value}, {"origin", OriginJson(prm.origin)}});
    }
    sb["params"] = params;
    sb["darwin_cache"] = p.seatbelt->darwin_cache;
    sb["cargo_home"] = p.seatbelt->cargo_home;
    sb["npm_cache"] = p.seatbelt->npm_cache;
    sb["loopback_proxy_ports"] = p.seatbelt->loopback_proxy_ports;
    sb["network_dropped_for_proxy"] = p.seatbelt->network_dropped_for_proxy;
    j["seatbelt"] = sb;
  } else {
    j["seatbelt"] = nullptr;
  }
  if (p.remote) {
    j["remote"] = Json{{"contract", p.remote->contract},
                       {"url", p.remote->url},
                       {"url_origin", OriginJson(p.remote->url_origin)},
                       {"api_key_source", p.remote->api_key_source},
                       {"not_enforced", p.remote->not_enforced},
                       {"image", p.remote->image},
                       {"execd_port", p.remote->execd_port},
                       {"keep", p.remote->keep},
                       {"remote_cwd", p.remote->remote_cwd}};
  } else {
    j["remote"] = nullptr;
  }
  Json skipped = Json::array();
  for (const Skipped& s : p.skipped) {
    skipped.push_back(Json{{"what", s.what},
                           {"path", s.path},
                           {"reason", s.reason},
                           {"origin", OriginJson(s.origin)}});
  }
  j["skipped"] = skipped;
  Json warnings = Json::array();
  for (const Warning& w : p.warnings) {
    warnings.push_back(
        Json{{"code", w.code}, {"message", w.message}, {"origin", OriginJson(w.origin)}});
  }
  j["warnings"] = warnings;
  Json expectations = Json::array();
  for (const Expectation& e : p.expectations) {
    Json ej{{"kind", ExpectationKindName(e.kind)},
            {"path", e.path},
            {"expected", e.allowed ? "allowed" : "denied"},
            {"origin", OriginJson(e.origin)}};
    if (!e.modes.empty()) ej["modes"] = e.modes;  // absent: every mode
    expectations.push_back(std::move(ej));
  }
  j["expectations"] = expectations;
  return j;
}

// ---- reading -------------------------------------------------------------

// BadPlan carries the JSON pointer and message of the first bad value.
struct BadPlan {
  std::string pointer;
  std::string message;
};

class Reader {
 public:
  Reader(const Json& j, std::string ptr) : j_(j), ptr_(std::move(ptr)) {}

  Reader At(const char* key) const {
    if (!j_.is_object()) Fail("expected an object");
    auto it = j_.find(key);
    if (it == j_.end()) throw BadPlan{absl::StrCat(ptr_, "/", key), "missing"};
    return Reader(*it, absl::StrCat(ptr_, "/", key));
  }
  bool Has(const char* key) const { return j_.is_object() && j_.contains(key); }
  bool IsNull() const { return j_.is_null(); }
  std::string Str() const {
    if (!j_.is_string()) Fail("expected a string");
    return j_.get<std::string>();
  }
  bool Bool() const {
    if (!j_.is_boolean()) Fail("expected a boolean");
    return j_.get<bool>();
  }
  int Int() const {
    if (!j_.is_number_integer()) Fail("expected an integer");
    // get<int>() would truncate: 4294967297 is not 1.
    if (j_.is_number_unsigned() ? j_.get<uint64_t>() > uint64_t{INT_MAX}
                                : j_.get<int64_t>() < INT_MIN || j_.get<int64_t>() > INT_MAX) {
      Fail("integer out of range");
    }
    return j_.get<int>();
  }
  // HexU64 reads "0x" followed by 1 to 16 hexadecimal digits.
  uint64_t HexU64() const {
    std::string s = Str();
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || s[1] != 'x') {
      Fail("expected \"0x\" and 1 to 16 hexadecimal digits");
    }
    uint64_t v = 0;
    for (size_t i = 2; i < s.size(); ++i) {
      char c = s[i];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) Fail("expected \"0x\" and 1 to 16 lowercase hexadecimal digits");
      v = (v << 4) | static_cast<uint64_t>(d);
    }
    return v;
  }
  std::vector<Reader> Items() const {
    if (!j_.is_array()) Fail("expected an array");
    std::vector<Reader> out;
    for (size_t i = 0; i < j_.size(); ++i) out.emplace_back(j_[i], absl::StrCat(ptr_, "/", i));
    return out;
  }
  std::vector<std::string> Strings() const {
    std::vector<std::string> out;
    for (const Reader& r : Items()) out.push_back(r.Str());
    return out;
  }
  [[noreturn]] void Fail(const std::string& message) const { throw BadPlan{ptr_, message}; }

 private:
  const Json& j_;
  std::string ptr_;
};

template <typename E, size_t N>
E ParseEnum(const Reader& r, const E (&values)[N], const char* (*name)(E)) {
  std::string s = r.Str();
  for (E v : values) {
    if (s == name(v)) return v;
  }
  r.Fail(absl::StrCat("unknown value '", s, "'"));
}

Origin ReadOrigin(const Reader& r) {
  static const Origin::Kind kKinds[] = {
      Origin::Kind::kDefault, Origin::Kind::kConfig, Origin::Kind::kManaged,
      Origin::Kind::kProject, Origin::Kind::kEnv,    Origin::Kind::kMode,
      Origin::Kind::kFact,    Origin::Kind::kCli};
  Origin o;
  o.kind = ParseEnum(r.At("kind"), kKinds, &Origin::KindName);
  o.detail = r.At("detail").Str();
  if (r.Has("file")) {
    o.file = r.At("file").Str();
    o.line = r.At("line").Int();
    o.col = r.At("col").Int();
  }
  return o;
}

SyscallFilter ReadSyscallFilter(const Reader& r) {
  if (r.At("default").Str() != "allow") r.At("default").Fail("expected \"allow\"");
  if (r.At("other_architectures").Str() != "kill-process") {
    r.At("other_architectures").Fail("expected \"kill-process\"");
  }
  SyscallFilter f;
  for (const Reader& rr : r.At("rules").Items()) {
    SyscallRule rule;
    rule.syscall = rr.At("syscall").Str();
    if (rule.syscall.empty() ||
        rule.syscall.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") !=
            std::string::npos) {
      rr.At("syscall").Fail("expected a system call name");
    }
    for (const Reader& ar : rr.At("args").Items()) {
      ArgTest a;
      a.index = ar.At("index").Int();
      if (a.index < 0 || a.index > 5) ar.At("index").Fail("expected 0 to 5");
      a.mask = ar.At("mask").HexU64();
      a.value = ar.At("value").HexU64();
      if ((a.value & ~a.mask) != 0) ar.At("value").Fail("has bits outside the mask");
      rule.args.push_back(a);
    }
    rule.errno_value = rr.At("errno").Int();
    if (rule.errno_value < 1 || rule.errno_value > 4095) rr.At("errno").Fail("expected 1 to 4095");
    rule.why = rr.At("why").Str();
    rule.origin = ReadOrigin(rr.At("origin"));
    f.rules.push_back(std::move(rule));
  }
  return f;
}

LaunchPlan ReadPlan(const Reader& r) {
  static const PlanKind kKinds[] = {PlanKind::kNone,          PlanKind::kLinuxBwrap,
                                    PlanKind::kMacosSeatbelt, PlanKind::kLauncherBwrap,
                                    PlanKind::kOpenSandbox,   PlanKind::kRefused};
  static const PolicyType kTypes[] = {PolicyType::kReadOnly, PolicyType::kWorkspaceWrite,
                                      PolicyType::kDangerFullAccess,
                                      PolicyType::kExternalSandbox};
  static const RootSource kSources[] = {RootSource::kConfigured,     RootSource::kCwd,
                                        RootSource::kWorktreeGitDir, RootSource::kWorktreeCommonDir,
                                        RootSource::kSlashTmp,       RootSource::kTmpdir};
  static const MountOp kOps[] = {MountOp::kRoBind, MountOp::kBind, MountOp::kDevBind,
                                 MountOp::kDev,    MountOp::kProc, MountOp::kTmpfs,
                                 MountOp::kRemountRo};
  LaunchPlan p;
  p.schema_version = r.At("schema_version").Int();
  if (p.schema_version != kPlanSchemaVersion) {
    r.At("schema_version")
        .Fail(absl::StrCat("unsupported schema_version ", p.schema_version, " (this cwsc reads ",
                           kPlanSchemaVersion, ")"));
  }
  p.kind = ParseEnum(r.At("kind"), kKinds, &PlanKindName);
  p.platform = r.At("platform").Str();
  p.permission_mode = r.At("permission_mode").Str();
  p.mode_origin = ReadOrigin(r.At("mode_origin"));
  Reader pol = r.At("policy");
  p.policy.type = ParseEnum(pol.At("type"), kTypes, &PolicyTypeName);
  p.policy.writable_roots = pol.At("writable_roots").Strings();
  p.policy.network_access = pol.At("network_access").Bool();
  p.policy.exclude_tmpdir = pol.At("exclude_tmpdir").Bool();
  p.policy.exclude_slash_tmp = pol.At("exclude_slash_tmp").Bool();
  p.policy.origin = ReadOrigin(pol.At("origin"));
  p.policy.network_origin = ReadOrigin(pol.At("network_origin"));
  p.posture_label = r.At("posture_label").Str();
  p.cwd = r.At("cwd").Str();
  if (!r.At("refusal").IsNull()) {
    p.refusal = Refusal{r.At("refusal").At("reason").Str(),
                        ReadOrigin(r.At("refusal").At("origin"))};
  }
  Reader w = r.At("wrapper");
  p.wrapper.path = w.At("path").Str();
  p.wrapper.preferred = w.At("preferred").Bool();
  p.wrapper.preferred_origin = ReadOrigin(w.At("preferred_origin"));
  p.wrapper.executable = w.At("executable").Bool();
  p.wrapper.probe_ok = w.At("probe_ok").Bool();
  p.wrapper.probe_message = w.At("probe_message").Str();
  p.share_net = r.At("share_net").Bool();
  if (!r.At("syscall_filter").IsNull()) p.syscall_filter = ReadSyscallFilter(r.At("syscall_filter"));
  p.launcher = r.At("launcher").Strings();
  if (r.Has("launcher_origin")) p.launcher_origin = ReadOrigin(r.At("launcher_origin"));
  for (const Reader& rr : r.At("roots").Items()) {
    Root root;
    root.path = rr.At("path").Str();
    root.canonical = rr.At("canonical").Str();
    root.source = ParseEnum(rr.At("source"), kSources, &RootSourceName);
    root.mounted = rr.At("mounted").Bool();
    root.skip_reason = rr.At("skip_reason").Str();
    for (const Reader& pr : rr.At("protected").Items()) {
      root.protected_paths.push_back(Protected{pr.At("path").Str(), pr.At("canonical").Str(),
                                               pr.At("applied").Bool(),
                                               pr.At("skip_reason").Str(),
                                               ReadOrigin(pr.At("origin")),
                                               pr.At("placeholder").Bool()});
    }
    root.origin = ReadOrigin(rr.At("origin"));
    p.roots.push_back(std::move(root));
  }
  for (const Reader& mr : r.At("mounts").Items()) {
    p.mounts.push_back(Mount{ParseEnum(mr.At("op"), kOps, &MountOpFlag), mr.At("source").Str(),
                             mr.At("dest").Str(), mr.At("why").Str(),
                             ReadOrigin(mr.At("origin"))});
  }
  for (const Reader& dr : r.At("denied_read").Items()) {
    p.denied_read.push_back(
        DeniedPath{dr.At("path").Str(), dr.At("rule").Str(), ReadOrigin(dr.At("origin"))});
  }
  p.env_allow = r.At("env").At("allow").Strings();
  for (const Reader& er : r.At("env").At("set").Items()) {
    p.env_set.push_back(
        EnvVar{er.At("name").Str(), er.At("value").Str(), ReadOrigin(er.At("origin"))});
  }
  if (!r.At("seatbelt").IsNull()) {
    Reader sb = r.At("seatbelt");
    Seatbelt s;
    for (const Reader& pr : sb.At("params").Items()) {
      s.params.push_back(
          Param{pr.At("key").Str(), pr.At("value").Str(), ReadOrigin(pr.At("origin"))});
    }
    s.darwin_cache = sb.At("darwin_cache").Bool();
    s.cargo_home = sb.At("cargo_home").Bool();
    s.npm_cache = sb.At("npm_cache").Bool();
    for (const Reader& pr : sb.At("loopback_proxy_ports").Items()) {
      s.loopback_proxy_ports.push_back(pr.Int());
    }
    s.network_dropped_for_proxy = sb.At("network_dropped_for_proxy").Bool();
    p.seatbelt = std::move(s);
  }
  if (!r.At("remote").IsNull()) {
    Reader rm = r.At("remote");
    p.remote = Remote{};
    p.remote->contract = rm.At("contract").Str();
    p.remote->url = rm.At("url").Str();
    p.remote->url_origin = ReadOrigin(rm.At("url_origin"));
    p.remote->api_key_source = rm.At("api_key_source").Str();
    p.remote->not_enforced = rm.At("not_enforced").Strings();
    if (rm.Has("image")) p.remote->image = rm.At("image").Str();
    if (rm.Has("execd_port")) p.remote->execd_port = rm.At("execd_port").Int();
    if (rm.Has("keep")) p.remote->keep = rm.At("keep").Bool();
    if (rm.Has("remote_cwd")) p.remote->remote_cwd = rm.At("remote_cwd").Str();
  }
  for (const Reader& sr : r.At("skipped").Items()) {
    p.skipped.push_back(Skipped{sr.At("what").Str(), sr.At("path").Str(), sr.At("reason").Str(),
                                ReadOrigin(sr.At("origin"))});
  }
  for (const Reader& wr : r.At("warnings").Items()) {
    p.warnings.push_back(
        Warning{wr.At("code").Str(), wr.At("message").Str(), ReadOrigin(wr.At("origin"))});
  }
  // Plans written before expectations existed have no "expectations" key.
  if (r.Has("expectations")) {
    static const Expectation::Kind kExpectKinds[] = {
        Expectation::Kind::kRead, Expectation::Kind::kWrite, Expectation::Kind::kNetwork,
        Expectation::Kind::kExec, Expectation::Kind::kCreate};
    for (const Reader& er : r.At("expectations").Items()) {
      Expectation e;
      e.kind = ParseEnum(er.At("kind"), kExpectKinds, &ExpectationKindName);
      e.path = er.At("path").Str();
      std::string verdict = er.At("expected").Str();
      if (verdict != "allowed" && verdict != "denied") {
        er.At("expected").Fail("expected \"allowed\" or \"denied\"");
      }
      e.allowed = verdict == "allowed";
      e.origin = ReadOrigin(er.At("origin"));
      if (er.Has("modes")) {
        for (const Reader& mr : er.At("modes").Items()) e.modes.push_back(mr.Str());
      }
      p.expectations.push_back(std::move(e));
    }
  }
  return p;
}

// ErrorPlace is a SAX handler that accepts everything and keeps where the
// parser gave up, and why: nlohmann's DOM parse reports an out-of-range number
// (1e309) as out_of_range without a position.
struct ErrorPlace : nlohmann::json_sax<Json> {
  size_t position = 0;
  std::string token;
  bool overflow = false;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(size_t pos, const std::string& last_token,
                   const nlohmann::detail::exception& e) override {
    position = pos;
    token = last_token;
    overflow = e.id == 406;
    return false;
  }
};

// LineCol converts a byte offset of `text` to a 1-based line and column.
void LineCol(const std::string& text, size_t offset, int* line, int* col) {
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++*line;
      *col = 1;
    } else {
      ++*col;
    }
  }
}

}  // namespace

absl::StatusOr<std::string> PlanToJson(const LaunchPlan& plan) {
  try {
    return PlanJson(plan).dump(2) + "\n";
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(
        "the plan holds a path or value that is not valid UTF-8; JSON cannot represent it "
        "(use --format nul for the argv)");
  }
}

absl::StatusOr<LaunchPlan> PlanFromJson(const std::string& text, const std::string& file) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    ErrorPlace place;
    Json::sax_parse(text, &place);
    // The position is just past the token; an out-of-range number is named at its start.
    size_t at = place.position > 0 ? place.position - 1 : 0;
    if (place.overflow && place.token.size() <= place.position) {
      at = place.position - place.token.size();
    }
    int line = 0, col = 0;
    LineCol(text, at, &line, &col);
    return absl::InvalidArgumentError(absl::StrCat(file, ":", line, ":", col,
                                                   ": error: malformed plan JSON",
                                                   place.overflow ? ": number out of range" : "",
                                                   "\n"));
  }
  try {
    return ReadPlan(Reader(j, ""));
  } catch (const BadPlan& bad) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": error: bad plan at '", bad.pointer,
                                                   "': ", bad.message, "\n"));
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": error: bad plan: ", e.what(), "\n"));
  }
}

}  // namespace cwsc::ir
