// Unit tests of the SBPL evaluator: rule order, every filter it accepts and
// the exact message for every profile it refuses.
#include "backends/verify/sbpl_eval.h"

#include <chrono>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace cwsc::backends {
namespace {

SbplProfile MustParse(const std::string& text, const SbplParams& params = {}) {
  absl::StatusOr<SbplProfile> p = SbplProfile::Parse(text, params);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return *SbplProfile::Parse("(version 1)(deny default)", {});
  return *p;
}

SbplRequest Req(std::string op, std::string path = "", std::string vnode = "") {
  SbplRequest r;
  r.operation = std::move(op);
  r.path = std::move(path);
  r.vnode_type = std::move(vnode);
  return r;
}

std::string ParseError(const std::string& text, const SbplParams& params = {}) {
  absl::StatusOr<SbplProfile> p = SbplProfile::Parse(text, params);
  if (p.ok()) return "parsed";
  // The error is a diagnostic; its message is its rendering, one line.
  std::string m(p.status().message());
  if (!m.empty() && m.back() == '\n') m.pop_back();
  return m;
}

TEST(SbplEval, DenyDefaultDeniesEverything) {
  SbplProfile p = MustParse("(version 1)\n(deny default)\n");
  EXPECT_FALSE(p.CanRead("/etc/hosts"));
  EXPECT_FALSE(p.CanWrite("/tmp/x"));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv4, "1.1.1.1", 443));
  SbplDecision d = p.Decide(Req("file-read-data", "/x"));
  EXPECT_EQ(d.rule, 0);
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.rule_text, "(deny default)");
}

TEST(SbplEval, NoMatchingRuleMeansDenied) {
  SbplProfile p = MustParse("(version 1)(allow file-read* (subpath \"/a\"))");
  SbplRequest r = Req("file-read-data", "/b");
  SbplDecision d = p.Decide(r);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.rule, -1);
}

TEST(SbplEval, LastMatchingRuleWins) {
  const std::string allow_then_deny =
      "(version 1)\n(deny default)\n(allow file-read*)\n(deny file-read* (subpath \"/secret\"))\n";
  SbplProfile p = MustParse(allow_then_deny);
  EXPECT_TRUE(p.CanRead("/etc/hosts"));
  EXPECT_FALSE(p.CanRead("/secret"));
  EXPECT_FALSE(p.CanRead("/secret/key"));
  EXPECT_TRUE(p.CanRead("/secretive"));  // component-wise, not a string prefix

  const std::string deny_then_allow =
      "(version 1)\n(deny default)\n(deny file-read* (subpath \"/secret\"))\n(allow file-read*)\n";
  SbplProfile q = MustParse(deny_then_allow);
  EXPECT_TRUE(q.CanRead("/secret/key"));
  SbplRequest r = Req("file-read-data", "/secret/key");
  EXPECT_EQ(q.Decide(r).rule_text, "(allow file-read*)");
  EXPECT_EQ(q.Decide(r).line, 4);
}

TEST(SbplEval, SubpathLiteralAndRegex) {
  SbplProfile p = MustParse(
      "(version 1)(deny default)"
      "(allow file-read* (subpath \"/w/\"))"
      "(allow file-read* (literal \"/etc/hosts\"))"
      "(allow file-read* (regex #\"^/dev/ttys[0-9]+$\"))");
  EXPECT_TRUE(p.CanRead("/w"));
  EXPECT_TRUE(p.CanRead("/w/a/b"));
  EXPECT_FALSE(p.CanRead("/wx"));
  EXPECT_TRUE(p.CanRead("/etc/hosts"));
  EXPECT_FALSE(p.CanRead("/etc/hosts/x"));
  EXPECT_FALSE(p.CanRead("/etc"));
  EXPECT_TRUE(p.CanRead("/dev/ttys003"));
  EXPECT_FALSE(p.CanRead("/dev/ttys"));
  EXPECT_FALSE(p.CanRead("/dev/ttys1x"));
}

TEST(SbplEval, SubpathRootMatchesEveryAbsolutePath) {
  SbplProfile p = MustParse(
      "(version 1)(deny default)(allow file-write* (regex #\"^/\"))"
      "(allow file-read* (subpath \"/\"))");
  EXPECT_TRUE(p.CanWrite("/any/where"));
  EXPECT_TRUE(p.CanRead("/"));
  EXPECT_TRUE(p.CanRead("/x"));
}

TEST(SbplEval, RequireNotExcludesProtectedSubpath) {
  SbplParams params = {{"WRITABLE_ROOT_0", "/w"}, {"WRITABLE_ROOT_0_RO_0", "/w/.codewhale"}};
  SbplProfile p = MustParse(
      "(version 1)(deny default)\n"
      "(allow file-write*\n"
      "  (require-all (subpath (param \"WRITABLE_ROOT_0\")) (require-not (subpath (param "
      "\"WRITABLE_ROOT_0_RO_0\")))))\n",
      params);
  EXPECT_TRUE(p.CanWrite("/w/src/main.rs"));
  EXPECT_TRUE(p.CanWrite("/w"));
  EXPECT_FALSE(p.CanWrite("/w/.codewhale"));
  EXPECT_FALSE(p.CanWrite("/w/.codewhale/config.toml"));
  EXPECT_TRUE(p.CanWrite("/w/.codewhalex"));
  EXPECT_FALSE(p.CanWrite("/other/file.txt"));
}

TEST(SbplEval, ExtensionIsNecessaryButNeverSufficient) {
  SbplParams params = {{"R", "/w"}, {"RO", "/w/.deepseek"}};
  SbplProfile p = MustParse(
      "(version 1)(deny default)(allow file-write* (require-all (extension "
      "\"com.apple.app-sandbox.read-write\") (subpath (param \"R\")) (require-not (subpath "
      "(param \"RO\")))))",
      params);
  SbplRequest r = Req("file-write-data", "/w/f");
  EXPECT_FALSE(p.Decide(r).allowed);  // no extension held
  r.extensions = {"com.apple.app-sandbox.read-write"};
  EXPECT_TRUE(p.Decide(r).allowed);
  r.path = "/elsewhere/f";
  EXPECT_FALSE(p.Decide(r).allowed);  // extension alone does not open other paths
  r.path = "/w/.deepseek/config";
  EXPECT_FALSE(p.Decide(r).allowed);  // nor protected subpaths
  r.extensions = {"com.apple.app-sandbox.read"};
  r.path = "/w/f";
  EXPECT_FALSE(p.Decide(r).allowed);
}

TEST(SbplEval, VnodeTypeAndOperationFamilies) {
  SbplProfile p = MustParse(
      "(version 1)(deny default)\n(allow file-write-data\n  (require-all\n    (path "
      "\"/dev/null\")\n    (vnode-type CHARACTER-DEVICE)))\n");
  SbplRequest r = Req("file-write-data", "/dev/null", "CHARACTER-DEVICE");
  EXPECT_TRUE(p.Decide(r).allowed);
  r.vnode_type = "REGULAR-FILE";
  EXPECT_FALSE(p.Decide(r).allowed);
  r.vnode_type = "CHARACTER-DEVICE";
  r.operation = "file-write-create";  // file-write-data is not a family
  EXPECT_FALSE(p.Decide(r).allowed);
  EXPECT_FALSE(p.CanWrite("/dev/null"));

  SbplProfile q = MustParse(
      "(version 1)(deny default)(allow file-write*)(allow process-info* "
      "(target same-sandbox))");
  EXPECT_TRUE(q.CanWrite("/x"));
  SbplRequest info = Req("process-info-pidinfo");
  info.same_sandbox = true;
  EXPECT_TRUE(q.Decide(info).allowed);
  info.same_sandbox = false;
  EXPECT_FALSE(q.Decide(info).allowed);
}

TEST(SbplEval, SeveralFiltersInOneRuleMatchWhenAnyMatches) {
  SbplProfile p = MustParse(
      "(version 1)(deny default)(allow file-read* file-write* (literal \"/a\") (subpath \"/b\"))"
      "(allow mach-lookup (global-name \"x.y\") (global-name \"z\"))");
  EXPECT_TRUE(p.CanRead("/a"));
  EXPECT_TRUE(p.CanWrite("/b/c"));
  EXPECT_FALSE(p.CanRead("/c"));
  SbplRequest m = Req("mach-lookup");
  m.global_name = "z";
  EXPECT_TRUE(p.Decide(m).allowed);
  m.global_name = "q";
  EXPECT_FALSE(p.Decide(m).allowed);
}

TEST(SbplEval, RequireAny) {
  SbplProfile p = MustParse(
      "(version 1)(deny default)(allow file-read* (require-any (literal \"/a\") (literal "
      "\"/b\")))");
  EXPECT_TRUE(p.CanRead("/b"));
  EXPECT_FALSE(p.CanRead("/c"));
}

TEST(SbplEval, NetworkReadOnlyVariant) {
  SbplProfile p = MustParse(
      "(version 1)(deny default)\n"
      "(allow system-socket)\n"
      "(allow network-outbound (remote ip4 \"*:*\"))\n"
      "(deny network-outbound (remote ip4 \"localhost:*\"))\n"
      "(deny network-outbound (remote ip6 \"*:*\"))\n"
      "(allow network-outbound (remote ip \"localhost:3128\"))\n"
      "(allow network-outbound (remote unix-socket (path-literal "
      "\"/private/var/run/mDNSResponder\")))\n");
  EXPECT_TRUE(p.CanConnect(SbplNet::kIPv4, "93.184.216.34", 443));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv4, "127.0.0.1", 8080));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv4, "127.1.2.3", 22));
  EXPECT_TRUE(p.CanConnect(SbplNet::kIPv4, "127.0.0.1", 3128));
  EXPECT_TRUE(p.CanConnect(SbplNet::kIPv6, "::1", 3128));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv6, "::1", 8080));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv6, "2001:db8::1", 443));
  EXPECT_FALSE(p.CanConnect(SbplNet::kIPv6, "::ffff:127.0.0.1", 8080));
  EXPECT_TRUE(p.CanConnectUnix("/private/var/run/mDNSResponder"));
  EXPECT_FALSE(p.CanConnectUnix("/var/run/docker.sock"));
  SbplRequest s = Req("system-socket");
  EXPECT_TRUE(p.Decide(s).allowed);
  SbplRequest in = Req("network-inbound");
  EXPECT_FALSE(p.Decide(in).allowed);
}

TEST(SbplEval, UnconditionalNetwork) {
  SbplProfile p = MustParse("(version 1)(deny default)(allow network-outbound)");
  EXPECT_TRUE(p.CanConnect(SbplNet::kIPv6, "::1", 1));
  EXPECT_TRUE(p.CanConnectUnix("/var/run/docker.sock"));
  EXPECT_FALSE(p.CanRead("/x"));
}

TEST(SbplEval, StringsAreDataNotStructure) {
  // A parameter value is never parsed: quotes, parens and newlines stay data.
  SbplParams params = {{"R", "/w\") (allow default) (\"\n;x"}};
  SbplProfile p =
      MustParse("(version 1)(deny default)(allow file-write* (subpath (param \"R\")))", params);
  EXPECT_EQ(p.rule_count(), 2);
  EXPECT_TRUE(p.CanWrite("/w\") (allow default) (\"\n;x/f"));
  EXPECT_FALSE(p.CanWrite("/w"));
  // Escapes inside a literal decode to one path.
  SbplProfile q =
      MustParse("(version 1)(deny default)(allow file-read* (literal \"/a\\\"b\\\\c\"))");
  EXPECT_TRUE(q.CanRead("/a\"b\\c"));
}

TEST(SbplEval, CommentsAndWhitespace) {
  SbplProfile p =
      MustParse("; header\n(version 1) ; trailing\n\t(deny default)\r\n; (allow default)\n");
  EXPECT_EQ(p.rule_count(), 1);
  EXPECT_FALSE(p.CanRead("/"));
}

TEST(SbplEval, RejectsWhatItCannotUnderstand) {
  EXPECT_EQ(ParseError("(deny default)"), "profile:1:1: error: (version 1) must come first");
  EXPECT_EQ(ParseError(""), "profile:1:1: error: missing (version 1)");
  EXPECT_EQ(ParseError("(version 2)"), "profile:1:1: error: only (version 1) is supported");
  EXPECT_EQ(ParseError("(version 1)(version 1)"), "profile:1:12: error: duplicate (version ...)");
  EXPECT_EQ(ParseError("(version 1)\n(allow file-frobnicate)"),
            "profile:2:8: error: unknown operation 'file-frobnicate'");
  EXPECT_EQ(ParseError("(version 1)\n(allow file-read* (prefix \"/a\"))"),
            "profile:2:19: error: unsupported filter 'prefix'");
  EXPECT_EQ(ParseError("(version 1)\n(allow file-read* (subpath \"/a\")"),
            "profile:2:1: error: unbalanced '(': no matching ')'");
  EXPECT_EQ(ParseError("(version 1))"), "profile:1:12: error: expected '(' at top level");
  EXPECT_EQ(ParseError("(version 1)(allow file-read* (literal \"/a\\q\"))"),
            "profile:1:42: error: unsupported string escape '\\q'");
  EXPECT_EQ(ParseError("(version 1)(allow file-read* (literal \"/a"),
            "profile:1:42: error: unterminated string");
  EXPECT_EQ(ParseError("(version 1)(allow file-read* (subpath (param \"NOPE\")))"),
            "profile:1:39: error: parameter 'NOPE' is not defined");
  EXPECT_EQ(ParseError("(version 1)(allow file-read* (subpath (param \"R\")))", {{"R", "rel/x"}}),
            "profile:1:39: error: path must be absolute: \"rel/x\"");
  EXPECT_EQ(ParseError("(version 1)(allow file-read* (subpath \"\"))"),
            "profile:1:39: error: path must be absolute: \"\"");
  EXPECT_EQ(ParseError("(version 1)(allow network-outbound (remote ip \"example.com:80\"))"),
            "profile:1:47: error: host must be * or localhost");
  EXPECT_EQ(ParseError("(version 1)(allow network-outbound (remote ip \"*:70000\"))"),
            "profile:1:47: error: port must be * or 1-65535");
  EXPECT_EQ(ParseError("(version 1)(allow network-outbound (remote tcp \"*:80\"))"),
            "profile:1:44: error: unsupported remote kind 'tcp'");
  EXPECT_EQ(ParseError("(version 1)(allow (literal \"/a\"))"),
            "profile:1:12: error: a rule needs at least one operation");
  EXPECT_EQ(ParseError("(version 1)(allow file-read* (literal \"/a\") file-write*)"),
            "profile:1:45: error: expected a filter after the operations");
  EXPECT_EQ(ParseError("(version 1)(deny default (literal \"/a\"))"),
            "profile:1:12: error: 'default' takes no other operation and no filter");
  EXPECT_EQ(ParseError("(version 1)(debug deny)"), "profile:1:12: error: unsupported form 'debug'");
  EXPECT_EQ(ParseError("(version 1)(allow file-read* (regex #\"[\"))"),
            "profile:1:37: error: invalid regular expression");
  EXPECT_EQ(
      ParseError("(version 1)(allow file-read* (require-not (literal \"/a\") (literal \"/b\")))"),
      "profile:1:30: error: (require-not ...) takes exactly one filter");
  EXPECT_EQ(ParseError("(version 1)(allow file-write-data (vnode-type PIPE))"),
            "profile:1:35: error: (vnode-type ...) takes one vnode type symbol");
  EXPECT_EQ(ParseError("(version 1)(allow signal (target others))"),
            "profile:1:26: error: only (target same-sandbox) is supported");
  EXPECT_EQ(ParseError("(version 1)(allow file-read* #t)"),
            "profile:1:30: error: only #\"...\" regex literals are supported");
  EXPECT_EQ(ParseError("(version 1)(allow file-read* (literal \"/a\"\x01))"),
            "profile:1:43: error: unexpected character '\\x01'");
}

// A regex that makes a backtracking matcher take exponential time is decided
// at once; a regex literal is at most 1024 bytes.
TEST(SbplEval, RegexCostIsBounded) {
  SbplProfile p = MustParse("(version 1)(deny default)(allow file-read* (regex #\"#" +
                            std::string(40, '*') + "J" + std::string(14, '*') + "Q\"))");
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(p.CanRead("/home/dev/" + std::string(40, '#') + "x"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(ParseError("(version 1)(allow file-read* (regex #\"" + std::string(1025, 'a') + "\"))"),
            "profile:1:37: error: regular expression longer than 1024 bytes");
}

TEST(SbplEval, DeepNestingIsRefusedNotRecursedInto) {
  std::string deep = "(version 1)(allow file-read* " + std::string(100000, '(');
  EXPECT_EQ(ParseError(deep), "profile:1:62: error: lists nested deeper than 32");
}

TEST(SbplEval, NeverCrashesOnTruncatedOrMutatedProfiles) {
  const std::string good =
      "(version 1)\n(deny default)\n(allow file-read*)\n"
      "(allow file-write*\n  (require-all (subpath (param \"R\")) (require-not (subpath (param "
      "\"P\")))))\n"
      "(allow file-read* file-write* file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))\n"
      "(allow network-outbound (remote ip \"localhost:3128\"))\n"
      "(deny file-read* (subpath (param \"D\")))\n";
  const SbplParams params = {{"R", "/w"}, {"P", "/w/.codewhale"}, {"D", "/w/secret"}};
  ASSERT_EQ(ParseError(good, params), "parsed");
  int parsed = 0;
  for (size_t n = 0; n <= good.size(); ++n) {
    if (SbplProfile::Parse(good.substr(0, n), params).ok()) ++parsed;
  }
  EXPECT_GE(parsed, 1);  // at least the whole text
  std::mt19937 rng(20261130);
  const std::string alphabet = "()\"#;\\ \nab*-/:0";
  for (int i = 0; i < 2000; ++i) {
    std::string m = good;
    for (int k = 0; k < 3; ++k) m[rng() % m.size()] = alphabet[rng() % alphabet.size()];
    absl::StatusOr<SbplProfile> p = SbplProfile::Parse(m, params);
    if (p.ok()) p->CanWrite("/w/x");  // a profile that parses can be evaluated
  }
}

TEST(SandboxExecArgv, TakesTheArgvApart) {
  absl::StatusOr<SandboxExecCall> c = ParseSandboxExecArgv(
      {"/usr/bin/sandbox-exec", "-p", "(version 1)", "-DA=/x=y", "-DB=", "--", "echo", "hi"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->wrapper, "/usr/bin/sandbox-exec");
  EXPECT_EQ(c->profile, "(version 1)");
  EXPECT_EQ(c->params.at("A"), "/x=y");
  EXPECT_EQ(c->params.at("B"), "");
  EXPECT_EQ(c->param_order, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(c->program, (std::vector<std::string>{"echo", "hi"}));
}

TEST(SandboxExecArgv, RejectsMalformedArgv) {
  auto err = [](const std::vector<std::string>& argv) {
    absl::StatusOr<SandboxExecCall> c = ParseSandboxExecArgv(argv);
    return c.ok() ? std::string("ok") : std::string(c.status().message());
  };
  EXPECT_EQ(err({"/usr/bin/sandbox-exec", "(version 1)"}),
            "sandbox-exec argv must start with WRAPPER -p PROFILE");
  EXPECT_EQ(err({"w", "-p", "P", "-DA"}), "-D element without KEY=: '-DA'");
  EXPECT_EQ(err({"w", "-p", "P", "-D=x", "--"}), "-D element without KEY=: '-D=x'");
  EXPECT_EQ(err({"w", "-p", "P", "-DA=1", "-DA=2", "--"}), "parameter A given twice");
  EXPECT_EQ(err({"w", "-p", "P", "-DA=1"}), "sandbox-exec argv has no \"--\"");
  EXPECT_EQ(err({"w", "-p", "P", "-f", "--"}), "unexpected sandbox-exec argument '-f'");
}

}  // namespace
}  // namespace cwsc::backends
