// Compile and emit speed: config + recorded facts → plan → bwrap argv, the
// parts every sandboxed command pays for. Run: meson test -C build --benchmark
// (or build/bench/compile_bench). Facts are recorded, so no filesystem is
// touched beyond reading the config file.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "backends/bwrap.h"
#include "compiler/compile.h"
#include "ir/plan_json.h"

namespace {

std::string Root() {
  const char* r = std::getenv("CWSC_SOURCE_ROOT");
  return r ? r : ".";
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Compile(benchmark::State& state, const char* golden_case, const char* mode) {
  std::string dir = Root() + "/tests/golden/bwrap/" + golden_case;
  std::string facts_text = Slurp(dir + "/facts.yaml");
  auto facts = cwsc::compiler::ParseRecordedFacts(facts_text, "facts.yaml");
  if (!facts.ok()) {
    state.SkipWithError("cannot read the facts (set CWSC_SOURCE_ROOT)");
    return;
  }
  cwsc::compiler::CompileOptions o;
  o.config_path = dir + "/config.toml";
  o.mode = mode;
  size_t tokens = 0;
  for (auto _ : state) {
    auto r = cwsc::compiler::CompileConfig(o, facts->get());
    auto argv = cwsc::backends::EmitBwrapArgv(r->plan, {"sh", "-c", "true"});
    tokens = argv.ok() ? argv->size() : 0;
    benchmark::DoNotOptimize(argv);
  }
  state.counters["argv_tokens"] = static_cast<double>(tokens);
}

void BM_CompileWorkspaceAsk(benchmark::State& s) { Compile(s, "ws_default", "ask"); }
void BM_CompileLockedDown(benchmark::State& s) { Compile(s, "locked_down", "ask"); }
void BM_CompileWorktree(benchmark::State& s) { Compile(s, "worktree", "ask"); }
void BM_CompileReadOnly(benchmark::State& s) { Compile(s, "read_only_plan", "plan"); }

void BM_ParseFacts(benchmark::State& state) {
  std::string text = Slurp(Root() + "/tests/golden/bwrap/ws_default/facts.yaml");
  for (auto _ : state) {
    auto f = cwsc::compiler::ParseRecordedFacts(text, "facts.yaml");
    benchmark::DoNotOptimize(f);
  }
}

void BM_PlanJsonRoundTrip(benchmark::State& state) {
  std::string dir = Root() + "/tests/golden/bwrap/ws_default";
  std::string text = Slurp(dir + "/plan.json");
  for (auto _ : state) {
    auto p = cwsc::ir::PlanFromJson(text, "plan.json");
    auto back = cwsc::ir::PlanToJson(*p);
    benchmark::DoNotOptimize(back);
  }
}

BENCHMARK(BM_CompileWorkspaceAsk);
BENCHMARK(BM_CompileLockedDown);
BENCHMARK(BM_CompileWorktree);
BENCHMARK(BM_CompileReadOnly);
BENCHMARK(BM_ParseFacts);
BENCHMARK(BM_PlanJsonRoundTrip);

}  // namespace

BENCHMARK_MAIN();
