//===- ReduceByOutputs.cpp - A thread per output element ------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "ReductionEmitter.h"
#include "ReductionPatterns.h"

#include "GridStride.h"
#include "LinalgBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace dlbridge;

namespace {

/// A thread per output element, in a grid-stride loop, folding the body
/// over its row in order from the initial value, as the sequential loop
/// does: for reductions whose innermost loop is parallel, where consecutive
/// threads then read consecutive elements.
void lowerByOutputs(OpBuilder &b, Location loc, const ReductionEmitter &emitter,
                    const LoopExtents &extents) {
  linalg::LinalgOp op = emitter.red.op;
  OpOperand *init = op.getDpsInitOperand(0);
  dlbridge::emitGridStrideLoop(
      b, loc, extents.rows, emitter.blockSize,
      [&](OpBuilder &rows, Location loc, Value row) {
        Value zero = arith::ConstantIndexOp::create(rows, loc, 0);
        Value one = arith::ConstantIndexOp::create(rows, loc, 1);
        SmallVector<Value> parallelIvs =
            delinearize(rows, loc, row, extents.parallel);
        SmallVector<Value> indices =
            applyMap(rows, loc, op.getMatchingIndexingMap(init),
                     emitter.mergeIvs(parallelIvs, {}));
        Value initial = memref::LoadOp::create(rows, loc, init->get(), indices);
        auto fold = scf::ForOp::create(
            rows, loc, zero, extents.length, one, ValueRange{initial},
            [&](OpBuilder &inner, Location loc, Value k, ValueRange acc) {
              SmallVector<Value> ivs = emitter.mergeIvs(
                  parallelIvs, delinearize(inner, loc, k, extents.reduction));
              scf::YieldOp::create(inner, loc,
                                   emitter.emitBody(inner, loc, ivs, acc[0]));
            });
        memref::StoreOp::create(rows, loc, fold.getResult(0), init->get(),
                                indices);
      });
}

/// Reductions whose innermost loop is parallel.
struct ReduceByOutputs : OpInterfaceRewritePattern<linalg::LinalgOp> {
  ReduceByOutputs(MLIRContext *context, int64_t blockSize)
      : OpInterfaceRewritePattern(context), blockSize(blockSize) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isInKernel(op))
      return failure();
    std::optional<Reduction> reduction = matchReduction(op);
    if (!reduction || reducesInnermostLoop(op))
      return failure();
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    ReductionEmitter emitter(*reduction, blockSize);
    LoopExtents extents = getLoopExtents(rewriter, loc, op);
    lowerByOutputs(rewriter, loc, emitter, extents);
    rewriter.eraseOp(op);
    return success();
  }

  int64_t blockSize;
};

} // namespace

void dlbridge::populateReduceByOutputsPatterns(RewritePatternSet &patterns,
                                               int64_t blockSize) {
  patterns.add<ReduceByOutputs>(patterns.getContext(), blockSize);
}
