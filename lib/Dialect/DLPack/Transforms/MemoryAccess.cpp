//===- MemoryAccess.cpp - How a function uses a memref argument -----------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/MemoryAccess.h"

#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {
unsigned bits(Access access) { return static_cast<unsigned>(access); }

/// The access `user` makes through its operand `use`, or std::nullopt when
/// `user` only derives aliases of it (views and casts), which the caller
/// follows instead.
std::optional<unsigned> getDirectAccess(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto view = dyn_cast<ViewLikeOpInterface>(user);
      view && view.getViewSource() == use.get())
    return std::nullopt;
  if (isa<CastOpInterface>(user))
    return std::nullopt;

  // Returning the memref from the function touches no memory; entry points
  // diagnose returned arguments themselves.
  if (user->hasTrait<OpTrait::ReturnLike>() &&
      isa<FunctionOpInterface>(user->getParentOp()))
    return bits(Access::None);
  auto effects = dyn_cast<MemoryEffectOpInterface>(user);
  if (!effects)
    return bits(Access::ReadWrite);
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  unsigned access = bits(Access::None);
  for (const MemoryEffects::EffectInstance &instance : instances) {
    // An effect on no value in particular may touch any memory.
    if (instance.getValue() && instance.getValue() != use.get())
      continue;
    if (isa<MemoryEffects::Read>(instance.getEffect()))
      access |= bits(Access::Read);
    else if (!isa<MemoryEffects::Allocate>(instance.getEffect()) ||
             instance.getValue())
      access |= bits(Access::Write);
  }
  return access;
}
} // namespace

Access dlbridge::dlpack::getMemoryAccess(Value memref) {
  llvm::SetVector<Value> aliases;
  aliases.insert(memref);
  unsigned access = bits(Access::None);
  for (unsigned i = 0; i < aliases.size(); ++i) {
    for (OpOperand &use : aliases[i].getUses()) {
      if (std::optional<unsigned> direct = getDirectAccess(use)) {
        access |= *direct;
        continue;
      }
      for (Value result : use.getOwner()->getResults())
        aliases.insert(result);
    }
  }
  return static_cast<Access>(access);
}
