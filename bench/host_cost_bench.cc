// What a launcher pays for on this host, the unit costs behind
// bench/run_overhead.sh (docs/runtime.md, "Performance"): a first touch of a
// fresh anonymous page (a page fault, counted per page) against one system
// call, and the stat calls a live compile makes per writable root (docs/
// performance.md, "The floor on live facts"). Run: build/bench/host_cost_bench.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

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

// N fresh directories under a temporary directory, removed at the end.
struct Dirs {
  std::string base;
  std::vector<std::string> paths;
  explicit Dirs(int n) {
    char tmpl[] = "/tmp/cwsc-hostcost-XXXXXX";
    base = mkdtemp(tmpl);
    for (int i = 0; i < n; ++i) {
      paths.push_back(base + "/d" + std::to_string(i));
      mkdir(paths.back().c_str(), 0755);
    }
  }
  ~Dirs() { std::system(("rm -rf '" + base + "'").c_str()); }
};

constexpr const char* kProtectedNames[] = {"/.git", "/.codewhale", "/.deepseek"};

// Shares: what getrusage charges per root to the program (user) and to the
// kernel (sys) over the loop, as scale_bench reports a compile's. On a VM
// the entry and exit of a system call may be charged as user time.
struct Shares {
  rusage before{};
  Shares() { getrusage(RUSAGE_SELF, &before); }
  void Report(benchmark::State& state, size_t per_iteration) {
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    auto micros = [](const timeval& a, const timeval& b) {
      return static_cast<double>(b.tv_sec - a.tv_sec) * 1e6 +
             static_cast<double>(b.tv_usec - a.tv_usec);
    };
    double n = static_cast<double>(state.iterations()) * static_cast<double>(per_iteration);
    state.counters["user_per_root_us"] = micros(before.ru_utime, after.ru_utime) / n;
    state.counters["sys_per_root_us"] = micros(before.ru_stime, after.ru_stime) / n;
  }
};

// What live facts ask the kernel per writable root: lstat of the root and of
// its three protected names (absent here, as in most roots). Per root.
void BM_RootStats(benchmark::State& state) {
  Dirs d(static_cast<int>(state.range(0)));
  std::vector<std::string> asked;
  for (const std::string& p : d.paths) {
    asked.push_back(p);
    for (const char* name : kProtectedNames) asked.push_back(p + name);
  }
  struct stat st;
  Shares shares;
  for (auto _ : state) {
    for (const std::string& p : asked) benchmark::DoNotOptimize(lstat(p.c_str(), &st));
  }
  shares.Report(state, d.paths.size());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * d.paths.size()));
}
BENCHMARK(BM_RootStats)->Arg(1000)->Arg(10000);

// The same four answers through a descriptor of the root (open O_PATH,
// fstat, three fstatat of one component, close): a shorter path walk, two
// more calls. Per root.
void BM_RootStatsAt(benchmark::State& state) {
  Dirs d(static_cast<int>(state.range(0)));
  struct stat st;
  for (auto _ : state) {
    for (const std::string& p : d.paths) {
      int fd = open(p.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
      benchmark::DoNotOptimize(fstat(fd, &st));
      for (const char* name : kProtectedNames) {
        benchmark::DoNotOptimize(fstatat(fd, name + 1, &st, AT_SYMLINK_NOFOLLOW));
      }
      close(fd);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * d.paths.size()));
}
BENCHMARK(BM_RootStatsAt)->Arg(1000)->Arg(10000);

// The three names answered from one listing of the root instead (open,
// getdents64 until it returns nothing, close), beside the root's own
// lstat: the alternative to three lstat calls, for an empty root. Per root.
void BM_RootListing(benchmark::State& state) {
  Dirs d(static_cast<int>(state.range(0)));
  struct stat st;
  alignas(8) char buf[32 * 1024];
  Shares shares;
  for (auto _ : state) {
    for (const std::string& p : d.paths) {
      benchmark::DoNotOptimize(lstat(p.c_str(), &st));
      int fd = open(p.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      while (syscall(SYS_getdents64, fd, buf, sizeof buf) > 0) {
      }
      close(fd);
    }
  }
  shares.Report(state, d.paths.size());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * d.paths.size()));
}
BENCHMARK(BM_RootListing)->Arg(1000)->Arg(10000);

}  // namespace

BENCHMARK_MAIN();
