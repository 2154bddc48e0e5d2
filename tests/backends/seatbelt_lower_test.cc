// Seatbelt lowering and emission beyond the B-90 catalogue (docs/behavior.md): the
// read-only + network variant and its proxy-port inference, injection-proof
// parameters, emitter consistency errors, determinism and profile size.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/seatbelt.h"
#include "compiler/lower_seatbelt.h"
#include "gtest/gtest.h"
#include "ir/plan_json.h"
#include "tests/backends/seatbelt_fixtures.h"

namespace cwsc::backends {
namespace {

using ir::PolicyType;
using namespace ::cwsc::backends::sbtest;  // NOLINT: test fixtures

TEST(SeatbeltProxyPort, InferenceTable) {
  struct Case {
    const char* value;
    std::optional<int> port;
  };
  const Case cases[] = {
      {"http://127.0.0.1:3128", 3128},
      {"localhost:8080", 8080},
      {"localhost", 80},
      {"https://localhost", 443},
      {"socks5://[::1]", 1080},
      {"socks4a://localhost", 1080},
      {"socks5h://localhost:9050", 9050},
      {"SOCKS5://LOCALHOST", 1080},
      {"http://user:pw@127.0.0.1:8888/path?q#f", 8888},
      {"  http://localhost:81  ", 81},
      {"http://[::1]:3129", 3129},
      {"http://localhost:/", 80},
      {"ftp://localhost", 80},
      {"http://proxy.corp:8080", std::nullopt},
      {"http://127.0.0.2:80", std::nullopt},
      {"http://10.0.0.1:3128", std::nullopt},
      {"http://localhost:99999", std::nullopt},
      {"http://localhost:0", std::nullopt},
      {"http://localhost:80x", std::nullopt},
      {"http://[::1", std::nullopt},
      {"http://a:b:c", std::nullopt},
      {"", std::nullopt},
      {"://localhost", std::nullopt},
      {"1http://localhost", std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(compiler::LoopbackProxyPort(c.value), c.port) << c.value;
  }
}

ir::LaunchPlan ReadOnlyNet(const std::string& env) {
  return Lowered(MakePlan(PolicyType::kReadOnly, /*network=*/true), MacFacts(env));
}

TEST(SeatbeltReadOnlyNetwork, Ipv4AndResolverOnly) {
  ir::LaunchPlan plan = ReadOnlyNet("");
  EXPECT_TRUE(plan.seatbelt()->loopback_proxy_ports.empty());
  EXPECT_FALSE(plan.seatbelt()->network_dropped_for_proxy);
  std::string text = Profile(plan);
  EXPECT_TRUE(absl::StrContains(
      text,
      "; Network: outbound IPv4 and the system DNS resolver only (read-only + network)\n"
      "(allow system-socket)\n"
      "(allow network-outbound (remote ip4 \"*:*\"))\n"
      "(deny network-outbound (remote ip4 \"localhost:*\"))\n"
      "(deny network-outbound (remote ip6 \"*:*\"))\n"
      "(allow network-outbound (remote unix-socket (path-literal "
      "\"/private/var/run/mDNSResponder\")))\n"));
  EXPECT_FALSE(absl::StrContains(text, "(allow network-inbound)"));
  EXPECT_FALSE(absl::StrContains(text, "network-bind"));
  SbplProfile p = Evaluate(plan);
  EXPECT_TRUE(p.CanConnect(SbplNet::kIPv4, "93.184.216.34", 443));
  EXPECT_TRUE(p.CanConnect(SbplNet::kIPv4, "8.8.8.8", 53));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv4, "127.0.0.1", 80));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv6, "::1", 80));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv6, "2606:2800:220:1::1", 443));
  EXPECT_TRUE(p.CanConnectUnix("/private/var/run/mDNSResponder"));
  EXPECT_FALSE(p.CanConnectUnix("/private/var/run/docker.sock"));
  EXPECT_FALSE(p.CanWrite("/Users/dev/proj/x"));
}

TEST(SeatbeltReadOnlyNetwork, LoopbackProxyPortsOpenOnlyThosePorts) {
  ir::LaunchPlan plan = ReadOnlyNet(
      "  HTTP_PROXY: http://127.0.0.1:3128\n"
      "  https_proxy: localhost:8443\n"
      "  ALL_PROXY: socks5://proxy.corp:1080\n");
  EXPECT_EQ(plan.seatbelt()->loopback_proxy_ports, (std::vector<int>{3128, 8443}));
  EXPECT_FALSE(plan.seatbelt()->network_dropped_for_proxy);
  std::string text = Profile(plan);
  EXPECT_TRUE(absl::StrContains(text,
                                "(deny network-outbound (remote ip6 \"*:*\"))\n"
                                "(allow network-outbound (remote ip \"localhost:3128\"))\n"
                                "(allow network-outbound (remote ip \"localhost:8443\"))\n"));
  SbplProfile p = Evaluate(plan);
  EXPECT_TRUE(p.CanConnect(SbplNet::kIPv4, "127.0.0.1", 3128));
  EXPECT_TRUE(p.CanConnect(SbplNet::kIPv4, "127.0.0.1", 8443));
  EXPECT_TRUE(p.CanConnect(SbplNet::kIPv6, "::1", 3128));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv4, "127.0.0.1", 1080));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv4, "127.0.0.1", 22));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv6, "2001:db8::1", 3128));
  EXPECT_TRUE(p.CanConnect(SbplNet::kIPv4, "1.1.1.1", 1080));
}

TEST(SeatbeltReadOnlyNetwork, ProxyWithoutLoopbackPortDropsNetwork) {
  ir::LaunchPlan plan = ReadOnlyNet("  HTTP_PROXY: http://proxy.corp:8080\n  HTTPS_PROXY: \"\"\n");
  EXPECT_TRUE(plan.seatbelt()->network_dropped_for_proxy);
  ASSERT_EQ(plan.warnings.size(), 1u);
  EXPECT_EQ(plan.warnings[0].code, "seatbelt-network-dropped");
  EXPECT_EQ(plan.warnings[0].message,
            "read-only + network: proxy variables are set (HTTP_PROXY) but none names a loopback "
            "proxy port; network is denied (fail closed)");
  std::string text = Profile(plan);
  EXPECT_TRUE(absl::StrContains(
      text, "; Network: none (proxy variables are set but name no loopback port)\n"));
  EXPECT_FALSE(absl::StrContains(text, "network-outbound"));
  EXPECT_FALSE(absl::StrContains(text, "system-socket"));
  SbplProfile p = Evaluate(plan);
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv4, "93.184.216.34", 443));
  EXPECT_FALSE(p.CanConnectUnix("/private/var/run/mDNSResponder"));
}

TEST(SeatbeltReadOnlyNetwork, OnlyForReadOnlyWithNetwork) {
  const std::string proxy = "  HTTP_PROXY: http://127.0.0.1:3128\n";
  ir::LaunchPlan ro = Lowered(MakePlan(PolicyType::kReadOnly, false), MacFacts(proxy));
  EXPECT_TRUE(ro.seatbelt()->loopback_proxy_ports.empty());
  EXPECT_FALSE(absl::StrContains(Profile(ro), "network"));
  ir::LaunchPlan ww = Lowered(DefaultPlan(/*network=*/true), MacFacts(proxy));
  EXPECT_TRUE(ww.seatbelt()->loopback_proxy_ports.empty());
  SbplProfile p = Evaluate(ww);
  EXPECT_TRUE(
      p.CanConnect(SbplNet::kIPv4, "127.0.0.1", 22));  // full network, as the reference has it
  EXPECT_TRUE(p.CanConnect(SbplNet::kIPv6, "2001:db8::1", 443));
}

// Paths that would break an SBPL string or comment if they were written into
// the profile. They travel as -D parameters, so the profile never sees them.
const std::vector<std::string>& HostilePaths() {
  static const std::vector<std::string>* p = new std::vector<std::string>{
      "/Users/dev/we\"ird",
      "/Users/dev/back\\slash\\\"",
      "/Users/dev/paren) (allow file-write* (subpath \"/\")) (",
      "/Users/dev/semi;colon",
      "/Users/dev/new\nline\n(allow default)\n",
      std::string("/Users/dev/bytes-\xff\xfe\x80-\xc3\x28"),
      "/Users/dev/#\"^/\"",
  };
  return *p;
}

TEST(SeatbeltInjection, PathsNeverChangeTheProfile) {
  ir::LaunchPlan benign_plan =
      Lowered(MakePlan(PolicyType::kWorkspaceWrite, false,
                       {MakeRoot("/Users/dev/benign", {"/Users/dev/benign/.codewhale"})},
                       {"/Users/dev/benign/secret"}));
  const std::string benign = Profile(benign_plan);
  for (const std::string& hostile : HostilePaths()) {
    SCOPED_TRACE(hostile);
    ir::LaunchPlan plan =
        Lowered(MakePlan(PolicyType::kWorkspaceWrite, false,
                         {MakeRoot(hostile, {hostile + "/.codewhale"})}, {hostile + "/secret"}));
    EXPECT_EQ(Profile(plan), benign);  // byte-identical: the path is not in it
    std::vector<std::string> argv = Argv(plan, {"true"});
    EXPECT_EQ(argv[3], "-DWRITABLE_ROOT_0=" + hostile);
    EXPECT_EQ(argv[4], "-DWRITABLE_ROOT_0_RO_0=" + hostile + "/.codewhale");
    EXPECT_EQ(argv[argv.size() - 3], "-DDENY_READ_0=" + hostile + "/secret");
    SbplProfile p = Evaluate(plan);
    EXPECT_TRUE(p.CanWrite(hostile + "/file"));
    EXPECT_FALSE(p.CanWrite(hostile + "/.codewhale/config.toml"));
    EXPECT_FALSE(p.CanRead(hostile + "/secret"));
    EXPECT_FALSE(p.CanRead(hostile + "/secret/key"));
    EXPECT_TRUE(p.CanRead(hostile + "/file"));
    EXPECT_FALSE(p.CanWrite("/etc/passwd"));
    EXPECT_FALSE(p.CanWrite("/Users/dev/other"));
    EXPECT_FALSE(p.CanConnect(SbplNet::kIPv4, "1.1.1.1", 443));
  }
}

TEST(SeatbeltInjection, NulByteIsRefused) {
  ir::LaunchPlan plan = Lowered(
      MakePlan(PolicyType::kWorkspaceWrite, false, {MakeRoot(std::string("/Users/dev/a\0b", 14))}));
  absl::StatusOr<EmittedArgv> argv = EmitSeatbeltArgv(plan, {"true"});
  ASSERT_FALSE(argv.ok());
  EXPECT_EQ(argv.status().message(), "Seatbelt parameter WRITABLE_ROOT_0 contains a NUL byte");
}

TEST(SeatbeltLowering, RelativeValuesAreSkippedNotEmitted) {
  ir::LaunchPlan plan = MakePlan(PolicyType::kWorkspaceWrite, false,
                                 {MakeRoot("relative/root"), MakeRoot("/Users/dev/proj")},
                                 {"also/relative", "/Users/dev/.ssh"});
  plan.roots[0].canonical.clear();
  plan = Lowered(plan);
  EXPECT_EQ(ParamValue(plan, "WRITABLE_ROOT_0"), "/Users/dev/proj");
  EXPECT_FALSE(HasParam(plan, "WRITABLE_ROOT_1"));
  EXPECT_EQ(ParamValue(plan, "DENY_READ_0"), "/Users/dev/.ssh");
  EXPECT_FALSE(HasParam(plan, "DENY_READ_1"));
  ASSERT_GE(plan.skipped.size(), 2u);
  EXPECT_EQ(plan.skipped[0].what, "Seatbelt writable root");
  EXPECT_EQ(plan.skipped[0].path, "relative/root");
  EXPECT_EQ(plan.skipped[0].reason, "not an absolute path; Seatbelt needs one");
  Evaluate(plan);
}

TEST(SeatbeltLowering, MissingRootsAreKeptAsGiven) {
  // docs/behavior.md B-61: roots are not deduplicated and missing ones stay, raw.
  ir::LaunchPlan plan = MakePlan(
      PolicyType::kWorkspaceWrite, false,
      {MakeRoot("/Users/dev/proj"), MakeRoot("/Users/dev/proj"), MakeRoot("/Users/dev/missing")});
  plan.roots[2].canonical.clear();
  plan = Lowered(plan);
  EXPECT_EQ(ParamValue(plan, "WRITABLE_ROOT_0"), "/Users/dev/proj");
  EXPECT_EQ(ParamValue(plan, "WRITABLE_ROOT_1"), "/Users/dev/proj");
  EXPECT_EQ(ParamValue(plan, "WRITABLE_ROOT_2"), "/Users/dev/missing");
}

TEST(SeatbeltEmitter, ConsistencyErrors) {
  ir::LaunchPlan no_section = MakePlan(PolicyType::kWorkspaceWrite, false);
  no_section.launch = ir::Unconfined{};
  absl::StatusOr<EmittedArgv> r = EmitSeatbeltProfile(no_section);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(r.status().message(), "plan kind none has no Seatbelt profile");

  // The paths are typed, so no parameter can be out of order or unknown;
  // what remains is a proxy port outside 1-65535.
  auto err = [](std::vector<int> ports) {
    ir::LaunchPlan plan = MakePlan(PolicyType::kReadOnly, !ports.empty());
    plan.launch = ir::Seatbelt{};
    plan.seatbelt()->loopback_proxy_ports = std::move(ports);
    absl::StatusOr<EmittedArgv> lines = EmitSeatbeltProfile(plan);
    return lines.ok() ? std::string("ok") : std::string(lines.status().message());
  };
  EXPECT_EQ(err({0}), "loopback proxy port 0 out of range");
  EXPECT_EQ(err({3128}), "ok");
}

TEST(SeatbeltEmitter, OriginsAndDeterminism) {
  ir::LaunchPlan plan = Lowered(DefaultPlan());
  absl::StatusOr<EmittedArgv> a = EmitSeatbeltProfile(plan);
  absl::StatusOr<EmittedArgv> b = EmitSeatbeltProfile(plan);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ((*a)[0].text, "");  // Codewhale's profile text starts with a newline
  EXPECT_EQ((*a)[1].text, "(version 1)");
  EXPECT_EQ((*a)[1].origin.Describe(),
            ir::Origin::Default("Seatbelt base policy (docs/behavior.md B-62)").Describe());
  bool found = false;
  for (const EmittedArg& l : *a) {
    if (l.text == "  (subpath (param \"WRITABLE_ROOT_1\"))") {
      found = true;
      EXPECT_EQ(l.origin, plan.roots[1].origin);
    }
    EXPECT_EQ(l.text.find('\n'), std::string::npos);
  }
  EXPECT_TRUE(found);
}

TEST(SeatbeltEmitter, PlanJsonRoundTripKeepsTheArtifact) {
  for (ir::LaunchPlan plan :
       {Lowered(DefaultPlan()), ReadOnlyNet("  HTTP_PROXY: http://127.0.0.1:3128\n"),
        ReadOnlyNet("  HTTP_PROXY: http://proxy.corp:8080\n")}) {
    plan.permission_mode = ir::PermissionMode::kAsk;
    absl::StatusOr<std::string> json = ir::PlanToJson(plan);
    ASSERT_TRUE(json.ok()) << json.status();
    absl::StatusOr<ir::LaunchPlan> back = ir::PlanFromJson(*json, "plan.json");
    ASSERT_TRUE(back.ok()) << back.status();
    ASSERT_NE(back->seatbelt(), nullptr);
    EXPECT_EQ(*back->seatbelt(), *plan.seatbelt());
    EXPECT_EQ(Argv(*back, {"true"}), Argv(plan, {"true"}));
  }
}

TEST(SeatbeltEmitter, DefaultProfilesStaySmall) {
  const std::string deny_env = "";
  std::vector<std::string> denied;
  for (int i = 0; i < 60; ++i) denied.push_back(absl::StrCat("/Users/dev/.secret", i));
  struct Named {
    const char* name;
    ir::LaunchPlan plan;
  };
  const Named plans[] = {
      {"workspace-write", Lowered(DefaultPlan())},
      {"workspace-write+network", Lowered(DefaultPlan(true))},
      {"read-only", Lowered(MakePlan(PolicyType::kReadOnly, false))},
      {"read-only+network+proxy", ReadOnlyNet("  HTTP_PROXY: http://127.0.0.1:3128\n")},
      {"workspace-write+60 deny rules",
       Lowered(MakePlan(PolicyType::kWorkspaceWrite, false, DefaultPlan().roots, denied))},
  };
  for (const Named& n : plans) {
    size_t size = Profile(n.plan).size();
    std::cout << "seatbelt profile size " << n.name << ": " << size << " bytes\n";
    ::testing::Test::RecordProperty(absl::StrCat("profile_bytes_", n.name), static_cast<int>(size));
    EXPECT_LT(size, 16384u) << n.name;
  }
}

}  // namespace
}  // namespace cwsc::backends
