//===- SpecialisationTableTest.cpp - @jit's kernel table under threads ----===//
//
// Part of dlbridge. The Python extension's SpecialisationTable (it needs only
// Kernel.h) filled by several threads while others look kernels up and call
// them; a key inserted twice keeps its first kernel; a kernel the in-memory
// cache evicted is a miss, and a call that found it before keeps it loaded.
//
//===----------------------------------------------------------------------===//

#include "SpecialisationTable.h"

#include "dlbridge/JIT/Kernel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

using namespace dlbridge;
using dlbridge::python::SpecialisationTable;

namespace {

constexpr const char *kSource = R"mlir(
func.func @twice(%x: i64 {dlpack.name = "x"}) -> i64 attributes {dlpack.entry} {
  %r = arith.addi %x, %x : i64
  return %r : i64
}
)mlir";

/// A fresh kernel (not from the caches, so that only the test holds it).
jit::Kernel compileTwice() {
  jit::CompileOptions options;
  options.cache = false;
  jit::CompileResult result = jit::compile(kSource, "twice", options);
  EXPECT_TRUE(result) << result.error;
  return *result.kernel;
}

int64_t callTwice(const jit::Kernel &kernel, int64_t x) {
  int64_t out = 0;
  void *args[] = {&x};
  void *results[] = {&out};
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
  EXPECT_EQ(kernel.call(args, results, &ctx), DLRT_OK) << ctx.error;
  return out;
}

/// Two Kernels share one compiled module exactly when they share its
/// signature.
bool same(const jit::Kernel &a, const jit::Kernel &b) {
  return &a.signature() == &b.signature();
}

TEST(SpecialisationTableTest, ThreadsInsertWhileOthersFindAndCall) {
  jit::Kernel kernel = compileTwice(), other = compileTwice();
  SpecialisationTable table;
  constexpr uint64_t kFirst[2] = {0, 0};
  table.insert(kFirst, 2, kernel, nullptr);

  constexpr int kWriters = 4, kKeysPerWriter = 200;
  std::atomic<bool> writing{true};
  std::atomic<int64_t> wrongResults{0}, wrongKernels{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back([&] {
      while (writing.load()) {
        std::optional<SpecialisationTable::Entry> found = table.find(kFirst, 2);
        if (!found || !same(found->kernel, kernel)) {
          ++wrongKernels;
          continue;
        }
        if (callTwice(found->kernel, 21) != 42)
          ++wrongResults;
      }
    });
  std::vector<std::thread> writers;
  std::atomic<int> sharedAdded{0};
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      for (uint64_t k = 0; k < kKeysPerWriter; ++k) {
        uint64_t key[2] = {uint64_t(w + 1), k};
        table.insert(key, 2, k % 2 ? kernel : other, nullptr);
        // Every writer also races to insert one shared key.
        uint64_t shared[2] = {~uint64_t(0), k};
        bool added = false;
        table.insert(shared, 2, w % 2 ? kernel : other, nullptr, &added);
        sharedAdded += added;
      }
    });
  for (std::thread &t : writers)
    t.join();
  writing = false;
  for (std::thread &t : readers)
    t.join();

  EXPECT_EQ(wrongResults.load(), 0);
  EXPECT_EQ(wrongKernels.load(), 0);
  EXPECT_EQ(sharedAdded.load(), kKeysPerWriter);
  EXPECT_EQ(table.size(), 1u + kWriters * kKeysPerWriter + kKeysPerWriter);
  for (int w = 0; w < kWriters; ++w)
    for (uint64_t k = 0; k < kKeysPerWriter; ++k) {
      uint64_t key[2] = {uint64_t(w + 1), k};
      std::optional<SpecialisationTable::Entry> found = table.find(key, 2);
      ASSERT_TRUE(found);
      EXPECT_TRUE(same(found->kernel, k % 2 ? kernel : other));
    }
}

TEST(SpecialisationTableTest, AKeyInsertedTwiceKeepsItsFirstKernel) {
  jit::Kernel first = compileTwice(), second = compileTwice();
  SpecialisationTable table;
  const uint64_t key[3] = {1, 2, 3};
  EXPECT_FALSE(table.find(key, 3));
  bool added = false;
  table.insert(key, 3, first, nullptr, &added);
  EXPECT_TRUE(added);
  EXPECT_TRUE(
      same(table.insert(key, 3, second, nullptr, &added).kernel, first));
  EXPECT_FALSE(added);
  EXPECT_EQ(table.size(), 1u);
  // Keys of other lengths are other keys.
  EXPECT_FALSE(table.find(key, 2));
  EXPECT_EQ(callTwice(table.find(key, 3)->kernel, 5), 10);
}

TEST(SpecialisationTableTest, AnUnloadedKernelIsAMissAndItsKeyTakesANewOne) {
  SpecialisationTable table;
  const uint64_t key[2] = {7, 7}, other[2] = {8, 8};
  auto payload = std::make_shared<int>(1);
  {
    jit::Kernel kernel = compileTwice();
    table.insert(key, 2, kernel, payload);
    ASSERT_TRUE(table.find(key, 2));
  }
  // Nothing holds the kernel any more: the table held it weakly.
  EXPECT_FALSE(table.find(key, 2));
  EXPECT_EQ(table.size(), 0u);
  jit::Kernel again = compileTwice();
  bool added = false;
  table.insert(key, 2, again, nullptr, &added);
  EXPECT_TRUE(added);
  EXPECT_TRUE(same(table.find(key, 2)->kernel, again));
  // The old entry's payload was released with it.
  EXPECT_EQ(payload.use_count(), 1);
  {
    jit::Kernel gone = compileTwice();
    table.insert(other, 2, gone, payload);
  }
  table.insert(key, 2, again, nullptr);
  EXPECT_EQ(payload.use_count(), 1) << "an unloaded key's payload is kept";
}

TEST(SpecialisationTableTest, ACallKeepsItsKernelLoadedWhileOthersDropIt) {
  SpecialisationTable table;
  const uint64_t key[1] = {42};
  std::optional<SpecialisationTable::Entry> found;
  {
    jit::Kernel kernel = compileTwice();
    table.insert(key, 1, kernel, nullptr);
    found = table.find(key, 1);
  }
  ASSERT_TRUE(found);
  // Only the call's copy holds the code now; it still runs.
  EXPECT_EQ(callTwice(found->kernel, 4), 8);
  found.reset();
  EXPECT_FALSE(table.find(key, 1));
}

} // namespace
