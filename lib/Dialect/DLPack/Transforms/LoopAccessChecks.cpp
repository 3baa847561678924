//===- LoopAccessChecks.cpp - Element accesses in loops, checked once -----===//
//
// Part of dlbridge. A loop indexing one argument with the range of another
// (`for i < dim(a): a[i] * b[i]`) reads out of bounds when their shapes
// differ; checking each access would cost O(elements). The index ranges of
// induction variables are known before the loops start, so the bounds are
// checked there, once.
//
//===----------------------------------------------------------------------===//

#include "LoopAccessChecks.h"

#include "CheckMessages.h"
#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {

/// The range of one induction variable, as values available before the
/// outermost loop.
struct IVRange {
  Value lower, upper, step;
};

/// The accessed memref or tensor and the indices of `access`, one per
/// dimension (null where an affine map computes it); false for other ops.
bool getIndices(Operation *access, Value &shaped,
                SmallVectorImpl<Value> &indices) {
  if (auto load = dyn_cast<memref::LoadOp>(access)) {
    shaped = load.getMemRef();
    llvm::append_range(indices, load.getIndices());
  } else if (auto store = dyn_cast<memref::StoreOp>(access)) {
    shaped = store.getMemRef();
    llvm::append_range(indices, store.getIndices());
  } else if (auto extract = dyn_cast<tensor::ExtractOp>(access)) {
    shaped = extract.getTensor();
    llvm::append_range(indices, extract.getIndices());
  } else if (auto insert = dyn_cast<tensor::InsertOp>(access)) {
    shaped = insert.getDest();
    llvm::append_range(indices, insert.getIndices());
  } else if (isa<affine::AffineLoadOp, affine::AffineStoreOp>(access)) {
    auto load = dyn_cast<affine::AffineLoadOp>(access);
    auto store = dyn_cast<affine::AffineStoreOp>(access);
    shaped = load ? load.getMemRef() : store.getMemRef();
    AffineMap map = load ? load.getAffineMap() : store.getAffineMap();
    ValueRange operands = load ? load.getMapOperands() : store.getMapOperands();
    for (AffineExpr expr : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        indices.push_back(operands[dim.getPosition()]);
      else if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
        indices.push_back(operands[map.getNumDims() + symbol.getPosition()]);
      else
        indices.push_back(Value());
    }
  } else {
    return false;
  }
  return true;
}

/// Builds the checks of one access before `outermost`.
class LoopAccessChecker {
public:
  LoopAccessChecker(OpBuilder &builder, Operation *access)
      : builder(builder), access(access), loc(access->getLoc()) {}

  void generate();

private:
  /// Whether `value` is available before the outermost loop: defined before
  /// it in its block (or an argument of that block).
  bool isInvariant(Value value) const {
    Block *block = outermost->getBlock();
    if (auto arg = dyn_cast<BlockArgument>(value))
      return arg.getOwner() == block;
    Operation *def = value.getDefiningOp();
    return def->getBlock() == block && def->isBeforeInBlock(outermost);
  }
  Value materialize(OpFoldResult value) {
    return getValueOrCreateConstantIndexOp(builder, loc, value);
  }
  /// Records the ranges of `loop`'s induction variables; false when the
  /// loop is of another kind or its bounds vary.
  bool addLoop(Operation *loop);
  bool addRange(Value iv, OpFoldResult lower, OpFoldResult upper,
                OpFoldResult step);
  bool addAffineRange(affine::AffineForOp loop);

  OpBuilder &builder;
  Operation *access;
  Location loc;
  Operation *outermost = nullptr;
  DenseMap<Value, IVRange> ranges;
  /// True when some loop runs no iteration (then no access happens).
  Value anyEmpty;
};

bool LoopAccessChecker::addRange(Value iv, OpFoldResult lower,
                                 OpFoldResult upper, OpFoldResult step) {
  for (OpFoldResult bound : {lower, upper, step})
    if (auto value = dyn_cast<Value>(bound); value && !isInvariant(value))
      return false;
  IVRange range{materialize(lower), materialize(upper), materialize(step)};
  Value empty = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sle,
                                      range.upper, range.lower);
  anyEmpty =
      anyEmpty ? arith::OrIOp::create(builder, loc, anyEmpty, empty) : empty;
  ranges[iv] = range;
  return true;
}

bool LoopAccessChecker::addAffineRange(affine::AffineForOp loop) {
  if (loop.getLowerBoundMap().getNumResults() != 1 ||
      loop.getUpperBoundMap().getNumResults() != 1)
    return false;
  for (Value operand : llvm::concat<Value>(loop.getLowerBoundOperands(),
                                           loop.getUpperBoundOperands()))
    if (!isInvariant(operand))
      return false;
  Value lower = affine::AffineApplyOp::create(
      builder, loc, loop.getLowerBoundMap(), loop.getLowerBoundOperands());
  Value upper = affine::AffineApplyOp::create(
      builder, loc, loop.getUpperBoundMap(), loop.getUpperBoundOperands());
  return addRange(loop.getInductionVar(), lower, upper,
                  builder.getIndexAttr(loop.getStepAsInt()));
}

bool LoopAccessChecker::addLoop(Operation *loop) {
  if (auto forOp = dyn_cast<scf::ForOp>(loop))
    return forOp.getLowerBound().getType().isIndex() &&
           addRange(forOp.getInductionVar(), forOp.getLowerBound(),
                    forOp.getUpperBound(), forOp.getStep());
  if (auto forOp = dyn_cast<affine::AffineForOp>(loop))
    return addAffineRange(forOp);
  if (auto forall = dyn_cast<scf::ForallOp>(loop)) {
    for (auto [iv, lower, upper, step] :
         llvm::zip(forall.getInductionVars(), forall.getMixedLowerBound(),
                   forall.getMixedUpperBound(), forall.getMixedStep()))
      if (!addRange(iv, lower, upper, step))
        return false;
    return true;
  }
  if (auto parallel = dyn_cast<scf::ParallelOp>(loop)) {
    for (auto [iv, lower, upper, step] :
         llvm::zip(parallel.getInductionVars(), parallel.getLowerBound(),
                   parallel.getUpperBound(), parallel.getStep()))
      if (!addRange(iv, lower, upper, step))
        return false;
    return true;
  }
  return false;
}

void LoopAccessChecker::generate() {
  Value shaped;
  SmallVector<Value> indices;
  if (!getIndices(access, shaped, indices) ||
      access->getParentOfType<gpu::GPUModuleOp>())
    return;
  // Only loops between the access and its function: a check hoisted out
  // of an scf.if would fire for accesses the condition rules out.
  SmallVector<Operation *> loops;
  for (Operation *parent = access->getParentOp();
       parent && !isa<FunctionOpInterface>(parent);
       parent = parent->getParentOp()) {
    if (!isa<scf::ForOp, affine::AffineForOp, scf::ForallOp, scf::ParallelOp>(
            parent))
      return;
    loops.push_back(parent);
  }
  if (loops.empty())
    return;
  outermost = loops.back();
  if (!isInvariant(shaped))
    return;
  builder.setInsertionPoint(outermost);
  for (Operation *loop : llvm::reverse(loops))
    if (!addLoop(loop))
      return;

  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  for (auto [dim, index] : llvm::enumerate(indices)) {
    if (!index)
      continue;
    Value first, last;
    if (auto it = ranges.find(index); it != ranges.end()) {
      // The last value: lower + (upper - lower - 1) / step * step, for a
      // positive step (a step below 1 counts as 1: no division by 0).
      const IVRange &range = it->second;
      Value positive = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::sgt, range.step, zero);
      Value step =
          arith::SelectOp::create(builder, loc, positive, range.step, one);
      Value span = arith::SubIOp::create(
          builder, loc,
          arith::SubIOp::create(builder, loc, range.upper, range.lower), one);
      Value count = arith::DivSIOp::create(builder, loc, span, step);
      first = range.lower;
      last = arith::AddIOp::create(
          builder, loc, range.lower,
          arith::MulIOp::create(builder, loc, count, step));
    } else if (isInvariant(index)) {
      first = last = index;
    } else {
      continue;
    }
    Value extent = isa<MemRefType>(shaped.getType())
                       ? builder.createOrFold<memref::DimOp>(loc, shaped, dim)
                       : builder.createOrFold<tensor::DimOp>(loc, shaped, dim);
    Value inBounds = arith::AndIOp::create(
        builder, loc,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge, first,
                              zero),
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, last,
                              extent));
    Value ok = arith::OrIOp::create(builder, loc, anyEmpty, inBounds);
    CheckMessage message;
    message << describeOp(access) << ": index #" << std::to_string(dim)
            << " takes values from " << first << " to " << last
            << " in the loops around it, out of bounds of dimension #"
            << std::to_string(dim) << "; operand shapes: ";
    message.appendShape(builder, loc, shaped);
    AssertOp::create(builder, loc, ok, FailureStatus::ShapeMismatch,
                     message.getFormat(), message.getValues());
  }
}

} // namespace

SmallVector<Operation *>
dlbridge::dlpack::generateLoopAccessChecks(OpBuilder &builder,
                                           Operation *access) {
  Operation *outermost = access;
  while (outermost->getParentOp() &&
         !isa<FunctionOpInterface>(outermost->getParentOp()))
    outermost = outermost->getParentOp();
  if (outermost == access)
    return {};
  Operation *previous = outermost->getPrevNode();
  LoopAccessChecker(builder, access).generate();
  Block::iterator first = previous ? std::next(previous->getIterator())
                                   : outermost->getBlock()->begin();
  return llvm::to_vector(llvm::make_pointer_range(
      llvm::make_range(first, outermost->getIterator())));
}
