#include "ir/plan_json.h"

#include <gtest/gtest.h>

namespace cwsc::ir {
namespace {

LaunchPlan FullPlan() {
  LaunchPlan p;
  p.kind = PlanKind::kLinuxBwrap;
  p.platform = "linux";
  p.permission_mode = "ask";
  p.mode_origin = Origin::Cli("--mode ask");
  p.policy.type = PolicyType::kWorkspaceWrite;
  p.policy.writable_roots = {"/w", "/extra"};
  p.policy.network_access = true;
  p.policy.origin = Origin::Config("sandbox_mode", "c.toml", 3, 16);
  p.policy.network_origin = Origin::Default("mode");
  p.posture_label = "workspace-write (...)";
  p.cwd = "/w";
  Root r;
  r.path = "/w";
  r.canonical = "/w";
  r.source = RootSource::kCwd;
  r.mounted = true;
  r.protected_paths.push_back({"/w/.codewhale", "/w/.codewhale", true, "", Origin::Default("p")});
  r.origin = Origin::Fact("cwd");
  p.roots.push_back(r);
  p.wrapper = {"/usr/bin/bwrap", true, Origin::Default("d"), true, true, ""};
  p.share_net = true;
  p.mounts.push_back({MountOp::kRoBind, "/", "/", "root", Origin::Default("base")});
  p.mounts.push_back({MountOp::kTmpfs, "", "/tmp", "tmp", Origin::Default("base")});
  p.denied_read.push_back({"/h/.ssh", "~/.ssh", Origin::Default("built-in")});
  p.env_allow = {"PATH", "LC_*"};
  p.env_set.push_back({"CODEWHALE_SANDBOX", "bwrap", Origin::Default("marker")});
  p.skipped.push_back({"writable root", "/missing", "missing", Origin::Env("TMPDIR")});
  p.warnings.push_back({"many-mounts", "60 mounts", Origin::Default("count")});
  Seatbelt sb;
  sb.params = {{"WRITABLE_ROOT_0", "/w", Origin::Default("r")}};
  sb.darwin_cache = true;
  sb.npm_cache = true;
  sb.loopback_proxy_ports = {8080};
  p.seatbelt = sb;
  Remote remote;
  remote.contract = "codewhale";
  remote.url = "http://127.0.0.1:1";
  remote.url_origin = Origin::Env("CODEWHALE_SANDBOX_URL");
  remote.api_key_source = "env CODEWHALE_SANDBOX_API_KEY";
  remote.not_enforced = {"writable roots"};
  p.remote = remote;
  p.refusal = Refusal{"because", Origin::Default("r")};
  return p;
}

TEST(PlanJson, RoundTripsEveryField) {
  LaunchPlan p = FullPlan();
  absl::StatusOr<std::string> text = PlanToJson(p);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<LaunchPlan> back = PlanFromJson(*text, "p.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, p);
  EXPECT_EQ(*PlanToJson(*back), *text);  // canonical: same bytes again
}

TEST(PlanJson, KeyOrderIsStable) {
  std::string text = *PlanToJson(FullPlan());
  EXPECT_EQ(text.find("{\n  \"schema_version\": 1,\n  \"kind\": \"linux-bwrap\""), 0u) << text;
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
  text.replace(text.find("\"schema_version\": 1"), 19, "\"schema_version\": 4294967297");
  absl::StatusOr<LaunchPlan> r = PlanFromJson(text, "p.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "p.json: error: bad plan at '/schema_version': integer out of range\n");
}

TEST(PlanJson, WrongTypeNamesThePointer) {
  std::string text = *PlanToJson(FullPlan());
  size_t at = text.find("\"share_net\": true");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 17, "\"share_net\": \"yes\"");
  absl::StatusOr<LaunchPlan> r = PlanFromJson(text, "p.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "p.json: error: bad plan at '/share_net': expected a boolean\n");
}

TEST(PlanJson, UnknownKindAndSchemaVersionAreRejected) {
  std::string text = *PlanToJson(FullPlan());
  std::string k = text;
  k.replace(k.find("\"linux-bwrap\""), 13, "\"docker\"");
  EXPECT_EQ(PlanFromJson(k, "p.json").status().message(),
            "p.json: error: bad plan at '/kind': unknown value 'docker'\n");
  std::string v = text;
  v.replace(v.find("\"schema_version\": 1"), 19, "\"schema_version\": 9");
  EXPECT_EQ(PlanFromJson(v, "p.json").status().message(),
            "p.json: error: bad plan at '/schema_version': unsupported schema_version 9 (this cwsc "
            "reads 1)\n");
  EXPECT_EQ(PlanFromJson("[]", "p.json").status().message(),
            "p.json: error: bad plan at '': expected an object\n");
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
