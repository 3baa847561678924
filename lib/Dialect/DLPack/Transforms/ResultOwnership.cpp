//===- ResultOwnership.cpp - Whose buffer an entry returns ----------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/ResultOwnership.h"

#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {

/// The value whose buffer `value` views: follows views and casts back to
/// the allocation or block argument they start from.
Value getBufferRoot(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      value = view.getViewSource();
    else if (isa<CastOpInterface>(def) && def->getNumOperands() == 1)
      value = def->getOperand(0);
    else
      break;
  }
  return value;
}

ResultOrigin getRootOrigin(func::FuncOp func, Value root) {
  if (auto arg = dyn_cast<BlockArgument>(root))
    return arg.getOwner()->isEntryBlock() &&
                   arg.getOwner()->getParentOp() == func
               ? ResultOrigin::Argument
               : ResultOrigin::Unknown;
  auto effects = dyn_cast<MemoryEffectOpInterface>(root.getDefiningOp());
  if (!effects)
    return ResultOrigin::Unknown;
  std::optional<MemoryEffects::EffectInstance> allocation =
      effects.getEffectOnValue<MemoryEffects::Allocate>(root);
  if (!allocation)
    return ResultOrigin::Borrowed;
  if (allocation->getResource() ==
      SideEffects::AutomaticAllocationScopeResource::get())
    return ResultOrigin::Stack;
  return ResultOrigin::Owned;
}

} // namespace

SmallVector<ReturnedBuffer>
dlbridge::dlpack::classifyReturnedBuffers(func::FuncOp func,
                                          func::ReturnOp ret) {
  SmallVector<ReturnedBuffer> buffers;
  DenseMap<Value, unsigned> owners;
  for (auto [index, operand] : llvm::enumerate(ret.getOperands())) {
    if (!isa<MemRefType>(operand.getType()))
      continue;
    Value root = getBufferRoot(operand);
    ReturnedBuffer buffer{static_cast<unsigned>(index),
                          getRootOrigin(func, root), root};
    if (buffer.origin == ResultOrigin::Owned) {
      auto [it, inserted] = owners.try_emplace(root, index);
      if (!inserted) {
        buffer.origin = ResultOrigin::Shared;
        buffer.sharedWith = it->second;
      }
    }
    buffers.push_back(buffer);
  }
  return buffers;
}

bool dlbridge::dlpack::isCopyable(ResultOrigin origin) {
  return origin != ResultOrigin::Owned && origin != ResultOrigin::Unknown;
}
