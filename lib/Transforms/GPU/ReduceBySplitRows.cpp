//===- ReduceBySplitRows.cpp - Several blocks per row ---------------------===//
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

/// `splitBlocks` blocks per row (fewer for short rows) write partial values
/// to a buffer; a second kernel, a block per row, reduces them in order.
void lowerBySplitRows(OpBuilder &b, Location loc,
                      const ReductionEmitter &emitter,
                      const LoopExtents &extents, int64_t rows,
                      int64_t splitBlocks) {
  auto partialsType = MemRefType::get({rows, splitBlocks}, emitter.shuffleType);
  Value partials = memref::AllocOp::create(b, loc, partialsType);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value threads = arith::ConstantIndexOp::create(b, loc, emitter.blockSize);
  Value rowCount = arith::ConstantIndexOp::create(b, loc, rows);
  // Blocks per row: one per block-size elements, at least one,
  // at most splitBlocks.
  Value wanted = arith::CeilDivUIOp::create(b, loc, extents.length, threads);
  Value split = arith::MaxUIOp::create(
      b, loc, one,
      arith::MinUIOp::create(
          b, loc, wanted, arith::ConstantIndexOp::create(b, loc, splitBlocks)));

  emitter.emitLaunch(
      b, loc, {split, rowCount, one},
      [&](OpBuilder &body, gpu::LaunchOp launch, Value workgroup) {
        Value tid = launch.getThreadIds().x;
        Value block = launch.getBlockIds().x;
        Value row = launch.getBlockIds().y;
        SmallVector<Value> parallelIvs =
            delinearize(body, loc, row, extents.parallel);
        Value first = arith::AddIOp::create(
            body, loc, arith::MulIOp::create(body, loc, block, threads), tid);
        Value step = arith::MulIOp::create(body, loc, split, threads);
        Value partial =
            emitter.emitRowPartial(body, loc, parallelIvs, extents.reduction,
                                   extents.length, first, step);
        Value total =
            emitter.emitBlockReduce(body, loc, partial, tid, workgroup);
        Value zero = arith::ConstantIndexOp::create(body, loc, 0);
        Value firstThread = arith::CmpIOp::create(
            body, loc, arith::CmpIPredicate::eq, tid, zero);
        scf::IfOp::create(
            body, loc, firstThread, [&](OpBuilder &then, Location loc) {
              memref::StoreOp::create(then, loc,
                                      emitter.widen(then, loc, total), partials,
                                      ValueRange{row, block});
              scf::YieldOp::create(then, loc);
            });
      });

  emitter.emitLaunch(
      b, loc, {rowCount, one, one},
      [&](OpBuilder &body, gpu::LaunchOp launch, Value workgroup) {
        Value tid = launch.getThreadIds().x;
        Value row = launch.getBlockIds().x;
        SmallVector<Value> parallelIvs =
            delinearize(body, loc, row, extents.parallel);
        auto loop = scf::ForOp::create(
            body, loc, tid, split, threads,
            ValueRange{emitter.emitIdentity(body, loc)},
            [&](OpBuilder &inner, Location loc, Value k, ValueRange acc) {
              Value value = memref::LoadOp::create(inner, loc, partials,
                                                   ValueRange{row, k});
              scf::YieldOp::create(
                  inner, loc,
                  emitter.emitCombine(inner, acc[0],
                                      emitter.narrow(inner, loc, value)));
            });
        Value total = emitter.emitBlockReduce(body, loc, loop.getResult(0), tid,
                                              workgroup);
        emitter.emitStoreResult(body, loc, tid,
                                emitter.mergeIvs(parallelIvs, {}), total);
      });
  memref::DeallocOp::create(b, loc, partials);
}

/// Reductions whose innermost loop reduces, over few rows.
struct ReduceBySplitRows : OpInterfaceRewritePattern<linalg::LinalgOp> {
  ReduceBySplitRows(MLIRContext *context, int64_t blockSize, int64_t splitRows,
                    int64_t splitBlocks)
      : OpInterfaceRewritePattern(context), blockSize(blockSize),
        splitRows(splitRows), splitBlocks(splitBlocks) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isInKernel(op))
      return failure();
    std::optional<Reduction> reduction = matchReduction(op);
    if (!reduction || !reducesInnermostLoop(op) || !hasFewRows(op, splitRows))
      return failure();
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    ReductionEmitter emitter(*reduction, blockSize);
    LoopExtents extents = getLoopExtents(rewriter, loc, op);
    lowerBySplitRows(rewriter, loc, emitter, extents, *getStaticRowCount(op),
                     splitBlocks);
    rewriter.eraseOp(op);
    return success();
  }

  int64_t blockSize;
  int64_t splitRows;
  int64_t splitBlocks;
};

} // namespace

void dlbridge::populateReduceBySplitRowsPatterns(RewritePatternSet &patterns,
                                                 int64_t blockSize,
                                                 int64_t splitRows,
                                                 int64_t splitBlocks) {
  patterns.add<ReduceBySplitRows>(patterns.getContext(), blockSize, splitRows,
                                  splitBlocks);
}
