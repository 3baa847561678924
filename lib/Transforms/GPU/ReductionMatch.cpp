//===- ReductionMatch.cpp - Reductions threads may share ------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "ReductionMatch.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace {

std::optional<gpu::AllReduceOperation> getCombinerKind(Operation *op) {
  using Kind = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
      .Case([](arith::AddFOp) { return Kind::ADD; })
      .Case([](arith::AddIOp) { return Kind::ADD; })
      .Case([](arith::MulFOp) { return Kind::MUL; })
      .Case([](arith::MulIOp) { return Kind::MUL; })
      .Case([](arith::MaximumFOp) { return Kind::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return Kind::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return Kind::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return Kind::MINNUMF; })
      .Case([](arith::AndIOp) { return Kind::AND; })
      .Case([](arith::OrIOp) { return Kind::OR; })
      .Case([](arith::XOrIOp) { return Kind::XOR; })
      .Case([](arith::MaxSIOp) { return Kind::MAXSI; })
      .Case([](arith::MinSIOp) { return Kind::MINSI; })
      .Case([](arith::MaxUIOp) { return Kind::MAXUI; })
      .Case([](arith::MinUIOp) { return Kind::MINUI; })
      .Default(std::nullopt);
}

bool isSupportedType(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64())
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.getWidth() <= 64;
}

/// Whether `op` multiplies or convolves over two or more parallel
/// dimensions (matmul and its kin), which a block per output element would
/// make slower, not faster.
bool isMatmulLike(linalg::LinalgOp op) {
  return op.getNumParallelLoops() >= 2 &&
         (linalg::isaContractionOpInterface(op) ||
          linalg::isaConvolutionOpInterface(op));
}

} // namespace

TypedAttr dlbridge::getIdentity(gpu::AllReduceOperation kind, Type type) {
  using Kind = gpu::AllReduceOperation;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    APFloat value = APFloat::getZero(semantics, /*Negative=*/true);
    switch (kind) {
    case Kind::MUL:
      value = APFloat::getOne(semantics);
      break;
    case Kind::MAXIMUMF:
      value = APFloat::getInf(semantics, /*Negative=*/true);
      break;
    case Kind::MINIMUMF:
      value = APFloat::getInf(semantics, /*Negative=*/false);
      break;
    case Kind::MAXNUMF:
    case Kind::MINNUMF:
      value = APFloat::getQNaN(semantics);
      break;
    default:
      break;
    }
    return FloatAttr::get(type, value);
  }
  unsigned width = type.getIntOrFloatBitWidth();
  APInt value = APInt::getZero(width);
  switch (kind) {
  case Kind::MUL:
    value = APInt(width, 1);
    break;
  case Kind::AND:
  case Kind::MINUI:
    value = APInt::getAllOnes(width);
    break;
  case Kind::MAXSI:
    value = APInt::getSignedMinValue(width);
    break;
  case Kind::MINSI:
    value = APInt::getSignedMaxValue(width);
    break;
  default:
    break;
  }
  return IntegerAttr::get(type, value);
}

std::optional<dlbridge::Reduction>
dlbridge::matchReduction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 0 || op.getNumReductionLoops() == 0 ||
      isMatmulLike(op))
    return std::nullopt;

  OpOperand *init = op.getDpsInitOperand(0);
  // The output, indexed by each parallel dimension exactly once.
  AffineMap outMap = op.getMatchingIndexingMap(init);
  if (!outMap.isProjectedPermutation() ||
      outMap.getNumResults() != op.getNumParallelLoops())
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (AffineExpr result : outMap.getResults())
    if (!linalg::isParallelIterator(
            iterators[cast<AffineDimExpr>(result).getPosition()]))
      return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == init->get() ||
        op.getMatchingIndexingMap(input).getNumSymbols() != 0)
      return std::nullopt;

  Block &body = op->getRegion(0).front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield->getNumOperands() != 1)
    return std::nullopt;
  Operation *combiner = yield->getOperand(0).getDefiningOp();
  BlockArgument acc = op.getMatchingBlockArgument(init);
  if (!combiner || combiner->getBlock() != &body || !combiner->hasOneUse() ||
      !acc.hasOneUse() || acc.getUses().begin()->getOwner() != combiner)
    return std::nullopt;
  std::optional<gpu::AllReduceOperation> kind = getCombinerKind(combiner);
  if (!kind || !isSupportedType(acc.getType()))
    return std::nullopt;
  // The body is cloned once per element: it must not touch memory.
  for (Operation &bodyOp : body.without_terminator())
    if (bodyOp.getNumRegions() != 0 || !isMemoryEffectFree(&bodyOp))
      return std::nullopt;
  unsigned accOperand = combiner->getOperand(0) == acc ? 0 : 1;
  return dlbridge::Reduction{op, combiner, accOperand, *kind, acc.getType()};
}

bool dlbridge::isInKernel(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() ||
         op->getParentOfType<gpu::GPUModuleOp>();
}

bool dlbridge::reducesInnermostLoop(linalg::LinalgOp op) {
  return !linalg::isParallelIterator(op.getIteratorTypesArray().back());
}

std::optional<int64_t> dlbridge::getStaticRowCount(linalg::LinalgOp op) {
  int64_t rows = 1;
  bool known = true;
  for (auto [range, iterator] :
       llvm::zip_equal(op.getStaticLoopRanges(), op.getIteratorTypesArray())) {
    if (!linalg::isParallelIterator(iterator))
      continue;
    if (range == 0)
      return 0;
    if (ShapedType::isDynamic(range))
      known = false;
    else
      rows *= range;
  }
  if (!known)
    return std::nullopt;
  return rows;
}

bool dlbridge::hasFewRows(linalg::LinalgOp op, int64_t splitRows) {
  std::optional<int64_t> rows = getStaticRowCount(op);
  return rows && *rows >= 1 && *rows <= splitRows;
}

Value dlbridge::getRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

bool dlbridge::touchesNoBuffer(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (isa<dlpack::AssertOp>(nested))
      return WalkResult::advance();
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &instance : instances)
        if (!isa<MemoryEffects::Allocate>(instance.getEffect()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    // Its nested operations' effects are its own, and the walk visits them.
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}
