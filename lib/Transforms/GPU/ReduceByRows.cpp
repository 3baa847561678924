//===- ReduceByRows.cpp - A block per row ---------------------------------===//
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

/// One block per row, in a grid-stride loop over rows.
void lowerByRows(OpBuilder &b, Location loc, const ReductionEmitter &emitter,
                 const LoopExtents &extents) {
  SmallVector<Type> workgroupTypes;
  if (emitter.numWarps > 1)
    workgroupTypes.push_back(emitter.getWorkgroupType());
  emitRowKernel(b, loc, extents.rows, emitter.blockSize, workgroupTypes,
                [&](OpBuilder &b, Location loc, gpu::LaunchOp launch,
                    ValueRange workgroup, Value row) {
                  Value tid = launch.getThreadIds().x;
                  SmallVector<Value> parallelIvs =
                      delinearize(b, loc, row, extents.parallel);
                  Value partial = emitter.emitRowPartial(
                      b, loc, parallelIvs, extents.reduction, extents.length,
                      tid, launch.getBlockSize().x);
                  Value total = emitter.emitBlockReduce(
                      b, loc, partial, tid,
                      workgroup.empty() ? Value() : workgroup.front());
                  emitter.emitStoreResult(
                      b, loc, tid, emitter.mergeIvs(parallelIvs, {}), total);
                });
}

/// Reductions whose innermost loop reduces, over many rows or an unknown
/// number.
struct ReduceByRows : OpInterfaceRewritePattern<linalg::LinalgOp> {
  ReduceByRows(MLIRContext *context, int64_t blockSize, int64_t splitRows)
      : OpInterfaceRewritePattern(context), blockSize(blockSize),
        splitRows(splitRows) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isInKernel(op))
      return failure();
    std::optional<Reduction> reduction = matchReduction(op);
    if (!reduction || !reducesInnermostLoop(op) || hasFewRows(op, splitRows))
      return failure();
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    ReductionEmitter emitter(*reduction, blockSize);
    LoopExtents extents = getLoopExtents(rewriter, loc, op);
    lowerByRows(rewriter, loc, emitter, extents);
    rewriter.eraseOp(op);
    return success();
  }

  int64_t blockSize;
  int64_t splitRows;
};

} // namespace

void dlbridge::populateReduceByRowsPatterns(RewritePatternSet &patterns,
                                            int64_t blockSize,
                                            int64_t splitRows) {
  patterns.add<ReduceByRows>(patterns.getContext(), blockSize, splitRows);
}
