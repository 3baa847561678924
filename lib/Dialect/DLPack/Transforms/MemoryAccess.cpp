//===- MemoryAccess.cpp - How a function uses a memref argument -----------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/MemoryAccess.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {
unsigned bits(Access access) { return static_cast<unsigned>(access); }

/// The results of `op` that can carry a reference to memory: not the sizes,
/// strides and offsets (index, integer and float values) a view also yields,
/// as `memref.extract_strided_metadata` does.
SmallVector<Value> getReferenceResults(Operation *op) {
  SmallVector<Value> references;
  for (Value result : op->getResults())
    if (!result.getType().isIntOrIndexOrFloat())
      references.push_back(result);
  return references;
}

/// The argument of the outlined kernel a `gpu.launch_func` passes its
/// kernel operand `use` to, or null when the kernel has no body here.
Value getKernelArgument(gpu::LaunchFuncOp launch, OpOperand &use) {
  OperandRange operands = launch.getKernelOperands();
  unsigned index = use.getOperandNumber();
  if (operands.empty() || index < operands.getBeginOperandIndex() ||
      index >= operands.getBeginOperandIndex() + operands.size())
    return nullptr;
  auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernel());
  if (!kernel || kernel.isExternal())
    return nullptr;
  return kernel.getArgument(index - operands.getBeginOperandIndex());
}

/// The values `use` makes aliases of its memref without touching memory:
/// the results of views and casts, the callee's argument and the call's
/// results for a call to a function with a body, the kernel's argument for
/// a kernel launch, the region arguments or results a region branch
/// forwards it to. std::nullopt when `use` is an access instead.
std::optional<SmallVector<Value>> getForwardedAliases(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(user)) {
    if (Value argument = getKernelArgument(launch, use))
      return SmallVector<Value>{argument};
    return std::nullopt;
  }
  if (auto view = dyn_cast<ViewLikeOpInterface>(user);
      view && view.getViewSource() == use.get())
    return getReferenceResults(user);
  if (isa<CastOpInterface>(user))
    return getReferenceResults(user);

  if (auto call = dyn_cast<CallOpInterface>(user)) {
    auto callee =
        dyn_cast_if_present<FunctionOpInterface>(call.resolveCallable());
    OperandRange args = call.getArgOperands();
    unsigned index = use.getOperandNumber();
    if (!callee || callee.isExternal() || args.empty() ||
        index < args.getBeginOperandIndex() ||
        index >= args.getBeginOperandIndex() + args.size())
      return std::nullopt;
    SmallVector<Value> aliases(user->getResults());
    aliases.push_back(callee.getArgument(index - args.getBeginOperandIndex()));
    return aliases;
  }

  // Forwarded into a region or out of one (scf.for iter_args, scf.if
  // yields, ...).
  RegionBranchSuccessorMapping mapping;
  if (auto branch = dyn_cast<RegionBranchOpInterface>(user))
    branch.getSuccessorOperandInputMapping(mapping,
                                           RegionBranchPoint::parent());
  else if (auto terminator = dyn_cast<RegionBranchTerminatorOpInterface>(user))
    if (auto branch = dyn_cast<RegionBranchOpInterface>(user->getParentOp()))
      branch.getSuccessorOperandInputMapping(mapping,
                                             RegionBranchPoint(terminator));
  auto it = mapping.find(&use);
  if (it != mapping.end())
    return it->second;
  return std::nullopt;
}

/// The access `user` makes through its operand `use`, which is not one of
/// the operands getForwardedAliases follows.
unsigned getDirectAccess(OpOperand &use) {
  Operation *user = use.getOwner();
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
    // A free reaches an argument only through a call's results, which count
    // as its aliases but are then buffers the callee allocated: deallocation
    // frees only what a function owns.
    else if (isa<MemoryEffects::Free>(instance.getEffect()))
      continue;
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
      if (std::optional<SmallVector<Value>> forwarded =
              getForwardedAliases(use))
        aliases.insert(forwarded->begin(), forwarded->end());
      else
        access |= getDirectAccess(use);
    }
  }
  return static_cast<Access>(access);
}
