// How compile cost grows with the size of a policy: 100 / 1k / 10k writable
// roots (existing, or missing: each gets a note) or denied paths, against
// recorded facts (memory only) and live facts (real directories under a
// temporary directory, stat and realpath per path).
// `per_entry` is the time per root or path; linear growth keeps it flat.
// The *Parse and *Resolve variants split the whole into reading the TOML
// (toml++) and resolving the parsed policy.
// Run: build/bench/scale_bench (or meson test -C build --benchmark scale_bench).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "compiler/compile.h"
#include "runtime/host/live_facts.h"

namespace {

enum class Kind { kRoots, kMissingRoots, kDenied };

// Scratch is a temporary directory holding `n` directories d0..d(n-1) (none
// for kMissingRoots) and the config.
struct Scratch {
  std::string dir;
  std::string config;
  bool missing;
  Scratch(Kind kind, int n) : missing(kind == Kind::kMissingRoots) {
    char tmpl[] = "/tmp/cwsc-scale-XXXXXX";
    dir = mkdtemp(tmpl);
    std::string list;
    for (int i = 0; i < n; ++i) {
      std::string p = dir + "/d" + std::to_string(i);
      if (!missing) mkdir(p.c_str(), 0755);
      list += (i ? ", \"" : "\"") + p + "\"";
    }
    config = dir + "/config.toml";
    std::ofstream(config) << "sandbox_mode = \"workspace-write\"\n"
                          << (kind == Kind::kDenied ? "sandbox_denied_read_paths"
                                                    : "sandbox_writable_roots")
                          << " = [" << list << "]\n";
  }
  ~Scratch() { std::system(("rm -rf '" + dir + "'").c_str()); }

  // Recorded facts describing the same directories.
  std::string FactsYaml(int n) const {
    std::string y =
        "cwsc_facts: 1\nplatform: linux\n"
        "user: {uid: 1000, gid: 1000, groups: [1000], name: dev, home: /home/dev}\n"
        "cwd: " +
        dir +
        "\nenv: {HOME: /home/dev, TMPDIR: null}\n"
        "secrets_set: {CODEWHALE_SANDBOX_API_KEY: false}\npaths:\n"
        "  /tmp: {type: directory, canonical: /tmp, mode: \"1777\", uid: 0, gid: 0}\n"
        "  /usr/bin/bwrap: {type: file, canonical: /usr/bin/bwrap, mode: \"0755\", uid: 0, gid: "
        "0}\n"
        "  " +
        dir + ": {type: directory, canonical: " + dir + ", mode: \"0755\", uid: 1000, gid: 1000}\n";
    for (int i = 0; i < n && !missing; ++i) {
      std::string p = dir + "/d" + std::to_string(i);
      y += "  " + p + ": {type: directory, canonical: " + p +
           ", mode: \"0755\", uid: 1000, gid: 1000}\n";
    }
    return y + "bwrap_probe: {ran: true, ok: true, exit_code: 0, message: \"\"}\n";
  }
};

// What a loop iteration does: the whole compile (read the file, parse it,
// resolve), the resolution of a policy parsed once (what an embedding that
// keeps a parsed policy pays per command, and the root and deny-list
// handling on their own), or the reading and parsing alone.
enum class Stage { kAll, kResolve, kParse };

void Scale(benchmark::State& state, Kind kind, bool live, Stage stage = Stage::kAll) {
  int n = static_cast<int>(state.range(0));
  Scratch s(kind, n);
  std::unique_ptr<cwsc::compiler::HostFacts> facts;
  if (!live) {
    auto f = cwsc::compiler::ParseRecordedFacts(s.FactsYaml(n), "facts.yaml");
    if (!f.ok()) {
      state.SkipWithError(std::string(f.status().message()).c_str());
      return;
    }
    facts = std::move(*f);
  }
  cwsc::compiler::CompileOptions o;
  o.config_path = s.config;
  o.format = cwsc::compiler::ConfigFormat::kToml;
  o.mode = "ask";
  o.cwd = s.dir;
  o.read_project_config = false;
  size_t mounts = 0;
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  auto parsed = cwsc::compiler::ReadConfig(o);
  if (!parsed.ok()) {
    state.SkipWithError(std::string(parsed.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    if (stage == Stage::kParse) {
      auto p = cwsc::compiler::ReadConfig(o);
      benchmark::DoNotOptimize(p);
      continue;
    }
    // Live facts memoize: a fresh host view per compile, as `cwsc run` has.
    if (live) facts = cwsc::runtime::MakeLiveFacts();
    auto r = stage == Stage::kAll ? cwsc::compiler::CompileConfig(o, facts.get())
                                  : cwsc::compiler::CompileParsed(*parsed, o, facts.get());
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    mounts = r->plan.mounts().size();
    benchmark::DoNotOptimize(r);
  }
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  auto micros = [](const timeval& a, const timeval& b) {
    return static_cast<double>(b.tv_sec - a.tv_sec) * 1e6 +
           static_cast<double>(b.tv_usec - a.tv_usec);
  };
  // The kernel's share (stat calls, page faults) and the program's, per entry.
  double per = static_cast<double>(state.iterations()) * n;
  state.counters["sys_per_entry_us"] = micros(before.ru_stime, after.ru_stime) / per;
  state.counters["user_per_entry_us"] = micros(before.ru_utime, after.ru_utime) / per;
  state.counters["mounts"] = static_cast<double>(mounts);
  state.counters["per_entry"] = benchmark::Counter(
      n, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_RootsRecorded(benchmark::State& s) { Scale(s, Kind::kRoots, false); }
void BM_RootsLive(benchmark::State& s) { Scale(s, Kind::kRoots, true); }
void BM_MissingRootsRecorded(benchmark::State& s) { Scale(s, Kind::kMissingRoots, false); }
void BM_DeniedRecorded(benchmark::State& s) { Scale(s, Kind::kDenied, false); }
void BM_DeniedLive(benchmark::State& s) { Scale(s, Kind::kDenied, true); }
void BM_RootsParse(benchmark::State& s) { Scale(s, Kind::kRoots, false, Stage::kParse); }
void BM_DeniedParse(benchmark::State& s) { Scale(s, Kind::kDenied, false, Stage::kParse); }
void BM_RootsRecordedResolve(benchmark::State& s) {
  Scale(s, Kind::kRoots, false, Stage::kResolve);
}
void BM_RootsLiveResolve(benchmark::State& s) { Scale(s, Kind::kRoots, true, Stage::kResolve); }
void BM_DeniedRecordedResolve(benchmark::State& s) {
  Scale(s, Kind::kDenied, false, Stage::kResolve);
}
void BM_DeniedLiveResolve(benchmark::State& s) { Scale(s, Kind::kDenied, true, Stage::kResolve); }

}  // namespace

BENCHMARK(BM_RootsRecorded)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RootsLive)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MissingRootsRecorded)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(40000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeniedRecorded)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeniedLive)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RootsParse)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeniedParse)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RootsRecordedResolve)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RootsLiveResolve)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeniedRecordedResolve)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeniedLiveResolve)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
