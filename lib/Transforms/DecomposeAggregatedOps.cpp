//===- DecomposeAggregatedOps.cpp - linalg.softmax & co. to simple ops ----===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace dlbridge {
#define GEN_PASS_DEF_DECOMPOSEAGGREGATEDOPS
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {
struct DecomposeAggregatedOpsPass
    : public dlbridge::impl::DecomposeAggregatedOpsBase<
          DecomposeAggregatedOpsPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> ops;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> results = op.decomposeOperation(rewriter);
      if (failed(results)) {
        op->emitOpError("cannot be decomposed into simpler linalg ops");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *results);
    }
  }
};
} // namespace
