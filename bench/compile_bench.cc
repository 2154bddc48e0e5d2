// Compile and emit speed: config + recorded facts → plan → bwrap argv, the
// parts every sandboxed command pays for. Run: meson test -C build --benchmark
// (or build/bench/compile_bench). Facts are recorded, so no filesystem is
// touched beyond reading the config file.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "backends/bwrap.h"
#include "backends/verify/seccomp_eval.h"
#include "backends/seccomp_filter.h"
#include "compiler/lower_seccomp.h"
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

// The seccomp program every `cwsc run` of a linux-bwrap plan builds (with
// libseccomp) before it starts bwrap, and the checker `--target seccomp`
// runs over it.
void BM_EmitSeccompBpf(benchmark::State& state) {
  cwsc::ir::Policy p;
  p.network_access = state.range(0) != 0;
  cwsc::ir::SyscallFilter f = cwsc::compiler::LowerSyscallFilter(p);
  size_t bytes = 0;
  for (auto _ : state) {
    auto bpf = cwsc::backends::EmitSeccompBpf(f);
    bytes = bpf.ok() ? bpf->size() : 0;
    benchmark::DoNotOptimize(bpf);
  }
  state.counters["bpf_bytes"] = static_cast<double>(bytes);
}

void BM_CheckSeccompProgram(benchmark::State& state) {
  cwsc::ir::Policy p;
  cwsc::ir::SyscallFilter f = cwsc::compiler::LowerSyscallFilter(p);
  std::string bpf = *cwsc::backends::EmitSeccompBpf(f);
  for (auto _ : state) {
    auto s = cwsc::backends::CheckSeccompProgram(f, bpf);
    benchmark::DoNotOptimize(s);
  }
}

BENCHMARK(BM_EmitSeccompBpf)->Arg(0)->Arg(1);
BENCHMARK(BM_CheckSeccompProgram);
BENCHMARK(BM_CompileWorkspaceAsk);
BENCHMARK(BM_CompileLockedDown);
BENCHMARK(BM_CompileWorktree);
BENCHMARK(BM_CompileReadOnly);
BENCHMARK(BM_ParseFacts);
BENCHMARK(BM_PlanJsonRoundTrip);

}  // namespace

BENCHMARK_MAIN();
