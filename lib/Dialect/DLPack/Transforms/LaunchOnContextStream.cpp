//===- LaunchOnContextStream.cpp - GPU work on the caller's stream --------===//
//
// Part of dlbridge. Makes every GPU operation of host code async on one
// token viewing the stream of the call in progress (dlrt_call_stream()), so
// that gpu-to-llvm hands the caller's borrowed stream to the mgpu* functions
// and never creates, synchronises or destroys a stream of its own.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKLAUNCHONCONTEXTSTREAM
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;
using namespace dlbridge;

namespace {

bool isStreamOrdered(Operation *op) {
  return isa<gpu::LaunchFuncOp, gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp,
             gpu::MemsetOp, gpu::WaitOp>(op);
}

/// Rebuilds `op` (sync or async) as async on `token` alone and makes users
/// of its token use `token`.
void bindToStream(Operation *op, Value token) {
  OpBuilder builder(op);
  Type tokenType = token.getType();
  ValueRange deps(token);
  Location loc = op->getLoc();
  Operation *replacement = nullptr;
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
    std::optional<gpu::KernelDim3> cluster;
    if (launch.hasClusterSize())
      cluster = launch.getClusterSizeOperandValues();
    auto async = gpu::LaunchFuncOp::create(
        builder, loc, launch.getKernelAttr(), launch.getGridSizeOperandValues(),
        launch.getBlockSizeOperandValues(), launch.getDynamicSharedMemorySize(),
        launch.getKernelOperands(), tokenType, deps, cluster);
    async->setDiscardableAttrs(launch->getDiscardableAttrDictionary());
    replacement = async;
  } else if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
    auto async = gpu::AllocOp::create(
        builder, loc, alloc.getType(), tokenType, deps, alloc.getDynamicSizes(),
        alloc.getSymbolOperands(), alloc.getHostShared());
    alloc.getMemref().replaceAllUsesWith(async.getMemref());
    replacement = async;
  } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
    replacement = gpu::DeallocOp::create(builder, loc, tokenType, deps,
                                         dealloc.getMemref());
  } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
    replacement = gpu::MemcpyOp::create(builder, loc, tokenType, deps,
                                        copy.getDst(), copy.getSrc());
  } else if (auto set = dyn_cast<gpu::MemsetOp>(op)) {
    replacement = gpu::MemsetOp::create(builder, loc, tokenType, deps,
                                        set.getDst(), set.getValue());
  }
  // gpu.wait: nothing to run; the stream already orders what follows.
  (void)replacement;
  if (auto async = dyn_cast<gpu::AsyncOpInterface>(op))
    if (Value oldToken = async.getAsyncToken())
      oldToken.replaceAllUsesWith(token);
  op->erase();
}

struct DLPackLaunchOnContextStreamPass
    : public dlbridge::dlpack::impl::DLPackLaunchOnContextStreamBase<
          DLPackLaunchOnContextStreamPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = module.getContext();
    for (auto func : module.getOps<FunctionOpInterface>()) {
      if (func.isExternal())
        continue;
      SmallVector<Operation *> ops;
      func->walk([&](Operation *op) {
        if (isStreamOrdered(op))
          ops.push_back(op);
      });
      if (ops.empty())
        continue;
      OpBuilder builder =
          OpBuilder::atBlockBegin(&func.getFunctionBody().front());
      FailureOr<LLVM::CallOp> stream = createRuntimeCall(
          builder, func, RuntimeFunction::CallStream, ValueRange());
      if (failed(stream))
        return signalPassFailure();
      Value token =
          UnrealizedConversionCastOp::create(
              builder, func.getLoc(),
              TypeRange(gpu::AsyncTokenType::get(context)), stream->getResult())
              .getResult(0);
      for (Operation *op : ops)
        bindToStream(op, token);
    }
  }
};

} // namespace
