//===- ExternDynamicSharedMemory.cpp - PTX's dynamic shared memory --------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace dlbridge {
#define GEN_PASS_DEF_EXTERNDYNAMICSHAREDMEMORY
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// Whether `global` is a zero-length array in shared memory: what
/// `gpu.dynamic_shared_memory` lowers to.
bool isDynamicSharedMemory(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return global.getAddrSpace() == NVVM::NVVMMemorySpace::Shared && array &&
         array.getNumElements() == 0 && global.getInitializerRegion().empty() &&
         !global.getValueAttr();
}

struct ExternDynamicSharedMemoryPass
    : public dlbridge::impl::ExternDynamicSharedMemoryBase<
          ExternDynamicSharedMemoryPass> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::GlobalOp global) {
      if (isDynamicSharedMemory(global))
        global.setLinkage(LLVM::Linkage::External);
    });
  }
};

} // namespace
