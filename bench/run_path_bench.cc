// What `cwsc run` does in its own process before bwrap starts, step by step,
// against the live host (docs/performance.md, "Run overhead"): compile the
// config with the runtime's facts (live, the bwrap probe verdict cached),
// check the plan's host facts again, build argv and environment, and emit
// the sealed seccomp program. The program start of cwsc itself, the spawn
// and the wait are what bench/run_overhead.sh measures around these.
// Run: build/bench/run_path_bench (a workspace is made under /var/tmp).
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>

#include "backends/seccomp_filter.h"
#include "compiler/compile.h"
#include "runtime/execute.h"
#include "runtime/host/probe_cache.h"

namespace {

// Workspace is an empty config in a fresh directory, as run_overhead.sh uses.
struct Workspace {
  std::string dir, config;
  Workspace() {
    char tmpl[] = "/var/tmp/cwsc-runpath-XXXXXX";
    dir = mkdtemp(tmpl);
    mkdir((dir + "/ws").c_str(), 0755);
    config = dir + "/config.toml";
    std::ofstream(config) << "";
  }
  ~Workspace() { std::system(("rm -rf '" + dir + "'").c_str()); }
  cwsc::compiler::CompileOptions Options() const {
    cwsc::compiler::CompileOptions o;
    o.config_path = config;
    o.mode = "ask";
    o.cwd = dir + "/ws";
    return o;
  }
};

const Workspace& Ws() {
  static const Workspace* w = new Workspace;
  return *w;
}

cwsc::ir::LaunchPlan CompiledPlan() {
  auto facts = cwsc::runtime::MakeRuntimeFacts();
  auto r = cwsc::compiler::CompileConfig(Ws().Options(), facts.get());
  return r.ok() ? r->plan : cwsc::ir::LaunchPlan{};
}

void BM_RunCompile(benchmark::State& state) {
  for (auto _ : state) {
    auto facts = cwsc::runtime::MakeRuntimeFacts();  // fresh, as each `cwsc run`
    auto r = cwsc::compiler::CompileConfig(Ws().Options(), facts.get());
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(r);
  }
}

void BM_RunRecheck(benchmark::State& state) {
  cwsc::ir::LaunchPlan plan = CompiledPlan();
  for (auto _ : state) {
    auto facts = cwsc::runtime::MakeRuntimeFacts();
    absl::Status s = cwsc::runtime::RecheckPlan(plan, facts.get());
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
  }
}

void BM_RunPrepare(benchmark::State& state) {
  cwsc::ir::LaunchPlan plan = CompiledPlan();
  std::vector<std::string> env = cwsc::runtime::CurrentEnviron();
  for (auto _ : state) {
    auto p = cwsc::runtime::PrepareCommand(plan, {"/bin/true"}, env);
    benchmark::DoNotOptimize(p);
  }
}

void BM_RunSeccompProgram(benchmark::State& state) {
  cwsc::ir::LaunchPlan plan = CompiledPlan();
  if (!plan.syscall_filter()) {
    state.SkipWithError("the plan has no syscall filter");
    return;
  }
  for (auto _ : state) {
    auto bpf = cwsc::backends::EmitSeccompBpf(*plan.syscall_filter());
    benchmark::DoNotOptimize(bpf);
  }
}

BENCHMARK(BM_RunCompile)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RunRecheck)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RunPrepare)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RunSeccompProgram)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
