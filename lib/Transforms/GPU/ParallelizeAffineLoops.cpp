//===- ParallelizeAffineLoops.cpp - Parallel affine nests to scf.parallel -===//
//
// Part of dlbridge. Memref-level `affine.for` nests that dependence analysis
// proves parallel become `scf.parallel` loops, which the CUDA pipeline maps
// to blocks of threads.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/DialectConversion.h"

namespace dlbridge {
#define GEN_PASS_DEF_PARALLELIZEAFFINELOOPS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;
using affine::AffineForOp;

namespace {

/// Whether a thread can run `loop`'s body and the dependence analysis sees
/// all it does to memory: affine structure, affine loads and stores, and
/// ops without memory effects or regions.
bool hasAnalysableBody(AffineForOp loop) {
  WalkResult walk = loop.getBody()->walk([](Operation *op) {
    if (isa<AffineForOp, affine::AffineIfOp, affine::AffineYieldOp,
            affine::AffineLoadOp, affine::AffineStoreOp>(op))
      return WalkResult::advance();
    return op->getNumRegions() == 0 && isMemoryEffectFree(op)
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

/// The buffer `memref` is a view of: an argument of an entry point or an
/// allocation; null when it comes from anywhere else (a call, a load, an
/// argument of a helper, which its callers may pass one buffer twice).
Value getBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  if (auto argument = dyn_cast<BlockArgument>(memref)) {
    Operation *owner = argument.getOwner()->getParentOp();
    return isa<FunctionOpInterface>(owner) &&
                   owner->hasAttr(
                       dlbridge::dlpack::DLPackDialect::kEntryAttrName)
               ? memref
               : Value();
  }
  return isa_and_nonnull<memref::AllocOp, memref::AllocaOp,
                         memref::GetGlobalOp>(memref.getDefiningOp())
             ? memref
             : Value();
}

/// Whether distinct memrefs `loop` accesses are distinct memory, as the
/// dependence analysis assumes: views of one buffer through different
/// values (`x` and a subview of `x`) are not, nor are memrefs of unknown
/// origin. Distinct arguments of an entry are (its callers pass written
/// arguments that overlap no other, as linalg's semantics require).
bool accessesDistinctBuffers(AffineForOp loop) {
  llvm::SetVector<Value> memrefs;
  loop.walk([&](Operation *op) {
    if (auto load = dyn_cast<affine::AffineLoadOp>(op))
      memrefs.insert(load.getMemRef());
    if (auto store = dyn_cast<affine::AffineStoreOp>(op))
      memrefs.insert(store.getMemRef());
  });
  llvm::SmallPtrSet<Value, 8> buffers;
  for (Value memref : memrefs) {
    Value buffer = getBuffer(memref);
    if (!buffer || !buffers.insert(buffer).second)
      return false;
  }
  return true;
}

bool isParallel(AffineForOp loop) {
  return loop.getNumIterOperands() == 0 && hasAnalysableBody(loop) &&
         accessesDistinctBuffers(loop) && affine::isLoopParallel(loop);
}

/// The loop directly and alone in `loop`'s body, if any.
AffineForOp getPerfectlyNested(AffineForOp loop) {
  Block *body = loop.getBody();
  if (!llvm::hasSingleElement(body->without_terminator()))
    return nullptr;
  return dyn_cast<AffineForOp>(body->front());
}

/// The parallel loops of the perfect nest from `outer`, as far as they stay
/// parallel and their bounds do not depend on the loops around them (one
/// rectangular scf.parallel).
SmallVector<AffineForOp> getParallelBand(AffineForOp outer) {
  SmallVector<AffineForOp> band;
  if (!isParallel(outer))
    return band;
  band.push_back(outer);
  while (AffineForOp inner = getPerfectlyNested(band.back())) {
    bool dependsOnBand = llvm::any_of(inner->getOperands(), [&](Value bound) {
      return llvm::any_of(band, [&](AffineForOp loop) {
        return bound == loop.getInductionVar();
      });
    });
    if (dependsOnBand || !isParallel(inner))
      break;
    band.push_back(inner);
  }
  return band;
}

/// Replaces `band` with one scf.parallel over all its loops. Affine ops in
/// the body are lowered too: scf.parallel's induction variables are no
/// affine dimensions.
LogicalResult parallelize(MutableArrayRef<AffineForOp> band) {
  AffineForOp outer = band.front();
  Location loc = outer.getLoc();
  OpBuilder builder(outer);
  SmallVector<Value> lowerBounds, upperBounds, steps;
  for (AffineForOp loop : band) {
    Value lower = lowerAffineLowerBound(loop, builder);
    Value upper = lowerAffineUpperBound(loop, builder);
    // An affine.for whose upper bound is below its lower one runs no
    // iteration; the grid of the kernel must not become negative.
    std::optional<int64_t> lowerConstant = getConstantIntValue(lower);
    std::optional<int64_t> upperConstant = getConstantIntValue(upper);
    if (!lowerConstant || !upperConstant || *upperConstant < *lowerConstant)
      upper = arith::MaxSIOp::create(builder, loc, upper, lower);
    lowerBounds.push_back(lower);
    upperBounds.push_back(upper);
    steps.push_back(
        arith::ConstantIndexOp::create(builder, loc, loop.getStepAsInt()));
  }
  auto parallel =
      scf::ParallelOp::create(builder, loc, lowerBounds, upperBounds, steps);
  Block *from = band.back().getBody();
  Block *to = parallel.getBody();
  to->getOperations().splice(Block::iterator(to->getTerminator()),
                             from->getOperations(), from->begin(),
                             std::prev(from->end()));
  for (auto [loop, iv] : llvm::zip(band, parallel.getInductionVars()))
    loop.getInductionVar().replaceAllUsesWith(iv);
  outer.erase();

  MLIRContext *context = parallel.getContext();
  RewritePatternSet patterns(context);
  populateAffineToStdConversionPatterns(patterns);
  ConversionTarget target(*context);
  target.addLegalDialect<arith::ArithDialect, memref::MemRefDialect,
                         scf::SCFDialect>();
  target.addIllegalDialect<affine::AffineDialect>();
  if (succeeded(applyPartialConversion(parallel, target, std::move(patterns))))
    return success();
  return parallel.emitOpError()
         << "has affine operations that could not be lowered in its body";
}

/// Whether `loop` is in host code and in no other loop.
bool isOutermostHostLoop(AffineForOp loop) {
  for (Operation *parent = loop->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<LoopLikeOpInterface, gpu::LaunchOp>(parent))
      return false;
  return true;
}

struct ParallelizeAffineLoopsPass
    : public dlbridge::impl::ParallelizeAffineLoopsBase<
          ParallelizeAffineLoopsPass> {
  void runOnOperation() override {
    SmallVector<AffineForOp> outermost;
    getOperation()->walk([&](AffineForOp loop) {
      if (isOutermostHostLoop(loop))
        outermost.push_back(loop);
    });
    for (AffineForOp loop : outermost) {
      SmallVector<AffineForOp> band = getParallelBand(loop);
      if (!band.empty() && failed(parallelize(band)))
        return signalPassFailure();
    }
  }
};

} // namespace
