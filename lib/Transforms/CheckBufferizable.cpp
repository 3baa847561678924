//===- CheckBufferizable.cpp - Tensor operations bufferization lowers -----===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"

namespace dlbridge {
#define GEN_PASS_DEF_CHECKBUFFERIZABLE
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

bool isTensor(Type type) { return isa<TensorType>(type); }

/// Whether one-shot bufferization would leave `op` on tensors.
bool isUnbufferizable(Operation *op) {
  if (isa<bufferization::BufferizableOpInterface>(op))
    return false;
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

struct CheckBufferizablePass
    : public dlbridge::impl::CheckBufferizableBase<CheckBufferizablePass> {
  void runOnOperation() override {
    bool found = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isUnbufferizable(op))
        return WalkResult::advance();
      found = true;
      op->emitError() << "'" << op->getName()
                      << "' computes on tensors but has no bufferization: "
                         "express it with linalg ops (linalg.generic, "
                         "linalg.map, ...) or tensor ops, or lower the "
                         "program to memrefs before compiling";
      return WalkResult::skip();
    });
    if (found)
      signalPassFailure();
  }
};

} // namespace
