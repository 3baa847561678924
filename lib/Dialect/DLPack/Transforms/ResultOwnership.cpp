//===- ResultOwnership.cpp - Whose buffer an entry returns ----------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/ResultOwnership.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
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

/// Where a returned value's buffer comes from, looking through the values
/// control flow and calls merge: an `arith.select` result, and a result or
/// region argument of an op with regions (`RegionBranchOpInterface`), is
/// each of the values it may be, and a `func.call` result is what
/// the callee returns (which is how the buffer deallocation pipeline hands
/// over ownership, of call results and of its own `scf.if`s choosing
/// between a buffer and its clone).
class OriginTracer {
public:
  struct Traced {
    ResultOrigin origin;
    /// The value named in diagnostics: an argument, an allocation or other
    /// producer, or the merging operation's result.
    Value root;
    /// Every allocation (or argument, producer) the buffer may be.
    SmallVector<Value> roots;
  };

  Traced trace(func::FuncOp func, Value value) {
    Value root = getBufferRoot(value);
    // A value met again while tracing it (a loop's iter_arg) adds nothing:
    // no roots, which merge() skips.
    if (!active.insert(root).second)
      return {ResultOrigin::Owned, root, {}};
    Traced traced = traceRoot(func, root);
    active.erase(root);
    return traced;
  }

private:
  Traced traceRoot(func::FuncOp func, Value root) {
    Operation *def = root.getDefiningOp();
    auto result = dyn_cast<OpResult>(root);
    if (auto select = dyn_cast_or_null<arith::SelectOp>(def))
      return merge(root, {trace(func, select.getTrueValue()),
                          trace(func, select.getFalseValue())});
    if (auto branch = dyn_cast_or_null<RegionBranchOpInterface>(def))
      return traceBranchInput(func, root, branch, /*region=*/nullptr,
                              result.getResultNumber());
    if (auto arg = dyn_cast<BlockArgument>(root)) {
      Region *region = arg.getOwner()->getParent();
      if (auto branch =
              dyn_cast<RegionBranchOpInterface>(region->getParentOp());
          branch && arg.getOwner()->isEntryBlock()) {
        auto inputs = getSuccessorInputs(branch, region);
        auto *it = llvm::find(inputs, root);
        if (it != inputs.end())
          return traceBranchInput(func, root, branch, region,
                                  std::distance(inputs.begin(), it));
      }
    }
    if (auto call = dyn_cast_or_null<func::CallOp>(def))
      return traceCall(func, call, result.getResultNumber());
    ResultOrigin origin = getRootOrigin(func, root);
    return {origin, root, {root}};
  }

  /// The successor of `branch` that enters `region` (its results when
  /// `region` is null), as the op itself describes it.
  static std::optional<RegionSuccessor>
  findSuccessor(RegionBranchOpInterface branch, Region *region) {
    SmallVector<RegionSuccessor> successors;
    branch.getSuccessorRegions(RegionBranchPoint::parent(), successors);
    for (Region &nested : branch->getRegions())
      branch.getSuccessorRegions(nested, successors);
    for (const RegionSuccessor &successor : successors)
      if (region ? successor.getSuccessor() == region : successor.isParent())
        return successor;
    return std::nullopt;
  }

  static SmallVector<Value> getSuccessorInputs(RegionBranchOpInterface branch,
                                               Region *region) {
    std::optional<RegionSuccessor> successor = findSuccessor(branch, region);
    return successor ? llvm::to_vector(successor->getSuccessorInputs())
                     : SmallVector<Value>();
  }

  /// What input `index` of `region` (of `branch`'s results when null) may
  /// be: each value control flow forwards to it, from the operands of
  /// `branch` and from the terminators of its regions. This covers every
  /// op with regions that says where its values flow (`scf.if`, `scf.for`,
  /// `scf.while`, `scf.index_switch`, `scf.execute_region`, ...); a loop's
  /// carried value met again while tracing it adds nothing.
  Traced traceBranchInput(func::FuncOp func, Value root,
                          RegionBranchOpInterface branch, Region *region,
                          unsigned index) {
    std::optional<RegionSuccessor> successor = findSuccessor(branch, region);
    if (!successor)
      return {ResultOrigin::Unknown, root, {root}};
    SmallVector<Value> predecessors;
    branch.getPredecessorValues(*successor, index, predecessors);
    if (predecessors.empty())
      return {ResultOrigin::Unknown, root, {root}};
    SmallVector<Traced> parts;
    for (Value predecessor : predecessors)
      parts.push_back(trace(func, predecessor));
    return merge(root, parts);
  }

  /// What `call`'s result `index` is, from each `func.return` of its callee;
  /// an argument the callee returns is the caller's operand.
  Traced traceCall(func::FuncOp func, func::CallOp call, unsigned index) {
    Value root = call.getResult(index);
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee || callee.isExternal() || !calls.insert(callee).second)
      return {ResultOrigin::Unknown, root, {root}};
    SmallVector<Traced> parts;
    callee.walk([&](func::ReturnOp ret) {
      Traced inCallee = trace(callee, ret.getOperand(index));
      if (inCallee.origin == ResultOrigin::Argument)
        parts.push_back(trace(
            func, call.getOperand(
                      cast<BlockArgument>(inCallee.root).getArgNumber())));
      else if (inCallee.origin == ResultOrigin::Owned)
        parts.push_back({ResultOrigin::Owned, root, {root}});
      else
        parts.push_back({inCallee.origin, root, {root}});
    });
    calls.erase(callee);
    return merge(root, parts);
  }

  /// One of `parts`: owned when each is, copyable when each is, else
  /// unknown.
  static Traced merge(Value root, ArrayRef<Traced> parts) {
    Traced merged{ResultOrigin::Owned, root, {}};
    bool allOwned = true, allCopyable = true;
    const Traced *first = nullptr;
    for (const Traced &part : parts) {
      if (part.roots.empty())
        continue;
      first = first ? first : &part;
      allOwned &= part.origin == ResultOrigin::Owned;
      allCopyable &= isCopyable(part.origin);
      llvm::append_range(merged.roots, part.roots);
    }
    if (allOwned)
      return merged;
    if (allCopyable)
      return {first->origin, first->root, merged.roots};
    return {ResultOrigin::Unknown, root, merged.roots};
  }

  DenseSet<Value> active;
  DenseSet<Operation *> calls;
};

} // namespace

SmallVector<ReturnedBuffer>
dlbridge::dlpack::classifyReturnedBuffers(func::FuncOp func,
                                          func::ReturnOp ret) {
  SmallVector<ReturnedBuffer> buffers;
  DenseMap<Value, unsigned> owners;
  OriginTracer tracer;
  for (auto [index, operand] : llvm::enumerate(ret.getOperands())) {
    if (!isa<MemRefType>(operand.getType()))
      continue;
    OriginTracer::Traced traced = tracer.trace(func, operand);
    ReturnedBuffer buffer{static_cast<unsigned>(index),
                          traced.roots.empty() ? ResultOrigin::Unknown
                                               : traced.origin,
                          traced.root};
    if (buffer.origin == ResultOrigin::Owned) {
      for (Value root : traced.roots) {
        auto [it, inserted] = owners.try_emplace(root, index);
        if (!inserted && buffer.origin == ResultOrigin::Owned) {
          buffer.origin = ResultOrigin::Shared;
          buffer.sharedWith = it->second;
        }
      }
    }
    buffers.push_back(buffer);
  }
  return buffers;
}

bool dlbridge::dlpack::isCopyable(ResultOrigin origin) {
  return origin != ResultOrigin::Owned && origin != ResultOrigin::Unknown;
}
