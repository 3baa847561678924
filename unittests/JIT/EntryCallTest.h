//===- EntryCallTest.h - A fixture that compiles and calls entries -*- C++
//-*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_UNITTESTS_JIT_ENTRYCALLTEST_H
#define DLBRIDGE_UNITTESTS_JIT_ENTRYCALLTEST_H

#include "dlbridge/JIT/Kernel.h"
#include "dlbridge/Runtime/dlrt.h"

#include <gtest/gtest.h>

#include <vector>

namespace dlbridge::testing {

/// Compiles entries of one MLIR source for the CPU, bypassing the caches,
/// and calls them on a fresh CPU context per test.
class EntryCallTest : public ::testing::Test {
protected:
  static jit::Kernel compileEntry(const char *source, const char *entry) {
    jit::CompileOptions options;
    options.cache = false;
    jit::CompileResult result = jit::compile(source, entry, options);
    EXPECT_TRUE(result) << result.error;
    return *result.kernel;
  }

  void SetUp() override { dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr); }

  /// Calls `kernel` and returns its status; the message is in ctx.error.
  int32_t call(const jit::Kernel &kernel, std::vector<void *> args,
               std::vector<void *> &results) {
    results.assign(kernel.signature().results.size(), nullptr);
    return kernel.call(args.data(), results.data(), &ctx);
  }

  dlrt_call_ctx ctx;
};

} // namespace dlbridge::testing

#endif // DLBRIDGE_UNITTESTS_JIT_ENTRYCALLTEST_H
