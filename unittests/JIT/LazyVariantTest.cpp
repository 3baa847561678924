//===- LazyVariantTest.cpp - The contiguous variant is made when needed ---===//
//
// Part of dlbridge's unit tests. compile() makes only the general
// specialisation of a tensor kernel; the first call with compact tensors
// makes the contiguous one, once, however many threads make that call
// together; calls on compact and strided tensors are right before and after.
// The contiguous object then joins the kernel's disk cache entry.
//
//===----------------------------------------------------------------------===//

#include "DiskCache.h"
#include "TensorBuilder.h"

#include "dlbridge/JIT/Kernel.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

using namespace dlbridge::jit;
using dlbridge::testing::TensorView;

namespace {

constexpr const char *kAxpy = R"mlir(
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @axpy(%a: f32 {dlpack.name = "a"},
                %x: tensor<?x?xf32> {dlpack.name = "x"},
                %y: tensor<?x?xf32> {dlpack.name = "y"})
    -> tensor<?x?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %p = arith.mulf %a, %u : f32
    %s = arith.addf %p, %v : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
)mlir";

constexpr int64_t kRows = 5, kCols = 7;

/// Calls `kernel` as axpy(2, x, y) on 5x7 tensors, compact or every other
/// column of 5x14 ones, and checks every element of the result.
void checkAxpy(const Kernel &kernel, bool compact) {
  int64_t width = compact ? kCols : 2 * kCols;
  std::vector<float> x(kRows * width), y(kRows * width);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i);
    y[i] = static_cast<float>(3 * i + 1);
  }
  std::vector<int64_t> strides =
      compact ? std::vector<int64_t>{} : std::vector<int64_t>{width, 2};
  TensorView xv = TensorView::of(x, {kRows, kCols}, strides);
  TensorView yv = TensorView::of(y, {kRows, kCols}, strides);
  float a = 2;
  void *args[] = {&a, xv.get(), yv.get()};
  void *results[] = {nullptr};
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
  ASSERT_EQ(kernel.call(args, results, &ctx), 0) << ctx.error;
  auto *out = static_cast<DLManagedTensorVersioned *>(results[0]);
  ASSERT_NE(out, nullptr);
  const auto *data = reinterpret_cast<const float *>(
      static_cast<const char *>(out->dl_tensor.data) +
      out->dl_tensor.byte_offset);
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < kCols; ++j) {
      size_t at = i * width + (compact ? j : 2 * j);
      EXPECT_EQ(data[i * kCols + j], 2 * x[at] + y[at])
          << "at (" << i << ", " << j << "), compact " << compact;
    }
  out->deleter(out);
}

Kernel compileUncached() {
  CompileOptions options;
  options.cache = false;
  CompileResult result = compile(kAxpy, "", options);
  EXPECT_TRUE(result) << result.error;
  return *result.kernel;
}

TEST(LazyVariantTest, CompactCallsMakeTheContiguousVariant) {
  Kernel kernel = compileUncached();
  EXPECT_TRUE(kernel.hasContiguousVariant());
  EXPECT_FALSE(kernel.isContiguousVariantLoaded());
  checkAxpy(kernel, /*compact=*/false);
  EXPECT_FALSE(kernel.isContiguousVariantLoaded());
  checkAxpy(kernel, /*compact=*/true);
  EXPECT_TRUE(kernel.isContiguousVariantLoaded());
  checkAxpy(kernel, /*compact=*/true);
  checkAxpy(kernel, /*compact=*/false);
}

TEST(LazyVariantTest, ThreadsCallingTogetherAreRight) {
  Kernel kernel = compileUncached();
  ASSERT_FALSE(kernel.isContiguousVariantLoaded());
  auto calls = [&] {
    for (int i = 0; i < 4; ++i) {
      checkAxpy(kernel, /*compact=*/true);
      checkAxpy(kernel, /*compact=*/false);
    }
  };
  std::thread first(calls), second(calls);
  first.join();
  second.join();
  EXPECT_TRUE(kernel.isContiguousVariantLoaded());
}

TEST(LazyVariantTest, MemrefKernelsHaveNoContiguousVariant) {
  CompileOptions options;
  options.cache = false;
  CompileResult result = compile(R"mlir(
    func.func @f(%x: memref<?xf32> {dlpack.name = "x"}) attributes {dlpack.entry} {
      return
    })mlir",
                                 "", options);
  ASSERT_TRUE(result) << result.error;
  EXPECT_FALSE(result.kernel->hasContiguousVariant());
  EXPECT_FALSE(result.kernel->isContiguousVariantLoaded());
}

TEST(LazyVariantTest, TheContiguousObjectJoinsTheDiskEntry) {
  llvm::SmallString<128> root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("dlbridge-lazy", root));
  std::string dir = (root + "/cache").str();
  ::setenv("DLBRIDGE_CACHE_DIR", dir.c_str(), 1);
  ::unsetenv("DLBRIDGE_DISK_CACHE");
  // A source of its own, so no earlier test's kernel is in memory.
  std::string source = std::string(kAxpy) + "// disk\n";
  CompileResult result = compile(source, "");
  ASSERT_TRUE(result) << result.error;
  auto readEntry = [&] {
    std::optional<CacheEntry> found;
    std::error_code code;
    for (llvm::sys::fs::directory_iterator it(dir, code), end;
         it != end && !code; it.increment(code))
      if (llvm::StringRef(it->path()).contains("llvmcache-dlbridge-")) {
        EXPECT_FALSE(found) << "more than one entry";
        std::string bytes =
            llvm::fromHex(llvm::StringRef(it->path())
                              .take_back(2 * std::tuple_size_v<CacheKey>));
        CacheKey key;
        std::copy(bytes.begin(), bytes.end(), key.begin());
        found = readCacheEntry(dir, key);
      }
    return found;
  };
  std::optional<CacheEntry> entry = readEntry();
  ASSERT_TRUE(entry);
  EXPECT_TRUE(entry->contiguous);
  ASSERT_EQ(entry->objects.size(), 1u);

  checkAxpy(*result.kernel, /*compact=*/true);
  entry = readEntry();
  ASSERT_TRUE(entry);
  ASSERT_EQ(entry->objects.size(), 2u);
  EXPECT_EQ(entry->objects[1].variant, 1u);
  ::unsetenv("DLBRIDGE_CACHE_DIR");
  llvm::sys::fs::remove_directories(root);
}

} // namespace
