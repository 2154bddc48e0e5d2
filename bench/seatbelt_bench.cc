// Seatbelt backend speed: compiling a macOS plan (resolve + lower) and
// emitting its sandbox-exec argv, and the evaluator parsing the emitted
// profile and answering one access question.
//   meson test -C build --benchmark seatbelt_bench
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "backends/seatbelt.h"
#include "backends/verify/sbpl_eval.h"
#include "benchmark/benchmark.h"
#include "compiler/facts/host_facts.h"
#include "compiler/resolve.h"

namespace {

using namespace cwsc;  // NOLINT: benchmark brevity

std::unique_ptr<compiler::HostFacts> MacFacts() {
  const char* root = std::getenv("CWSC_SOURCE_ROOT");
  auto f = compiler::LoadRecordedFacts(std::string(root ? root : ".") +
                                       "/examples/facts/macos-workspace.yaml");
  if (!f.ok()) std::abort();
  return *std::move(f);
}

compiler::ResolveInput Input() {
  compiler::ResolveInput in;
  in.mode = ir::PermissionMode::kAsk;
  in.cwd = "/Users/dev/proj";
  return in;
}

void BM_ResolveLowerAndEmit(benchmark::State& state) {
  auto facts = MacFacts();
  for (auto _ : state) {
    auto plan = compiler::ResolvePlan(Input(), *facts);
    auto argv = backends::EmitSeatbeltArgv(*plan, {"make"});
    benchmark::DoNotOptimize(argv);
  }
}
BENCHMARK(BM_ResolveLowerAndEmit);

void BM_EvaluatorParse(benchmark::State& state) {
  auto facts = MacFacts();
  auto plan = compiler::ResolvePlan(Input(), *facts);
  auto call =
      backends::ParseSandboxExecArgv(backends::Texts(*backends::EmitSeatbeltArgv(*plan, {})));
  for (auto _ : state) {
    auto p = backends::SbplProfile::Parse(call->profile, call->params);
    benchmark::DoNotOptimize(p);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * call->profile.size()));
}
BENCHMARK(BM_EvaluatorParse);

void BM_EvaluatorCanWrite(benchmark::State& state) {
  auto facts = MacFacts();
  auto plan = compiler::ResolvePlan(Input(), *facts);
  auto call =
      backends::ParseSandboxExecArgv(backends::Texts(*backends::EmitSeatbeltArgv(*plan, {})));
  auto p = backends::SbplProfile::Parse(call->profile, call->params);
  for (auto _ : state) benchmark::DoNotOptimize(p->CanWrite("/Users/dev/proj/src/main.rs"));
}
BENCHMARK(BM_EvaluatorCanWrite);

}  // namespace

BENCHMARK_MAIN();
