//===- CompileInMemoryTest.cpp - No file is written without a disk cache --===//
//
// Part of dlbridge's unit tests. With the disk cache off, compiling (the
// contiguous variant too, on a compact call) touches no file: $TMPDIR names
// a directory that does not exist, so any temporary file would fail the
// compile or create it.
//
//===----------------------------------------------------------------------===//

#include "TensorBuilder.h"

#include "dlbridge/JIT/Kernel.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace dlbridge::jit;
using dlbridge::testing::TensorView;

namespace {

constexpr const char *kTwice = R"mlir(
func.func @twice(%x: tensor<?xf64> {dlpack.name = "x"}) -> tensor<?xf64> attributes {dlpack.entry} {
  %r = arith.addf %x, %x : tensor<?xf64>
  return %r : tensor<?xf64>
}
)mlir";

class CompileInMemoryTest : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("dlbridge-tmp", root));
    absent = (root + "/absent").str();
    ::setenv("TMPDIR", absent.c_str(), 1);
    ::setenv("DLBRIDGE_DISK_CACHE", "0", 1);
  }
  void TearDown() override {
    ::unsetenv("TMPDIR");
    ::unsetenv("DLBRIDGE_DISK_CACHE");
    llvm::sys::fs::remove_directories(root);
  }

  llvm::SmallString<128> root;
  std::string absent;
};

TEST_P(CompileInMemoryTest, WritesNoFile) {
  CompileOptions options;
  options.cache = GetParam();
  // A source of its own per parameter, so the in-memory cache does not serve
  // the second.
  std::string source = kTwice + std::string(GetParam() ? "// cached\n" : "");
  CompileResult result = compile(source, "", options);
  ASSERT_TRUE(result) << result.error;
  std::vector<double> x = {1, 2, 3};
  TensorView xv = TensorView::of(x, {3});
  void *args[] = {xv.get()};
  void *results[] = {nullptr};
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
  ASSERT_EQ(result.kernel->call(args, results, &ctx), 0) << ctx.error;
  EXPECT_TRUE(result.kernel->isContiguousVariantLoaded());
  auto *out = static_cast<DLManagedTensorVersioned *>(results[0]);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(static_cast<const double *>(out->dl_tensor.data)[2], 6);
  out->deleter(out);
  EXPECT_FALSE(llvm::sys::fs::exists(absent));
}

INSTANTIATE_TEST_SUITE_P(CacheOnOrOff, CompileInMemoryTest, ::testing::Bool());

} // namespace
