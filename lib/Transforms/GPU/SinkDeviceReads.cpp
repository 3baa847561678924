//===- SinkDeviceReads.cpp - Host scalars that only kernels use -----------===//
//
// Part of dlbridge. A scalar host code reads from a buffer (a 0-d tensor
// extracted before the kernels that use it) is read from device memory on
// CUDA: this pass computes it in the kernels that use it instead.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dlbridge {
#define GEN_PASS_DEF_SINKDEVICEREADS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// The memrefs `op` reads when it does nothing but read memrefs and has no
/// regions (`memref.load`, `affine.load`, `vector.transfer_read`, ...);
/// empty otherwise.
SmallVector<Value> getReadMemrefs(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects || op->getNumRegions() != 0 || op->getNumResults() == 0)
    return {};
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  SmallVector<Value> memrefs;
  for (const MemoryEffects::EffectInstance &effect : instances) {
    Value value = effect.getValue();
    if (!isa<MemoryEffects::Read>(effect.getEffect()) || !value ||
        !isa<BaseMemRefType>(value.getType()))
      return {};
    memrefs.push_back(value);
  }
  return memrefs;
}

/// Whether `op`, or an op nested in it, may write or free memory that one of
/// `memrefs` may alias. Ops whose effects are unknown (calls) may; run-time
/// checks, which only record a status and return early, do not.
bool mayWrite(Operation *op, ArrayRef<Value> memrefs, AliasAnalysis &aliases) {
  WalkResult walk = op->walk([&](Operation *nested) {
    if (isa<cf::AssertOp, dlbridge::dlpack::AssertOp>(nested))
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects)
      return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value || llvm::any_of(memrefs, [&](Value memref) {
            return !aliases.alias(value, memref).isNo();
          }))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Whether every thread of `launch` reads what `read` reads: nothing from
/// `read` to the launch, the launch included, may write to it.
bool readsSameInLaunch(Operation *read, ArrayRef<Value> memrefs,
                       gpu::LaunchOp launch, AliasAnalysis &aliases) {
  Operation *ancestor = read->getBlock()->findAncestorOpInBlock(*launch);
  if (!ancestor)
    return false;
  for (Operation *op = read->getNextNode();; op = op->getNextNode()) {
    if (mayWrite(op, memrefs, aliases))
      return false;
    if (op == ancestor)
      return true;
  }
}

/// The launches whose bodies hold all uses of `op`, in order of first use;
/// empty if host code uses it too (a launch's grid size counts as host).
SmallVector<gpu::LaunchOp> getUsingLaunches(Operation *op) {
  llvm::SetVector<gpu::LaunchOp> launches;
  for (Operation *user : op->getUsers()) {
    auto launch = user->getParentOfType<gpu::LaunchOp>();
    if (!launch)
      return {};
    launches.insert(launch);
  }
  return launches.takeVector();
}

/// Replaces the uses of `from` in `launch` with `to`.
void replaceUsesIn(gpu::LaunchOp launch, Value from, Value to) {
  from.replaceUsesWithIf(to, [&](OpOperand &use) {
    return launch->isProperAncestor(use.getOwner());
  });
}

/// Computes `op` at the top of each launch in `launches` instead.
void sinkInto(Operation *op, ArrayRef<gpu::LaunchOp> launches) {
  for (gpu::LaunchOp launch : launches) {
    OpBuilder builder = OpBuilder::atBlockBegin(&launch.getBody().front());
    Operation *clone = builder.clone(*op);
    for (auto [from, to] : llvm::zip(op->getResults(), clone->getResults()))
      replaceUsesIn(launch, from, to);
  }
  op->erase();
}

/// Hands the value `read` reads to `launches` through a fresh 0-d buffer:
/// it is stored right after the read (in stream order, by the kernel that
/// `dlbridge-offload-host-code` makes of the read and the store), loaded at
/// the top of each launch, and freed after the last. False, doing nothing,
/// where the value cannot be stored in a buffer.
bool stageThroughBuffer(Operation *read, ArrayRef<gpu::LaunchOp> launches) {
  if (read->getNumResults() != 1)
    return false;
  Value value = read->getResult(0);
  if (!MemRefType::isValidElementType(value.getType()))
    return false;
  Block *block = read->getBlock();
  Operation *last = nullptr;
  for (gpu::LaunchOp launch : launches) {
    Operation *ancestor = block->findAncestorOpInBlock(*launch);
    if (!ancestor)
      return false;
    if (!last || last->isBeforeInBlock(ancestor))
      last = ancestor;
  }
  Location loc = read->getLoc();
  // At the top of the block, so that the allocation does not split the run
  // of host reads `dlbridge-offload-host-code` moves into one kernel.
  OpBuilder builder = OpBuilder::atBlockBegin(block);
  auto type = MemRefType::get({}, value.getType());
  Value buffer = memref::AllocOp::create(builder, loc, type);
  builder.setInsertionPointAfter(read);
  memref::StoreOp::create(builder, loc, value, buffer, ValueRange());
  for (gpu::LaunchOp launch : launches) {
    builder.setInsertionPointToStart(&launch.getBody().front());
    Value loaded = memref::LoadOp::create(builder, loc, buffer, ValueRange());
    replaceUsesIn(launch, value, loaded);
  }
  builder.setInsertionPointAfter(last);
  memref::DeallocOp::create(builder, loc, buffer);
  return true;
}

struct SinkDeviceReadsPass
    : public dlbridge::impl::SinkDeviceReadsBase<SinkDeviceReadsPass> {
  void runOnOperation() override {
    // Host reads, and pure ops computed from them, in program order.
    SmallVector<Operation *> candidates;
    llvm::SmallPtrSet<Operation *, 16> isCandidate;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      bool fromRead = op->getNumRegions() == 0 && op->getNumResults() != 0 &&
                      isPure(op) &&
                      llvm::any_of(op->getOperands(), [&](Value operand) {
                        return isCandidate.contains(operand.getDefiningOp());
                      });
      if (fromRead || !getReadMemrefs(op).empty()) {
        candidates.push_back(op);
        isCandidate.insert(op);
      }
      return WalkResult::advance();
    });

    AliasAnalysis &aliases = getAnalysis<AliasAnalysis>();
    // Users first: once they are in the kernels, so are all uses of what
    // they were computed from, and clones at the top of a body come out in
    // program order.
    for (Operation *op : llvm::reverse(candidates)) {
      SmallVector<gpu::LaunchOp> launches = getUsingLaunches(op);
      if (launches.empty())
        continue;
      SmallVector<Value> memrefs = getReadMemrefs(op);
      if (memrefs.empty() || llvm::all_of(launches, [&](gpu::LaunchOp launch) {
            return readsSameInLaunch(op, memrefs, launch, aliases);
          })) {
        sinkInto(op, launches);
        continue;
      }
      // Where this fails, the read stays a host read used by kernels, which
      // dlbridge-offload-host-code reports.
      (void)stageThroughBuffer(op, launches);
    }
  }
};

} // namespace
