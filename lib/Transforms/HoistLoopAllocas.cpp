//===- HoistLoopAllocas.cpp - One stack buffer per loop, not per iteration ===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

namespace dlbridge {
#define GEN_PASS_DEF_HOISTLOOPALLOCAS
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// Whether the buffer of `alloca` may be used after the iteration that
/// allocated it ends: it, a view or cast of it, or a call result that may be
/// one, is used by a terminator (yield, condition), forwarded into a region,
/// or stored as a value.
bool outlivesIteration(memref::AllocaOp alloca) {
  llvm::SetVector<Value> aliases;
  aliases.insert(alloca.getResult());
  for (size_t i = 0; i < aliases.size(); ++i) {
    for (OpOperand &use : aliases[i].getUses()) {
      Operation *user = use.getOwner();
      if (user->hasTrait<OpTrait::IsTerminator>() ||
          isa<RegionBranchOpInterface>(user))
        return true;
      if (auto store = dyn_cast<memref::StoreOp>(user);
          store && store.getValueToStore() == use.get())
        return true;
      if (isa<ViewLikeOpInterface, CastOpInterface, CallOpInterface>(user))
        aliases.insert(user->result_begin(), user->result_end());
    }
  }
  return false;
}

/// Whether `value` is defined inside `op`'s regions.
bool isDefinedInside(Value value, Operation *op) {
  return op->isAncestor(value.getParentBlock()->getParentOp());
}

/// The outermost loop `alloca` can be moved in front of, or null.
Operation *getHoistingTarget(memref::AllocaOp alloca) {
  Operation *target = nullptr;
  for (Operation *parent = alloca->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (llvm::any_of(alloca->getOperands(),
                     [&](Value size) { return isDefinedInside(size, parent); }))
      break;
    if (isa<scf::ForOp, scf::WhileOp, affine::AffineForOp>(parent))
      target = parent;
    else if (!isa<scf::IfOp, affine::AffineIfOp, scf::IndexSwitchOp,
                  scf::ExecuteRegionOp>(parent))
      break;
  }
  return target;
}

struct HoistLoopAllocasPass
    : public dlbridge::impl::HoistLoopAllocasBase<HoistLoopAllocasPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaOp> allocas;
    getOperation()->walk(
        [&](memref::AllocaOp alloca) { allocas.push_back(alloca); });
    for (memref::AllocaOp alloca : allocas)
      if (Operation *target = getHoistingTarget(alloca))
        if (!outlivesIteration(alloca))
          alloca->moveBefore(target);
  }
};

} // namespace
