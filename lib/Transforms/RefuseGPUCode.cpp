//===- RefuseGPUCode.cpp - GPU operations are not host code ---------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

namespace dlbridge {
#define GEN_PASS_DEF_REFUSEGPUCODE
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

bool isGPUCode(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  return dialect == "gpu" || dialect == "nvvm" || dialect == "rocdl";
}

struct RefuseGPUCodePass
    : public dlbridge::impl::RefuseGPUCodeBase<RefuseGPUCodePass> {
  void runOnOperation() override {
    bool found = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!isGPUCode(op))
        return WalkResult::advance();
      found = true;
      op->emitError() << "'" << op->getName()
                      << "' is GPU code: compile it with the CUDA target "
                         "(target=\"cuda\", or --dlbridge-cuda-pipeline)";
      // What is nested in it is part of it.
      return WalkResult::skip();
    });
    if (found)
      signalPassFailure();
  }
};

} // namespace
