//===- ScansToKernels.cpp - Scans along contiguous rows as block scans ----===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"
#include "dlbridge/Transforms/ScanLoops.h"

#include "GridStride.h"
#include "VectorAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dlbridge {
#define GEN_PASS_DEF_SCANSTOKERNELS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;
using dlbridge::emitIsAligned;
using dlbridge::getVectorElementBytes;
using dlbridge::kWarpSize;

namespace {

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

/// A scan: `loop` runs `walk` at every index of its other dimensions (a
/// single row where there is no `loop`: a 1-d scan); `walk` combines each
/// element into its carried value with `combiner` (the carried value its
/// operand `accOperand`) and stores the result with `store`.
struct Scan {
  scf::ParallelOp loop;
  scf::ForOp walk;
  Operation *combiner;
  unsigned accOperand;
  memref::StoreOp store;
};

/// Whether `op` combines values associatively and commutatively.
bool isScanCombiner(Operation *op) {
  return isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp, arith::AddIOp, arith::MulIOp,
             arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::MaxSIOp,
             arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>(op);
}

/// Whether threads can exchange values of `type` with 32- or 64-bit shuffles.
bool isShuffleable(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() <= 64;
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(type);
}

/// The buffer `value` views, through views and casts.
Value getRootBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      value = view.getViewSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      value = cast.getSource();
    else
      break;
  }
  return value;
}

/// Whether `load` reads nothing `store` writes before `load` would read it in
/// the walk: the stored buffer is one the function allocates and `load`
/// reads another, or `load` reads the very element `store` writes.
bool isIndependentRead(memref::LoadOp load, memref::StoreOp store) {
  if (load.getMemRef() == store.getMemRef() &&
      load.getIndices() == store.getIndices())
    return true;
  Value stored = getRootBuffer(store.getMemRef());
  if (!stored.getDefiningOp<memref::AllocOp>() &&
      !stored.getDefiningOp<memref::AllocaOp>())
    return false;
  return getRootBuffer(load.getMemRef()) != stored;
}

/// Whether the innermost dimension of `type` has unit stride.
bool hasUnitInnerStride(MemRefType type) {
  if (type.getRank() == 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

std::optional<Scan> matchWalk(scf::ParallelOp loop, scf::ForOp walk);

std::optional<Scan> matchScan(scf::ParallelOp loop) {
  scf::ForOp walk = dlbridge::getSoleWalk(loop);
  if (!walk)
    return std::nullopt;
  return matchWalk(loop, walk);
}

std::optional<Scan> matchWalk(scf::ParallelOp loop, scf::ForOp walk) {
  if (walk.getNumRegionIterArgs() != 1 ||
      getConstantIntValue(walk.getStep()) != 1 ||
      !walk.getResult(0).use_empty() ||
      !isShuffleable(walk.getRegionIterArgs()[0].getType()))
    return std::nullopt;

  Value acc = walk.getRegionIterArgs()[0];
  if (!acc.hasOneUse())
    return std::nullopt;
  Operation *combiner = *acc.getUsers().begin();
  auto yield = cast<scf::YieldOp>(walk.getBody()->getTerminator());
  if (!isScanCombiner(combiner) || combiner->getBlock() != walk.getBody() ||
      yield.getOperand(0) != combiner->getResult(0) ||
      combiner->getOperand(0) == combiner->getOperand(1))
    return std::nullopt;
  unsigned accOperand = combiner->getOperand(0) == acc ? 0 : 1;

  memref::StoreOp store;
  for (Operation *user : combiner->getResult(0).getUsers()) {
    if (user == yield)
      continue;
    auto storeOp = dyn_cast<memref::StoreOp>(user);
    if (!storeOp || store ||
        storeOp.getValueToStore() != combiner->getResult(0))
      return std::nullopt;
    store = storeOp;
  }
  if (!store || store.getIndices().empty() ||
      store.getIndices().back() != walk.getInductionVar() ||
      !hasUnitInnerStride(store.getMemRefType()) ||
      llvm::any_of(store.getIndices().drop_back(),
                   [&](Value index) {
                     return walk->isAncestor(
                         index.getParentBlock()->getParentOp());
                   }) ||
      walk->isAncestor(store.getMemRef().getParentBlock()->getParentOp()))
    return std::nullopt;

  for (Operation &op : walk.getBody()->without_terminator()) {
    if (&op == combiner || &op == store.getOperation())
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (!isIndependentRead(load, store))
        return std::nullopt;
      continue;
    }
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return std::nullopt;
  }
  return Scan{loop, walk, combiner, accOperand, store};
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

/// Emits the kernel of one scan; the `Value`s it holds outside the kernel
/// are host values the kernel captures.
class ScanEmitter {
public:
  ScanEmitter(Scan scan, int64_t blockSize)
      : scan(scan), type(scan.walk.getRegionIterArgs()[0].getType()),
        blockSize(blockSize), numWarps(blockSize / kWarpSize) {
    unsigned bits = type.getIntOrFloatBitWidth();
    shuffleType = IntegerType::get(type.getContext(), bits <= 32 ? 32 : 64);
    if (isa<FloatType>(type) && (bits == 32 || bits == 64))
      shuffleType = type;
    findVectorAccesses();
  }

  /// The loads along the row and the store, and how many consecutive
  /// elements a thread takes: 16 bytes of the widest of them where each
  /// reads or writes along a unit-stride innermost dimension, the walk's
  /// index its last index alone; one otherwise.
  void findVectorAccesses() {
    Value iv = scan.walk.getInductionVar();
    auto inWalk = [&](Value value) {
      return scan.walk->isAncestor(value.getParentBlock()->getParentOp());
    };
    auto alongRow = [&](Value memref, ValueRange indices) {
      auto memrefType = cast<MemRefType>(memref.getType());
      return !indices.empty() && indices.back() == iv &&
             hasUnitInnerStride(memrefType) && !inWalk(memref) &&
             getVectorElementBytes(memrefType.getElementType()) != 0 &&
             llvm::none_of(indices.drop_back(), inWalk);
    };
    int64_t widest = 0;
    for (Operation &op : scan.walk.getBody()->without_terminator()) {
      auto load = dyn_cast<memref::LoadOp>(op);
      if (!load || llvm::none_of(load.getIndices(), inWalk))
        continue;
      if (!alongRow(load.getMemRef(), load.getIndices()))
        return;
      vectorAccesses.push_back(load);
      widest = std::max(widest, getVectorElementBytes(load.getType()));
    }
    if (!alongRow(scan.store.getMemRef(), scan.store.getIndices()))
      return vectorAccesses.clear();
    vectorAccesses.push_back(scan.store);
    widest = std::max(widest, getVectorElementBytes(type));
    width = std::max<int64_t>(dlbridge::kVectorBytes / widest, 1);
  }

  /// `type`'s value as `shuffleType`, whose low bits hold its bits.
  Value widen(OpBuilder &b, Location loc, Value value) {
    if (shuffleType == type)
      return value;
    unsigned bits = type.getIntOrFloatBitWidth();
    if (isa<FloatType>(type))
      value = arith::BitcastOp::create(b, loc, b.getIntegerType(bits), value);
    return arith::ExtUIOp::create(b, loc, shuffleType, value);
  }

  Value narrow(OpBuilder &b, Location loc, Value value) {
    if (shuffleType == type)
      return value;
    unsigned bits = type.getIntOrFloatBitWidth();
    value = arith::TruncIOp::create(b, loc, b.getIntegerType(bits), value);
    if (isa<FloatType>(type))
      value = arith::BitcastOp::create(b, loc, type, value);
    return value;
  }

  /// The combiner applied to `prefix` (in the carried value's place) and
  /// `value`, which comes after it in the row.
  Value combine(OpBuilder &b, Value prefix, Value value) {
    IRMapping mapping;
    mapping.map(scan.combiner->getOperand(scan.accOperand), prefix);
    mapping.map(scan.combiner->getOperand(1 - scan.accOperand), value);
    return b.clone(*scan.combiner, mapping)->getResult(0);
  }

  /// The inclusive scan of `value` over the lanes of the warp, in every lane:
  /// each lane combines in what the lane `offset` below it holds, for
  /// offsets 1, 2, ..., 16. The whole warp must reach it.
  Value emitWarpScan(OpBuilder &b, Location loc, Value value) {
    Value width = arith::ConstantIntOp::create(b, loc, kWarpSize, 32);
    for (int64_t offset = 1; offset < kWarpSize; offset *= 2) {
      Value delta = arith::ConstantIntOp::create(b, loc, offset, 32);
      auto shuffle = gpu::ShuffleOp::create(b, loc, widen(b, loc, value), delta,
                                            width, gpu::ShuffleMode::UP);
      Value combined =
          combine(b, narrow(b, loc, shuffle.getShuffleResult()), value);
      value =
          arith::SelectOp::create(b, loc, shuffle.getValid(), combined, value);
    }
    return value;
  }

  /// The number of rows: the product of the loop's trip counts.
  Value emitRowCount(OpBuilder &b, Location loc) {
    Value rows = arith::ConstantIndexOp::create(b, loc, 1);
    if (!scan.loop)
      return rows;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    for (auto [lower, upper] :
         llvm::zip(scan.loop.getLowerBound(), scan.loop.getUpperBound())) {
      Value count = arith::SubIOp::create(b, loc, upper, lower);
      count = arith::MaxSIOp::create(b, loc, count, zero);
      rows = arith::MulIOp::create(b, loc, rows, count);
    }
    return rows;
  }

  /// The loop's indices at row `row`, the last dimension varying fastest.
  SmallVector<Value> emitIndices(OpBuilder &b, Location loc, Value row) {
    if (!scan.loop)
      return {};
    SmallVector<Value> ivs(scan.loop.getNumLoops());
    for (int64_t d = scan.loop.getNumLoops() - 1; d >= 0; --d) {
      Value lower = scan.loop.getLowerBound()[d];
      Value index = row;
      if (d != 0) {
        Value count =
            arith::SubIOp::create(b, loc, scan.loop.getUpperBound()[d], lower);
        index = arith::RemUIOp::create(b, loc, row, count);
        row = arith::DivUIOp::create(b, loc, row, count);
      }
      ivs[d] = arith::AddIOp::create(b, loc, lower, index);
    }
    return ivs;
  }

  /// The walk's element at `index` (the body's value combined in), where
  /// `read` gives each load's value; at indices past `upper`, `init`.
  Value emitElement(OpBuilder &b, Location loc, const IRMapping &mapping,
                    Value index, function_ref<Value(memref::LoadOp)> read) {
    IRMapping element = mapping;
    element.map(scan.walk.getInductionVar(), index);
    for (Operation &op : scan.walk.getBody()->without_terminator()) {
      if (&op == scan.combiner || &op == scan.store.getOperation())
        continue;
      auto load = dyn_cast<memref::LoadOp>(op);
      Value value = load && read ? read(load) : Value();
      if (value)
        element.map(load.getResult(), value);
      else
        b.clone(op, element);
    }
    return element.lookupOrDefault(
        scan.combiner->getOperand(1 - scan.accOperand));
  }

  /// The block's work on one row, the loop's indices mapped in `mapping`.
  /// Each thread takes `width` consecutive elements of a chunk of
  /// `blockSize * width`: one vector load per input where they are all in
  /// the row and aligned, element by element otherwise. It scans them in
  /// order, the block scans the threads' totals, and each thread combines
  /// the carry, the totals of the threads before it and its own running
  /// values, in that order.
  void emitRow(OpBuilder &b, Location loc, IRMapping &mapping, Value tid,
               Value workgroup) {
    if (scan.loop)
      for (Operation &op : scan.loop.getBody()->without_terminator())
        if (&op != scan.walk.getOperation())
          b.clone(op, mapping);
    Value lower = mapping.lookupOrDefault(scan.walk.getLowerBound());
    Value upper = mapping.lookupOrDefault(scan.walk.getUpperBound());
    Value init = mapping.lookupOrDefault(scan.walk.getInitArgs()[0]);
    Value chunk = arith::ConstantIndexOp::create(b, loc, blockSize * width);
    Value widthValue = arith::ConstantIndexOp::create(b, loc, width);
    SmallVector<Type> types(width, type);
    scf::ForOp::create(
        b, loc, lower, upper, chunk, ValueRange{init},
        [&](OpBuilder &b, Location loc, Value base, ValueRange carried) {
          Value carry = carried[0];
          Value first = arith::AddIOp::create(
              b, loc, base, arith::MulIOp::create(b, loc, tid, widthValue));
          SmallVector<Value> indices, inRange;
          for (int64_t j = 0; j < width; ++j) {
            indices.push_back(arith::AddIOp::create(
                b, loc, first, arith::ConstantIndexOp::create(b, loc, j)));
            inRange.push_back(arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::slt, indices.back(), upper));
          }

          // One element at a time, each under its own bound check.
          auto emitScalar = [&](OpBuilder &b, Location loc) {
            SmallVector<Value> values;
            for (int64_t j = 0; j < width; ++j) {
              auto read = scf::IfOp::create(
                  b, loc, inRange[j],
                  [&](OpBuilder &then, Location loc) {
                    scf::YieldOp::create(
                        then, loc,
                        emitElement(then, loc, mapping, indices[j], nullptr));
                  },
                  [&](OpBuilder &otherwise, Location loc) {
                    // Past the row's end: never stored, and only ever
                    // combined into values after the row's last.
                    scf::YieldOp::create(otherwise, loc, init);
                  });
              values.push_back(read.getResult(0));
            }
            return values;
          };

          SmallVector<Value> values;
          Value fast;
          if (width == 1) {
            values = emitScalar(b, loc);
          } else {
            fast = inRange.back();
            for (Operation *access : vectorAccesses) {
              auto [memref, mapped] = getVectorAccess(access, mapping, first);
              int64_t bytes = getVectorElementBytes(
                  cast<MemRefType>(memref.getType()).getElementType());
              fast = arith::AndIOp::create(
                  b, loc, fast,
                  emitIsAligned(b, loc, memref, mapped, bytes * width));
            }
            auto read = scf::IfOp::create(
                b, loc, fast,
                [&](OpBuilder &then, Location loc) {
                  DenseMap<Operation *, Value> vectors;
                  for (Operation *access : vectorAccesses) {
                    auto load = dyn_cast<memref::LoadOp>(access);
                    if (!load)
                      continue;
                    auto [memref, mapped] =
                        getVectorAccess(access, mapping, first);
                    auto vectorType = VectorType::get({width}, load.getType());
                    vectors[access] = vector::LoadOp::create(
                        then, loc, vectorType, memref, mapped,
                        /*nontemporal=*/false,
                        llvm::Align(getVectorElementBytes(load.getType()) *
                                    width));
                  }
                  SmallVector<Value> lanes;
                  for (int64_t j = 0; j < width; ++j)
                    lanes.push_back(
                        emitElement(then, loc, mapping, indices[j],
                                    [&](memref::LoadOp load) -> Value {
                                      auto it = vectors.find(load);
                                      if (it == vectors.end())
                                        return Value();
                                      return vector::ExtractOp::create(
                                          then, loc, it->second, j);
                                    }));
                  scf::YieldOp::create(then, loc, lanes);
                },
                [&](OpBuilder &otherwise, Location loc) {
                  scf::YieldOp::create(otherwise, loc,
                                       emitScalar(otherwise, loc));
                });
            values.assign(read.getResults().begin(), read.getResults().end());
          }

          // The thread's running values, then the block's scan of totals.
          for (int64_t j = 1; j < width; ++j)
            values[j] = combine(b, values[j - 1], values[j]);
          Value total = values.back();
          Value inWarp = emitWarpScan(b, loc, total);
          Value warpSize = arith::ConstantIndexOp::create(b, loc, kWarpSize);
          Value lane = arith::RemUIOp::create(b, loc, tid, warpSize);
          Value warp = arith::DivUIOp::create(b, loc, tid, warpSize);
          Value zero = arith::ConstantIndexOp::create(b, loc, 0);
          Value lastLane =
              arith::ConstantIndexOp::create(b, loc, kWarpSize - 1);
          Value isLastLane = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::eq, lane, lastLane);
          scf::IfOp::create(
              b, loc, isLastLane, [&](OpBuilder &then, Location loc) {
                memref::StoreOp::create(then, loc, widen(then, loc, inWarp),
                                        workgroup, warp);
                scf::YieldOp::create(then, loc);
              });
          gpu::BarrierOp::create(b, loc);
          Value isFirstWarp = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::eq, warp, zero);
          scf::IfOp::create(
              b, loc, isFirstWarp, [&](OpBuilder &then, Location loc) {
                Value warps =
                    arith::ConstantIndexOp::create(then, loc, numWarps);
                Value hasWarp = arith::CmpIOp::create(
                    then, loc, arith::CmpIPredicate::ult, lane, warps);
                Value slot = arith::MinUIOp::create(
                    then, loc, lane,
                    arith::ConstantIndexOp::create(then, loc, numWarps - 1));
                Value warpTotal =
                    narrow(then, loc,
                           memref::LoadOp::create(then, loc, workgroup, slot));
                Value scanned = emitWarpScan(then, loc, warpTotal);
                scf::IfOp::create(
                    then, loc, hasWarp, [&](OpBuilder &store, Location loc) {
                      memref::StoreOp::create(store, loc,
                                              widen(store, loc, scanned),
                                              workgroup, lane);
                      scf::YieldOp::create(store, loc);
                    });
                scf::YieldOp::create(then, loc);
              });
          gpu::BarrierOp::create(b, loc);

          // carry, then the warps before, then the lanes before.
          Value one = arith::ConstantIndexOp::create(b, loc, 1);
          Value before = arith::SubIOp::create(
              b, loc, arith::MaxUIOp::create(b, loc, warp, one), one);
          Value earlier =
              narrow(b, loc, memref::LoadOp::create(b, loc, workgroup, before));
          Value prefix = arith::SelectOp::create(b, loc, isFirstWarp, carry,
                                                 combine(b, carry, earlier));
          Value shiftBy = arith::ConstantIntOp::create(b, loc, 1, 32);
          Value warpWidth = arith::ConstantIntOp::create(b, loc, kWarpSize, 32);
          auto lanesBefore =
              gpu::ShuffleOp::create(b, loc, widen(b, loc, inWarp), shiftBy,
                                     warpWidth, gpu::ShuffleMode::UP);
          prefix = arith::SelectOp::create(
              b, loc, lanesBefore.getValid(),
              combine(b, prefix,
                      narrow(b, loc, lanesBefore.getShuffleResult())),
              prefix);
          SmallVector<Value> results;
          for (int64_t j = 0; j < width; ++j)
            results.push_back(combine(b, prefix, values[j]));

          auto emitScalarStores = [&](OpBuilder &b, Location loc) {
            for (int64_t j = 0; j < width; ++j)
              scf::IfOp::create(
                  b, loc, inRange[j], [&](OpBuilder &then, Location loc) {
                    IRMapping stored = mapping;
                    stored.map(scan.walk.getInductionVar(), indices[j]);
                    stored.map(scan.combiner->getResult(0), results[j]);
                    then.clone(*scan.store, stored);
                    scf::YieldOp::create(then, loc);
                  });
          };
          if (width == 1) {
            emitScalarStores(b, loc);
          } else {
            scf::IfOp::create(
                b, loc, fast,
                [&](OpBuilder &then, Location loc) {
                  auto [memref, mapped] =
                      getVectorAccess(scan.store, mapping, first);
                  Value vector = vector::FromElementsOp::create(
                      then, loc, VectorType::get({width}, type), results);
                  vector::StoreOp::create(
                      then, loc, vector, memref, mapped, /*nontemporal=*/false,
                      llvm::Align(getVectorElementBytes(type) * width));
                  scf::YieldOp::create(then, loc);
                },
                [&](OpBuilder &otherwise, Location loc) {
                  emitScalarStores(otherwise, loc);
                  scf::YieldOp::create(otherwise, loc);
                });
          }

          Value last = arith::ConstantIndexOp::create(b, loc, numWarps - 1);
          Value chunkTotal =
              narrow(b, loc, memref::LoadOp::create(b, loc, workgroup, last));
          Value next = combine(b, carry, chunkTotal);
          // The workgroup buffer is written again by the next chunk.
          gpu::BarrierOp::create(b, loc);
          scf::YieldOp::create(b, loc, next);
        });
  }

  /// The memref and indices of `access` (a load or the store) at element
  /// `first` of the row, its other indices mapped in `mapping`.
  std::pair<Value, SmallVector<Value>>
  getVectorAccess(Operation *access, const IRMapping &mapping, Value first) {
    auto load = dyn_cast<memref::LoadOp>(access);
    Value memref =
        load ? load.getMemRef() : cast<memref::StoreOp>(access).getMemRef();
    ValueRange indices =
        load ? load.getIndices() : cast<memref::StoreOp>(access).getIndices();
    SmallVector<Value> mapped;
    for (Value index : indices.drop_back())
      mapped.push_back(mapping.lookupOrDefault(index));
    mapped.push_back(first);
    return {mapping.lookupOrDefault(memref), mapped};
  }

  /// Replaces the scan's loop with a launch of a block per row.
  void emit() {
    Operation *loop =
        scan.loop ? scan.loop.getOperation() : scan.walk.getOperation();
    OpBuilder b(loop);
    Location loc = loop->getLoc();
    Value rows = emitRowCount(b, loc);
    Value maxBlocks =
        arith::ConstantIndexOp::create(b, loc, dlbridge::kMaxGridBlocks);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value grid = arith::MinUIOp::create(b, loc, rows, maxBlocks);
    Value threads = arith::ConstantIndexOp::create(b, loc, blockSize);
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    Type workgroupType = MemRefType::get({numWarps}, shuffleType,
                                         MemRefLayoutAttrInterface(), space);
    auto launch = gpu::LaunchOp::create(
        b, loc, grid, one, one, threads, one, one,
        /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/{}, TypeRange{workgroupType});
    OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
    Value workgroup = launch.getWorkgroupAttributions().front();
    Value tid = launch.getThreadIds().x;
    scf::ForOp::create(
        body, loc, launch.getBlockIds().x, rows, launch.getGridSize().x,
        ValueRange{}, [&](OpBuilder &b, Location loc, Value row, ValueRange) {
          IRMapping mapping;
          if (scan.loop)
            mapping.map(scan.loop.getInductionVars(), emitIndices(b, loc, row));
          emitRow(b, loc, mapping, tid, workgroup);
          scf::YieldOp::create(b, loc);
        });
    gpu::TerminatorOp::create(body, loc);
    loop->erase();
  }

private:
  Scan scan;
  Type type;
  Type shuffleType;
  int64_t blockSize;
  int64_t numWarps;
  /// Consecutive elements a thread takes in each chunk.
  int64_t width = 1;
  /// The loads along the row and the store, moved as vectors of `width`.
  SmallVector<Operation *> vectorAccesses;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ScansToKernelsPass
    : public dlbridge::impl::ScansToKernelsBase<ScansToKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(dlbridge::checkBlockSize(root, blockSize)))
      return signalPassFailure();
    SmallVector<Scan> scans;
    root->walk([&](scf::ParallelOp loop) {
      // Inside another parallel loop or a kernel, threads have their work.
      if (loop->getParentOfType<scf::ParallelOp>() ||
          loop->getParentOfType<gpu::LaunchOp>() ||
          loop->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (std::optional<Scan> scan = matchScan(loop))
        scans.push_back(*scan);
    });
    // A 1-d scan (or one whose other dimensions are static 1s, whose loop
    // canonicalisation folded away) is a walk in host code.
    root->walk([&](scf::ForOp walk) {
      if (walk->getParentOfType<scf::ParallelOp>() ||
          walk->getParentOfType<gpu::LaunchOp>() ||
          walk->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (std::optional<Scan> scan = matchWalk(nullptr, walk))
        scans.push_back(*scan);
    });
    for (Scan &scan : scans)
      ScanEmitter(scan, blockSize).emit();
  }
};

} // namespace
