//===- SinkConstantGlobals.cpp - Kernels read globals in device memory ----===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "mlir/Transforms/RegionUtils.h"

namespace dlbridge {
#define GEN_PASS_DEF_SINKCONSTANTGLOBALS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// Whether `use` reads the constant global of a `memref.get_global`; an
/// error when it reads a mutable one.
FailureOr<bool> readsConstantGlobal(memref::GetGlobalOp use) {
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      use, use.getNameAttr());
  if (!global)
    return false;
  if (global.getConstant())
    return true;
  use.emitOpError() << "reads the mutable global " << use.getNameAttr()
                    << " in a kernel: host and device would each have their "
                       "own copy; make the global constant, or pass a device "
                       "buffer as an argument";
  return failure();
}

LogicalResult sinkInto(gpu::LaunchOp launch) {
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(launch.getBody(), captured);
  OpBuilder builder = OpBuilder::atBlockBegin(&launch.getBody().front());
  for (Value value : captured) {
    auto use = value.getDefiningOp<memref::GetGlobalOp>();
    if (!use)
      continue;
    FailureOr<bool> constant = readsConstantGlobal(use);
    if (failed(constant))
      return failure();
    if (!*constant)
      continue;
    Operation *clone = builder.clone(*use);
    replaceAllUsesInRegionWith(value, clone->getResult(0), launch.getBody());
  }
  return success();
}

struct SinkConstantGlobalsPass
    : public dlbridge::impl::SinkConstantGlobalsBase<SinkConstantGlobalsPass> {
  void runOnOperation() override {
    WalkResult walk = getOperation()->walk([](Operation *op) {
      if (auto launch = dyn_cast<gpu::LaunchOp>(op))
        return failed(sinkInto(launch)) ? WalkResult::interrupt()
                                        : WalkResult::advance();
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
        for (Value operand : launch.getKernelOperands())
          if (auto use = operand.getDefiningOp<memref::GetGlobalOp>()) {
            InFlightDiagnostic diag =
                use.emitOpError()
                << "passes the host address of " << use.getNameAttr()
                << " to a kernel, which cannot read host memory; read the "
                   "global with memref.get_global inside the kernel's "
                   "gpu.module, or pass a device buffer";
            diag.attachNote(launch.getLoc()) << "passed to this launch";
            return WalkResult::interrupt();
          }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
