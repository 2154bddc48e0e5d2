// sandbox_require and --require-sandbox (docs/config.md): a policy that asks
// for a sandbox is refused, with the cause and the fix, when no local
// wrapper works; without them it runs unconfined (plan kind none).
#include <gtest/gtest.h>

#include "compiler/config_toml.h"
#include "tests/compiler/test_facts.h"

namespace cwsc::compiler {
namespace {

using cwsc::testing::CompileText;
using cwsc::testing::ConfigFile;
using cwsc::testing::FactsBuilder;
using ir::PlanKind;

constexpr char kProbeFailure[] =
    "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces "
    "exceeded (ENOSPC)";

std::string NotesText(const ConfigLayer& c) {
  std::string out;
  for (const ir::Diagnostic& d : c.notes) out += d.Render();
  return out;
}

TEST(RequireSandbox, KeyIsReadWithItsPositionAndAlias) {
  auto r = ReadTomlConfig("sandbox_require = true\n", "cfg.toml", Layer::kUser);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->spec.sandbox_require.has_value());
  EXPECT_TRUE(r->spec.sandbox_require->value);
  EXPECT_EQ(r->spec.sandbox_require->origin.Describe(), "config sandbox_require at cfg.toml:1:19");
  r = ReadTomlConfig("sandboxRequire = false\n", "cfg.toml", Layer::kUser);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->spec.sandbox_require->value);
}

TEST(RequireSandbox, WrongTypeIsAnErrorAtTheValue) {
  auto r = ReadTomlConfig("sandbox_require = \"yes\"\n", "cfg.toml", Layer::kUser);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "cfg.toml:1:19: error: 'sandbox_require' must be a boolean (true or false), not a "
            "string\n"
            "  sandbox_require = \"yes\"\n"
            "                    ^\n");
}

TEST(RequireSandbox, NearMissesAndLookAlikesNameTheKey) {
  auto r = ReadTomlConfig(
      "sandbox_requier = true\n"
      "require_sandbox = true\n"
      "sandbox_required = true\n",
      "cfg.toml", Layer::kUser);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(NotesText(*r),
            "cfg.toml:1:19: warning: unknown key 'sandbox_requier' is ignored; did you mean "
            "'sandbox_require'?\n"
            "cfg.toml:2:19: warning: unknown key 'require_sandbox' is ignored; did you mean "
            "'sandbox_require'?\n"
            "cfg.toml:3:20: warning: unknown key 'sandbox_required' is ignored; did you mean "
            "'sandbox_require'?\n");
  EXPECT_FALSE(r->spec.sandbox_require.has_value());
}

TEST(RequireSandbox, WithoutItAFailedProbeRunsUnconfined) {
  FactsBuilder f;
  f.Probe(false, kProbeFailure);
  auto r = CompileText("", f, "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->plan.kind(), PlanKind::kNone);
}

TEST(RequireSandbox, AFailedProbeRefusesWithTheCauseAndTheFix) {
  FactsBuilder f;
  f.Probe(false, kProbeFailure);
  auto r = CompileText("sandbox_require = true\n", f, "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->plan.kind(), PlanKind::kRefused);
  EXPECT_EQ(r->plan.refusal()->reason,
            "the policy is workspace-write but no sandbox wrapper works here (/usr/bin/bwrap: "
            "probe failed: bwrap: Creating new namespace failed: nesting depth or "
            "/proc/sys/user/max_*_namespaces exceeded (ENOSPC)), and sandbox_require = true "
            "forbids running the command unconfined; make the wrapper work (`cwsc doctor` names "
            "the cause and its fix), or set sandbox_require = false to run it unconfined with a "
            "warning");
  EXPECT_EQ(r->plan.refusal()->origin.kind, ir::Origin::Kind::kConfig);
  EXPECT_EQ(r->plan.refusal()->origin.line, 1);
  // Read-only (plan mode) asks for a sandbox too; full access does not.
  EXPECT_EQ(CompileText("sandbox_require = true\n", f, "plan")->plan.kind(), PlanKind::kRefused);
  EXPECT_EQ(CompileText("sandbox_require = true\n", f, "full-access")->plan.kind(),
            PlanKind::kNone);
  // A working wrapper is not affected.
  FactsBuilder ok;
  EXPECT_EQ(CompileText("sandbox_require = true\n", ok, "ask")->plan.kind(), PlanKind::kLinuxBwrap);
}

TEST(RequireSandbox, PreferBwrapOffNamesItsOwnFix) {
  FactsBuilder f;
  auto r = CompileText("sandbox_require = true\nprefer_bwrap = false\n", f, "ask");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->plan.kind(), PlanKind::kRefused);
  EXPECT_EQ(r->plan.refusal()->reason,
            "the policy is workspace-write but no sandbox wrapper works here (/usr/bin/bwrap: "
            "prefer_bwrap = false), and sandbox_require = true forbids running the command "
            "unconfined; set prefer_bwrap = true, or set sandbox_require = false to run it "
            "unconfined with a warning");
}

TEST(RequireSandbox, TheCommandLineFlagRefusesToo) {
  FactsBuilder f;
  f.Probe(false, kProbeFailure);
  ConfigFile file("");
  auto facts = f.Build();
  CompileOptions o;
  o.config_path = file.path();
  o.require_sandbox = true;
  auto r = CompileConfig(o, facts.get());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->plan.kind(), PlanKind::kRefused);
  EXPECT_EQ(r->plan.refusal()->reason,
            "the policy is workspace-write but no sandbox wrapper works here (/usr/bin/bwrap: "
            "probe failed: bwrap: Creating new namespace failed: nesting depth or "
            "/proc/sys/user/max_*_namespaces exceeded (ENOSPC)), and --require-sandbox forbids "
            "running the command unconfined; make the wrapper work (`cwsc doctor` names the "
            "cause and its fix), or leave out --require-sandbox to run it unconfined with a "
            "warning");
  EXPECT_EQ(r->plan.refusal()->origin.Describe(), "cli --require-sandbox");
}

}  // namespace
}  // namespace cwsc::compiler
