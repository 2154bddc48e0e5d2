#include "ir/plan_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "ir/validate.h"

namespace cwsc::ir {
namespace {

// CommonPlan sets every field of the common part to a non-default value.
LaunchPlan CommonPlan() {
  LaunchPlan p;
  p.platform = Platform::kLinux;
  p.permission_mode = ir::PermissionMode::kAsk;
  p.mode_origin = Origin::Cli("--mode ask");
  p.policy.type = PolicyType::kWorkspaceWrite;
  p.policy.writable_roots = {"/w", "/extra"};
  p.policy.network_access = true;
  p.policy.exclude_tmpdir = true;
  p.policy.exclude_slash_tmp = true;
  p.policy.origin = Origin::Config("sandbox_mode", "c.toml", 3, 16);
  p.policy.network_origin = Origin::Default("mode");
  p.posture_label = "workspace-write (...)";
  p.cwd = "/w";
  p.home = "/h";
  Root r;
  r.path = "/w";
  r.canonical = "/w";
  r.source = RootSource::kCwd;
  r.writable_bind = true;
  r.protected_paths.push_back(
      {"/w/.codewhale", "/w/.codewhale", true, "", Origin::Default("p"), true});
  r.origin = Origin::Fact("cwd");
  p.roots.push_back(r);
  Root dup = r;
  dup.writable_bind = false;
  dup.skip = RootSkip::kDuplicate;
  dup.skip_reason = "duplicate";
  p.roots.push_back(dup);
  p.wrapper = {"/usr/bin/bwrap", false, Origin::Default("d"), true, true, "msg"};
  p.denied_read.push_back({"/h/.ssh", "~/.ssh", Origin::Default("built-in")});
  p.env_allow = {"PATH", "LC_*"};
  p.env_set.push_back({"CODEWHALE_SANDBOX", "bwrap", Origin::Default("marker")});
  p.skipped.push_back(
      {"writable root", "/missing", "missing", Origin::Env("TMPDIR"), SkipKind::kWritableRoot});
  p.skipped.push_back({"local wrapper", "/usr/bin/bwrap", "prefer_bwrap = false",
                       Origin::Default("d"), SkipKind::kLocalWrapper});
  p.warnings.push_back({"many-mounts", "60 mounts", Origin::Default("count")});
  p.expectations.push_back({Expectation::Kind::kWrite,
                            "$WORKSPACE/x",
                            true,
                            {ir::PermissionMode::kAsk, ir::PermissionMode::kPlan},
                            Origin::Config("expect", "p.cwsp", 4, 1)});
  p.expectations.push_back({Expectation::Kind::kNetwork,
                            "127.0.0.1:8080",
                            false,
                            {},
                            Origin::Config("expect", "p.cwsp", 5, 1)});
  return p;
}

SyscallFilter Filter() {
  SyscallFilter f;
  f.rules.push_back({"ioctl", {{1, 0xffffffff, 0x5412}}, 1, "TIOCSTI", Origin::Default("t")});
  return f;
}

LaunchPlan BwrapPlan() {
  LaunchPlan p = CommonPlan();
  Bwrap& b = p.launch.emplace<Bwrap>();
  b.mounts.push_back({MountOp::kReadOnlyBind, "/", "/", "root", Origin::Default("base")});
  b.mounts.push_back({MountOp::kTmpfs, "", "/tmp", "tmp", Origin::Default("base")});
  b.mounts.push_back({MountOp::kRemountReadOnly, "", "/tmp", "ro", Origin::Default("base"),
                      MountRole::kPlaceholder});
  b.syscall_filter = Filter();
  return p;
}

LaunchPlan LauncherPlan() {
  LaunchPlan p = BwrapPlan();
  p.bwrap()->syscall_filter.reset();
  p.bwrap()->launcher = {"/usr/bin/sudo", "-u", "agent", "--"};
  p.bwrap()->launcher_origin = Origin::Config("tool_launcher", "/etc/m.toml", 2, 1);
  return p;
}

LaunchPlan SeatbeltPlan() {
  LaunchPlan p = CommonPlan();
  p.platform = Platform::kMacos;
  Seatbelt sb;
  sb.writable_roots = {{{"/w", Origin::Default("r")}, {{"/w/.codewhale", Origin::Default("p")}}}};
  sb.darwin_cache = SeatbeltPath{"/c", Origin::Fact("darwin_user_cache_dir")};
  sb.cargo_home = SeatbeltPath{"/h/.cargo", Origin::Env("HOME")};
  sb.npm_cache = SeatbeltPath{"/h/.npm", Origin::Env("HOME")};
  sb.denied_read = {{"/h/.ssh", Origin::Default("built-in")}};
  sb.loopback_proxy_ports = {8080};
  sb.network_dropped_for_proxy = true;
  p.launch = sb;
  return p;
}

LaunchPlan RemotePlan() {
  LaunchPlan p = CommonPlan();
  Remote remote;
  remote.contract = Contract::kLifecycle;
  remote.url = "http://127.0.0.1:1";
  remote.url_origin = Origin::Env("CODEWHALE_SANDBOX_URL");
  remote.api_key = {ApiKeySource::Kind::kConfig, "",
                    Origin::Config("sandbox_api_key", "cfg.toml", 3, 1)};
  remote.not_enforced = {"writable roots"};
  remote.image = "debian:12";
  remote.execd_port = 4000;
  remote.keep = true;
  remote.remote_cwd = "/srv";
  p.launch = remote;
  return p;
}

LaunchPlan RefusedPlan() {
  LaunchPlan p = CommonPlan();
  p.launch = Refusal{"because", Origin::Default("r")};
  return p;
}

LaunchPlan LandlockPlan() {
  LaunchPlan p = CommonPlan();
  Landlock ruleset;
  ruleset.abi = 7;
  ruleset.handled_fs = kLandlockFsReadFile | kLandlockFsWriteFile;
  ruleset.handled_net = kLandlockNetConnectTcp;
  ruleset.scoped = kLandlockScopeSignal;
  ruleset.rules.push_back({"/usr", kLandlockFsReadFile, {}, "read", Origin::Default("base")});
  ruleset.rules.push_back(
      {"/h", kLandlockFsReadFile, {".ssh"}, "read but secrets", Origin::Default("deny")});
  p.launch = LandlockLaunch{ruleset, Filter()};
  return p;
}

// FullPlan is the plan the error tests edit.
LaunchPlan FullPlan() { return BwrapPlan(); }

std::vector<LaunchPlan> EveryKind() {
  return {CommonPlan(), BwrapPlan(),   LauncherPlan(), SeatbeltPlan(),
          RemotePlan(), RefusedPlan(), LandlockPlan()};
}

// The plan's JSON is written straight into text, not through the JSON
// library's document; what it writes is what the library's dump(2) writes
// for the same document, byte for byte.
TEST(PlanJson, WriterWritesWhatTheJsonLibraryWrites) {
  for (const LaunchPlan& p : EveryKind()) {
    SCOPED_TRACE(PlanKindName(p.kind()));
    std::string text = *PlanToJson(p);
    EXPECT_EQ(text, nlohmann::ordered_json::parse(text).dump(2) + "\n");
  }
}

// Every string: the same escapes as the library's, and an error exactly
// where the library finds invalid UTF-8 (overlong forms, surrogates, bytes
// above U+10FFFF, cut sequences, stray continuation bytes).
TEST(PlanJson, StringsAreEscapedAndCheckedAsTheJsonLibraryDoes) {
  std::vector<std::string> cases;
  for (int b = 0; b < 256; ++b) cases.push_back(std::string(1, static_cast<char>(b)));
  const char* const kSequences[] = {"\xc2\x80",
                                    "\xdf\xbf",
                                    "\xc0\x80",
                                    "\xc1\xbf",
                                    "\xe0\xa0\x80",
                                    "\xe0\x80\x80",
                                    "\xe0\x9f\xbf",
                                    "\xed\x9f\xbf",
                                    "\xed\xa0\x80",
                                    "\xee\x80\x80",
                                    "\xef\xbf\xbf",
                                    "\xf0\x90\x80\x80",
                                    "\xf0\x8f\xbf\xbf",
                                    "\xf4\x8f\xbf\xbf",
                                    "\xf4\x90\x80\x80",
                                    "\xf5\x80\x80\x80",
                                    "\xe2\x82",
                                    "\xf0\x9f\x98",
                                    "\x80",
                                    "a\xc3",
                                    "\xc3\xa9\x80",
                                    "caf\xc3\xa9 \x7f \x1b[31m \\ \" /"};
  for (const char* seq : kSequences) cases.push_back(seq);
  // And strings of bytes drawn from the interesting ones, the same each run.
  const unsigned char kBytes[] = {'a',  '"',  '\\', '/',  0x00, 0x1f, 0x7f, 0x80, 0xbf, 0xc2,
                                  0xc3, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, '\n', 0x9f};
  uint32_t seed = 12345;
  for (int n = 0; n < 3000; ++n) {
    std::string s;
    for (int len = static_cast<int>((seed >> 8) % 7); len > 0; --len) {
      seed = seed * 1103515245 + 12345;
      s += static_cast<char>(kBytes[(seed >> 16) % sizeof kBytes]);
    }
    seed = seed * 1103515245 + 12345;
    cases.push_back(s);
  }
  LaunchPlan p = CommonPlan();
  for (const std::string& c : cases) {
    p.cwd = c;
    absl::StatusOr<std::string> ours = PlanToJson(p);
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(*PlanToJson(CommonPlan()));
    j["cwd"] = c;
    std::optional<std::string> theirs;
    try {
      theirs = j.dump(2) + "\n";
    } catch (const nlohmann::json::exception&) {
    }
    ASSERT_EQ(ours.ok(), theirs.has_value()) << absl::CHexEscape(c);
    if (theirs) {
      EXPECT_EQ(*ours, *theirs) << absl::CHexEscape(c);
    }
  }
}

TEST(PlanJson, EveryKindRoundTrips) {
  for (const LaunchPlan& p : EveryKind()) {
    SCOPED_TRACE(PlanKindName(p.kind()));
    EXPECT_EQ(Validate(p), std::vector<PlanProblem>{});
    absl::StatusOr<std::string> text = PlanToJson(p);
    ASSERT_TRUE(text.ok()) << text.status();
    absl::StatusOr<LaunchPlan> back = PlanFromJson(*text, "p.json");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, p);
    EXPECT_EQ(*PlanToJson(*back), *text);  // canonical: same bytes again
  }
}

// The launch object holds the fields of the plan's kind and nothing else.
TEST(PlanJson, LaunchHoldsOnlyTheKindsFields) {
  nlohmann::json j = nlohmann::json::parse(*PlanToJson(LauncherPlan()));
  std::vector<std::string> keys;
  for (auto it = j["launch"].begin(); it != j["launch"].end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"launcher", "launcher_origin", "mounts", "syscall_filter"}));
  EXPECT_EQ(j["launch"]["mounts"][0]["op"], "read-only-bind");
  EXPECT_EQ(nlohmann::json::parse(*PlanToJson(CommonPlan()))["launch"], nlohmann::json::object());
  // A Seatbelt part on a bubblewrap plan is not read.
  std::string text = *PlanToJson(BwrapPlan());
  text.replace(text.find("\"launch\": {"), 11, "\"launch\": {\"seatbelt\": null, ");
  EXPECT_EQ(PlanFromJson(text, "p.json").status().message(),
            "p.json: error: bad plan at '/launch/seatbelt': not part of a linux-bwrap plan\n");
}

// First is the first problem Validate finds ({} when none).
PlanProblem First(const LaunchPlan& p) {
  std::vector<PlanProblem> problems = Validate(p);
  return problems.empty() ? PlanProblem{} : problems[0];
}

// A plan holds one launch, so no plan in memory can lack its kind's part or
// carry another kind's; what is left to check is what the type cannot say.
TEST(Validate, TheLaunchTypeLeavesOnlyEmptyParts) {
  LaunchPlan p = BwrapPlan();
  p.bwrap()->mounts.clear();
  EXPECT_EQ(First(p), (PlanProblem{"/launch/mounts", "a linux-bwrap plan needs mounts"}));
  p = RefusedPlan();
  p.launch = Refusal{"", Origin::Default("r")};
  EXPECT_EQ(First(p), (PlanProblem{"/launch/refusal/reason", "a refusal needs a reason"}));
  // The kind is the launch's: a launcher makes a bwrap launch launcher+bwrap.
  p = BwrapPlan();
  EXPECT_EQ(p.kind(), PlanKind::kLinuxBwrap);
  p.bwrap()->launcher = {"/usr/bin/sudo"};
  EXPECT_EQ(p.kind(), PlanKind::kLauncherBwrap);
  // Refusing drops the launch it was becoming, and the environment settings.
  Refuse(&p, Refusal{"no", Origin::Default("r")});
  EXPECT_EQ(p.kind(), PlanKind::kRefused);
  EXPECT_EQ(p.bwrap(), nullptr);
  EXPECT_TRUE(p.mounts().empty());
  EXPECT_EQ(p.syscall_filter(), nullptr);
  EXPECT_TRUE(p.env_set.empty());
}

// What a plan read from JSON would need to be wrong in the same ways, the
// reader refuses: a kind without its part, or with another kind's part.
TEST(PlanJson, EachKindNeedsItsOwnPartAndNoOther) {
  auto read = [](const LaunchPlan& p, const std::string& key, const std::string& value) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(*PlanToJson(p));
    j["launch"][key] = nlohmann::ordered_json::parse(value);
    return std::string(PlanFromJson(j.dump(), "p.json").status().message());
  };
  auto bad = [](const std::string& at, const std::string& why) {
    return absl::StrCat("p.json: error: bad plan at '", at, "': ", why, "\n");
  };
  EXPECT_EQ(read(RefusedPlan(), "refusal", "null"),
            bad("/launch/refusal", "a refused plan needs a refusal"));
  EXPECT_EQ(read(SeatbeltPlan(), "seatbelt", "null"),
            bad("/launch/seatbelt", "a macos-seatbelt plan needs its Seatbelt facts"));
  EXPECT_EQ(read(RemotePlan(), "remote", "null"),
            bad("/launch/remote", "an opensandbox plan needs a remote endpoint"));
  EXPECT_EQ(read(LauncherPlan(), "launcher", "[]"),
            bad("/launch/launcher", "a launcher+bwrap plan needs a launcher argv"));
  EXPECT_EQ(read(LandlockPlan(), "syscall_filter", "null"),
            bad("/launch/syscall_filter", "a linux-landlock plan needs its syscall filter"));
  EXPECT_EQ(read(LandlockPlan(), "landlock", "null"),
            bad("/launch/landlock", "a linux-landlock plan needs a Landlock ruleset"));
  EXPECT_EQ(read(BwrapPlan(), "refusal", "{}"),
            bad("/launch/refusal", "not part of a linux-bwrap plan"));
  EXPECT_EQ(read(BwrapPlan(), "launcher", "[\"/usr/bin/sudo\"]"),
            bad("/launch/launcher", "not part of a linux-bwrap plan"));
  EXPECT_EQ(read(CommonPlan(), "mounts", "[]"), bad("/launch/mounts", "not part of a none plan"));
  EXPECT_EQ(read(RemotePlan(), "syscall_filter", "null"),
            bad("/launch/syscall_filter", "not part of an opensandbox plan"));
}

TEST(Validate, PlatformPolicyRootsMountsAndKeys) {
  LaunchPlan p = BwrapPlan();
  p.platform = Platform::kMacos;
  EXPECT_EQ(First(p), (PlanProblem{"/platform", "a linux-bwrap plan runs on linux, not 'macos'"}));
  p = SeatbeltPlan();
  p.platform = Platform::kLinux;
  EXPECT_EQ(First(p),
            (PlanProblem{"/platform", "a macos-seatbelt plan runs on macos, not 'linux'"}));
  p = BwrapPlan();
  p.policy.type = PolicyType::kDangerFullAccess;
  EXPECT_EQ(First(p), (PlanProblem{"/policy/type",
                                   "a danger-full-access policy runs unconfined, "
                                   "not in a linux-bwrap sandbox"}));
  p = BwrapPlan();
  p.roots[1].writable_bind = true;
  EXPECT_EQ(First(p),
            (PlanProblem{"/roots/1/writable_bind", "a root skipped as duplicate is not bound"}));
  p = BwrapPlan();
  p.roots[0].skip_reason = "missing";
  EXPECT_EQ(First(p), (PlanProblem{"/roots/0/skip_reason", "a root nothing skips has no reason"}));
  p = BwrapPlan();
  p.roots[1].skip_reason = "";
  EXPECT_EQ(First(p), (PlanProblem{"/roots/1/skip_reason", "a skipped root needs a reason"}));
  p = BwrapPlan();
  p.roots[0].canonical = "";
  EXPECT_EQ(First(p),
            (PlanProblem{"/roots/0/canonical", "a bound root needs its absolute canonical path"}));
  p = BwrapPlan();
  p.bwrap()->mounts[0].source = "";
  EXPECT_EQ(First(p), (PlanProblem{"/launch/mounts/0/source",
                                   "a read-only-bind needs an absolute source path"}));
  p = BwrapPlan();
  p.bwrap()->mounts[1].source = "/x";
  EXPECT_EQ(First(p), (PlanProblem{"/launch/mounts/1/source", "a tmpfs mount has no source"}));
  p = BwrapPlan();
  p.bwrap()->mounts[2].dest = "tmp";
  EXPECT_EQ(First(p), (PlanProblem{"/launch/mounts/2/dest", "expected an absolute path"}));
  p = RemotePlan();
  p.remote()->api_key = {ApiKeySource::Kind::kEnv, "", {}};
  EXPECT_EQ(First(p),
            (PlanProblem{"/launch/remote/api_key/name", "the env key source needs a name"}));
  p = RemotePlan();
  p.remote()->api_key.origin.file = "";
  EXPECT_EQ(First(p), (PlanProblem{"/launch/remote/api_key/origin",
                                   "a config key source needs the config file"}));
  p = SeatbeltPlan();
  p.seatbelt()->writable_roots[0].read_only[0].path = "w/.codewhale";
  EXPECT_EQ(First(p), (PlanProblem{"/launch/seatbelt/writable_roots/0/read_only/0/path",
                                   "expected an absolute path"}));
  p = SeatbeltPlan();
  p.seatbelt()->loopback_proxy_ports = {0};
  EXPECT_EQ(First(p),
            (PlanProblem{"/launch/seatbelt/loopback_proxy_ports/0", "expected 1 to 65535"}));
  p = RemotePlan();
  p.remote()->execd_port = 0;
  EXPECT_EQ(First(p), (PlanProblem{"/launch/remote/execd_port", "expected 1 to 65535"}));
}

// A mount's role must fit its operation and paths: the runtime picks the
// masks it checks by role, so an edited plan cannot relabel a deny mask as
// the base view's /tmp, or a writable bind as a protected name.
TEST(Validate, AMountsRoleMustFitIt) {
  LaunchPlan p = BwrapPlan();
  p.bwrap()->mounts[1].dest = "/home/dev/.ssh";  // a tmpfs mask claiming to be the private /tmp
  EXPECT_EQ(First(p), (PlanProblem{"/launch/mounts/1/role",
                                   "a base mount cannot be a tmpfs at '/home/dev/.ssh'"}));
  p = BwrapPlan();
  p.bwrap()->mounts[1].role = MountRole::kKernelMask;
  EXPECT_EQ(First(p), (PlanProblem{"/launch/mounts/1/role",
                                   "a kernel-mask mount cannot be a tmpfs at '/tmp'"}));
  p = BwrapPlan();
  p.bwrap()->mounts.push_back({MountOp::kWritableBind, "/w", "/w", "w", {}, MountRole::kProtected});
  EXPECT_EQ(First(p), (PlanProblem{"/launch/mounts/3/role",
                                   "a protected mount cannot be a writable-bind of '/w' at '/w'"}));
  p = BwrapPlan();
  p.bwrap()->mounts.push_back(
      {MountOp::kWritableBind, "/etc", "/w", "w", {}, MountRole::kRootBind});
  EXPECT_EQ(First(p),
            (PlanProblem{"/launch/mounts/3/role",
                         "a root-bind mount cannot be a writable-bind of '/etc' at '/w'"}));
  p = BwrapPlan();
  p.bwrap()->mounts.push_back({MountOp::kReadOnlyBind, "/w", "/w", "w", {}, MountRole::kTmpView});
  EXPECT_EQ(First(p), (PlanProblem{"/launch/mounts/3/role",
                                   "a tmp-view mount cannot be a read-only-bind of '/w' at '/w'"}));
  p = BwrapPlan();
  p.bwrap()->mounts.push_back({MountOp::kReadOnlyBind, "/w", "/w", "w", {}, MountRole::kDenyMask});
  EXPECT_EQ(First(p),
            (PlanProblem{"/launch/mounts/3/role",
                         "a deny-mask mount cannot be a read-only-bind of '/w' at '/w'"}));
  // What the compiler makes fits.
  p = BwrapPlan();
  p.bwrap()->mounts.push_back(
      {MountOp::kReadOnlyBind, "/dev/null", "/w/k", "w", {}, MountRole::kDenyMask});
  p.bwrap()->mounts.push_back({MountOp::kTmpfs, "", "/w/d", "w", {}, MountRole::kDenyMask});
  p.bwrap()->mounts.push_back(
      {MountOp::kReadOnlyBind, "/dev/null", "/proc/kcore", "k", {}, MountRole::kKernelMask});
  p.bwrap()->mounts.push_back(
      {MountOp::kReadOnlyBind, "/proc/sys", "/proc/sys", "k", {}, MountRole::kKernelReadOnly});
  EXPECT_EQ(Validate(p), std::vector<PlanProblem>{});
}

// The record names the user one way: its id alone (the compile asked no
// more) or the whole passwd entry. Each reads back as written; both at once
// is not a plan this cwsc writes.
TEST(Validate, ConsultedUserIsItsIdOrTheWholeEntryNotBoth) {
  LaunchPlan p = BwrapPlan();
  p.consulted.emplace().uid = 1000;
  absl::StatusOr<LaunchPlan> back = PlanFromJson(*PlanToJson(p), "p.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->consulted, p.consulted);
  EXPECT_NE(PlanToJson(p)->find("\"uid\": 1000"), std::string::npos);
  p.consulted->uid.reset();
  p.consulted->user = ConsultedUser{1000, 1000, {1000, 27}, "dev", "/home/dev"};
  back = PlanFromJson(*PlanToJson(p), "p.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->consulted, p.consulted);
  p.consulted->uid = 1000;
  EXPECT_EQ(First(p),
            (PlanProblem{"/consulted/uid",
                         "a plan records the user id alone or the whole user, not both"}));
  EXPECT_EQ(PlanFromJson(*PlanToJson(p), "p.json").status().message(),
            "p.json: error: bad plan at '/consulted/uid': a plan records the user id alone or "
            "the whole user, not both\n");
}

// The example: kind refused with "refusal": null is refused on read.
TEST(Validate, RunsOnEveryPlanRead) {
  std::string text = *PlanToJson(RefusedPlan());
  size_t at = text.find("\"refusal\": {");
  ASSERT_NE(at, std::string::npos);
  size_t end = text.find("}\n    }", at);  // the refusal's origin, then the refusal
  ASSERT_NE(end, std::string::npos);
  text.replace(at, end + 7 - at, "\"refusal\": null");
  EXPECT_EQ(PlanFromJson(text, "p.json").status().message(),
            "p.json: error: bad plan at '/launch/refusal': a refused plan needs a refusal\n");
}

// A version 1 plan gets an error naming its version, before anything else is read.
TEST(PlanJson, Version1PlanIsRefusedByName) {
  EXPECT_EQ(
      PlanFromJson("{\"schema_version\": 1, \"kind\": \"refused\", \"refusal\": null}", "old.json")
          .status()
          .message(),
      "old.json: error: bad plan at '/schema_version': schema_version 1 is no longer read "
      "(this cwsc reads version 5); compile the plan again with this cwsc\n");
  // Version 2 had no record of the facts its compile consulted, which the
  // exec-time recheck replays: it is refused the same way.
  EXPECT_EQ(PlanFromJson("{\"schema_version\": 2, \"kind\": \"linux-bwrap\"}", "v2.json")
                .status()
                .message(),
            "v2.json: error: bad plan at '/schema_version': schema_version 2 is no longer read "
            "(this cwsc reads version 5); compile the plan again with this cwsc\n");
  // Version 3 had no mount roles, which the runtime reads to pick the masks
  // it checks: refused the same way.
  EXPECT_EQ(PlanFromJson("{\"schema_version\": 3, \"kind\": \"linux-bwrap\"}", "v3.json")
                .status()
                .message(),
            "v3.json: error: bad plan at '/schema_version': schema_version 3 is no longer read "
            "(this cwsc reads version 5); compile the plan again with this cwsc\n");
  // Version 4 recorded the whole user where the compile asked only its id,
  // and its recheck would refuse on changes the compile never read: refused
  // the same way.
  EXPECT_EQ(PlanFromJson("{\"schema_version\": 4, \"kind\": \"linux-bwrap\"}", "v4.json")
                .status()
                .message(),
            "v4.json: error: bad plan at '/schema_version': schema_version 4 is no longer read "
            "(this cwsc reads version 5); compile the plan again with this cwsc\n");
}

// Every plan golden reads back to the same bytes (JSON -> plan -> JSON).
TEST(PlanJson, EveryGoldenPlanRoundTrips) {
  const char* root = std::getenv("CWSC_SOURCE_ROOT");
  std::filesystem::path dir = std::filesystem::path(root ? root : ".") / "tests/golden";
  int plans = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().filename() != "plan.json") continue;
    SCOPED_TRACE(entry.path().string());
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<LaunchPlan> plan = PlanFromJson(text.str(), entry.path().string());
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(*PlanToJson(*plan), text.str());
    ++plans;
  }
  EXPECT_GE(plans, 14);
}

TEST(PlanJson, KeyOrderIsStable) {
  std::string text = *PlanToJson(FullPlan());
  EXPECT_EQ(text.find("{\n  \"schema_version\": 5,\n  \"kind\": \"linux-bwrap\""), 0u) << text;
  EXPECT_EQ(text.back(), '\n');
}

TEST(PlanJson, MalformedJsonNamesLineAndColumn) {
  absl::StatusOr<LaunchPlan> r = PlanFromJson("{\n  \"kind\": ,\n}", "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "bad.json:2:11: error: malformed plan JSON\n");
}

// A number JSON can spell but a double cannot hold is malformed, with its place.
TEST(PlanJson, NumberOverflowNamesLineAndColumn) {
  absl::StatusOr<LaunchPlan> r = PlanFromJson("{\n  \"schema_version\": 1e309\n}", "big.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "big.json:2:21: error: malformed plan JSON: number out of range\n");
}

// An integer outside int's range is rejected, not truncated (2^32 + 1 would read as 1).
TEST(PlanJson, IntegerOutOfRangeIsRejected) {
  std::string text = *PlanToJson(FullPlan());
  text.replace(text.find("\"schema_version\": 5"), 19, "\"schema_version\": 5294967297");
  absl::StatusOr<LaunchPlan> r = PlanFromJson(text, "p.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "p.json: error: bad plan at '/schema_version': integer out of range\n");
}

TEST(PlanJson, WrongTypeNamesThePointer) {
  std::string text = *PlanToJson(FullPlan());
  size_t at = text.find("\"network_access\": true");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 22, "\"network_access\": \"yes\"");
  absl::StatusOr<LaunchPlan> r = PlanFromJson(text, "p.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "p.json: error: bad plan at '/policy/network_access': expected a boolean\n");
}

TEST(PlanJson, UnknownKindAndSchemaVersionAreRejected) {
  std::string text = *PlanToJson(FullPlan());
  std::string k = text;
  k.replace(k.find("\"linux-bwrap\""), 13, "\"docker\"");
  EXPECT_EQ(PlanFromJson(k, "p.json").status().message(),
            "p.json: error: bad plan at '/kind': unknown value 'docker': expected none, "
            "linux-bwrap, macos-seatbelt, launcher+bwrap, opensandbox, refused or "
            "linux-landlock\n");
  std::string v = text;
  v.replace(v.find("\"schema_version\": 5"), 19, "\"schema_version\": 9");
  EXPECT_EQ(PlanFromJson(v, "p.json").status().message(),
            "p.json: error: bad plan at '/schema_version': unsupported schema_version 9 (this cwsc "
            "reads 5)\n");
  EXPECT_EQ(PlanFromJson("[]", "p.json").status().message(),
            "p.json: error: bad plan at '': expected an object\n");
}

// The plan is a closed format (docs/plan.md, "Compatibility"): a key this
// cwsc does not know is refused wherever it is, since ignoring it could drop a
// restriction a newer writer meant.
TEST(PlanJson, UnknownFieldsAreRejectedEverywhere) {
  std::string text = *PlanToJson(FullPlan());
  nlohmann::ordered_json plan = nlohmann::ordered_json::parse(text);
  for (const char* w :
       {"", "/policy", "/policy/origin", "/wrapper", "/roots/0", "/roots/0/protected/0",
        "/denied_read/0", "/env_set/0", "/skipped/0", "/warnings/0", "/expectations/0",
        "/launch/mounts/0", "/launch/syscall_filter", "/launch/syscall_filter/rules/0",
        "/launch/syscall_filter/rules/0/args/0"}) {
    std::string where = w;
    SCOPED_TRACE(where);
    nlohmann::ordered_json j = plan;
    nlohmann::ordered_json::json_pointer ptr(where);
    ASSERT_TRUE(j.contains(ptr)) << where;
    ASSERT_TRUE(j[ptr].is_object()) << where;
    j[ptr]["future_restriction"] = true;
    EXPECT_EQ(PlanFromJson(j.dump(2), "p.json").status().message(),
              "p.json: error: bad plan at '" + where +
                  "/future_restriction': unknown field (schema_version 5 has no such field)\n");
  }
}

// What docs/plan.schema.json says and the reader did not check: an origin's
// position comes with its file, and the permission mode is one of four.
TEST(PlanJson, PositionNeedsItsFileAndModeIsCanonical) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(*PlanToJson(FullPlan()));
  nlohmann::ordered_json k = j;
  k["mode_origin"]["line"] = 3;
  EXPECT_EQ(PlanFromJson(k.dump(), "p.json").status().message(),
            "p.json: error: bad plan at '/mode_origin/line': a position needs its file\n");
  k = j;
  k["permission_mode"] = "yolo";
  EXPECT_EQ(PlanFromJson(k.dump(), "p.json").status().message(),
            "p.json: error: bad plan at '/permission_mode': unknown value 'yolo': expected plan, "
            "ask, auto-review or full-access\n");
}

TEST(PlanJson, NonUtf8PathIsAnErrorNotAChangedPath) {
  LaunchPlan p = FullPlan();
  p.cwd = std::string("/w/\xff\xfe");
  absl::StatusOr<std::string> text = PlanToJson(p);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("not valid UTF-8"), absl::string_view::npos);
}

}  // namespace
}  // namespace cwsc::ir
