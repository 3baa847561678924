//===- CheckDataIndices.cpp - Indices read from data, checked per access --===//
//
// Part of dlbridge. A gather (`x[idx[i]]`) indexes one tensor with values
// read from another; nothing about the shapes bounds them, so each such
// access is checked where it happens: one unsigned compare per index and a
// branch that is taken only to fail.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

#include "CheckMessages.h"
#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKCHECKDATAINDICES
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {

/// Decides which index values come from the program's structure rather
/// than from data: constants, function arguments, induction variables,
/// `linalg.index`, GPU thread and block ids, dims, and pure scalar
/// arithmetic on those. Everything else (a loaded element, a linalg body's
/// element argument, a value carried through loop iterations or blocks) may
/// be anything at run time.
class StructureAnalysis {
public:
  bool isStructural(Value value) {
    if (auto it = known.find(value); it != known.end())
      return it->second;
    // Assumed data while being decided: cycles go through block arguments,
    // which are data unless they are induction variables.
    known[value] = false;
    bool structural = decide(value);
    known[value] = structural;
    return structural;
  }

private:
  bool decide(Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<FunctionOpInterface>(owner) && arg.getOwner()->isEntryBlock())
        return true;
      if (auto launch = dyn_cast<gpu::LaunchOp>(owner);
          launch && arg.getOwner()->isEntryBlock())
        return arg.getArgNumber() < launch.getNumConfigRegionAttributes();
      if (auto loop = dyn_cast<LoopLikeOpInterface>(owner))
        if (std::optional<SmallVector<Value>> ivs = loop.getLoopInductionVars())
          return llvm::is_contained(*ivs, value);
      return false;
    }
    Operation *def = value.getDefiningOp();
    if (isa<tensor::DimOp, memref::DimOp, tensor::RankOp, memref::RankOp>(def))
      return true;
    if (def->getNumRegions() || !isPure(def))
      return false;
    auto isShaped = [](Type type) { return isa<ShapedType>(type); };
    if (llvm::any_of(def->getOperandTypes(), isShaped) ||
        llvm::any_of(def->getResultTypes(), isShaped))
      return false;
    return llvm::all_of(def->getOperands(),
                        [&](Value operand) { return isStructural(operand); });
  }

  DenseMap<Value, bool> known;
};

/// One element access: what it indexes, and its indices (for affine
/// accesses, the results of its map, which `materialize` builds).
struct Access {
  Operation *op;
  Value shaped;
  /// The operand number of `shaped`, for messages.
  unsigned operandNumber;
  SmallVector<Value> indices;
  /// For affine accesses: the map and its operands.
  AffineMap map;
  SmallVector<Value> mapOperands;
};

std::optional<Access> getAccess(Operation *op) {
  Access access{op, {}, 0, {}, {}, {}};
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    access.shaped = load.getMemRef();
    llvm::append_range(access.indices, load.getIndices());
  } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
    access.shaped = store.getMemRef();
    access.operandNumber = 1;
    llvm::append_range(access.indices, store.getIndices());
  } else if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op)) {
    access.shaped = rmw.getMemref();
    access.operandNumber = 1;
    llvm::append_range(access.indices, rmw.getIndices());
  } else if (auto rmw = dyn_cast<memref::GenericAtomicRMWOp>(op)) {
    access.shaped = rmw.getMemref();
    llvm::append_range(access.indices, rmw.getIndices());
  } else if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    access.shaped = extract.getTensor();
    llvm::append_range(access.indices, extract.getIndices());
  } else if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
    access.shaped = insert.getDest();
    access.operandNumber = 1;
    llvm::append_range(access.indices, insert.getIndices());
  } else if (auto load = dyn_cast<affine::AffineLoadOp>(op)) {
    access.shaped = load.getMemRef();
    access.map = load.getAffineMap();
    llvm::append_range(access.mapOperands, load.getMapOperands());
  } else if (auto store = dyn_cast<affine::AffineStoreOp>(op)) {
    access.shaped = store.getMemRef();
    access.operandNumber = 1;
    access.map = store.getAffineMap();
    llvm::append_range(access.mapOperands, store.getMapOperands());
  } else {
    return std::nullopt;
  }
  return access;
}

/// The dims of `access` whose index depends on data.
SmallVector<unsigned> getDataDims(const Access &access,
                                  StructureAnalysis &analysis) {
  SmallVector<unsigned> dims;
  if (!access.map) {
    for (auto [dim, index] : llvm::enumerate(access.indices))
      if (!analysis.isStructural(index))
        dims.push_back(dim);
    return dims;
  }
  unsigned numDims = access.map.getNumDims();
  for (auto [dim, expr] : llvm::enumerate(access.map.getResults())) {
    bool data = false;
    expr.walk([&](AffineExpr nested) {
      unsigned position;
      if (auto d = dyn_cast<AffineDimExpr>(nested))
        position = d.getPosition();
      else if (auto s = dyn_cast<AffineSymbolExpr>(nested))
        position = numDims + s.getPosition();
      else
        return;
      data |= !analysis.isStructural(access.mapOperands[position]);
    });
    if (data)
      dims.push_back(dim);
  }
  return dims;
}

/// A value of `type` standing for an element a guarded load did not read.
Value createPlaceholder(OpBuilder &builder, Location loc, Type type) {
  if (isa<IntegerType, IndexType, FloatType, VectorType>(type))
    if (TypedAttr zero = dyn_cast_or_null<TypedAttr>(builder.getZeroAttr(type)))
      return arith::ConstantOp::create(builder, loc, zero);
  return ub::PoisonOp::create(builder, loc, type);
}

/// Emits the checks of `access` before it; with `guard`, makes the access
/// conditional on them instead and asserts only where it is skipped (an
/// assertion in an scf.if, not directly in a loop body, also keeps
/// convert-parallel-loops-to-gpu converting the loops around it).
void checkAccess(OpBuilder &builder, const Access &access,
                 ArrayRef<unsigned> dims, bool guard) {
  Operation *op = access.op;
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  struct Check {
    Value ok;
    CheckMessage message;
  };
  SmallVector<Check> checks;
  Value allOk;
  for (unsigned dim : dims) {
    Value index =
        access.map ? builder.createOrFold<affine::AffineApplyOp>(
                         loc, access.map.getSubMap({dim}), access.mapOperands)
                   : access.indices[dim];
    Value extent =
        isa<MemRefType>(access.shaped.getType())
            ? builder.createOrFold<memref::DimOp>(loc, access.shaped, dim)
            : builder.createOrFold<tensor::DimOp>(loc, access.shaped, dim);
    // Unsigned: a negative index is out of range too.
    Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                     index, extent);
    Check check{ok, {}};
    check.message << describeOp(op) << ": index " << index
                  << " is out of bounds for dimension #" << std::to_string(dim)
                  << " of operand #" << std::to_string(access.operandNumber)
                  << " with size " << extent;
    checks.push_back(std::move(check));
    allOk = allOk ? arith::AndIOp::create(builder, loc, allOk, ok) : ok;
  }
  auto emitAsserts = [&] {
    for (const Check &check : checks)
      AssertOp::create(builder, loc, check.ok, FailureStatus::IndexOutOfRange,
                       check.message.getFormat(), check.message.getValues());
  };
  if (!guard) {
    emitAsserts();
    return;
  }
  auto ifOp = scf::IfOp::create(builder, loc, op->getResultTypes(), allOk,
                                /*withElseRegion=*/true);
  op->moveBefore(ifOp.thenBlock(), ifOp.thenBlock()->begin());
  builder.setInsertionPointToStart(ifOp.elseBlock());
  emitAsserts();
  if (op->getNumResults() == 0)
    return;
  op->replaceAllUsesWith(ifOp.getResults());
  // tensor.insert: the destination unchanged; loads: a placeholder.
  Value otherwise =
      isa<tensor::InsertOp>(op)
          ? access.shaped
          : createPlaceholder(builder, loc, op->getResult(0).getType());
  scf::YieldOp::create(builder, loc, otherwise);
  builder.setInsertionPointAfter(op);
  scf::YieldOp::create(builder, loc, op->getResults());
}

/// Whether `op` runs once per iteration of something: a loop, a linalg op's
/// body, a kernel. Elsewhere it runs once per call in host code, where a
/// failed check returns early as the shape checks do (and on CUDA, moves
/// into a kernel of one thread with the code it depends on).
bool isRepeated(Operation *op) {
  for (Operation *parent = op->getParentOp();
       parent && !isa<FunctionOpInterface>(parent);
       parent = parent->getParentOp())
    if (isa<LoopLikeOpInterface, linalg::LinalgOp, gpu::LaunchOp>(parent))
      return true;
  return false;
}

struct DLPackCheckDataIndicesPass
    : public dlbridge::dlpack::impl::DLPackCheckDataIndicesBase<
          DLPackCheckDataIndicesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<Access, SmallVector<unsigned>>> accesses;
    StructureAnalysis analysis;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (op->hasAttr(DLPackDialect::kInBoundsAttrName))
        return WalkResult::advance();
      if (std::optional<Access> access = getAccess(op)) {
        SmallVector<unsigned> dims = getDataDims(*access, analysis);
        if (!dims.empty())
          accesses.emplace_back(std::move(*access), std::move(dims));
      }
      return WalkResult::advance();
    });
    OpBuilder builder(&getContext());
    for (auto &[access, dims] : accesses)
      checkAccess(builder, access, dims,
                  guardAccesses && isRepeated(access.op));
  }
};

} // namespace
