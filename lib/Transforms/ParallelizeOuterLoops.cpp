//===- ParallelizeOuterLoops.cpp - Outermost parallel loops on threads ----===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"

namespace dlbridge {
#define GEN_PASS_DEF_PARALLELIZEOUTERLOOPS
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// Whether `op`, in the body of a loop run on other threads, would leave the
/// loop early, touch the calling thread's per-call state (the runtime's call
/// in progress, its allocator, its status) or nest parallel regions.
bool isUnsafeOnThreads(Operation *op) {
  Dialect *dialect = op->getDialect();
  if (!dialect || dialect->getNamespace() == "dlpack" ||
      isa<cf::ControlFlowDialect, omp::OpenMPDialect>(dialect))
    return true;
  if (op->getNumSuccessors() != 0 || isa<CallOpInterface, memref::CopyOp>(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  // Effects unknown: only those of an op's body (walked as well) or of a
  // terminator are known.
  if (!effects)
    return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
           !op->hasTrait<OpTrait::IsTerminator>();
  // Heap allocations go through libdlrt (the call's allocator, failures
  // recorded in its context); stack ones are the iteration's own.
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Allocate, MemoryEffects::Free>(e.getEffect()) &&
           e.getResource() !=
               SideEffects::AutomaticAllocationScopeResource::get();
  });
}

/// Whether `loop` may run its iterations on other threads.
bool isSafeOnThreads(scf::ParallelOp loop) {
  return !loop.getBody()
              ->walk([](Operation *op) {
                return isUnsafeOnThreads(op) ? WalkResult::interrupt()
                                             : WalkResult::advance();
              })
              .wasInterrupted();
}

/// Replaces `loop` with a nest of scf.for, one per dimension, that carries
/// its reductions as iteration arguments.
void serialize(RewriterBase &rewriter, scf::ParallelOp loop) {
  rewriter.setInsertionPoint(loop);
  auto reduce = cast<scf::ReduceOp>(loop.getBody()->getTerminator());
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(),
      loop.getStep(), loop.getInitVals(),
      [&](OpBuilder &b, Location, ValueRange ivs,
          ValueRange accumulators) -> scf::ValueVector {
        IRMapping mapping;
        mapping.map(loop.getInductionVars(), ivs);
        for (Operation &op : loop.getBody()->without_terminator())
          b.clone(op, mapping);
        scf::ValueVector reduced;
        for (auto [index, region] : llvm::enumerate(reduce.getReductions())) {
          Block &block = region.front();
          mapping.map(block.getArgument(0), accumulators[index]);
          mapping.map(block.getArgument(1),
                      mapping.lookupOrDefault(reduce.getOperands()[index]));
          for (Operation &op : block.without_terminator())
            b.clone(op, mapping);
          auto result = cast<scf::ReduceReturnOp>(block.getTerminator());
          reduced.push_back(mapping.lookupOrDefault(result.getResult()));
        }
        return reduced;
      });
  rewriter.replaceOp(loop, nest.results);
}

/// Splits a multi-dimensional `loop` without reductions into a parallel
/// loop over its first dimension around a nest of scf.for over the others;
/// returns the parallel loop. OpenMP would otherwise collapse the dimensions
/// into one loop that recomputes every index with a division, which LLVM no
/// longer vectorises. A loop with reductions is returned as it is.
scf::ParallelOp splitFirstDimension(RewriterBase &rewriter,
                                    scf::ParallelOp loop) {
  if (loop.getNumLoops() < 2 || loop.getNumResults() != 0)
    return loop;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto outer = scf::ParallelOp::create(
      rewriter, loc, loop.getLowerBound().take_front(),
      loop.getUpperBound().take_front(), loop.getStep().take_front());
  rewriter.setInsertionPoint(outer.getBody()->getTerminator());
  auto inner = scf::ParallelOp::create(
      rewriter, loc, loop.getLowerBound().drop_front(),
      loop.getUpperBound().drop_front(), loop.getStep().drop_front());
  SmallVector<Value> ivs = {outer.getInductionVars().front()};
  llvm::append_range(ivs, inner.getInductionVars());
  rewriter.eraseOp(inner.getBody()->getTerminator());
  rewriter.mergeBlocks(loop.getBody(), inner.getBody(), ivs);
  rewriter.eraseOp(loop);
  serialize(rewriter, inner);
  return outer;
}

/// The iterations of loops in a region, counted before an outermost loop
/// `outer`: trip counts whose bounds are defined outside `outer` (or are
/// constants) multiply; unknown ones count as 1.
class WorkEstimate {
public:
  WorkEstimate(OpBuilder &b, Operation *outer) : b(b), outer(outer) {}

  /// The iterations of `loop`'s nest, as an i64.
  Value ofParallel(scf::ParallelOp loop) {
    Value work = ofRegion(loop.getRegion());
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
      work = multiply(work, tripCount(lb, ub, step, /*isUnsigned=*/false));
    return work;
  }

private:
  /// The iterations of the loops in `region`, summed; at least 1.
  Value ofRegion(Region &region) {
    Value sum;
    for (Block &block : region)
      for (Operation &op : block) {
        Value work;
        if (auto loop = dyn_cast<scf::ForOp>(op))
          work = multiply(ofRegion(loop.getRegion()),
                          tripCount(loop.getLowerBound(), loop.getUpperBound(),
                                    loop.getStep(), loop.getUnsignedCmp()));
        else if (auto loop = dyn_cast<scf::ParallelOp>(op))
          work = ofParallel(loop);
        else
          for (Region &nested : op.getRegions())
            work = add(work, ofRegion(nested));
        sum = add(sum, work);
      }
    return sum ? sum : constant(1);
  }

  /// `value` as an i64 at the insertion point, or null when it is not
  /// available there.
  Value toI64(Value value, bool isUnsigned) {
    Location loc = outer->getLoc();
    if (IntegerAttr attr; matchPattern(value, m_Constant(&attr)))
      return constant(isUnsigned ? attr.getValue().getZExtValue()
                                 : attr.getValue().getSExtValue());
    if (outer->isAncestor(value.getParentBlock()->getParentOp()))
      return nullptr;
    Type i64 = b.getI64Type();
    if (value.getType().isIndex())
      return b.createOrFold<arith::IndexCastOp>(loc, i64, value);
    unsigned width = value.getType().getIntOrFloatBitWidth();
    if (width == 64)
      return value;
    if (width > 64)
      return nullptr;
    if (isUnsigned)
      return b.createOrFold<arith::ExtUIOp>(loc, i64, value);
    return b.createOrFold<arith::ExtSIOp>(loc, i64, value);
  }

  /// ceil(max(ub - lb, 0) / step), or 1 when a bound is not known before
  /// `outer`.
  Value tripCount(Value lb, Value ub, Value step, bool isUnsigned) {
    Value lower = toI64(lb, isUnsigned), upper = toI64(ub, isUnsigned),
          stride = toI64(step, isUnsigned);
    if (!lower || !upper || !stride)
      return constant(1);
    Location loc = outer->getLoc();
    Value extent = b.createOrFold<arith::MaxSIOp>(
        loc, b.createOrFold<arith::SubIOp>(loc, upper, lower), constant(0));
    return b.createOrFold<arith::CeilDivSIOp>(loc, extent, stride);
  }

  Value multiply(Value lhs, Value rhs) {
    return b.createOrFold<arith::MulIOp>(outer->getLoc(), lhs, rhs);
  }
  Value add(Value lhs, Value rhs) {
    if (!lhs || !rhs)
      return lhs ? lhs : rhs;
    return b.createOrFold<arith::AddIOp>(outer->getLoc(), lhs, rhs);
  }
  Value constant(int64_t value) {
    Value &constant = constants[value];
    if (!constant)
      constant = arith::ConstantIntOp::create(b, outer->getLoc(),
                                              b.getI64Type(), value);
    return constant;
  }

  OpBuilder &b;
  Operation *outer;
  llvm::DenseMap<int64_t, Value> constants;
};

/// Replaces the memref.alloca_scope convert-scf-to-openmp wraps each
/// iteration in with what it would lower to, the stack saved and restored
/// around the body, or with the body alone when nothing in it is allocated
/// on the stack: a scope holds a single block, which the later conversion
/// of loops in it to a CFG would break.
void flattenAllocaScope(RewriterBase &rewriter, memref::AllocaScopeOp scope) {
  bool allocates =
      scope.getBodyRegion()
          .walk([&](memref::AllocaOp alloca) {
            return alloca->getParentWithTrait<
                       OpTrait::AutomaticAllocationScope>() == scope
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted();
  Block &body = scope.getBodyRegion().front();
  rewriter.eraseOp(body.getTerminator());
  rewriter.setInsertionPoint(scope);
  if (allocates) {
    auto pointer = LLVM::LLVMPointerType::get(rewriter.getContext());
    Value stack = LLVM::StackSaveOp::create(rewriter, scope.getLoc(), pointer);
    rewriter.setInsertionPointAfter(scope);
    LLVM::StackRestoreOp::create(rewriter, scope.getLoc(), stack);
  }
  rewriter.inlineBlockBefore(&body, scope);
  rewriter.eraseOp(scope);
}

/// The operations a builder inserted.
struct InsertedOps : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
  SmallVector<Operation *> ops;
};

/// A chosen loop's thread count and the branch on it.
struct Branch {
  Value threads;
  scf::IfOp branch;
};

/// Puts `loop` in the then-branch of an scf.if on whether the runtime grants
/// it more than one thread, and a copy of it made sequential in the else
/// branch. A region that runs on one thread still costs libomp's serialized
/// parallel region, static schedule and barrier: a loop on a few columns
/// inside a loop over many rows paid it on every row.
scf::IfOp branchOnThreads(RewriterBase &rewriter, scf::ParallelOp loop,
                          Value threads) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value one =
      arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 1);
  Value several = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::sgt, threads, one);
  scf::ParallelOp copy;
  auto branch = scf::IfOp::create(
      rewriter, loc, several,
      [&](OpBuilder &b, Location l) {
        scf::YieldOp::create(b, l, loop.getResults());
      },
      [&](OpBuilder &b, Location l) {
        copy = cast<scf::ParallelOp>(b.clone(*loop));
        scf::YieldOp::create(b, l, copy.getResults());
      });
  Operation *thenYield = branch.thenBlock()->getTerminator();
  for (auto [result, replacement] :
       llvm::zip(loop.getResults(), branch.getResults()))
    rewriter.replaceAllUsesExcept(result, replacement, thenYield);
  loop->moveBefore(thenYield);
  serialize(rewriter, copy);
  return branch;
}

struct ParallelizeOuterLoopsPass
    : public dlbridge::impl::ParallelizeOuterLoopsBase<
          ParallelizeOuterLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());

    // The chosen loops, and every scf.parallel, innermost first, to make
    // sequential: those not chosen.
    SmallVector<scf::ParallelOp> chosen, sequential;
    module.walk([&](scf::ParallelOp loop) {
      bool outermost = !loop->getParentOfType<scf::ParallelOp>();
      if (parallelize && outermost && isSafeOnThreads(loop))
        chosen.push_back(loop);
      else
        sequential.push_back(loop);
    });
    for (scf::ParallelOp loop : sequential)
      serialize(rewriter, loop);
    if (chosen.empty())
      return;

    SmallVector<Branch> branches;
    for (scf::ParallelOp loop : chosen) {
      loop = splitFirstDimension(rewriter, loop);
      OpBuilder b(loop);
      InsertedOps inserted;
      b.setListener(&inserted);
      Value work = WorkEstimate(b, loop).ofParallel(loop);
      rewriter.setInsertionPoint(loop);
      FailureOr<LLVM::CallOp> claim = dlbridge::createRuntimeCall(
          rewriter, loop, dlbridge::RuntimeFunction::ParallelClaim, {work});
      if (failed(claim))
        return signalPassFailure();
      // Folding leaves constants it no longer needs.
      for (Operation *op : llvm::reverse(inserted.ops))
        if (isOpTriviallyDead(op))
          op->erase();
      Value threads = claim->getResult();
      scf::IfOp branch = branchOnThreads(rewriter, loop, threads);
      rewriter.setInsertionPointAfter(branch);
      if (failed(dlbridge::createRuntimeCall(
              rewriter, branch, dlbridge::RuntimeFunction::ParallelRelease,
              {threads})))
        return signalPassFailure();
      branches.push_back({threads, branch});
    }

    OpPassManager openmp(ModuleOp::getOperationName());
    openmp.addPass(createConvertSCFToOpenMPPass());
    if (failed(runPipeline(openmp, module)))
      return signalPassFailure();

    // Each loop became an omp.parallel in its then-branch, which runs on the
    // threads granted.
    for (Branch branch : branches) {
      auto regions = branch.branch.thenBlock()->getOps<omp::ParallelOp>();
      if (regions.empty()) {
        branch.branch->emitError("no omp.parallel came of the loop");
        return signalPassFailure();
      }
      omp::ParallelOp region = *regions.begin();
      region.getNumThreadsMutable().assign(branch.threads);
      SmallVector<memref::AllocaScopeOp> scopes;
      region.walk([&](omp::LoopNestOp nest) {
        for (auto scope : nest.getRegion().getOps<memref::AllocaScopeOp>())
          scopes.push_back(scope);
      });
      for (memref::AllocaScopeOp scope : scopes)
        flattenAllocaScope(rewriter, scope);
    }
  }
};

} // namespace
