//===- InterchangeScans.cpp - Scans down columns walk rows of columns -----===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"
#include "dlbridge/Transforms/ScanLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dlbridge {
#define GEN_PASS_DEF_INTERCHANGESCANS
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// A parallel loop whose body walks a column with `walk`, carrying values.
struct ColumnWalk {
  scf::ParallelOp loop;
  scf::ForOp walk;
};

bool isDefinedOutside(Value value, Operation *op) {
  return !op->isAncestor(value.getParentBlock()->getParentOp());
}

std::optional<ColumnWalk> matchColumnWalk(scf::ParallelOp loop) {
  scf::ForOp walk = dlbridge::getSoleWalk(loop);
  if (!walk || walk.getNumRegionIterArgs() == 0 ||
      !walk->getResults().use_empty() ||
      !isDefinedOutside(walk.getLowerBound(), loop) ||
      !isDefinedOutside(walk.getUpperBound(), loop) ||
      !isDefinedOutside(walk.getStep(), loop) ||
      llvm::any_of(walk.getRegionIterArgs(), [](Value arg) {
        return !arg.getType().isIntOrIndexOrFloat();
      }))
    return std::nullopt;
  // Along a column: the walk's stores index its own index and the loop's
  // last index last (directly or through the offset of a view), so that
  // consecutive columns sit next to each other in memory.
  Value column = loop.getInductionVars().back();
  bool alongColumns = false;
  for (Operation &op : walk.getBody()->without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      ValueRange indices = store.getIndices();
      if (!llvm::is_contained(indices, walk.getInductionVar()))
        return std::nullopt;
      // Directly, or into the column's view (the scans the tracer emits).
      bool direct = indices.back() == column;
      auto view = store.getMemRef().getDefiningOp<memref::SubViewOp>();
      bool viewed = view && view->getBlock() == loop.getBody() &&
                    getAsOpFoldResult(column) == view.getMixedOffsets().back();
      if (!direct && !viewed)
        return std::nullopt;
      alongColumns = true;
      continue;
    }
    if (isa<memref::LoadOp>(op))
      continue;
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return std::nullopt;
  }
  if (!alongColumns)
    return std::nullopt;
  return ColumnWalk{loop, walk};
}

/// Replaces the column walks of `match` by walks of tiles of `tile` columns:
/// for each index of the walk, every column of the tile takes its step, its
/// carried values kept in a buffer between steps. Each column computes what
/// it did, in the same order.
void interchange(const ColumnWalk &match, int64_t tile) {
  scf::ParallelOp loop = match.loop;
  scf::ForOp walk = match.walk;
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  // The carried values of every column, indexed by the loop's indices less
  // its lower bounds: on the heap, before the loop, as its iterations run
  // on any thread.
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> counts;
  for (auto [lower, upper] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound()))
    counts.push_back(arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, upper, lower), zero));
  SmallVector<int64_t> shape(counts.size(), ShapedType::kDynamic);
  SmallVector<Value> buffers;
  for (Value arg : walk.getRegionIterArgs())
    buffers.push_back(memref::AllocOp::create(
        b, loc, MemRefType::get(shape, arg.getType()), counts));
  SmallVector<Value> steps(loop.getStep());
  steps.back() = arith::ConstantIndexOp::create(b, loc, tile);
  Value tileSize = steps.back();
  auto tiled = scf::ParallelOp::create(b, loc, loop.getLowerBound(),
                                       loop.getUpperBound(), steps);
  for (Value buffer : buffers)
    memref::DeallocOp::create(b, loc, buffer);
  b.setInsertionPointToStart(tiled.getBody());
  Value first = tiled.getInductionVars().back();
  Value end = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, first, tileSize),
      loop.getUpperBound().back());
  Value one = arith::ConstantIndexOp::create(b, loc, 1);

  /// A loop over the tile's columns; `build` emits a column's work with the
  /// loop's body cloned (`walk` aside) in `mapping`, at indices `slot` of
  /// the buffers.
  auto forEachColumn =
      [&](OpBuilder &b,
          function_ref<void(OpBuilder &, IRMapping &, ValueRange)> build) {
        scf::ForOp::create(
            b, loc, first, end, one, ValueRange{},
            [&](OpBuilder &b, Location loc, Value column, ValueRange) {
              IRMapping mapping;
              for (auto [from, to] :
                   llvm::zip(loop.getInductionVars(), tiled.getInductionVars()))
                mapping.map(from, to);
              mapping.map(loop.getInductionVars().back(), column);
              for (Operation &op : loop.getBody()->without_terminator())
                if (&op != walk.getOperation())
                  b.clone(op, mapping);
              SmallVector<Value> slot;
              for (auto [iv, lower] :
                   llvm::zip(loop.getInductionVars(), loop.getLowerBound()))
                slot.push_back(
                    arith::SubIOp::create(b, loc, mapping.lookup(iv), lower));
              build(b, mapping, slot);
              scf::YieldOp::create(b, loc);
            });
      };

  forEachColumn(b, [&](OpBuilder &b, IRMapping &mapping, ValueRange slot) {
    for (auto [buffer, init] : llvm::zip(buffers, walk.getInitArgs()))
      memref::StoreOp::create(b, loc, mapping.lookupOrDefault(init), buffer,
                              slot);
  });
  scf::ForOp::create(
      b, loc, walk.getLowerBound(), walk.getUpperBound(), walk.getStep(),
      ValueRange{}, [&](OpBuilder &b, Location loc, Value index, ValueRange) {
        forEachColumn(b, [&](OpBuilder &b, IRMapping &mapping,
                             ValueRange slot) {
          mapping.map(walk.getInductionVar(), index);
          for (auto [arg, buffer] :
               llvm::zip(walk.getRegionIterArgs(), buffers))
            mapping.map(arg, memref::LoadOp::create(b, loc, buffer, slot));
          for (Operation &op : walk.getBody()->without_terminator())
            b.clone(op, mapping);
          auto yield = cast<scf::YieldOp>(walk.getBody()->getTerminator());
          for (auto [value, buffer] : llvm::zip(yield.getOperands(), buffers))
            memref::StoreOp::create(b, loc, mapping.lookupOrDefault(value),
                                    buffer, slot);
        });
        scf::YieldOp::create(b, loc);
      });
  loop->erase();
}

struct InterchangeScansPass
    : public dlbridge::impl::InterchangeScansBase<InterchangeScansPass> {
  using Base::Base;

  void runOnOperation() override {
    if (tileSize < 1) {
      getOperation()->emitError()
          << "tile-size=" << static_cast<int64_t>(tileSize)
          << ": expected at least 1";
      return signalPassFailure();
    }
    SmallVector<ColumnWalk> matches;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (loop->getParentOfType<scf::ParallelOp>())
        return;
      if (std::optional<ColumnWalk> match = matchColumnWalk(loop))
        matches.push_back(*match);
    });
    for (const ColumnWalk &match : matches)
      interchange(match, tileSize);
  }
};

} // namespace
