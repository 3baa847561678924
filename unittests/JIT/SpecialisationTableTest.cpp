//===- SpecialisationTableTest.cpp - @jit's kernel table under threads ----===//
//
// Part of dlbridge. The Python extension's SpecialisationTable (it needs only
// Kernel.h) filled by several threads while others look kernels up and call
// them: entries never move, and a key inserted twice keeps its first kernel.
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

jit::Kernel compileTwice() {
  jit::CompileResult result = jit::compile(kSource, "twice");
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

TEST(SpecialisationTableTest, EntriesStayPutWhileThreadsInsertAndCall) {
  jit::Kernel kernel = compileTwice();
  SpecialisationTable table;
  constexpr uint64_t kFirst[2] = {0, 0};
  const jit::Kernel *first = &table.insert(kFirst, 2, kernel);

  constexpr int kWriters = 4, kKeysPerWriter = 200;
  std::atomic<bool> writing{true};
  std::atomic<int64_t> wrongResults{0}, movedEntries{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back([&] {
      // A call in flight keeps using the entry it found.
      while (writing.load()) {
        const jit::Kernel *found = table.find(kFirst, 2);
        if (found != first)
          ++movedEntries;
        if (callTwice(*found, 21) != 42)
          ++wrongResults;
      }
    });
  std::vector<std::thread> writers;
  std::vector<std::vector<const jit::Kernel *>> inserted(kWriters);
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      for (uint64_t k = 0; k < kKeysPerWriter; ++k) {
        uint64_t key[2] = {uint64_t(w + 1), k};
        inserted[w].push_back(&table.insert(key, 2, kernel));
        // Every writer also races to insert one shared key.
        uint64_t shared[2] = {~uint64_t(0), k};
        table.insert(shared, 2, kernel);
      }
    });
  for (std::thread &t : writers)
    t.join();
  writing = false;
  for (std::thread &t : readers)
    t.join();

  EXPECT_EQ(wrongResults.load(), 0);
  EXPECT_EQ(movedEntries.load(), 0);
  // The first key, every writer's own, and the shared ones once each.
  EXPECT_EQ(table.size(), 1u + kWriters * kKeysPerWriter + kKeysPerWriter);
  for (int w = 0; w < kWriters; ++w)
    for (uint64_t k = 0; k < kKeysPerWriter; ++k) {
      uint64_t key[2] = {uint64_t(w + 1), k};
      EXPECT_EQ(table.find(key, 2), inserted[w][k]);
    }
}

TEST(SpecialisationTableTest, AKeyInsertedTwiceKeepsItsFirstKernel) {
  jit::Kernel kernel = compileTwice();
  SpecialisationTable table;
  const uint64_t key[3] = {1, 2, 3};
  EXPECT_EQ(table.find(key, 3), nullptr);
  const jit::Kernel *first = &table.insert(key, 3, kernel);
  EXPECT_EQ(&table.insert(key, 3, kernel), first);
  EXPECT_EQ(table.size(), 1u);
  // Keys of other lengths are other keys.
  EXPECT_EQ(table.find(key, 2), nullptr);
  EXPECT_EQ(callTwice(*table.find(key, 3), 5), 10);
}

} // namespace
