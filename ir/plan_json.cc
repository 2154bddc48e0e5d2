#include "ir/plan_json.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "ir/diagnostic_status.h"
#include "ir/field_table.h"
#include "ir/validate.h"

namespace cwsc::ir {
namespace {

using Json = nlohmann::ordered_json;

// ---- field tables ----------------------------------------------------------
// One table per struct, in JSON key order; the writer and the reader both
// walk it, and each is checked against the struct's member count.

constexpr auto kPolicyFields = std::make_tuple(
    Field("type", &Policy::type), Field("writable_roots", &Policy::writable_roots),
    Field("network_access", &Policy::network_access),
    Field("exclude_tmpdir", &Policy::exclude_tmpdir),
    Field("exclude_slash_tmp", &Policy::exclude_slash_tmp), Field("origin", &Policy::origin),
    Field("network_origin", &Policy::network_origin));

constexpr auto kProtectedFields = std::make_tuple(
    Field("path", &Protected::path), Field("canonical", &Protected::canonical),
    Field("applied", &Protected::applied), Field("skip_reason", &Protected::skip_reason),
    Field("placeholder", &Protected::placeholder), Field("origin", &Protected::origin));

constexpr auto kRootFields =
    std::make_tuple(Field("path", &Root::path), Field("canonical", &Root::canonical),
                    Field("source", &Root::source), Field("writable_bind", &Root::writable_bind),
                    Field("skip", &Root::skip), Field("skip_reason", &Root::skip_reason),
                    Field("protected", &Root::protected_paths), Field("origin", &Root::origin));

constexpr auto kMountFields = std::make_tuple(
    Field("op", &Mount::op), Field("role", &Mount::role), Field("source", &Mount::source),
    Field("dest", &Mount::dest), Field("why", &Mount::why), Field("origin", &Mount::origin));

constexpr auto kDeniedPathFields =
    std::make_tuple(Field("path", &DeniedPath::path), Field("rule", &DeniedPath::rule),
                    Field("origin", &DeniedPath::origin));

constexpr auto kSkippedFields = std::make_tuple(
    Field("what", &Skipped::what), Field("path", &Skipped::path), Field("reason", &Skipped::reason),
    Field("origin", &Skipped::origin), Field("kind", &Skipped::kind));

constexpr auto kEnvVarFields = std::make_tuple(
    Field("name", &EnvVar::name), Field("value", &EnvVar::value), Field("origin", &EnvVar::origin));

constexpr auto kWarningFields =
    std::make_tuple(Field("code", &Warning::code), Field("message", &Warning::message),
                    Field("origin", &Warning::origin));

constexpr auto kRefusalFields =
    std::make_tuple(Field("reason", &Refusal::reason), Field("origin", &Refusal::origin));

constexpr auto kExpectationFields =
    std::make_tuple(Field("kind", &Expectation::kind), Field("path", &Expectation::path),
                    Field("allowed", &Expectation::allowed), Field("modes", &Expectation::modes),
                    Field("origin", &Expectation::origin));

constexpr auto kArgTestFields =
    std::make_tuple(Field("index", &ArgTest::index), Field("mask", &ArgTest::mask),
                    Field("value", &ArgTest::value));

constexpr auto kSyscallRuleFields =
    std::make_tuple(Field("syscall", &SyscallRule::syscall), Field("args", &SyscallRule::args),
                    Field("errno", &SyscallRule::errno_value), Field("why", &SyscallRule::why),
                    Field("origin", &SyscallRule::origin));

constexpr auto kWrapperFields = std::make_tuple(
    Field("path", &Wrapper::path), Field("preferred", &Wrapper::preferred),
    Field("preferred_origin", &Wrapper::preferred_origin),
    Field("executable", &Wrapper::executable), Field("probe_ok", &Wrapper::probe_ok),
    Field("probe_message", &Wrapper::probe_message));

constexpr auto kSeatbeltPathFields =
    std::make_tuple(Field("path", &SeatbeltPath::path), Field("origin", &SeatbeltPath::origin));

constexpr auto kSeatbeltRootFields = std::make_tuple(Field("root", &SeatbeltRoot::root),
                                                     Field("read_only", &SeatbeltRoot::read_only));

constexpr auto kSeatbeltFields = std::make_tuple(
    Field("writable_roots", &Seatbelt::writable_roots),
    Field("darwin_cache", &Seatbelt::darwin_cache), Field("cargo_home", &Seatbelt::cargo_home),
    Field("npm_cache", &Seatbelt::npm_cache), Field("denied_read", &Seatbelt::denied_read),
    Field("loopback_proxy_ports", &Seatbelt::loopback_proxy_ports),
    Field("network_dropped_for_proxy", &Seatbelt::network_dropped_for_proxy));

constexpr auto kApiKeySourceFields =
    std::make_tuple(Field("kind", &ApiKeySource::kind), Field("name", &ApiKeySource::name),
                    Field("origin", &ApiKeySource::origin));

constexpr auto kRemoteFields =
    std::make_tuple(Field("contract", &Remote::contract), Field("url", &Remote::url),
                    Field("url_origin", &Remote::url_origin), Field("api_key", &Remote::api_key),
                    Field("not_enforced", &Remote::not_enforced), Field("image", &Remote::image),
                    Field("execd_port", &Remote::execd_port), Field("keep", &Remote::keep),
                    Field("remote_cwd", &Remote::remote_cwd));

constexpr auto kLandlockRuleFields =
    std::make_tuple(Field("path", &LandlockRule::path), Field("access", &LandlockRule::access),
                    Field("except_names", &LandlockRule::except_names),
                    Field("why", &LandlockRule::why), Field("origin", &LandlockRule::origin));

constexpr auto kLandlockFields =
    std::make_tuple(Field("abi", &Landlock::abi), Field("handled_fs", &Landlock::handled_fs),
                    Field("handled_net", &Landlock::handled_net),
                    Field("scoped", &Landlock::scoped), Field("rules", &Landlock::rules));

constexpr auto kConsultedPathFields = std::make_tuple(
    Field("path", &ConsultedPath::path), Field("type", &ConsultedPath::type),
    Field("symlink", &ConsultedPath::symlink), Field("target", &ConsultedPath::target),
    Field("canonical", &ConsultedPath::canonical), Field("mode", &ConsultedPath::mode),
    Field("uid", &ConsultedPath::uid), Field("gid", &ConsultedPath::gid));

constexpr auto kConsultedEnvFields =
    std::make_tuple(Field("name", &ConsultedEnv::name), Field("value", &ConsultedEnv::value));

constexpr auto kConsultedSecretFields =
    std::make_tuple(Field("name", &ConsultedSecret::name), Field("set", &ConsultedSecret::set));

constexpr auto kConsultedUserFields =
    std::make_tuple(Field("uid", &ConsultedUser::uid), Field("gid", &ConsultedUser::gid),
                    Field("groups", &ConsultedUser::groups), Field("name", &ConsultedUser::name),
                    Field("home", &ConsultedUser::home));

constexpr auto kConsultedProbeFields =
    std::make_tuple(Field("name", &ConsultedProbe::name), Field("ok", &ConsultedProbe::ok));

constexpr auto kConsultedFields = std::make_tuple(
    Field("user", &Consulted::user), Field("uid", &Consulted::uid), Field("env", &Consulted::env),
    Field("secrets", &Consulted::secrets), Field("paths", &Consulted::paths),
    Field("probes", &Consulted::probes), Field("landlock_abi", &Consulted::landlock_abi));

// The plan's common part, in key order.
constexpr auto kPlanFields = std::make_tuple(
    Field("schema_version", &LaunchPlan::schema_version), Field("platform", &LaunchPlan::platform),
    Field("permission_mode", &LaunchPlan::permission_mode),
    Field("mode_origin", &LaunchPlan::mode_origin), Field("policy", &LaunchPlan::policy),
    Field("posture_label", &LaunchPlan::posture_label), Field("cwd", &LaunchPlan::cwd),
    Field("home", &LaunchPlan::home), Field("wrapper", &LaunchPlan::wrapper),
    Field("roots", &LaunchPlan::roots), Field("denied_read", &LaunchPlan::denied_read),
    Field("env_allow", &LaunchPlan::env_allow), Field("env_set", &LaunchPlan::env_set),
    Field("skipped", &LaunchPlan::skipped), Field("warnings", &LaunchPlan::warnings),
    Field("expectations", &LaunchPlan::expectations), Field("consulted", &LaunchPlan::consulted));

// The launch's fields (under "launch"), in key order, for the two
// alternatives with more than one; the others are one object each.
constexpr auto kBwrapFields = std::make_tuple(
    Field("launcher", &Bwrap::launcher), Field("launcher_origin", &Bwrap::launcher_origin),
    Field("mounts", &Bwrap::mounts), Field("syscall_filter", &Bwrap::syscall_filter));
constexpr auto kLandlockLaunchFields =
    std::make_tuple(Field("syscall_filter", &LandlockLaunch::syscall_filter),
                    Field("landlock", &LandlockLaunch::ruleset));

template <typename T, typename Table>
constexpr bool Covers() {
  return FieldCount<T>() == std::tuple_size_v<Table>;
}
static_assert(Covers<Policy, decltype(kPolicyFields)>(), "a Policy field is not in its table");
static_assert(Covers<Protected, decltype(kProtectedFields)>(), "Protected table incomplete");
static_assert(Covers<Root, decltype(kRootFields)>(), "a Root field is not in its table");
static_assert(Covers<Mount, decltype(kMountFields)>(), "a Mount field is not in its table");
static_assert(Covers<DeniedPath, decltype(kDeniedPathFields)>(), "DeniedPath table incomplete");
static_assert(Covers<Skipped, decltype(kSkippedFields)>(), "a Skipped field is not in its table");
static_assert(Covers<EnvVar, decltype(kEnvVarFields)>(), "an EnvVar field is not in its table");
static_assert(Covers<Warning, decltype(kWarningFields)>(), "a Warning field is not in its table");
static_assert(Covers<Refusal, decltype(kRefusalFields)>(), "a Refusal field is not in its table");
static_assert(Covers<Expectation, decltype(kExpectationFields)>(), "Expectation table incomplete");
static_assert(Covers<ArgTest, decltype(kArgTestFields)>(), "an ArgTest field is not in its table");
static_assert(Covers<SyscallRule, decltype(kSyscallRuleFields)>(), "SyscallRule table incomplete");
static_assert(Covers<Wrapper, decltype(kWrapperFields)>(), "a Wrapper field is not in its table");
static_assert(Covers<SeatbeltPath, decltype(kSeatbeltPathFields)>(),
              "SeatbeltPath table incomplete");
static_assert(Covers<SeatbeltRoot, decltype(kSeatbeltRootFields)>(),
              "SeatbeltRoot table incomplete");
static_assert(Covers<Seatbelt, decltype(kSeatbeltFields)>(), "Seatbelt table incomplete");
static_assert(Covers<ApiKeySource, decltype(kApiKeySourceFields)>(),
              "ApiKeySource table incomplete");
static_assert(Covers<Remote, decltype(kRemoteFields)>(), "a Remote field is not in its table");
static_assert(Covers<LandlockRule, decltype(kLandlockRuleFields)>(),
              "LandlockRule table incomplete");
static_assert(Covers<Landlock, decltype(kLandlockFields)>(), "Landlock table incomplete");
static_assert(Covers<ConsultedPath, decltype(kConsultedPathFields)>(), "ConsultedPath table");
static_assert(Covers<ConsultedEnv, decltype(kConsultedEnvFields)>(), "ConsultedEnv table");
static_assert(Covers<ConsultedSecret, decltype(kConsultedSecretFields)>(), "ConsultedSecret");
static_assert(Covers<ConsultedUser, decltype(kConsultedUserFields)>(), "ConsultedUser table");
static_assert(Covers<ConsultedProbe, decltype(kConsultedProbeFields)>(), "ConsultedProbe table");
static_assert(Covers<Consulted, decltype(kConsultedFields)>(), "Consulted table incomplete");
static_assert(Covers<Bwrap, decltype(kBwrapFields)>(), "a Bwrap field is not in its table");
static_assert(Covers<LandlockLaunch, decltype(kLandlockLaunchFields)>(), "LandlockLaunch table");
// The common part's table and the launch are every plan field ("kind" is the launch's).
static_assert(FieldCount<LaunchPlan>() == std::tuple_size_v<decltype(kPlanFields)> + 1,
              "a LaunchPlan field is not in its table");
static_assert(FieldCount<SyscallFilter>() == 1, "SyscallFilter is written by hand: update it");
static_assert(FieldCount<Origin>() == 5, "Origin is written by hand: update it");

constexpr const auto& TableOf(const Policy*) { return kPolicyFields; }
constexpr const auto& TableOf(const Protected*) { return kProtectedFields; }
constexpr const auto& TableOf(const Root*) { return kRootFields; }
constexpr const auto& TableOf(const Mount*) { return kMountFields; }
constexpr const auto& TableOf(const DeniedPath*) { return kDeniedPathFields; }
constexpr const auto& TableOf(const Skipped*) { return kSkippedFields; }
constexpr const auto& TableOf(const EnvVar*) { return kEnvVarFields; }
constexpr const auto& TableOf(const Warning*) { return kWarningFields; }
constexpr const auto& TableOf(const Refusal*) { return kRefusalFields; }
constexpr const auto& TableOf(const Expectation*) { return kExpectationFields; }
constexpr const auto& TableOf(const ArgTest*) { return kArgTestFields; }
constexpr const auto& TableOf(const SyscallRule*) { return kSyscallRuleFields; }
constexpr const auto& TableOf(const Wrapper*) { return kWrapperFields; }
constexpr const auto& TableOf(const SeatbeltPath*) { return kSeatbeltPathFields; }
constexpr const auto& TableOf(const SeatbeltRoot*) { return kSeatbeltRootFields; }
constexpr const auto& TableOf(const Seatbelt*) { return kSeatbeltFields; }
constexpr const auto& TableOf(const ApiKeySource*) { return kApiKeySourceFields; }
constexpr const auto& TableOf(const Remote*) { return kRemoteFields; }
constexpr const auto& TableOf(const LandlockRule*) { return kLandlockRuleFields; }
constexpr const auto& TableOf(const Landlock*) { return kLandlockFields; }
constexpr const auto& TableOf(const ConsultedPath*) { return kConsultedPathFields; }
constexpr const auto& TableOf(const ConsultedEnv*) { return kConsultedEnvFields; }
constexpr const auto& TableOf(const ConsultedSecret*) { return kConsultedSecretFields; }
constexpr const auto& TableOf(const ConsultedUser*) { return kConsultedUserFields; }
constexpr const auto& TableOf(const ConsultedProbe*) { return kConsultedProbeFields; }
constexpr const auto& TableOf(const Consulted*) { return kConsultedFields; }

template <typename T>
concept Tabled = requires {
  TableOf(static_cast<const T*>(nullptr));
};

// ---- enums -----------------------------------------------------------------
// Each enum's values, spelled by its name function.

template <typename E>
struct EnumSpelling;

#define CWSC_ENUM_SPELLING(E, NAME, ...)             \
  template <>                                        \
  struct EnumSpelling<E> {                           \
    static constexpr E kValues[] = {__VA_ARGS__};    \
    static const char* Name(E v) { return NAME(v); } \
  }

CWSC_ENUM_SPELLING(PlanKind, PlanKindName, PlanKind::kNone, PlanKind::kLinuxBwrap,
                   PlanKind::kMacosSeatbelt, PlanKind::kLauncherBwrap, PlanKind::kOpenSandbox,
                   PlanKind::kRefused, PlanKind::kLinuxLandlock);
CWSC_ENUM_SPELLING(Platform, PlatformName, Platform::kLinux, Platform::kMacos, Platform::kWindows);
CWSC_ENUM_SPELLING(SkipKind, SkipKindName, SkipKind::kSetting, SkipKind::kLocalWrapper,
                   SkipKind::kWritableRoot, SkipKind::kWorktreeMetadata, SkipKind::kSyscallFilter,
                   SkipKind::kNetworkAccess, SkipKind::kSeatbeltPath, SkipKind::kLandlock);
CWSC_ENUM_SPELLING(PermissionMode, PermissionModeName, PermissionMode::kPlan, PermissionMode::kAsk,
                   PermissionMode::kAutoReview, PermissionMode::kFullAccess);
CWSC_ENUM_SPELLING(PolicyType, PolicyTypeName, PolicyType::kReadOnly, PolicyType::kWorkspaceWrite,
                   PolicyType::kDangerFullAccess, PolicyType::kExternalSandbox);
CWSC_ENUM_SPELLING(RootSource, RootSourceName, RootSource::kConfigured, RootSource::kCwd,
                   RootSource::kWorktreeGitDir, RootSource::kWorktreeCommonDir,
                   RootSource::kSlashTmp, RootSource::kTmpdir);
CWSC_ENUM_SPELLING(RootSkip, RootSkipName, RootSkip::kNone, RootSkip::kMissing,
                   RootSkip::kNotADirectory, RootSkip::kCanonicalizesToRoot,
                   RootSkip::kPlantedSymlink, RootSkip::kDuplicate, RootSkip::kLauncherPrivateTmp);
CWSC_ENUM_SPELLING(MountOp, MountOpName, MountOp::kReadOnlyBind, MountOp::kWritableBind,
                   MountOp::kDeviceBind, MountOp::kDev, MountOp::kProc, MountOp::kTmpfs,
                   MountOp::kRemountReadOnly);
CWSC_ENUM_SPELLING(MountRole, MountRoleName, MountRole::kBase, MountRole::kKernelReadOnly,
                   MountRole::kKernelMask, MountRole::kDevice, MountRole::kRootBind,
                   MountRole::kProtected, MountRole::kPlaceholder, MountRole::kTmpView,
                   MountRole::kReadOnlyRoot, MountRole::kDenyPin, MountRole::kDenyMask);
CWSC_ENUM_SPELLING(Expectation::Kind, ExpectationKindName, Expectation::Kind::kRead,
                   Expectation::Kind::kWrite, Expectation::Kind::kNetwork, Expectation::Kind::kExec,
                   Expectation::Kind::kCreate);
CWSC_ENUM_SPELLING(Contract, ContractName, Contract::kCodewhale, Contract::kExecd,
                   Contract::kLifecycle);
CWSC_ENUM_SPELLING(ApiKeySource::Kind, ApiKeySourceKindName, ApiKeySource::Kind::kNone,
                   ApiKeySource::Kind::kConfig, ApiKeySource::Kind::kEnv,
                   ApiKeySource::Kind::kFile);
CWSC_ENUM_SPELLING(Origin::Kind, Origin::KindName, Origin::Kind::kDefault, Origin::Kind::kConfig,
                   Origin::Kind::kManaged, Origin::Kind::kProject, Origin::Kind::kEnv,
                   Origin::Kind::kMode, Origin::Kind::kFact, Origin::Kind::kCli);
#undef CWSC_ENUM_SPELLING

// LaunchFieldUsed says which launch fields a plan kind has.
bool LaunchFieldUsed(PlanKind kind, const std::string& name) {
  switch (kind) {
    case PlanKind::kNone:
      return false;
    case PlanKind::kLinuxBwrap:
      return name == "mounts" || name == "syscall_filter";
    case PlanKind::kLauncherBwrap:
      return name == "launcher" || name == "launcher_origin" || name == "mounts" ||
             name == "syscall_filter";
    case PlanKind::kMacosSeatbelt:
      return name == "seatbelt";
    case PlanKind::kOpenSandbox:
      return name == "remote";
    case PlanKind::kRefused:
      return name == "refusal";
    case PlanKind::kLinuxLandlock:
      return name == "landlock" || name == "syscall_filter";
  }
  return false;
}

// ---- writing ---------------------------------------------------------------

// JsonOut writes JSON straight into a string, in the one canonical form
// (nlohmann's dump(2): two-space indent, `"key": value`, `[]` and `{}` when
// empty, strings escaped as it escapes them), without building a document
// first. A string that is not valid UTF-8 cannot be written (BadUtf8).
struct BadUtf8 {};

class JsonOut {
 public:
  explicit JsonOut(std::string* out) : out_(*out) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view key) {
    NextItem();
    Quoted(key);
    out_ += ": ";
    after_key_ = true;
  }
  void String(std::string_view s) {
    BeforeValue();
    Quoted(s);
  }
  void Int(int v) {
    BeforeValue();
    absl::StrAppend(&out_, v);
  }
  void Bool(bool v) {
    BeforeValue();
    out_ += v ? "true" : "false";
  }
  void Null() {
    BeforeValue();
    out_ += "null";
  }

 private:
  void BeforeValue() {
    if (after_key_) {
      after_key_ = false;
    } else if (!items_.empty()) {
      NextItem();
    }
  }
  // NextItem starts a member or an element on its own line.
  void NextItem() {
    out_ += items_.back()++ == 0 ? "\n" : ",\n";
    out_.append(2 * items_.size(), ' ');
  }
  void Open(char c) {
    BeforeValue();
    out_ += c;
    items_.push_back(0);
  }
  void Close(char c) {
    size_t n = items_.back();
    items_.pop_back();
    if (n != 0) {
      out_ += '\n';
      out_.append(2 * items_.size(), ' ');
    }
    out_ += c;
  }
  // Quoted writes a string in quotes: `"` and `\` escaped, the control
  // characters as \b \t \n \f \r or \u00XX, everything else as it is.
  void Quoted(std::string_view s) {
    if (!ValidUtf8(s)) throw BadUtf8{};
    out_ += '"';
    size_t plain = 0;  // start of the bytes not yet copied
    for (size_t i = 0; i < s.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      out_.append(s.data() + plain, i - plain);
      plain = i + 1;
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\b':
          out_ += "\\b";
          break;
        case '\t':
          out_ += "\\t";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\f':
          out_ += "\\f";
          break;
        case '\r':
          out_ += "\\r";
          break;
        default: {
          static const char kHex[] = "0123456789abcdef";
          const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
          out_.append(esc, sizeof esc);
        }
      }
    }
    out_.append(s.data() + plain, s.size() - plain);
    out_ += '"';
  }
  // ValidUtf8: well-formed UTF-8 (RFC 3629: no overlong forms, no
  // surrogates, nothing above U+10FFFF), as the JSON library requires.
  static bool ValidUtf8(std::string_view s) {
    size_t i = 0;
    const size_t n = s.size();
    while (i < n) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      if (c < 0x80) {
        ++i;
        continue;
      }
      int more = 0;
      unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
      if (c >= 0xc2 && c <= 0xdf) {
        more = 1;
      } else if (c >= 0xe0 && c <= 0xef) {
        more = 2;
        if (c == 0xe0) lo = 0xa0;  // no overlong forms
        if (c == 0xed) hi = 0x9f;  // no surrogates
      } else if (c >= 0xf0 && c <= 0xf4) {
        more = 3;
        if (c == 0xf0) lo = 0x90;  // no overlong forms
        if (c == 0xf4) hi = 0x8f;  // nothing above U+10FFFF
      } else {
        return false;
      }
      if (n - i <= static_cast<size_t>(more)) return false;
      unsigned char second = static_cast<unsigned char>(s[i + 1]);
      if (second < lo || second > hi) return false;
      for (int k = 2; k <= more; ++k) {
        unsigned char b = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
        if (b < 0x80 || b > 0xbf) return false;
      }
      i += static_cast<size_t>(more) + 1;
    }
    return true;
  }

  std::string& out_;
  std::vector<size_t> items_;  // per open object or array: members written so far
  bool after_key_ = false;
};

std::string Hex(uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[v & 0xf]);
    v >>= 4;
  } while (v != 0);
  return "0x" + out;
}

void Write(JsonOut& o, const std::string& v) { o.String(v); }
void Write(JsonOut& o, const SharedString& v) { o.String(v.str()); }
void Write(JsonOut& o, absl::string_view v) { o.String(std::string_view(v.data(), v.size())); }
void Write(JsonOut& o, bool v) { o.Bool(v); }
void Write(JsonOut& o, int v) { o.Int(v); }
void Write(JsonOut& o, uint64_t v) { o.String(Hex(v)); }  // syscall argument masks and values

template <typename E>
requires std::is_enum_v<E>
void Write(JsonOut& o, E v) { o.String(EnumSpelling<E>::Name(v)); }

void Write(JsonOut& o, const Origin& origin) {
  o.BeginObject();
  o.Key("kind");
  o.String(Origin::KindName(origin.kind));
  o.Key("detail");
  o.String(origin.detail.str());
  if (!origin.file.empty()) {  // position keys only for a file origin
    o.Key("file");
    o.String(origin.file.str());
    o.Key("line");
    o.Int(origin.line);
    o.Key("col");
    o.Int(origin.col);
  }
  o.EndObject();
}

template <Tabled T>
void Write(JsonOut& o, const T& v);
void Write(JsonOut& o, const SyscallFilter& f);

template <typename T>
void Write(JsonOut& o, const std::vector<T>& items) {
  o.BeginArray();
  for (const T& item : items) Write(o, item);
  o.EndArray();
}

void Write(JsonOut& o, const ConsultedPaths& paths) {
  o.BeginArray();
  for (const ConsultedPath& p : paths) Write(o, p);
  o.EndArray();
}

template <typename T>
void Write(JsonOut& o, const std::optional<T>& v) {
  if (v) {
    Write(o, *v);
  } else {
    o.Null();
  }
}

template <Tabled T>
void Write(JsonOut& o, const T& v) {
  o.BeginObject();
  ForEachField(TableOf(&v), [&](const auto& f) {
    o.Key(f.name);
    Write(o, v.*(f.member));
  });
  o.EndObject();
}

void Write(JsonOut& o, const SyscallFilter& f) {
  o.BeginObject();
  o.Key("default");
  o.String("allow");
  o.Key("other_architectures");
  o.String("kill-process");
  o.Key("rules");
  Write(o, f.rules);
  o.EndObject();
}

void WriteLaunch(JsonOut& o, const LaunchPlan& p) {
  o.BeginObject();
  PlanKind kind = p.kind();
  auto field = [&](const char* name, const auto& value) {
    o.Key(name);
    Write(o, value);
  };
  if (const Bwrap* b = p.bwrap()) {
    ForEachField(kBwrapFields, [&](const auto& f) {
      if (LaunchFieldUsed(kind, f.name)) field(f.name, b->*(f.member));
    });
  } else if (const auto* l = std::get_if<LandlockLaunch>(&p.launch)) {
    ForEachField(kLandlockLaunchFields, [&](const auto& f) { field(f.name, l->*(f.member)); });
  } else if (const Seatbelt* s = p.seatbelt()) {
    field("seatbelt", *s);
  } else if (const Remote* r = p.remote()) {
    field("remote", *r);
  } else if (const Refusal* r = p.refusal()) {
    field("refusal", *r);
  }
  o.EndObject();
}

void WritePlan(JsonOut& o, const LaunchPlan& p) {
  o.BeginObject();
  o.Key("schema_version");
  o.Int(p.schema_version);
  o.Key("kind");
  Write(o, p.kind());
  ForEachField(kPlanFields, [&](const auto& f) {
    if (f.name == std::string_view("schema_version")) return;
    o.Key(f.name);
    Write(o, p.*(f.member));
  });
  o.Key("launch");
  WriteLaunch(o, p);
  o.EndObject();
}

// ---- reading ---------------------------------------------------------------

// BadPlan carries the JSON pointer and message of the first bad value.
struct BadPlan {
  std::string pointer;
  std::string message;
};

// Reader is one value of the plan's JSON and where it is. The JSON pointer
// of a value is spelled only when it is needed, for an error: a reader
// keeps its parent and its key or index, and the parent outlives it (a
// reader lives in the call that reads its value).
class Reader {
 public:
  explicit Reader(const Json& j) : j_(j) {}

  Reader At(const char* key) const {
    if (!j_.is_object()) Fail("expected an object");
    auto it = j_.find(key);
    if (it == j_.end()) throw BadPlan{absl::StrCat(pointer(), "/", key), "missing"};
    return Reader(*it, this, key, 0);
  }
  bool Has(const char* key) const { return j_.is_object() && j_.contains(key); }
  bool IsNull() const { return j_.is_null(); }
  const std::string& Str() const {
    if (!j_.is_string()) Fail("expected a string");
    return j_.get_ref<const std::string&>();
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
    const std::string& s = Str();
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
  // ForEachItem calls f(item) for each element of an array, in order.
  template <typename F>
  void ForEachItem(F&& f) const {
    if (!j_.is_array()) Fail("expected an array");
    for (size_t i = 0; i < j_.size(); ++i) f(Reader(j_[i], this, nullptr, i));
  }
  // ForEachKey calls f(key) for each key of an object (an error for another value).
  template <typename F>
  void ForEachKey(F&& f) const {
    if (!j_.is_object()) Fail("expected an object");
    for (auto it = j_.begin(); it != j_.end(); ++it) f(it.key());
  }
  // pointer is the value's JSON pointer ("" for the whole plan).
  std::string pointer() const {
    if (parent_ == nullptr) return "";
    return key_ != nullptr ? absl::StrCat(parent_->pointer(), "/", key_)
                           : absl::StrCat(parent_->pointer(), "/", index_);
  }
  [[noreturn]] void Fail(const std::string& message) const { throw BadPlan{pointer(), message}; }

 private:
  Reader(const Json& j, const Reader* parent, const char* key, size_t index)
      : j_(j), parent_(parent), key_(key), index_(index) {}

  const Json& j_;
  const Reader* parent_ = nullptr;
  const char* key_ = nullptr;  // an object's key; null: an array's element
  size_t index_ = 0;
};

// RejectUnknown refuses a key for which `known` is false (docs/plan.md,
// "Compatibility": the plan is a closed format).
template <typename Known>
void RejectUnknownIf(const Reader& r, Known&& known) {
  r.ForEachKey([&](const std::string& key) {
    if (!known(key)) {
      r.At(key.c_str())
          .Fail(absl::StrCat("unknown field (schema_version ", kPlanSchemaVersion,
                             " has no such field)"));
    }
  });
}

void RejectUnknown(const Reader& r, std::initializer_list<std::string_view> known) {
  RejectUnknownIf(r, [&](const std::string& key) {
    return std::find(known.begin(), known.end(), key) != known.end();
  });
}

// InTable: `key` names a field of `table`.
template <typename Table>
bool InTable(const Table& table, std::string_view key) {
  bool found = false;
  ForEachField(table, [&](const auto& f) { found = found || key == f.name; });
  return found;
}

void Read(const Reader& r, std::string* out) { *out = r.Str(); }
void Read(const Reader& r, SharedString* out) { *out = r.Str(); }
// A view of the document's text: a path record's (ConsultedPath), copied
// into its list's arena while the document is still read (ConsultedPaths).
void Read(const Reader& r, absl::string_view* out) { *out = r.Str(); }
void Read(const Reader& r, bool* out) { *out = r.Bool(); }
void Read(const Reader& r, int* out) { *out = r.Int(); }
void Read(const Reader& r, uint64_t* out) { *out = r.HexU64(); }

template <typename E>
requires std::is_enum_v<E>
void Read(const Reader& r, E* out) {
  const std::string& s = r.Str();
  for (E v : EnumSpelling<E>::kValues) {
    if (s == EnumSpelling<E>::Name(v)) {
      *out = v;
      return;
    }
  }
  // "unknown value 'x': expected a, b or c", every value spelled by its table.
  std::string expected;
  constexpr size_t n = std::size(EnumSpelling<E>::kValues);
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&expected,
                    i == 0       ? ""
                    : i + 1 == n ? " or "
                                 : ", ",
                    EnumSpelling<E>::Name(EnumSpelling<E>::kValues[i]));
  }
  r.Fail(absl::StrCat("unknown value '", s, "': expected ", expected));
}

void Read(const Reader& r, Origin* o) {
  RejectUnknown(r, {"kind", "detail", "file", "line", "col"});
  Read(r.At("kind"), &o->kind);
  o->detail = r.At("detail").Str();
  if (r.Has("file")) {
    o->file = r.At("file").Str();
    o->line = r.At("line").Int();
    o->col = r.At("col").Int();
  } else if (r.Has("line") || r.Has("col")) {
    r.At(r.Has("line") ? "line" : "col").Fail("a position needs its file");
  }
}

template <Tabled T>
void Read(const Reader& r, T* out);
void Read(const Reader& r, SyscallFilter* out);

template <typename T>
void Read(const Reader& r, std::vector<T>* out) {
  r.ForEachItem([&](const Reader& item) { Read(item, &out->emplace_back()); });
}

void Read(const Reader& r, ConsultedPaths* out) {
  std::vector<ConsultedPath> records;
  Read(r, &records);
  *out = ConsultedPaths(std::move(records));
}

template <typename T>
void Read(const Reader& r, std::optional<T>* out) {
  if (r.IsNull()) return;
  Read(r, &out->emplace());
}

template <Tabled T>
void Read(const Reader& r, T* out) {
  RejectUnknownIf(r, [&](const std::string& key) { return InTable(TableOf(out), key); });
  ForEachField(TableOf(out), [&](const auto& f) { Read(r.At(f.name), &(out->*(f.member))); });
}

void Read(const Reader& r, SyscallFilter* out) {
  RejectUnknown(r, {"default", "other_architectures", "rules"});
  if (r.At("default").Str() != "allow") r.At("default").Fail("expected \"allow\"");
  if (r.At("other_architectures").Str() != "kill-process") {
    r.At("other_architectures").Fail("expected \"kill-process\"");
  }
  Read(r.At("rules"), &out->rules);
}

// AKind is the kind with its article: "a linux-bwrap", "an opensandbox".
std::string AKind(PlanKind kind) {
  return absl::StrCat(kind == PlanKind::kOpenSandbox ? "an " : "a ", PlanKindName(kind));
}

// ReadPart reads the one part of a `kind` plan's launch, which may not be null.
template <typename T>
void ReadPart(const Reader& r, const char* key, PlanKind kind, const char* needs, LaunchPlan* p) {
  if (r.At(key).IsNull()) r.At(key).Fail(absl::StrCat(AKind(kind), " plan needs ", needs));
  Read(r.At(key), &p->launch.emplace<T>());
}

// ReadLaunch reads the launch of a `kind` plan and rejects any other key.
void ReadLaunch(const Reader& r, PlanKind kind, LaunchPlan* p) {
  r.ForEachKey([&](const std::string& key) {
    if (!LaunchFieldUsed(kind, key)) {
      r.At(key.c_str()).Fail(absl::StrCat("not part of ", AKind(kind), " plan"));
    }
  });
  switch (kind) {
    case PlanKind::kNone:
      p->launch = Unconfined{};
      return;
    case PlanKind::kLinuxBwrap:
    case PlanKind::kLauncherBwrap: {
      Bwrap& b = p->launch.emplace<Bwrap>();
      ForEachField(kBwrapFields, [&](const auto& f) {
        if (LaunchFieldUsed(kind, f.name)) Read(r.At(f.name), &(b.*(f.member)));
      });
      // The kind is the launch's: a launcher+bwrap plan without its launcher would be another.
      if (kind == PlanKind::kLauncherBwrap && b.launcher.empty()) {
        r.At("launcher").Fail("a launcher+bwrap plan needs a launcher argv");
      }
      return;
    }
    case PlanKind::kLinuxLandlock: {
      LandlockLaunch& l = p->launch.emplace<LandlockLaunch>();
      if (r.At("syscall_filter").IsNull()) {
        r.At("syscall_filter").Fail("a linux-landlock plan needs its syscall filter");
      }
      if (r.At("landlock").IsNull()) {
        r.At("landlock").Fail("a linux-landlock plan needs a Landlock ruleset");
      }
      ForEachField(kLandlockLaunchFields,
                   [&](const auto& f) { Read(r.At(f.name), &(l.*(f.member))); });
      return;
    }
    case PlanKind::kMacosSeatbelt:
      ReadPart<Seatbelt>(r, "seatbelt", kind, "its Seatbelt facts", p);
      return;
    case PlanKind::kOpenSandbox:
      ReadPart<Remote>(r, "remote", kind, "a remote endpoint", p);
      return;
    case PlanKind::kRefused:
      ReadPart<Refusal>(r, "refusal", kind, "a refusal", p);
      return;
  }
}

LaunchPlan ReadPlan(const Reader& r) {
  LaunchPlan p;
  // The version first: the rest of an older plan has another shape.
  p.schema_version = r.At("schema_version").Int();
  if (p.schema_version != kPlanSchemaVersion) {
    r.At("schema_version").Fail(UnsupportedVersionMessage(p.schema_version));
  }
  RejectUnknownIf(r, [](const std::string& key) {
    return key == "kind" || key == "launch" || InTable(kPlanFields, key);
  });
  PlanKind kind = PlanKind::kNone;
  Read(r.At("kind"), &kind);
  ForEachField(kPlanFields, [&](const auto& f) { Read(r.At(f.name), &(p.*(f.member))); });
  ReadLaunch(r.At("launch"), kind, &p);
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

absl::Status MalformedJson(const std::string& text, const std::string& file) {
  ErrorPlace place;
  Json::sax_parse(text, &place);
  // The position is just past the token; an out-of-range number is named at its start.
  size_t at = place.position > 0 ? place.position - 1 : 0;
  if (place.overflow && place.token.size() <= place.position) {
    at = place.position - place.token.size();
  }
  int line = 0, col = 0;
  LineCol(text, at, &line, &col);
  return DiagnosticError(
      {Diagnostic::Severity::kError, file, line, col,
       absl::StrCat("malformed plan JSON", place.overflow ? ": number out of range" : ""), ""});
}

absl::Status BadPlanError(const std::string& file, const std::string& pointer,
                          const std::string& message) {
  return DiagnosticError({Diagnostic::Severity::kError, file, 0, 0,
                          absl::StrCat("bad plan at '", pointer, "': ", message), ""});
}

}  // namespace

std::string UnsupportedVersionMessage(int version) {
  if (version >= 1 && version < kPlanSchemaVersion) {
    return absl::StrCat("schema_version ", version, " is no longer read (this cwsc reads version ",
                        kPlanSchemaVersion, "); compile the plan again with this cwsc");
  }
  return absl::StrCat("unsupported schema_version ", version, " (this cwsc reads ",
                      kPlanSchemaVersion, ")");
}

absl::StatusOr<std::string> PlanToJson(const LaunchPlan& plan) {
  std::string text;
  text.reserve(64 * 1024);
  try {
    JsonOut out(&text);
    WritePlan(out, plan);
    text += '\n';
    return text;
  } catch (const BadUtf8&) {
    return absl::InvalidArgumentError(
        "the plan holds a path or value that is not valid UTF-8; JSON cannot represent it "
        "(use --format nul for the argv)");
  }
}

absl::StatusOr<LaunchPlan> PlanFromJson(const std::string& text, const std::string& file) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return MalformedJson(text, file);
  LaunchPlan plan;
  try {
    plan = ReadPlan(Reader(j));
  } catch (const BadPlan& bad) {
    return BadPlanError(file, bad.pointer, bad.message);
  } catch (const nlohmann::json::exception& e) {
    return DiagnosticError(
        {Diagnostic::Severity::kError, file, 0, 0, absl::StrCat("bad plan: ", e.what()), ""});
  }
  std::vector<PlanProblem> problems = Validate(plan);
  if (!problems.empty()) return BadPlanError(file, problems[0].pointer, problems[0].message);
  return plan;
}

}  // namespace cwsc::ir
