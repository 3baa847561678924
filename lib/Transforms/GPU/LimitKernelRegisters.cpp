//===- LimitKernelRegisters.cpp - Registers that let threads stay resident ===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "GridStride.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace dlbridge {
#define GEN_PASS_DEF_LIMITKERNELREGISTERS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// The most threads a multiprocessor keeps resident on any CUDA GPU.
constexpr int64_t kMaxThreadsPerSM = 2048;

struct LimitKernelRegistersPass
    : public dlbridge::impl::LimitKernelRegistersBase<
          LimitKernelRegistersPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (threadsPerSM < 2 * dlbridge::kWarpSize ||
        threadsPerSM > kMaxThreadsPerSM) {
      module.emitError() << "threads-per-sm="
                         << static_cast<int64_t>(threadsPerSM) << ": expected "
                         << 2 * dlbridge::kWarpSize << " to "
                         << kMaxThreadsPerSM;
      return signalPassFailure();
    }
    StringRef name = NVVM::NVVMDialect::getMinctasmAttrName();
    module.walk([&](gpu::GPUFuncOp kernel) {
      std::optional<ArrayRef<int32_t>> block = kernel.getKnownBlockSize();
      if (!kernel.isKernel() || !block || kernel->hasAttr(name))
        return;
      int64_t threads = 1;
      for (int32_t size : *block)
        threads *= size;
      if (2 * threads < threadsPerSM)
        return;
      int64_t blocks = std::max<int64_t>(1, threadsPerSM / threads);
      kernel->setAttr(
          name, IntegerAttr::get(IntegerType::get(&getContext(), 32), blocks));
    });
  }
};

} // namespace
