// What a launcher pays for on this host, the unit costs behind
// bench/run_overhead.sh (docs/runtime.md, "Performance"): a first touch of a
// fresh anonymous page (a page fault, counted per page) against one system
// call. Run: build/bench/host_cost_bench.
#include <benchmark/benchmark.h>
#include <sys/mman.h>
#include <unistd.h>

namespace {

constexpr size_t kPage = 4096;

// A fresh private mapping of 256 pages, each written once, then unmapped:
// every write takes a page fault, as the first touch of a heap, stack or
// relocated data page of a new process does.
void BM_FirstTouchPageFault(benchmark::State& state) {
  constexpr size_t kPages = 256;
  for (auto _ : state) {
    void* raw =
        mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
      state.SkipWithError("mmap failed");
      return;
    }
    volatile char* p = static_cast<volatile char*>(raw);
    for (size_t i = 0; i < kPages; ++i) p[i * kPage] = 1;
    munmap(raw, kPages * kPage);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kPages));
}
BENCHMARK(BM_FirstTouchPageFault);

// The cheapest real system call, for scale.
void BM_Syscall(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(getppid());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_Syscall);

}  // namespace

BENCHMARK_MAIN();
