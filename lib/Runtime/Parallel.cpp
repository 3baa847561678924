//===- Parallel.cpp - Threads of parallel loops, shared by the process ----===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// Generated code runs the outermost parallel loops of a kernel on OpenMP
// threads (--dlbridge-parallelize-outer-loops). Each region asks here how
// many threads to use: none beyond the caller for small work, and never
// more helpers than a budget the whole process shares, so that kernels
// called from several threads at once divide the cores instead of each
// starting a full team.
//
//===----------------------------------------------------------------------===//

#include "Parallel.h"

#include "dlbridge/Runtime/dlrt.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <sched.h>

namespace {

/// The loop iterations each thread of a region must have: a region of fewer
/// than two grains stays on the calling thread. Measured on this project's
/// 2 shared cores, float32, @jit kernels called from Python (best of 9, µs):
///
///   iterations        20000  30000  50000  70000  100000  1000000
///   a + b, 1 thread     4.5    5.8    8.5   11.2    16.0    173.3
///   a + b, 2 threads    4.1    4.6    5.7    7.3     8.8     68.6
///   row sum, 1 thread   4.2    4.9    6.5    7.8    10.2     76.3
///   row sum, 2 threads  5.1    5.3    6.1    6.6     7.8     43.9
///
/// (row sums of 100 elements; below 20000 a second thread lost for both:
/// at 10000, 3.4 against 3.6 and 3.6 against 4.8). Two threads win from
/// about 20000 iterations of the add and 50000 of the row sum.
constexpr int64_t kGrain = 25000;

/// The cores the process may run on, at least 1.
int32_t getAvailableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int count = CPU_COUNT(&set);
    if (count > 0)
      return std::min<int32_t>(count, DLRT_MAX_THREADS);
  }
  return 1;
}

/// The default thread count: DLBRIDGE_NUM_THREADS when valid, else the
/// available cores; read once.
int32_t getDefaultThreads() {
  static const int32_t threads = [] {
    int32_t cores = getAvailableCores();
    const char *value = std::getenv("DLBRIDGE_NUM_THREADS");
    if (!value || !*value)
      return cores;
    char *end = nullptr;
    errno = 0;
    long parsed = std::strtol(value, &end, 10);
    if (errno == 0 && end != value && *end == '\0' && parsed >= 1 &&
        parsed <= DLRT_MAX_THREADS)
      return static_cast<int32_t>(parsed);
    std::fprintf(stderr,
                 "dlbridge: ignoring DLBRIDGE_NUM_THREADS='%s': expected an "
                 "integer from 1 to %d; using %d threads\n",
                 value, DLRT_MAX_THREADS, static_cast<int>(cores));
    return cores;
  }();
  return threads;
}

/// What dlrt_set_num_threads set, or 0.
std::atomic<int32_t> configuredThreads{0};
/// Helpers (threads beside their region's caller) claimed by running regions.
std::atomic<int32_t> claimedHelpers{0};

/// When a region with helpers last ended (steady clock, ns), or 0.
std::atomic<int64_t> lastRegionEnd{0};

int64_t now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// When dlrt_matmul last handed work to the BLAS (steady clock, ns), or 0.
std::atomic<int64_t> lastBlasCall{0};

/// How long an OpenBLAS thread pool keeps spinning after a call (its
/// THREAD_TIMEOUT default, 2^28 cycles: about 0.1 s), with a margin.
constexpr int64_t kBlasSpinNanoseconds = 150'000'000;

/// How long libomp keeps the helpers of a finished region spinning (its
/// default KMP_BLOCKTIME, 200 ms), with a margin.
constexpr int64_t kSpinNanoseconds = 250'000'000;

/// OpenMP's omp_pause_resource_all, from the libomp loaded into the process
/// (its file may be renamed, as auditwheel does), or null.
using PauseFn = int (*)(int kind);
constexpr int kOmpPauseSoft = 1;

PauseFn findOmpPause() {
  PauseFn found = nullptr;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        const char *slash = std::strrchr(info->dlpi_name, '/');
        const char *name = slash ? slash + 1 : info->dlpi_name;
        if (std::strncmp(name, "libomp", 6) != 0)
          return 0;
        void *handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
        if (!handle)
          return 0;
        *static_cast<PauseFn *>(data) =
            reinterpret_cast<PauseFn>(dlsym(handle, "omp_pause_resource_all"));
        return *static_cast<PauseFn *>(data) ? 1 : 0;
      },
      &found);
  return found;
}

} // namespace

int32_t dlrt_get_num_threads(void) {
  int32_t configured = configuredThreads.load(std::memory_order_relaxed);
  return configured > 0 ? configured : getDefaultThreads();
}

int32_t dlrt_set_num_threads(int32_t threads) {
  if (threads < 1 || threads > DLRT_MAX_THREADS)
    return DLRT_ERR_INVALID_ARGUMENT;
  configuredThreads.store(threads, std::memory_order_relaxed);
  return DLRT_OK;
}

int32_t dlrt_parallel_claim(int64_t work) {
  // A child process starts with the forking thread alone: no region of the
  // parent's runs there, so none of their helpers is claimed.
  static const int registered =
      pthread_atfork(nullptr, nullptr, [] { claimedHelpers.store(0); });
  (void)registered;
  int32_t threads = dlrt_get_num_threads();
  if (threads <= 1 || work < 2 * kGrain)
    return 1;
  // While the BLAS's threads still spin, a helper would wait for a core
  // they hold; the region runs on the calling thread.
  int64_t blas = lastBlasCall.load(std::memory_order_relaxed);
  if (blas != 0 && now() - blas < kBlasSpinNanoseconds)
    return 1;
  int64_t wanted = std::min<int64_t>(threads, work / kGrain) - 1;
  // Claims never take the budget below zero, whatever runs concurrently; a
  // budget that shrank (dlrt_set_num_threads) below what is claimed has
  // nothing free until enough is released.
  int32_t claimed = claimedHelpers.load(std::memory_order_relaxed);
  int32_t taken;
  do {
    int32_t free = threads - 1 - claimed;
    if (free <= 0)
      return 1;
    taken = static_cast<int32_t>(std::min<int64_t>(wanted, free));
  } while (!claimedHelpers.compare_exchange_weak(claimed, claimed + taken,
                                                 std::memory_order_relaxed));
  return 1 + taken;
}

void dlrt_parallel_release(int32_t threads) {
  if (threads <= 1)
    return;
  claimedHelpers.fetch_sub(threads - 1, std::memory_order_relaxed);
  lastRegionEnd.store(now(), std::memory_order_relaxed);
}

void dlrt::enterBlas() {
  lastBlasCall.store(now(), std::memory_order_relaxed);
  int64_t ended = lastRegionEnd.load(std::memory_order_relaxed);
  if (ended == 0 ||
      lastBlasCall.load(std::memory_order_relaxed) - ended > kSpinNanoseconds ||
      claimedHelpers.load(std::memory_order_relaxed) != 0)
    return;
  static const PauseFn pause = findOmpPause();
  if (pause)
    pause(kOmpPauseSoft);
  lastRegionEnd.store(0, std::memory_order_relaxed);
}
