//===- ReduceColumns.cpp - Reductions across the contiguous axis ----------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//
//
// A reduction whose innermost loop is parallel (`x.sum(axis=0)`, a sum over
// a middle axis): its outputs lie along that loop, the columns, which in
// contiguous layouts are adjacent in memory. Blocks take tiles of
// consecutive columns of one outer index, a warp's threads consecutive
// columns (16 bytes each where the layout allows), the block's other warps
// further rows of the same columns; the block combines its rows in shared
// memory, in a fixed order. Where tiles are too few to fill the GPU the
// reduced axis is split over blocks too, and a second kernel combines their
// partial values in order. Results are the same from run to run.
//
//===----------------------------------------------------------------------===//

#include "ReductionEmitter.h"
#include "ReductionPatterns.h"

#include "GridStride.h"
#include "LinalgBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace dlbridge;

namespace {

/// Rows each thread folds at the least before the reduced axis is split
/// over more blocks: fewer would spend more on partial values than on
/// loads.
constexpr int64_t kMinRowsPerThread = 8;

/// Rows a thread loads before it folds them: loads in flight, which a
/// memory-bound kernel needs more of than threads alone give.
constexpr int64_t kUnrollRows = 4;

/// The `linalg.fill` that sets `op`'s whole output just before it, with
/// only ops that touch no buffer in between: its value is then the output's
/// initial value, and the kernel that writes the output need not read it.
linalg::FillOp findInitFill(const Reduction &red) {
  linalg::LinalgOp op = red.op;
  Value out = op.getDpsInitOperand(0)->get();
  Value root = getRoot(out);
  for (OpOperand *input : op.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()) &&
        getRoot(input->get()) == root)
      return nullptr;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev))
      return fill.hasPureBufferSemantics() &&
                     fill.getDpsInitOperand(0)->get() == out &&
                     fill.getInputs()[0].getType() == red.type
                 ? fill
                 : nullptr;
    if (!touchesNoBuffer(prev))
      return nullptr;
  }
  return nullptr;
}

/// Emits the kernels of one column reduction; its `Value`s are host values
/// the kernels capture.
class ColumnLowering {
public:
  ColumnLowering(OpBuilder &b, Location loc, const ReductionEmitter &emitter,
                 const LoopExtents &extents, Value init, int64_t targetBlocks);

  void emit();

private:
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// This thread's `lanes` partial values for columns `column`, ... of the
  /// outer index `outerIvs`: the body folded over rows `first`, `first +
  /// step`, ... below `end`, one vector load per contiguous input each row
  /// where `lanes` > 1. Identities for columns past the end.
  SmallVector<Value> emitFold(OpBuilder &b, ArrayRef<Value> outerIvs,
                              Value column, int64_t lanes, Value first,
                              Value end, Value step);

  /// The output's element at the outer index `outerIvs` and column
  /// `column`, `total` combined into its initial value.
  void emitStoreOutput(OpBuilder &b, ArrayRef<Value> outerIvs, Value column,
                       Value total);

  /// The kernel over tiles of columns; `partials` (null: none) takes its
  /// values, a row per block along y, in place of the output.
  void emitTileKernel(Value partials);

  /// A thread per output element combining the partial values in order.
  void emitFinishKernel(Value partials);

  OpBuilder &b;
  Location loc;
  const ReductionEmitter &emitter;
  const LoopExtents &extents;
  /// The output's initial value where a fill set it, else null (load it).
  Value init;
  linalg::LinalgOp op;
  /// The inputs threads load `vector.lanes` columns at a time.
  VectorOperands vector;
  int64_t vectorLanes = 1;
  /// Host values: the extents of the outer parallel loops, the columns
  /// (the innermost loop), their product with the columns (the outputs) and
  /// the length of the reduced axis (all reduction loops).
  SmallVector<Value> outer;
  Value columns, outputs, length;
  /// Whether every row of each vector input starts 16-byte aligned.
  Value aligned;
  /// Columns a thread takes (vectorLanes where aligned, else 1), threads
  /// along columns (a power of two up to a warp) and along rows, columns
  /// per tile, tiles per outer index and in all.
  Value lanes, threadsX, threadsY, tileWidth, tilesPerRow, tiles;
  /// Blocks along the reduced axis, and rows each takes.
  Value splits, slice;
};

ColumnLowering::ColumnLowering(OpBuilder &b, Location loc,
                               const ReductionEmitter &emitter,
                               const LoopExtents &extents, Value init,
                               int64_t targetBlocks)
    : b(b), loc(loc), emitter(emitter), extents(extents), init(init),
      op(emitter.red.op) {
  vector = findVectorOperands(op, op.getNumLoops() - 1);
  // The output is stored a column per thread, after the block combines.
  llvm::erase_if(vector.operands,
                 [&](OpOperand *operand) { return op.isDpsInit(operand); });
  // Alignment is checked at the first row alone, which vouches for the
  // others only where rows follow each other (identity layouts).
  if (llvm::any_of(vector.operands, [](OpOperand *operand) {
        return !cast<MemRefType>(operand->get().getType())
                    .getLayout()
                    .isIdentity();
      }))
    vector.operands.clear();
  if (!vector.operands.empty())
    vectorLanes = vector.lanes;

  outer.assign(extents.parallel.begin(), extents.parallel.end() - 1);
  columns = extents.parallel.back();
  outputs = extents.rows;
  length = extents.length;
  Value zero = index(0);
  Value one = index(1);
  if (vectorLanes > 1) {
    SmallVector<Value> zeros(op.getNumLoops(), zero);
    Value wholeVectors = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, columns, index(vectorLanes)), zero);
    aligned = arith::AndIOp::create(
        b, loc, vector.emitIsAligned(b, loc, op, zeros), wholeVectors);
    lanes = arith::SelectOp::create(b, loc, aligned, index(vectorLanes), one);
  } else {
    lanes = one;
  }
  // Threads along columns: enough for the row's vectors, up to a warp.
  Value outerCount = product(b, loc, outer);
  auto plan = [&](Value lanes, Value &threadsX, Value &threadsY,
                  Value &tileWidth, Value &tilesPerRow, Value &tiles) {
    Value perRow = arith::CeilDivUIOp::create(b, loc, columns, lanes);
    threadsX = one;
    for (int64_t width = 2; width <= kWarpSize; width *= 2)
      threadsX = arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, perRow,
                                index(width / 2)),
          index(width), threadsX);
    threadsY =
        arith::DivUIOp::create(b, loc, index(emitter.blockSize), threadsX);
    tileWidth = arith::MulIOp::create(b, loc, threadsX, lanes);
    tilesPerRow = arith::CeilDivUIOp::create(b, loc, columns, tileWidth);
    tiles = arith::MulIOp::create(b, loc, tilesPerRow, outerCount);
  };
  plan(lanes, threadsX, threadsY, tileWidth, tilesPerRow, tiles);
  // Blocks along the reduced axis: enough for `targetBlocks` in all, but
  // kMinRowsPerThread rows per thread at the least. Counted as if every
  // row were aligned, so that static shapes decide it alone; unaligned
  // rows have more tiles, each still a whole tile's work.
  Value fullX, fullY, fullWidth, fullPerRow, fullTiles;
  plan(index(vectorLanes), fullX, fullY, fullWidth, fullPerRow, fullTiles);
  Value wanted = arith::CeilDivUIOp::create(
      b, loc, index(targetBlocks),
      arith::MaxUIOp::create(b, loc, fullTiles, one));
  Value most = arith::CeilDivUIOp::create(
      b, loc, length,
      arith::MulIOp::create(b, loc, fullY, index(kMinRowsPerThread)));
  splits = arith::MaxUIOp::create(b, loc, one,
                                  arith::MinUIOp::create(b, loc, wanted, most));
  slice = arith::CeilDivUIOp::create(b, loc, length, splits);
}

void ColumnLowering::emit() {
  Value split = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, splits,
                                      index(1));
  scf::IfOp::create(
      b, loc, split,
      [&](OpBuilder &then, Location loc) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(scf::YieldOp::create(then, loc));
        auto type = MemRefType::get(
            {ShapedType::kDynamic, ShapedType::kDynamic}, emitter.shuffleType);
        Value partials =
            memref::AllocOp::create(b, loc, type, ValueRange{splits, outputs});
        emitTileKernel(partials);
        emitFinishKernel(partials);
        memref::DeallocOp::create(b, loc, partials);
      },
      [&](OpBuilder &otherwise, Location loc) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(scf::YieldOp::create(otherwise, loc));
        emitTileKernel(Value());
      });
}

SmallVector<Value>
ColumnLowering::emitFold(OpBuilder &b, ArrayRef<Value> outerIvs, Value column,
                         int64_t lanes, Value first, Value end, Value step) {
  SmallVector<Value> identities(lanes, emitter.emitIdentity(b, loc));
  unsigned last = op.getNumLoops() - 1;
  SmallVector<Value> parallelIvs(outerIvs);
  parallelIvs.push_back(column);
  // `unroll` rows from `row` on, `step` apart, folded into `accs` in order,
  // every row's loads first.
  auto foldRows = [&](OpBuilder &b, Location loc, Value row, int64_t unroll,
                      ValueRange accs) {
    SmallVector<SmallVector<Value>> rowIvs;
    SmallVector<DenseMap<OpOperand *, Value>> loaded;
    for (int64_t i = 0; i < unroll; ++i) {
      Value r = i == 0 ? row
                       : arith::AddIOp::create(
                             b, loc, row,
                             arith::MulIOp::create(
                                 b, loc, step,
                                 arith::ConstantIndexOp::create(b, loc, i)));
      SmallVector<Value> ivs = emitter.mergeIvs(
          parallelIvs, delinearize(b, loc, r, extents.reduction));
      DenseMap<OpOperand *, Value> values;
      if (lanes > 1) {
        values = emitVectorLoads(b, loc, op, vector, ivs);
      } else {
        for (OpOperand *input : op.getDpsInputOperands())
          if (isa<MemRefType>(input->get().getType()) &&
              !op.getMatchingBlockArgument(input).use_empty())
            values[input] = memref::LoadOp::create(
                b, loc, input->get(),
                applyMap(b, loc, op.getMatchingIndexingMap(input), ivs));
      }
      rowIvs.push_back(std::move(ivs));
      loaded.push_back(std::move(values));
    }
    SmallVector<Value> results(accs);
    for (int64_t i = 0; i < unroll; ++i) {
      if (lanes == 1) {
        results[0] = emitter.emitBody(
            b, loc, rowIvs[i], results[0],
            [&](OpOperand &operand) { return loaded[i].lookup(&operand); });
        continue;
      }
      for (int64_t lane = 0; lane < lanes; ++lane) {
        SmallVector<Value> laneIvs(rowIvs[i]);
        laneIvs[last] = arith::AddIOp::create(
            b, loc, column, arith::ConstantIndexOp::create(b, loc, lane));
        results[lane] =
            emitter.emitBody(b, loc, laneIvs, results[lane],
                             readLane(b, loc, loaded[i], lane, nullptr));
      }
    }
    return results;
  };
  auto emitLoop = [&](OpBuilder &b, Location loc, Value from, Value to,
                      int64_t unroll, ValueRange inits) {
    Value stride =
        unroll == 1
            ? step
            : arith::MulIOp::create(
                  b, loc, step, arith::ConstantIndexOp::create(b, loc, unroll));
    auto loop = scf::ForOp::create(
        b, loc, from, to, stride, inits,
        [&](OpBuilder &inner, Location loc, Value row, ValueRange accs) {
          scf::YieldOp::create(inner, loc,
                               foldRows(inner, loc, row, unroll, accs));
        });
    return loop.getResults();
  };
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, column, columns);
  auto ifOp = scf::IfOp::create(
      b, loc, inRange,
      [&](OpBuilder &then, Location loc) {
        // kUnrollRows rows at a time while whole groups remain, then one.
        Value count = arith::CeilDivUIOp::create(
            then, loc,
            arith::SubIOp::create(then, loc,
                                  arith::MaxUIOp::create(then, loc, end, first),
                                  first),
            step);
        Value unroll = arith::ConstantIndexOp::create(then, loc, kUnrollRows);
        Value whole = arith::SubIOp::create(
            then, loc, count, arith::RemUIOp::create(then, loc, count, unroll));
        Value split = arith::AddIOp::create(
            then, loc, first, arith::MulIOp::create(then, loc, whole, step));
        ValueRange accs =
            emitLoop(then, loc, first, split, kUnrollRows, identities);
        scf::YieldOp::create(then, loc,
                             emitLoop(then, loc, split, end, 1, accs));
      },
      [&](OpBuilder &otherwise, Location loc) {
        scf::YieldOp::create(otherwise, loc, identities);
      });
  return SmallVector<Value>(ifOp.getResults());
}

void ColumnLowering::emitStoreOutput(OpBuilder &b, ArrayRef<Value> outerIvs,
                                     Value column, Value total) {
  OpOperand *out = op.getDpsInitOperand(0);
  SmallVector<Value> parallelIvs(outerIvs);
  parallelIvs.push_back(column);
  SmallVector<Value> indices = applyMap(b, loc, op.getMatchingIndexingMap(out),
                                        emitter.mergeIvs(parallelIvs, {}));
  Value initial =
      init ? init : memref::LoadOp::create(b, loc, out->get(), indices);
  memref::StoreOp::create(b, loc, emitter.emitCombine(b, initial, total),
                          out->get(), indices);
}

void ColumnLowering::emitTileKernel(Value partials) {
  int64_t blockSize = emitter.blockSize;
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto slotsType =
      MemRefType::get({blockSize * vectorLanes}, emitter.shuffleType,
                      MemRefLayoutAttrInterface(), space);
  Value grid = arith::MinUIOp::create(b, loc, tiles, index(kMaxGridBlocks));
  createLaunch(
      b, loc, {grid, splits, index(1)}, blockSize, {slotsType},
      [&](OpBuilder &b, gpu::LaunchOp launch, ValueRange workgroup) {
        Value slots = workgroup.front();
        Value tid = launch.getThreadIds().x;
        Value split = launch.getBlockIds().y;
        Value tx = arith::RemUIOp::create(b, loc, tid, threadsX);
        Value ty = arith::DivUIOp::create(b, loc, tid, threadsX);
        Value firstRow = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, split, slice), ty);
        Value endRow = arith::MinUIOp::create(
            b, loc, length,
            arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, split, slice), slice));
        scf::ForOp::create(
            b, loc, launch.getBlockIds().x, tiles, launch.getGridSize().x,
            ValueRange{},
            [&](OpBuilder &b, Location loc, Value tile, ValueRange) {
              Value outerIndex =
                  arith::DivUIOp::create(b, loc, tile, tilesPerRow);
              Value firstColumn = arith::MulIOp::create(
                  b, loc, arith::RemUIOp::create(b, loc, tile, tilesPerRow),
                  tileWidth);
              SmallVector<Value> outerIvs =
                  delinearize(b, loc, outerIndex, outer);
              // Each thread's values, `lanes` slots from tid * lanes.
              auto foldInto = [&](OpBuilder &b, int64_t lanes) {
                Value lanesValue =
                    arith::ConstantIndexOp::create(b, loc, lanes);
                Value column = arith::AddIOp::create(
                    b, loc, firstColumn,
                    arith::MulIOp::create(b, loc, tx, lanesValue));
                SmallVector<Value> values = emitFold(
                    b, outerIvs, column, lanes, firstRow, endRow, threadsY);
                Value base = arith::MulIOp::create(b, loc, tid, lanesValue);
                for (auto [lane, value] : llvm::enumerate(values))
                  memref::StoreOp::create(
                      b, loc, emitter.widen(b, loc, value), slots,
                      ValueRange{arith::AddIOp::create(
                          b, loc, base,
                          arith::ConstantIndexOp::create(b, loc, lane))});
              };
              if (vectorLanes > 1)
                scf::IfOp::create(
                    b, loc, aligned,
                    [&](OpBuilder &then, Location loc) {
                      foldInto(then, vectorLanes);
                      scf::YieldOp::create(then, loc);
                    },
                    [&](OpBuilder &otherwise, Location loc) {
                      foldInto(otherwise, 1);
                      scf::YieldOp::create(otherwise, loc);
                    });
              else
                foldInto(b, 1);
              gpu::BarrierOp::create(b, loc);
              // A thread per column of the tile combines its rows' values
              // in order of the threads that folded them.
              scf::ForOp::create(
                  b, loc, tid, tileWidth,
                  arith::ConstantIndexOp::create(b, loc, blockSize),
                  ValueRange{},
                  [&](OpBuilder &b, Location loc, Value j, ValueRange) {
                    Value column =
                        arith::AddIOp::create(b, loc, firstColumn, j);
                    Value inRange = arith::CmpIOp::create(
                        b, loc, arith::CmpIPredicate::ult, column, columns);
                    scf::IfOp::create(
                        b, loc, inRange, [&](OpBuilder &b, Location loc) {
                          Value owner =
                              arith::DivUIOp::create(b, loc, j, lanes);
                          Value lane = arith::RemUIOp::create(b, loc, j, lanes);
                          auto rows = scf::ForOp::create(
                              b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                              threadsY,
                              arith::ConstantIndexOp::create(b, loc, 1),
                              ValueRange{emitter.emitIdentity(b, loc)},
                              [&](OpBuilder &b, Location loc, Value t,
                                  ValueRange acc) {
                                Value thread = arith::AddIOp::create(
                                    b, loc,
                                    arith::MulIOp::create(b, loc, t, threadsX),
                                    owner);
                                Value slot = arith::AddIOp::create(
                                    b, loc,
                                    arith::MulIOp::create(b, loc, thread,
                                                          lanes),
                                    lane);
                                Value value =
                                    memref::LoadOp::create(b, loc, slots, slot);
                                scf::YieldOp::create(
                                    b, loc,
                                    emitter.emitCombine(
                                        b, acc[0],
                                        emitter.narrow(b, loc, value)));
                              });
                          Value total = rows.getResult(0);
                          if (partials) {
                            Value output = arith::AddIOp::create(
                                b, loc,
                                arith::MulIOp::create(b, loc, outerIndex,
                                                      columns),
                                column);
                            memref::StoreOp::create(
                                b, loc, emitter.widen(b, loc, total), partials,
                                ValueRange{split, output});
                          } else {
                            emitStoreOutput(b, outerIvs, column, total);
                          }
                          scf::YieldOp::create(b, loc);
                        });
                    scf::YieldOp::create(b, loc);
                  });
              // The slots are rewritten for the next tile.
              gpu::BarrierOp::create(b, loc);
              scf::YieldOp::create(b, loc);
            });
      });
}

void ColumnLowering::emitFinishKernel(Value partials) {
  emitGridStrideLoop(
      b, loc, outputs, emitter.blockSize,
      [&](OpBuilder &b, Location loc, Value output) {
        auto fold = scf::ForOp::create(
            b, loc, arith::ConstantIndexOp::create(b, loc, 0), splits,
            arith::ConstantIndexOp::create(b, loc, 1),
            ValueRange{emitter.emitIdentity(b, loc)},
            [&](OpBuilder &b, Location loc, Value split, ValueRange acc) {
              Value value = memref::LoadOp::create(b, loc, partials,
                                                   ValueRange{split, output});
              scf::YieldOp::create(
                  b, loc,
                  emitter.emitCombine(b, acc[0],
                                      emitter.narrow(b, loc, value)));
            });
        Value outerIndex = arith::DivUIOp::create(b, loc, output, columns);
        Value column = arith::RemUIOp::create(b, loc, output, columns);
        emitStoreOutput(b, delinearize(b, loc, outerIndex, outer), column,
                        fold.getResult(0));
      });
}

/// Reductions whose innermost loop is parallel.
struct ReduceColumns : OpInterfaceRewritePattern<linalg::LinalgOp> {
  ReduceColumns(MLIRContext *context, int64_t blockSize, int64_t targetBlocks)
      : OpInterfaceRewritePattern(context), blockSize(blockSize),
        targetBlocks(targetBlocks) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isInKernel(op))
      return failure();
    std::optional<Reduction> reduction = matchReduction(op);
    if (!reduction || reducesInnermostLoop(op))
      return failure();
    linalg::FillOp fill = findInitFill(*reduction);
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    ReductionEmitter emitter(*reduction, blockSize);
    LoopExtents extents = getLoopExtents(rewriter, loc, op);
    ColumnLowering(rewriter, loc, emitter, extents,
                   fill ? fill.getInputs()[0] : Value(), targetBlocks)
        .emit();
    rewriter.eraseOp(op);
    if (fill)
      rewriter.eraseOp(fill);
    return success();
  }

  int64_t blockSize;
  int64_t targetBlocks;
};

} // namespace

void dlbridge::populateReduceColumnsPatterns(RewritePatternSet &patterns,
                                             int64_t blockSize,
                                             int64_t targetBlocks) {
  patterns.add<ReduceColumns>(patterns.getContext(), blockSize, targetBlocks);
}
