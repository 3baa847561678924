//===- ParallelTest.cpp - Thread counts and the process's thread budget ---===//
//
// Part of dlbridge's runtime unit tests. Also run under TSan (make test).
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

/// Work large enough for any number of threads.
constexpr int64_t kHugeWork = int64_t(1) << 50;

TEST(ParallelTest, SetNumThreadsChecksItsArgument) {
  ASSERT_EQ(dlrt_set_num_threads(3), DLRT_OK);
  EXPECT_EQ(dlrt_get_num_threads(), 3);
  EXPECT_EQ(dlrt_set_num_threads(0), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(dlrt_set_num_threads(-2), DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(dlrt_set_num_threads(DLRT_MAX_THREADS + 1),
            DLRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(dlrt_get_num_threads(), 3);
  ASSERT_EQ(dlrt_set_num_threads(DLRT_MAX_THREADS), DLRT_OK);
  EXPECT_EQ(dlrt_get_num_threads(), DLRT_MAX_THREADS);
}

TEST(ParallelTest, DefaultIsAtLeastOneThread) {
  EXPECT_GE(dlrt_get_num_threads(), 1);
  EXPECT_LE(dlrt_get_num_threads(), DLRT_MAX_THREADS);
}

TEST(ParallelTest, SmallWorkStaysOnTheCallingThread) {
  ASSERT_EQ(dlrt_set_num_threads(4), DLRT_OK);
  for (int64_t work : {int64_t(-1), int64_t(0), int64_t(1), int64_t(1000)}) {
    EXPECT_EQ(dlrt_parallel_claim(work), 1) << work;
  }
  // The work decides how many threads: more work never gets fewer.
  int32_t previous = 1;
  for (int64_t work = 1; work < kHugeWork; work *= 2) {
    int32_t threads = dlrt_parallel_claim(work);
    EXPECT_GE(threads, previous) << work;
    EXPECT_LE(threads, 4) << work;
    previous = threads;
    dlrt_parallel_release(threads);
  }
  EXPECT_EQ(previous, 4);
}

TEST(ParallelTest, ClaimsShareTheBudget) {
  ASSERT_EQ(dlrt_set_num_threads(4), DLRT_OK);
  int32_t first = dlrt_parallel_claim(kHugeWork);
  EXPECT_EQ(first, 4);
  // The three helpers are taken: a concurrent region runs on its caller.
  int32_t second = dlrt_parallel_claim(kHugeWork);
  EXPECT_EQ(second, 1);
  dlrt_parallel_release(second);
  dlrt_parallel_release(first);
  int32_t third = dlrt_parallel_claim(kHugeWork);
  EXPECT_EQ(third, 4);
  // A budget lowered below what is claimed grants nothing until released.
  ASSERT_EQ(dlrt_set_num_threads(2), DLRT_OK);
  EXPECT_EQ(dlrt_parallel_claim(kHugeWork), 1);
  dlrt_parallel_release(third);
  int32_t fourth = dlrt_parallel_claim(kHugeWork);
  EXPECT_EQ(fourth, 2);
  dlrt_parallel_release(fourth);
}

TEST(ParallelTest, AForkedChildHasTheWholeBudget) {
  ASSERT_EQ(dlrt_set_num_threads(4), DLRT_OK);
  int32_t parent = dlrt_parallel_claim(kHugeWork);
  ASSERT_EQ(parent, 4);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0)
    _exit(dlrt_parallel_claim(kHugeWork) == 4 ? 0 : 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  dlrt_parallel_release(parent);
}

TEST(ParallelTest, ConcurrentClaimsNeverExceedTheBudget) {
  constexpr int32_t kThreads = 4;
  ASSERT_EQ(dlrt_set_num_threads(kThreads), DLRT_OK);
  std::atomic<int32_t> helpers{0}, mostHelpers{0}, regions{0};
  std::atomic<bool> exceeded{false};
  std::vector<std::thread> callers;
  for (int caller = 0; caller < 8; ++caller)
    callers.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        int32_t threads = dlrt_parallel_claim(kHugeWork);
        if (threads < 1 || threads > kThreads)
          exceeded = true;
        int32_t now = helpers.fetch_add(threads - 1) + threads - 1;
        if (now > kThreads - 1)
          exceeded = true;
        int32_t most = mostHelpers.load();
        while (now > most && !mostHelpers.compare_exchange_weak(most, now)) {
        }
        if (threads > 1)
          ++regions;
        helpers.fetch_sub(threads - 1);
        dlrt_parallel_release(threads);
      }
    });
  for (std::thread &caller : callers)
    caller.join();
  EXPECT_FALSE(exceeded);
  EXPECT_LE(mostHelpers.load(), kThreads - 1);
  EXPECT_GT(regions.load(), 0);
  // Everything was handed back.
  int32_t all = dlrt_parallel_claim(kHugeWork);
  EXPECT_EQ(all, kThreads);
  dlrt_parallel_release(all);
}

} // namespace

/// While a BLAS called by dlrt_matmul may still spin its threads, regions
/// run on their caller; once it has gone quiet they get helpers again.
TEST(ParallelTest, RegionsRightAfterABlasProductStayOnTheCaller) {
  ASSERT_EQ(dlrt_set_num_threads(2), DLRT_OK);
  float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
  dlrt_matmul(32, 0, 1, 2, 2, 2, a, 0, 2, 1, b, 0, 2, 1, c, 0, 2, 1);
  EXPECT_EQ(c[0], 19.0f);
  EXPECT_EQ(dlrt_parallel_claim(kHugeWork), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int32_t threads = dlrt_parallel_claim(kHugeWork);
  EXPECT_EQ(threads, 2);
  dlrt_parallel_release(threads);
}
