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
/// block of a grid-stride loop over tiles of `chunksPerThread` chunks of
/// `lanes` elements per thread. A thread takes the chunks `tid`,
/// `tid + blockSize`, ... of the tile, so that each of its vector accesses is
/// coalesced across the warp, and loads all of them before it computes:
/// `chunksPerThread` independent 16-byte loads per operand in flight.
class ElementwiseEmitter {
public:
  ElementwiseEmitter(linalg::LinalgOp op, int64_t lanes, int64_t blockSize,
                     int64_t chunksPerThread)
      : op(op), lanes(lanes), blockSize(blockSize),
        chunksPerThread(chunksPerThread) {}

  void emit(OpBuilder &b) {
    Location loc = op.getLoc();
    Value size = flatten(b, loc);
    Value tileElements = arith::ConstantIndexOp::create(
        b, loc, lanes * blockSize * chunksPerThread);
    Value tiles = arith::CeilDivUIOp::create(b, loc, size, tileElements);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value grid = arith::MinUIOp::create(
        b, loc, tiles,
        arith::ConstantIndexOp::create(b, loc, dlbridge::kMaxGridBlocks));
    Value threads = arith::ConstantIndexOp::create(b, loc, blockSize);
    auto launch =
        gpu::LaunchOp::create(b, loc, grid, one, one, threads, one, one);
    OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
    // Constants of the kernel inside it, so that they stay constants there.
    Value lanesValue = arith::ConstantIndexOp::create(body, loc, lanes);
    Value tileValue = arith::ConstantIndexOp::create(
        body, loc, lanes * blockSize * chunksPerThread);
    Value tid = launch.getThreadIds().x;
    Value aligned = emitAllAligned(body, loc);
    scf::ForOp::create(
        body, loc, launch.getBlockIds().x, tiles, launch.getGridSize().x,
        ValueRange{},
        [&](OpBuilder &loop, Location loc, Value tile, ValueRange) {
          Value tileStart = arith::MulIOp::create(loop, loc, tile, tileValue);
          SmallVector<Value> starts;
          for (int64_t i = 0; i < chunksPerThread; ++i) {
            Value chunk = arith::AddIOp::create(
                loop, loc, tid,
                arith::ConstantIndexOp::create(loop, loc, i * blockSize));
            starts.push_back(arith::AddIOp::create(
                loop, loc, tileStart,
                arith::MulIOp::create(loop, loc, chunk, lanesValue)));
          }
          Value whole = arith::AndIOp::create(
              loop, loc, aligned,
              arith::CmpIOp::create(
                  loop, loc, arith::CmpIPredicate::ule,
                  arith::AddIOp::create(loop, loc, tileStart, tileValue),
                  size));
          scf::IfOp::create(
              loop, loc, whole,
              [&](OpBuilder &then, Location loc) {
                emitVectors(then, loc, starts);
                scf::YieldOp::create(then, loc);
              },
              [&](OpBuilder &otherwise, Location loc) {
                for (Value start : starts)
                  emitPartialChunk(otherwise, loc, start, aligned, size);
                scf::YieldOp::create(otherwise, loc);
              });
          scf::YieldOp::create(loop, loc);
        });
    gpu::TerminatorOp::create(body, loc);
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

  /// The chunk from `start` of a tile that is not whole: vectors where the
  /// chunk is whole and the data aligned, else element by element up to
  /// `size`.
  void emitPartialChunk(OpBuilder &b, Location loc, Value start, Value aligned,
                        Value size) {
    Value lanesValue = arith::ConstantIndexOp::create(b, loc, lanes);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value end = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, start, lanesValue), size);
    Value whole = arith::AndIOp::create(
        b, loc, aligned,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::SubIOp::create(b, loc, end, start),
                              lanesValue));
    scf::IfOp::create(
        b, loc, whole,
        [&](OpBuilder &then, Location loc) {
          emitVectors(then, loc, {start});
          scf::YieldOp::create(then, loc);
        },
        [&](OpBuilder &otherwise, Location loc) {
          // Past the end `end` is below `start`: no iteration.
          scf::ForOp::create(
              otherwise, loc, start, end, one, ValueRange{},
              [&](OpBuilder &inner, Location loc, Value index, ValueRange) {
                emitElement(inner, loc, index);
                scf::YieldOp::create(inner, loc);
              });
          scf::YieldOp::create(otherwise, loc);
        });
  }

  /// Whole chunks from each of `starts`: a vector load of each memref read
  /// for every chunk first, then the body once per element, then a vector
  /// store of each output for every chunk.
  void emitVectors(OpBuilder &b, Location loc, ArrayRef<Value> starts) {
    SmallVector<DenseMap<OpOperand *, Value>> vectors(starts.size());
    for (auto [start, loaded] : llvm::zip_equal(starts, vectors))
      for (OpOperand &operand : op->getOpOperands()) {
        Value value = flat[operand.getOperandNumber()];
        if (!isa<MemRefType>(value.getType()) ||
            op.getMatchingBlockArgument(&operand).use_empty())
          continue;
        loaded[&operand] = vector::LoadOp::create(
            b, loc, getVectorType(value), value, start, /*nontemporal=*/false,
            llvm::Align(getVectorBytes(value)));
      }
    SmallVector<SmallVector<Value>> stored;
    for (DenseMap<OpOperand *, Value> &loaded : vectors) {
      SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
      for (int64_t lane = 0; lane < lanes; ++lane) {
        // Element-wise ops read no index: the body needs none.
        SmallVector<Value> yielded =
            dlbridge::emitLinalgBody(b, loc, op, {}, [&](OpOperand &operand) {
              auto it = loaded.find(&operand);
              if (it == loaded.end())
                return operand.get();
              return Value(vector::ExtractOp::create(b, loc, it->second, lane));
            });
        for (auto [result, value] : llvm::zip_equal(results, yielded))
          result.push_back(value);
      }
      SmallVector<Value> &chunk = stored.emplace_back();
      for (auto [init, values] :
           llvm::zip_equal(op.getDpsInitsMutable(), results))
        chunk.push_back(vector::FromElementsOp::create(
            b, loc, getVectorType(flat[init.getOperandNumber()]), values));
    }
    for (auto [start, chunk] : llvm::zip_equal(starts, stored))
      for (auto [init, vector] :
           llvm::zip_equal(op.getDpsInitsMutable(), chunk)) {
        Value target = flat[init.getOperandNumber()];
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
  int64_t chunksPerThread;
  /// The op's operands by number: memrefs as 1-d views, scalars as they are.
  SmallVector<Value> flat;
};

struct VectorizeElementwisePass
    : public dlbridge::impl::VectorizeElementwiseBase<
          VectorizeElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(dlbridge::checkBlockSize(root, blockSize)))
      return signalPassFailure();
    if (chunksPerThread < 1 || chunksPerThread > 16) {
      root->emitError() << "chunks-per-thread="
                        << static_cast<int64_t>(chunksPerThread)
                        << ": expected 1 to 16";
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
      ElementwiseEmitter(op, lanes, blockSize, chunksPerThread).emit(b);
      op->erase();
    }
  }
};

} // namespace
