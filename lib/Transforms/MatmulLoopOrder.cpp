//===- MatmulLoopOrder.cpp - Vectorisable loop order for matmuls ----------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace dlbridge {
#define GEN_PASS_DEF_MATMULLOOPORDER
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {
struct MatmulLoopOrderPass
    : public dlbridge::impl::MatmulLoopOrderBase<MatmulLoopOrderPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<unsigned>>> matmuls;
    getOperation()->walk([&](linalg::LinalgOp op) {
      // (i, j, k) -> (i, k, j); batched: (b, i, j, k) -> (b, i, k, j).
      if (isa<linalg::MatmulOp>(op) && op.getNumLoops() == 3)
        matmuls.push_back({op, {0, 2, 1}});
      else if (isa<linalg::BatchMatmulOp>(op) && op.getNumLoops() == 4)
        matmuls.push_back({op, {0, 1, 3, 2}});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, order] : matmuls) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generic) ||
          failed(linalg::interchangeGenericOp(rewriter, *generic, order))) {
        op->emitOpError("cannot be reordered into (i, k, j) loops");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
