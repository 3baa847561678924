//===- VectorizeElementwise.cpp - Elementwise kernels of 16-byte accesses -===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "GridStride.h"
#include "LinalgBody.h"
#include "VectorAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace dlbridge {
#define GEN_PASS_DEF_VECTORIZEELEMENTWISE
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;
using dlbridge::getVectorElementBytes;
using dlbridge::kVectorBytes;

namespace {

/// The elements each thread moves per step when `op` can be vectorised: an
/// elementwise op over memrefs with identity layouts, each read and written
/// through the identity map (scalars may join), whose body only computes.
/// Enough for the widest element to fill kVectorBytes; std::nullopt for any
/// other op.
std::optional<int64_t> matchElementwise(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op->getNumResults() != 0 ||
      op.getNumLoops() == 0 || op.getNumLoops() != op.getNumParallelLoops())
    return std::nullopt;
  int64_t widest = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type) {
      if (op.isDpsInit(&operand) || isa<ShapedType>(operand.get().getType()))
        return std::nullopt;
      continue;
    }
    if (!type.getLayout().isIdentity() ||
        !op.getMatchingIndexingMap(&operand).isIdentity() ||
        type.getMemorySpace())
      return std::nullopt;
    int64_t bytes = getVectorElementBytes(type.getElementType());
    if (bytes == 0)
      return std::nullopt;
    widest = std::max(widest, bytes);
  }
  for (Operation &bodyOp : op.getBlock()->without_terminator())
    if (isa<linalg::IndexOp>(bodyOp) || bodyOp.getNumRegions() != 0 ||
        !isMemoryEffectFree(&bodyOp))
      return std::nullopt;
  if (widest == 0 || kVectorBytes / widest < 2)
    return std::nullopt;
  return kVectorBytes / widest;
}

/// Emits the kernel of one elementwise op: its operands as flat views, each
/// thread of a grid-stride loop taking `lanes` consecutive elements.
class ElementwiseEmitter {
public:
  ElementwiseEmitter(linalg::LinalgOp op, int64_t lanes, int64_t blockSize)
      : op(op), lanes(lanes), blockSize(blockSize) {}

  void emit(OpBuilder &b) {
    Location loc = op.getLoc();
    Value size = flatten(b, loc);
    Value chunks = arith::CeilDivUIOp::create(
        b, loc, size, arith::ConstantIndexOp::create(b, loc, lanes));
    dlbridge::emitGridStrideLoop(
        b, loc, chunks, blockSize,
        [&](OpBuilder &loop, Location loc, Value chunk) {
          // Constants of the kernel inside it, so that they stay constants
          // there.
          Value lanesValue = arith::ConstantIndexOp::create(loop, loc, lanes);
          Value one = arith::ConstantIndexOp::create(loop, loc, 1);
          Value start = arith::MulIOp::create(loop, loc, chunk, lanesValue);
          Value end = arith::MinUIOp::create(
              loop, loc, arith::AddIOp::create(loop, loc, start, lanesValue),
              size);
          Value whole = arith::AndIOp::create(
              loop, loc, emitAllAligned(loop, loc),
              arith::CmpIOp::create(
                  loop, loc, arith::CmpIPredicate::eq,
                  arith::SubIOp::create(loop, loc, end, start), lanesValue));
          scf::IfOp::create(
              loop, loc, whole,
              [&](OpBuilder &then, Location loc) {
                emitVectors(then, loc, start);
                scf::YieldOp::create(then, loc);
              },
              [&](OpBuilder &otherwise, Location loc) {
                scf::ForOp::create(otherwise, loc, start, end, one,
                                   ValueRange{},
                                   [&](OpBuilder &inner, Location loc,
                                       Value index, ValueRange) {
                                     emitElement(inner, loc, index);
                                     scf::YieldOp::create(inner, loc);
                                   });
                scf::YieldOp::create(otherwise, loc);
              });
        });
  }

private:
  /// Fills `flat` with each memref operand as a 1-d view (identity layouts
  /// are contiguous) and returns the number of elements.
  Value flatten(OpBuilder &b, Location loc) {
    Value size;
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      auto type = dyn_cast<MemRefType>(value.getType());
      if (type && !size) {
        size = arith::ConstantIndexOp::create(b, loc, 1);
        for (int64_t dim = 0; dim < type.getRank(); ++dim)
          size = b.createOrFold<arith::MulIOp>(
              loc, size, b.createOrFold<memref::DimOp>(loc, value, dim));
      }
      if (type && type.getRank() != 1) {
        SmallVector<ReassociationIndices> all(1);
        for (int64_t dim = 0; dim < type.getRank(); ++dim)
          all.front().push_back(dim);
        value = memref::CollapseShapeOp::create(b, loc, value, all);
      }
      flat.push_back(value);
    }
    return size;
  }

  /// Bytes of a vector of `lanes` elements of the memref `value`.
  int64_t getVectorBytes(Value value) const {
    auto type = cast<MemRefType>(value.getType());
    return lanes * getVectorElementBytes(type.getElementType());
  }

  /// Whether every memref starts at a multiple of its vector's size, so
  /// that each chunk is aligned as its vector load or store requires.
  Value emitAllAligned(OpBuilder &b, Location loc) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value aligned = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (Value value : flat)
      if (isa<MemRefType>(value.getType()))
        aligned = arith::AndIOp::create(
            b, loc, aligned,
            dlbridge::emitIsAligned(b, loc, value, zero,
                                    getVectorBytes(value)));
    return aligned;
  }

  /// One whole chunk from `start`: a vector load of each memref read, the
  /// body once per lane, a vector store of each output.
  void emitVectors(OpBuilder &b, Location loc, Value start) {
    DenseMap<OpOperand *, Value> vectors;
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = flat[operand.getOperandNumber()];
      if (!isa<MemRefType>(value.getType()) ||
          op.getMatchingBlockArgument(&operand).use_empty())
        continue;
      vectors[&operand] = vector::LoadOp::create(
          b, loc, getVectorType(value), value, start, /*nontemporal=*/false,
          llvm::Align(getVectorBytes(value)));
    }
    SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
    for (int64_t lane = 0; lane < lanes; ++lane) {
      // Element-wise ops read no index: the body needs none.
      SmallVector<Value> yielded =
          dlbridge::emitLinalgBody(b, loc, op, {}, [&](OpOperand &operand) {
            auto it = vectors.find(&operand);
            if (it == vectors.end())
              return operand.get();
            return Value(vector::ExtractOp::create(b, loc, it->second, lane));
          });
      for (auto [result, value] : llvm::zip_equal(results, yielded))
        result.push_back(value);
    }
    for (auto [init, values] :
         llvm::zip_equal(op.getDpsInitsMutable(), results)) {
      Value target = flat[init.getOperandNumber()];
      Value vector =
          vector::FromElementsOp::create(b, loc, getVectorType(target), values);
      vector::StoreOp::create(b, loc, vector, target, start,
                              /*nontemporal=*/false,
                              llvm::Align(getVectorBytes(target)));
    }
  }

  /// The body at the element `index` alone, for a tail or unaligned data.
  void emitElement(OpBuilder &b, Location loc, Value index) {
    SmallVector<Value> yielded =
        dlbridge::emitLinalgBody(b, loc, op, {}, [&](OpOperand &operand) {
          Value value = flat[operand.getOperandNumber()];
          if (!isa<MemRefType>(value.getType()))
            return value;
          return Value(memref::LoadOp::create(b, loc, value, index));
        });
    for (auto [init, value] : llvm::zip_equal(op.getDpsInitsMutable(), yielded))
      memref::StoreOp::create(b, loc, value, flat[init.getOperandNumber()],
                              index);
  }

  VectorType getVectorType(Value memref) const {
    return VectorType::get({lanes},
                           cast<MemRefType>(memref.getType()).getElementType());
  }

  linalg::LinalgOp op;
  int64_t lanes;
  int64_t blockSize;
  /// The op's operands by number: memrefs as 1-d views, scalars as they are.
  SmallVector<Value> flat;
};

struct VectorizeElementwisePass
    : public dlbridge::impl::VectorizeElementwiseBase<
          VectorizeElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (blockSize < 32 || blockSize > 1024 || blockSize % 32 != 0) {
      root->emitError() << "block-size=" << static_cast<int64_t>(blockSize)
                        << ": expected a multiple of 32 from 32 to 1024";
      return signalPassFailure();
    }
    SmallVector<std::pair<linalg::LinalgOp, int64_t>> candidates;
    root->walk([&](linalg::LinalgOp op) {
      // Already in a kernel: its threads have their own work.
      if (op->getParentOfType<gpu::LaunchOp>() ||
          op->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (std::optional<int64_t> lanes = matchElementwise(op))
        candidates.emplace_back(op, *lanes);
    });
    for (auto [op, lanes] : candidates) {
      OpBuilder b(op);
      ElementwiseEmitter(op, lanes, blockSize).emit(b);
      op->erase();
    }
  }
};

} // namespace
