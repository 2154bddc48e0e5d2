// Speed of the .cwsp frontend and formatter: a typical policy, a policy with
// many statements, the largest accepted file, and hostile input (deep
// nesting, a long unterminated comment) that must stay bounded.
#include <benchmark/benchmark.h>

#include <string>

#include "compiler/dsl_format.h"
#include "compiler/dsl_frontend.h"

namespace {

using cwsc::compiler::FormatDsl;
using cwsc::compiler::kMaxDslBytes;
using cwsc::compiler::ReadDslPolicy;

const char kTypical[] =
    "# agent policy\n"
    "policy agent {\n"
    "  mode workspace-write;\n"
    "  network off;\n"
    "  writable \"$WORKSPACE\", \"/srv/cache\";  # build cache\n"
    "  read_only \"/opt/toolchains\";\n"
    "  device \"/dev/kvm\";\n"
    "  deny read \"~/.ssh\", \"~/.aws\";\n"
    "  tmp private;\n"
    "  expect write \"$WORKSPACE/src/main.c\" allowed;\n"
    "  expect read \"~/.ssh/id_ed25519\" denied;\n"
    "  expect network denied;\n"
    "}\n";

std::string ManyStatements(size_t n) {
  std::string text = "policy p {\n";
  for (size_t i = 0; i < n; ++i) text += "  writable \"/srv/p" + std::to_string(i) + "\";\n";
  return text + "}\n";
}

void BM_ReadTypical(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ReadDslPolicy(kTypical, "b.cwsp", ""));
}
BENCHMARK(BM_ReadTypical);

void BM_ReadStatements(benchmark::State& state) {
  std::string text = ManyStatements(static_cast<size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ReadDslPolicy(text, "b.cwsp", ""));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ReadStatements)->Arg(100)->Arg(10000)->Arg(40000)->Unit(benchmark::kMillisecond);

void BM_FormatTypical(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(FormatDsl(kTypical, "b.cwsp"));
}
BENCHMARK(BM_FormatTypical);

void BM_HostileDeepNesting(benchmark::State& state) {
  std::string text = "policy a {" + std::string(kMaxDslBytes / 2 - 8, '{') +
                     std::string(kMaxDslBytes / 2 - 8, '}');
  for (auto _ : state) benchmark::DoNotOptimize(ReadDslPolicy(text, "b.cwsp", ""));
}
BENCHMARK(BM_HostileDeepNesting)->Unit(benchmark::kMillisecond);

void BM_HostileUnterminatedComment(benchmark::State& state) {
  std::string text = "policy a {\n /*" + std::string(kMaxDslBytes - 20, '*');
  for (auto _ : state) benchmark::DoNotOptimize(ReadDslPolicy(text, "b.cwsp", ""));
}
BENCHMARK(BM_HostileUnterminatedComment)->Unit(benchmark::kMillisecond);

void BM_HostileJunk(benchmark::State& state) {
  std::string text(kMaxDslBytes, '@');
  for (auto _ : state) benchmark::DoNotOptimize(ReadDslPolicy(text, "b.cwsp", ""));
}
BENCHMARK(BM_HostileJunk)->Unit(benchmark::kMillisecond);

void BM_RejectTenMegabytes(benchmark::State& state) {
  std::string text(10 * 1000 * 1000, ' ');
  for (auto _ : state) benchmark::DoNotOptimize(ReadDslPolicy(text, "b.cwsp", ""));
}
BENCHMARK(BM_RejectTenMegabytes);

}  // namespace

BENCHMARK_MAIN();
