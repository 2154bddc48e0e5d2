// The embedded fast path through libcwsc's C ABI (lib/cwsc.h,
// docs/embedding.md): an engine parses its policy once, keeps one live facts
// handle, and per command compiles, takes the bwrap argv and the seccomp
// program, then spawns bwrap itself. These measure the library's part per
// command; bench/lib_launch.cc measures the whole launch against bare bwrap.
// Run: build/bench/lib_bench (a workspace is made under /var/tmp).
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "cwsc.h"

namespace {

// Workspace is an empty config in a fresh directory, as bench/run_overhead.sh uses.
struct Workspace {
  std::string dir, config, ws;
  Workspace() {
    char tmpl[] = "/var/tmp/cwsc-libbench-XXXXXX";
    dir = mkdtemp(tmpl);
    ws = dir + "/ws";
    mkdir(ws.c_str(), 0755);
    config = dir + "/config.toml";
    std::ofstream(config) << "";
  }
  ~Workspace() { std::system(("rm -rf '" + dir + "'").c_str()); }
};

const Workspace& Ws() {
  static const Workspace* w = new Workspace;
  return *w;
}

std::string Root() {
  const char* r = std::getenv("CWSC_SOURCE_ROOT");
  return r ? r : ".";
}

cwsc_options* Options() {
  cwsc_options* o = cwsc_options_new();
  cwsc_options_set_cwd(o, Ws().ws.c_str());
  const char* program[] = {"/bin/true"};
  cwsc_options_set_program(o, program, 1);
  return o;
}

// OneCommand is the library's work for one command: compile, the argv, the
// seccomp program. Returns the argv's length (0 on failure).
size_t OneCommand(const cwsc_policy* policy, cwsc_facts* facts, const cwsc_options* o) {
  cwsc_plan* plan = nullptr;
  if (cwsc_compile(policy, "ask", facts, o, &plan, nullptr) != CWSC_OK) return 0;
  cwsc_argv* argv = nullptr;
  size_t n = 0;
  if (cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &argv, nullptr) == CWSC_OK) {
    n = cwsc_argv_count(argv);
    char* bpf = nullptr;
    size_t len = 0;
    if (cwsc_plan_seccomp_bpf(plan, &bpf, &len, nullptr) != CWSC_OK) n = 0;
    benchmark::DoNotOptimize(bpf);
    cwsc_string_free(bpf);
  }
  cwsc_argv_free(argv);
  cwsc_plan_free(plan);
  return n;
}

// Warm: the policy parsed once, one live facts handle for every command.
void BM_LibCompileWarmLive(benchmark::State& state) {
  cwsc_policy* policy = nullptr;
  cwsc_policy_load_file(Ws().config.c_str(), CWSC_FORMAT_AUTO, nullptr, &policy, nullptr);
  cwsc_facts* facts = cwsc_facts_live();
  cwsc_options* o = Options();
  size_t n = OneCommand(policy, facts, o);  // the first answers (and the probe)
  for (auto _ : state) n = OneCommand(policy, facts, o);
  if (n == 0) state.SkipWithError("the compile failed");
  state.counters["argv_tokens"] = static_cast<double>(n);
  cwsc_options_free(o);
  cwsc_facts_free(facts);
  cwsc_policy_free(policy);
}
BENCHMARK(BM_LibCompileWarmLive);

// The parts of one command: the compile alone, the argv from a plan, the
// seccomp program from a plan (emitted and read back against its intent).
void BM_LibPartCompile(benchmark::State& state) {
  cwsc_policy* policy = nullptr;
  cwsc_policy_load_file(Ws().config.c_str(), CWSC_FORMAT_AUTO, nullptr, &policy, nullptr);
  cwsc_facts* facts = cwsc_facts_live();
  cwsc_options* o = Options();
  for (auto _ : state) {
    cwsc_plan* plan = nullptr;
    if (cwsc_compile(policy, "ask", facts, o, &plan, nullptr) != CWSC_OK) {
      state.SkipWithError("the compile failed");
      break;
    }
    cwsc_plan_free(plan);
  }
  cwsc_options_free(o);
  cwsc_facts_free(facts);
  cwsc_policy_free(policy);
}
BENCHMARK(BM_LibPartCompile);

void PlanPart(benchmark::State& state, bool bpf_part) {
  cwsc_policy* policy = nullptr;
  cwsc_policy_load_file(Ws().config.c_str(), CWSC_FORMAT_AUTO, nullptr, &policy, nullptr);
  cwsc_facts* facts = cwsc_facts_live();
  cwsc_options* o = Options();
  cwsc_plan* plan = nullptr;
  if (cwsc_compile(policy, "ask", facts, o, &plan, nullptr) != CWSC_OK) {
    state.SkipWithError("the compile failed");
  } else {
    for (auto _ : state) {
      if (bpf_part) {
        char* bpf = nullptr;
        size_t len = 0;
        cwsc_plan_seccomp_bpf(plan, &bpf, &len, nullptr);
        cwsc_string_free(bpf);
      } else {
        cwsc_argv* argv = nullptr;
        cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &argv, nullptr);
        cwsc_argv_free(argv);
      }
    }
  }
  cwsc_plan_free(plan);
  cwsc_options_free(o);
  cwsc_facts_free(facts);
  cwsc_policy_free(policy);
}
void BM_LibPartArgv(benchmark::State& state) { PlanPart(state, false); }
void BM_LibPartSeccompBpf(benchmark::State& state) { PlanPart(state, true); }
BENCHMARK(BM_LibPartArgv);
BENCHMARK(BM_LibPartSeccompBpf);

// Fresh facts per command: every path is asked of the host again (the
// probe's verdict comes from the per-user cache, as for `cwsc run`).
void BM_LibCompileFreshLiveFacts(benchmark::State& state) {
  cwsc_policy* policy = nullptr;
  cwsc_policy_load_file(Ws().config.c_str(), CWSC_FORMAT_AUTO, nullptr, &policy, nullptr);
  cwsc_options* o = Options();
  size_t n = 0;
  for (auto _ : state) {
    cwsc_facts* facts = cwsc_facts_live();
    n = OneCommand(policy, facts, o);
    cwsc_facts_free(facts);
  }
  if (n == 0) state.SkipWithError("the compile failed");
  cwsc_options_free(o);
  cwsc_policy_free(policy);
}
BENCHMARK(BM_LibCompileFreshLiveFacts);

// The file read and parsed on every command (cwsc_compile_file), facts warm.
void BM_LibCompileFileWarmLive(benchmark::State& state) {
  cwsc_facts* facts = cwsc_facts_live();
  cwsc_options* o = Options();
  size_t n = 0;
  for (auto _ : state) {
    cwsc_plan* plan = nullptr;
    n = cwsc_compile_file(Ws().config.c_str(), CWSC_FORMAT_AUTO, "ask", facts, o, &plan, nullptr) ==
        CWSC_OK;
    cwsc_plan_free(plan);
  }
  if (n == 0) state.SkipWithError("the compile failed");
  cwsc_options_free(o);
  cwsc_facts_free(facts);
}
BENCHMARK(BM_LibCompileFileWarmLive);

// A real policy (examples/workspace.cwsp) parsed once, recorded facts.
void BM_LibCompileWarmRecordedDsl(benchmark::State& state) {
  const std::string cfg = Root() + "/examples/workspace.cwsp";
  const std::string facts_file = Root() + "/examples/facts/linux-workspace.yaml";
  cwsc_policy* policy = nullptr;
  cwsc_facts* facts = nullptr;
  if (cwsc_policy_load_file(cfg.c_str(), CWSC_FORMAT_AUTO, nullptr, &policy, nullptr) != CWSC_OK ||
      cwsc_facts_load_file(facts_file.c_str(), &facts, nullptr) != CWSC_OK) {
    state.SkipWithError("cannot read the example (set CWSC_SOURCE_ROOT)");
    return;
  }
  size_t n = 0;
  for (auto _ : state) n = OneCommand(policy, facts, nullptr);
  if (n == 0) state.SkipWithError("the compile failed");
  state.counters["argv_tokens"] = static_cast<double>(n);
  cwsc_facts_free(facts);
  cwsc_policy_free(policy);
}
BENCHMARK(BM_LibCompileWarmRecordedDsl);

// Parsing the DSL policy alone: what the warm path saves per command.
void BM_LibParseDsl(benchmark::State& state) {
  const std::string cfg = Root() + "/examples/workspace.cwsp";
  for (auto _ : state) {
    cwsc_policy* policy = nullptr;
    if (cwsc_policy_load_file(cfg.c_str(), CWSC_FORMAT_AUTO, nullptr, &policy, nullptr) !=
        CWSC_OK) {
      state.SkipWithError("cannot read the example (set CWSC_SOURCE_ROOT)");
      break;
    }
    cwsc_policy_free(policy);
  }
}
BENCHMARK(BM_LibParseDsl);

}  // namespace

BENCHMARK_MAIN();
