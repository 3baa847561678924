//===- CompileOptionsTest.cpp - One option set, checked the same way -----===//
//
// Part of dlbridge's unit tests. compile() refuses out-of-range options and
// CUDA-only options for the CPU with a message naming the option and what it
// accepts; `bufferize` reaches the pipelines and the cache key; the pipeline
// options are made from the option table (names, defaults).
//
//===----------------------------------------------------------------------===//

#include "dlbridge/JIT/Kernel.h"
#include "dlbridge/Pipelines/Pipelines.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace dlbridge;

namespace {

constexpr const char *kDouble = R"mlir(
func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.add ins(%a, %a : tensor<?xf32>, tensor<?xf32>)
                  outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
)mlir";

/// A memref-level program that frees its own buffer.
constexpr const char *kOwnBuffer = R"mlir(
func.func @g(%a: memref<4xf32>) attributes {dlpack.entry} {
  %t = memref.alloc() : memref<4xf32>
  memref.copy %a, %t : memref<4xf32> to memref<4xf32>
  memref.copy %t, %a : memref<4xf32> to memref<4xf32>
  memref.dealloc %t : memref<4xf32>
  return
}
)mlir";

CompileOptions uncached() {
  CompileOptions options;
  options.cache = false;
  return options;
}

/// The error compile() gives for `options`, or "compiled".
std::string errorOf(const CompileOptions &options,
                    const char *source = kDouble) {
  jit::CompileResult result = jit::compile(source, "", options);
  return result ? "compiled" : result.error;
}

TEST(CompileOptionsTest, OutOfRangeValuesNameTheOptionAndWhatItTakes) {
  CompileOptions options = uncached();
  options.optLevel = 7;
  EXPECT_EQ(errorOf(options),
            "CompileOptions::optLevel: expected 0, 1, 2 or 3, got '7'");

  options = uncached();
  options.target = static_cast<Target>(5);
  EXPECT_EQ(errorOf(options),
            "CompileOptions::target: expected cpu or cuda, got '5'");

  options = uncached();
  options.target = Target::CUDA;
  options.format = static_cast<GPUBinaryFormat>(9);
  EXPECT_EQ(errorOf(options), "CompileOptions::format: expected ptx, cubin "
                              "or fatbin, got '9'");

  for (const char *chip : {"banana", "", "sm_80 --evil", "sm_\xff", "sm_70"}) {
    options = uncached();
    options.target = Target::CUDA;
    options.chip = chip;
    EXPECT_EQ(errorOf(options).rfind(
                  "CompileOptions::chip: expected sm_75, sm_80, ", 0),
              0u)
        << chip;
  }
  // The PTX version is the CUDA pipeline's to check.
  for (const char *version : {"ptx", "banana", "99999999999999999999", "60"}) {
    options = uncached();
    options.target = Target::CUDA;
    options.format = GPUBinaryFormat::PTX;
    options.ptxVersion = version;
    EXPECT_NE(errorOf(options).find("PTX"), std::string::npos) << version;
  }
}

TEST(CompileOptionsTest, CUDAOnlyOptionsAreRefusedForTheCPU) {
  struct Case {
    void (*set)(CompileOptions &);
    const char *name;
  };
  const Case cases[] = {
      {[](CompileOptions &o) { o.chip = "sm_90"; }, "chip"},
      {[](CompileOptions &o) { o.ptxVersion = "ptx80"; }, "ptxVersion"},
      {[](CompileOptions &o) { o.format = GPUBinaryFormat::Cubin; }, "format"},
      {[](CompileOptions &o) { o.toolkit = "/usr/local/cuda"; }, "toolkit"},
  };
  for (const Case &c : cases) {
    CompileOptions options = uncached();
    c.set(options);
    EXPECT_EQ(errorOf(options),
              std::string("CompileOptions::") + c.name +
                  " applies to target cuda only; compile with "
                  "CompileOptions::target = Target::CUDA or leave it out");
    // Left at their defaults, they are fine.
    options.target = Target::CUDA;
    EXPECT_EQ(checkOptions(options, Spelling::Cpp), "") << c.name;
  }
}

TEST(CompileOptionsTest, BufferizeReachesThePipelineAndTheCacheKey) {
  // Cached in memory (not on disk), so that a key without `bufferize` would
  // hand back the first kernel for the second compile; without
  // bufferization the entry refuses its tensor arguments.
  ::setenv("DLBRIDGE_DISK_CACHE", "0", 1);
  CompileOptions options;
  ASSERT_EQ(errorOf(options), "compiled");
  options.bufferize = false;
  EXPECT_NE(errorOf(options).find("has type 'tensor<?xf32>'"),
            std::string::npos)
      << errorOf(options);

  // A program that frees its own buffers needs the pipeline to leave them.
  options = uncached();
  options.bufferize = false;
  jit::CompileResult result = jit::compile(kOwnBuffer, "", options);
  ASSERT_TRUE(result) << result.error;
  float data[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  DLTensor tensor{data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
  void *args[1] = {&tensor};
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, {kDLCPU, 0}, nullptr);
  EXPECT_EQ(result.kernel->call(args, nullptr, &ctx), DLRT_OK) << ctx.error;
  EXPECT_EQ(data[3], 4.0f);
}

TEST(CompileOptionsTest, NamesAreSpelledPerInterface) {
  EXPECT_EQ(spell(option::ptxVersion, Spelling::Pipeline), "ptx-version");
  EXPECT_EQ(spell(option::ptxVersion, Spelling::CommandLine), "--ptx-version");
  EXPECT_EQ(spell(option::ptxVersion, Spelling::Python), "ptx_version");
  EXPECT_EQ(spell(option::ptxVersion, Spelling::Cpp),
            "CompileOptions::ptxVersion");
  EXPECT_EQ(spell(option::optLevel, Spelling::Cpp), "CompileOptions::optLevel");
}

/// Each pipeline takes exactly the options the table gives it, with the
/// table's defaults.
TEST(CompileOptionsTest, PipelineOptionsAreTheTables) {
  for (const OptionInfo *info : option::all) {
    std::string value = getDefaultText(*info);
    std::string text = std::string(info->name) + "=" +
                       (value.empty() ? std::string("x") : value);
    EXPECT_EQ(CPUPipelineOptions::createFromString(text) != nullptr,
              (info->interfaces & InCPUPipeline) != 0)
        << info->name;
    EXPECT_EQ(CUDAPipelineOptions::createFromString(text) != nullptr,
              (info->interfaces & InCUDAPipeline) != 0)
        << info->name;
  }
  CUDAPipelineOptions cuda;
  CompileOptions defaults;
  EXPECT_EQ(cuda.chip.getValue(), defaults.chip);
  EXPECT_EQ(cuda.optLevel.getValue(), defaults.optLevel);
  EXPECT_EQ(cuda.format.getValue(), getName(defaults.format));
  EXPECT_EQ(cuda.bufferize.getValue(), defaults.bufferize);
  EXPECT_EQ(CPUPipelineOptions().bufferize.getValue(), defaults.bufferize);
}

} // namespace
