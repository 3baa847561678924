//===- ReductionEmitter.cpp - Pieces of reduction kernels -----------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "ReductionEmitter.h"

#include "GridStride.h"
#include "LinalgBody.h"
#include "VectorAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace dlbridge {

SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<Value> extents) {
  SmallVector<Value> indices(extents.size());
  for (size_t i = extents.size(); i-- > 1;) {
    indices[i] = arith::RemUIOp::create(b, loc, linear, extents[i]);
    linear = arith::DivUIOp::create(b, loc, linear, extents[i]);
  }
  if (!indices.empty())
    indices[0] = linear;
  return indices;
}

Value product(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value result = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value value : values)
    result = b.createOrFold<arith::MulIOp>(loc, result, value);
  return result;
}

Value VectorOperands::emitIsAligned(OpBuilder &b, Location loc,
                                    linalg::LinalgOp op,
                                    ArrayRef<Value> start) const {
  Value aligned = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (OpOperand *operand : operands)
    aligned = arith::AndIOp::create(
        b, loc, aligned,
        dlbridge::emitIsAligned(
            b, loc, operand->get(),
            applyMap(b, loc, op.getMatchingIndexingMap(operand), start),
            getBytes(operand)));
  return aligned;
}

/// Whether `type`'s innermost dimension is statically contiguous: vector
/// accesses along it need nothing else (alignment is checked per row).
static bool hasUnitInnermostStride(MemRefType type) {
  if (type.getRank() == 0)
    return false;
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

VectorOperands findVectorOperands(linalg::LinalgOp op, unsigned loop) {
  VectorOperands result;
  int64_t widest = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if ((!op.isDpsInit(&operand) &&
         op.getMatchingBlockArgument(&operand).use_empty()) ||
        !map.isFunctionOfDim(loop))
      continue;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    int64_t bytes =
        type ? dlbridge::getVectorElementBytes(type.getElementType()) : 0;
    if (!bytes || !hasUnitInnermostStride(type) ||
        map.getResults().back() != getAffineDimExpr(loop, op.getContext()) ||
        llvm::any_of(map.getResults().drop_back(), [&](AffineExpr result) {
          return result.isFunctionOfDim(loop);
        }))
      return {};
    result.operands.push_back(&operand);
    widest = std::max(widest, bytes);
  }
  if (widest == 0 || dlbridge::kVectorBytes / widest < 2)
    return {};
  result.lanes = dlbridge::kVectorBytes / widest;
  return result;
}

/// A vector load of each input of `vector` at loop indices `ivs`.
DenseMap<OpOperand *, Value> emitVectorLoads(OpBuilder &b, Location loc,
                                             linalg::LinalgOp op,
                                             const VectorOperands &vector,
                                             ArrayRef<Value> ivs) {
  DenseMap<OpOperand *, Value> vectors;
  for (OpOperand *operand : vector.operands)
    if (!op.isDpsInit(operand) ||
        !op.getMatchingBlockArgument(operand).use_empty())
      vectors[operand] = vector::LoadOp::create(
          b, loc, vector.getType(operand), operand->get(),
          applyMap(b, loc, op.getMatchingIndexingMap(operand), ivs),
          /*nontemporal=*/false, llvm::Align(vector.getBytes(operand)));
  return vectors;
}

std::function<Value(OpOperand &)>
readLane(OpBuilder &b, Location loc,
         const DenseMap<OpOperand *, Value> &vectors, int64_t lane,
         function_ref<Value(OpOperand &)> read) {
  return [&b, loc, &vectors, lane, read](OpOperand &operand) -> Value {
    auto it = vectors.find(&operand);
    if (it != vectors.end())
      return vector::ExtractOp::create(b, loc, it->second, lane);
    return read ? read(operand) : Value();
  };
}

void createLaunch(
    OpBuilder &b, Location loc, std::array<Value, 3> grid, int64_t blockSize,
    TypeRange workgroupTypes,
    function_ref<void(OpBuilder &, gpu::LaunchOp, ValueRange)> build,
    Value dynamicSharedMemory) {
  Value threads = arith::ConstantIndexOp::create(b, loc, blockSize);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch = gpu::LaunchOp::create(b, loc, grid[0], grid[1], grid[2],
                                      threads, one, one, dynamicSharedMemory,
                                      /*asyncTokenType=*/nullptr,
                                      /*asyncDependencies=*/{}, workgroupTypes);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  build(body, launch, launch.getWorkgroupAttributions());
  gpu::TerminatorOp::create(body, loc);
}

void emitRowKernel(
    OpBuilder &b, Location loc, Value rows, int64_t blockSize,
    TypeRange workgroupTypes,
    function_ref<void(OpBuilder &, Location, gpu::LaunchOp, ValueRange, Value)>
        build,
    Value dynamicSharedMemory) {
  Value maxBlocks =
      arith::ConstantIndexOp::create(b, loc, dlbridge::kMaxGridBlocks);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value grid = arith::MinUIOp::create(b, loc, rows, maxBlocks);
  createLaunch(
      b, loc, {grid, one, one}, blockSize, workgroupTypes,
      [&](OpBuilder &body, gpu::LaunchOp launch, ValueRange workgroup) {
        scf::ForOp::create(
            body, loc, launch.getBlockIds().x, rows, launch.getGridSize().x,
            ValueRange{},
            [&](OpBuilder &inner, Location loc, Value row, ValueRange) {
              build(inner, loc, launch, workgroup, row);
              scf::YieldOp::create(inner, loc);
            });
      },
      dynamicSharedMemory);
}

void emitWarpRowKernel(
    OpBuilder &b, Location loc, Value rows, int64_t blockSize,
    function_ref<void(OpBuilder &, Location, Value, Value)> build) {
  Value warps = arith::ConstantIndexOp::create(b, loc, blockSize / kWarpSize);
  Value groups = arith::CeilDivUIOp::create(b, loc, rows, warps);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value grid = arith::MinUIOp::create(
      b, loc, groups,
      arith::ConstantIndexOp::create(b, loc, dlbridge::kMaxGridBlocks));
  createLaunch(
      b, loc, {grid, one, one}, blockSize, {},
      [&](OpBuilder &body, gpu::LaunchOp launch, ValueRange) {
        Value warpSize = arith::ConstantIndexOp::create(body, loc, kWarpSize);
        Value perBlock =
            arith::ConstantIndexOp::create(body, loc, blockSize / kWarpSize);
        Value tid = launch.getThreadIds().x;
        Value warp = arith::DivUIOp::create(body, loc, tid, warpSize);
        Value lane = arith::RemUIOp::create(body, loc, tid, warpSize);
        scf::ForOp::create(
            body, loc, launch.getBlockIds().x, groups, launch.getGridSize().x,
            ValueRange{},
            [&](OpBuilder &inner, Location loc, Value group, ValueRange) {
              Value row = arith::AddIOp::create(
                  inner, loc,
                  arith::MulIOp::create(inner, loc, group, perBlock), warp);
              Value inside = arith::CmpIOp::create(
                  inner, loc, arith::CmpIPredicate::ult, row, rows);
              scf::IfOp::create(inner, loc, inside,
                                [&](OpBuilder &then, Location loc) {
                                  build(then, loc, row, lane);
                                  scf::YieldOp::create(then, loc);
                                });
              scf::YieldOp::create(inner, loc);
            });
      });
}

ReductionEmitter::ReductionEmitter(const Reduction &reduction,
                                   int64_t blockSize)
    : red(reduction), blockSize(blockSize), numWarps(blockSize / kWarpSize) {
  auto integer = dyn_cast<IntegerType>(red.type);
  shuffleType = integer && integer.getWidth() < 32
                    ? IntegerType::get(red.type.getContext(), 32)
                    : red.type;
  linalg::LinalgOp op = red.op;
  unsigned last = op.getNumLoops() - 1;
  if (op.getNumReductionLoops() == 1 &&
      linalg::isReductionIterator(op.getIteratorTypesArray()[last]))
    vectorInputs = findVectorOperands(op, last);
}

Value ReductionEmitter::emitBody(OpBuilder &b, Location loc,
                                 ArrayRef<Value> ivs, Value acc,
                                 function_ref<Value(OpOperand &)> read) const {
  linalg::LinalgOp op = red.op;
  OpOperand *init = op.getDpsInitOperand(0);
  return emitLinalgBody(b, loc, op, ivs, [&](OpOperand &operand) {
    if (&operand == init)
      return acc;
    return read ? read(operand) : Value();
  })[0];
}

Value ReductionEmitter::emitCombine(OpBuilder &b, Value acc,
                                    Value value) const {
  IRMapping mapping;
  mapping.map(red.combiner->getOperand(red.accOperand), acc);
  mapping.map(red.combiner->getOperand(1 - red.accOperand), value);
  return b.clone(*red.combiner, mapping)->getResult(0);
}

Value ReductionEmitter::emitIdentity(OpBuilder &b, Location loc) const {
  return arith::ConstantOp::create(b, loc, getIdentity(red.kind, red.type));
}

Value ReductionEmitter::widen(OpBuilder &b, Location loc, Value value) const {
  if (shuffleType == red.type)
    return value;
  return arith::ExtSIOp::create(b, loc, shuffleType, value);
}

Value ReductionEmitter::narrow(OpBuilder &b, Location loc, Value value) const {
  if (shuffleType == red.type)
    return value;
  return arith::TruncIOp::create(b, loc, red.type, value);
}

MemRefType ReductionEmitter::getWorkgroupType() const {
  auto space = gpu::AddressSpaceAttr::get(red.type.getContext(),
                                          gpu::AddressSpace::Workgroup);
  return MemRefType::get({numWarps}, shuffleType, MemRefLayoutAttrInterface(),
                         space);
}

Value ReductionEmitter::emitBlockReduce(OpBuilder &b, Location loc,
                                        Value partial, Value tid,
                                        Value workgroup) const {
  Value warpValue = gpu::SubgroupReduceOp::create(
      b, loc, widen(b, loc, partial), red.kind, /*uniform=*/true);
  if (numWarps == 1)
    return narrow(b, loc, warpValue);
  Value warpSize = arith::ConstantIndexOp::create(b, loc, kWarpSize);
  Value lane = arith::RemUIOp::create(b, loc, tid, warpSize);
  Value warp = arith::DivUIOp::create(b, loc, tid, warpSize);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value firstLane =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  scf::IfOp::create(b, loc, firstLane, [&](OpBuilder &then, Location loc) {
    memref::StoreOp::create(then, loc, warpValue, workgroup, warp);
    scf::YieldOp::create(then, loc);
  });
  gpu::BarrierOp::create(b, loc);
  Value warps = arith::ConstantIndexOp::create(b, loc, numWarps);
  Value hasWarp =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, warps);
  auto read = scf::IfOp::create(
      b, loc, hasWarp,
      [&](OpBuilder &then, Location loc) {
        Value value = memref::LoadOp::create(then, loc, workgroup, lane);
        scf::YieldOp::create(then, loc, value);
      },
      [&](OpBuilder &otherwise, Location loc) {
        Value identity = widen(otherwise, loc, emitIdentity(otherwise, loc));
        scf::YieldOp::create(otherwise, loc, identity);
      });
  Value blockValue = gpu::SubgroupReduceOp::create(b, loc, read.getResult(0),
                                                   red.kind, /*uniform=*/true);
  gpu::BarrierOp::create(b, loc);
  return narrow(b, loc, blockValue);
}

void ReductionEmitter::emitLaunch(
    OpBuilder &b, Location loc, std::array<Value, 3> grid,
    function_ref<void(OpBuilder &, gpu::LaunchOp, Value)> build) const {
  SmallVector<Type> workgroup;
  if (numWarps > 1)
    workgroup.push_back(getWorkgroupType());
  createLaunch(b, loc, grid, blockSize, workgroup,
               [&](OpBuilder &body, gpu::LaunchOp launch, ValueRange buffers) {
                 build(body, launch,
                       buffers.empty() ? Value() : buffers.front());
               });
}

void ReductionEmitter::emitStoreResult(OpBuilder &b, Location loc, Value tid,
                                       ArrayRef<Value> loopIvs,
                                       Value value) const {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
  linalg::LinalgOp op = red.op;
  scf::IfOp::create(b, loc, first, [&](OpBuilder &then, Location loc) {
    OpOperand *init = op.getDpsInitOperand(0);
    SmallVector<Value> indices =
        applyMap(then, loc, op.getMatchingIndexingMap(init), loopIvs);
    Value initial = memref::LoadOp::create(then, loc, init->get(), indices);
    memref::StoreOp::create(then, loc, emitCombine(then, initial, value),
                            init->get(), indices);
    scf::YieldOp::create(then, loc);
  });
}

Value ReductionEmitter::emitRowPartial(
    OpBuilder &b, Location loc, ArrayRef<Value> parallelIvs,
    ArrayRef<Value> reductionExtents, Value length, Value first, Value step,
    function_ref<Value(OpOperand &)> read) const {
  auto emitScalarLoop = [&](OpBuilder &b, Location loc, Value start,
                            Value init) {
    auto loop = scf::ForOp::create(
        b, loc, start, length, step, ValueRange{init},
        [&](OpBuilder &inner, Location loc, Value k, ValueRange acc) {
          SmallVector<Value> reductionIvs =
              delinearize(inner, loc, k, reductionExtents);
          SmallVector<Value> ivs = mergeIvs(parallelIvs, reductionIvs);
          scf::YieldOp::create(inner, loc,
                               emitBody(inner, loc, ivs, acc[0], read));
        });
    return loop.getResult(0);
  };
  Value identity = emitIdentity(b, loc);
  if (vectorInputs.operands.empty() || reductionExtents.size() != 1)
    return emitScalarLoop(b, loc, first, identity);

  linalg::LinalgOp op = red.op;
  int64_t lanes = vectorInputs.lanes;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value lanesValue = arith::ConstantIndexOp::create(b, loc, lanes);
  Value aligned =
      vectorInputs.emitIsAligned(b, loc, op, mergeIvs(parallelIvs, {zero}));
  auto ifOp = scf::IfOp::create(
      b, loc, aligned,
      [&](OpBuilder &then, Location loc) {
        Value vectorEnd = arith::SubIOp::create(
            then, loc, length,
            arith::RemUIOp::create(then, loc, length, lanesValue));
        auto chunks = scf::ForOp::create(
            then, loc, arith::MulIOp::create(then, loc, first, lanesValue),
            vectorEnd, arith::MulIOp::create(then, loc, step, lanesValue),
            ValueRange{identity},
            [&](OpBuilder &inner, Location loc, Value start, ValueRange acc) {
              DenseMap<OpOperand *, Value> vectors = emitVectorLoads(
                  inner, loc, op, vectorInputs, mergeIvs(parallelIvs, {start}));
              Value value = acc[0];
              for (int64_t lane = 0; lane < lanes; ++lane) {
                Value k = arith::AddIOp::create(
                    inner, loc, start,
                    arith::ConstantIndexOp::create(inner, loc, lane));
                value = emitBody(inner, loc, mergeIvs(parallelIvs, {k}), value,
                                 readLane(inner, loc, vectors, lane, read));
              }
              scf::YieldOp::create(inner, loc, value);
            });
        Value tail = emitScalarLoop(
            then, loc, arith::AddIOp::create(then, loc, vectorEnd, first),
            chunks.getResult(0));
        scf::YieldOp::create(then, loc, tail);
      },
      [&](OpBuilder &otherwise, Location loc) {
        scf::YieldOp::create(otherwise, loc,
                             emitScalarLoop(otherwise, loc, first, identity));
      });
  return ifOp.getResult(0);
}

SmallVector<Value>
ReductionEmitter::mergeIvs(ArrayRef<Value> parallelIvs,
                           ArrayRef<Value> reductionIvs) const {
  SmallVector<Value> ivs;
  size_t p = 0, r = 0;
  linalg::LinalgOp op = red.op;
  for (utils::IteratorType iterator : op.getIteratorTypesArray()) {
    if (linalg::isParallelIterator(iterator))
      ivs.push_back(parallelIvs[p++]);
    else
      ivs.push_back(reductionIvs.empty() ? Value() : reductionIvs[r++]);
  }
  return ivs;
}

LoopExtents getLoopExtents(OpBuilder &b, Location loc, linalg::LinalgOp op) {
  LoopExtents extents;
  SmallVector<Range> ranges = op.createLoopRanges(b, loc);
  for (auto [range, iterator] :
       llvm::zip_equal(ranges, op.getIteratorTypesArray())) {
    Value size = getValueOrCreateConstantIndexOp(b, loc, range.size);
    (linalg::isParallelIterator(iterator) ? extents.parallel
                                          : extents.reduction)
        .push_back(size);
  }
  extents.rows = product(b, loc, extents.parallel);
  extents.length = product(b, loc, extents.reduction);
  return extents;
}

} // namespace dlbridge
