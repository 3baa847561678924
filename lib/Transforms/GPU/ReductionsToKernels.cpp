//===- ReductionsToKernels.cpp - Reductions whose threads cooperate -------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "GridStride.h"
#include "LinalgBody.h"
#include "VectorAccess.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>

namespace dlbridge {
#define GEN_PASS_DEF_REDUCTIONSTOKERNELS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;
using dlbridge::applyMap;
using dlbridge::emitLinalgBody;

namespace {

constexpr int64_t kWarpSize = 32;
constexpr int64_t kMaxThreadsPerBlock = 1024;

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

/// A linalg op that folds one value per iteration into its only output with
/// a reassociable combiner.
struct Reduction {
  linalg::LinalgOp op;
  /// The body's operation that yields the new output value.
  Operation *combiner;
  /// The operand of `combiner` that is the output's current value.
  unsigned accOperand;
  gpu::AllReduceOperation kind;
  /// The output's element type, in which the body accumulates.
  Type type;
};

std::optional<gpu::AllReduceOperation> getCombinerKind(Operation *op) {
  using Kind = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
      .Case([](arith::AddFOp) { return Kind::ADD; })
      .Case([](arith::AddIOp) { return Kind::ADD; })
      .Case([](arith::MulFOp) { return Kind::MUL; })
      .Case([](arith::MulIOp) { return Kind::MUL; })
      .Case([](arith::MaximumFOp) { return Kind::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return Kind::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return Kind::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return Kind::MINNUMF; })
      .Case([](arith::AndIOp) { return Kind::AND; })
      .Case([](arith::OrIOp) { return Kind::OR; })
      .Case([](arith::XOrIOp) { return Kind::XOR; })
      .Case([](arith::MaxSIOp) { return Kind::MAXSI; })
      .Case([](arith::MinSIOp) { return Kind::MINSI; })
      .Case([](arith::MaxUIOp) { return Kind::MAXUI; })
      .Case([](arith::MinUIOp) { return Kind::MINUI; })
      .Default(std::nullopt);
}

bool isSupportedType(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64())
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.getWidth() <= 64;
}

/// `combiner(identity, x) == x` for every `x` of `type`: -0.0 for float sums
/// (+0.0 + -0.0 is +0.0), NaN for maxnumf/minnumf (which return the other
/// operand), infinities for maximumf/minimumf.
TypedAttr getIdentity(gpu::AllReduceOperation kind, Type type) {
  using Kind = gpu::AllReduceOperation;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    APFloat value = APFloat::getZero(semantics, /*Negative=*/true);
    switch (kind) {
    case Kind::MUL:
      value = APFloat::getOne(semantics);
      break;
    case Kind::MAXIMUMF:
      value = APFloat::getInf(semantics, /*Negative=*/true);
      break;
    case Kind::MINIMUMF:
      value = APFloat::getInf(semantics, /*Negative=*/false);
      break;
    case Kind::MAXNUMF:
    case Kind::MINNUMF:
      value = APFloat::getQNaN(semantics);
      break;
    default:
      break;
    }
    return FloatAttr::get(type, value);
  }
  unsigned width = type.getIntOrFloatBitWidth();
  APInt value = APInt::getZero(width);
  switch (kind) {
  case Kind::MUL:
    value = APInt(width, 1);
    break;
  case Kind::AND:
  case Kind::MINUI:
    value = APInt::getAllOnes(width);
    break;
  case Kind::MAXSI:
    value = APInt::getSignedMinValue(width);
    break;
  case Kind::MINSI:
    value = APInt::getSignedMaxValue(width);
    break;
  default:
    break;
  }
  return IntegerAttr::get(type, value);
}

/// Whether `op` multiplies or convolves over two or more parallel
/// dimensions (matmul and its kin), which a block per output element would
/// make slower, not faster.
bool isMatmulLike(linalg::LinalgOp op) {
  return op.getNumParallelLoops() >= 2 &&
         (linalg::isaContractionOpInterface(op) ||
          linalg::isaConvolutionOpInterface(op));
}

std::optional<Reduction> matchReduction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 0 || op.getNumReductionLoops() == 0 ||
      isMatmulLike(op))
    return std::nullopt;

  OpOperand *init = op.getDpsInitOperand(0);
  // The output, indexed by each parallel dimension exactly once.
  AffineMap outMap = op.getMatchingIndexingMap(init);
  if (!outMap.isProjectedPermutation() ||
      outMap.getNumResults() != op.getNumParallelLoops())
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (AffineExpr result : outMap.getResults())
    if (!linalg::isParallelIterator(
            iterators[cast<AffineDimExpr>(result).getPosition()]))
      return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == init->get() ||
        op.getMatchingIndexingMap(input).getNumSymbols() != 0)
      return std::nullopt;

  Block &body = op->getRegion(0).front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield->getNumOperands() != 1)
    return std::nullopt;
  Operation *combiner = yield->getOperand(0).getDefiningOp();
  BlockArgument acc = op.getMatchingBlockArgument(init);
  if (!combiner || combiner->getBlock() != &body || !combiner->hasOneUse() ||
      !acc.hasOneUse() || acc.getUses().begin()->getOwner() != combiner)
    return std::nullopt;
  std::optional<gpu::AllReduceOperation> kind = getCombinerKind(combiner);
  if (!kind || !isSupportedType(acc.getType()))
    return std::nullopt;
  // The body is cloned once per element: it must not touch memory.
  for (Operation &bodyOp : body.without_terminator())
    if (bodyOp.getNumRegions() != 0 || !isMemoryEffectFree(&bodyOp))
      return std::nullopt;
  unsigned accOperand = combiner->getOperand(0) == acc ? 0 : 1;
  return Reduction{op, combiner, accOperand, *kind, acc.getType()};
}

//===----------------------------------------------------------------------===//
// Kernel building blocks
//===----------------------------------------------------------------------===//

/// The indices of `linear` in a row-major space of `extents`.
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

/// The operands of `op` that threads of a row move in vectors of `lanes`
/// elements, 16 bytes of the widest: those that loop `loop` indexes, each in
/// the innermost dimension of an identity layout and nowhere else (outputs
/// always; inputs only when the body reads them). Empty when one indexes it
/// otherwise, or none does.
struct VectorOperands {
  SmallVector<OpOperand *> operands;
  int64_t lanes = 1;

  bool contains(OpOperand *operand) const {
    return llvm::is_contained(operands, operand);
  }
  int64_t getBytes(OpOperand *operand) const {
    return lanes * dlbridge::getVectorElementBytes(
                       getElementTypeOrSelf(operand->get().getType()));
  }
  VectorType getType(OpOperand *operand) const {
    return VectorType::get({lanes},
                           getElementTypeOrSelf(operand->get().getType()));
  }
  /// Whether the row starting at loop indices `start` is aligned for every
  /// vector access.
  Value emitIsAligned(OpBuilder &b, Location loc, linalg::LinalgOp op,
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
};

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
    if (!bytes || !type.getLayout().isIdentity() ||
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

/// What an operand's element is at `lane` of `vectors`: the lane of its
/// vector, else what `read` gives (nothing: load it).
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

/// A `gpu.launch` of `grid` blocks of `blockSize` threads with a workgroup
/// buffer of each of `workgroupTypes`; `build` fills its body.
void createLaunch(
    OpBuilder &b, Location loc, std::array<Value, 3> grid, int64_t blockSize,
    TypeRange workgroupTypes,
    function_ref<void(OpBuilder &, gpu::LaunchOp, ValueRange)> build) {
  Value threads = arith::ConstantIndexOp::create(b, loc, blockSize);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch = gpu::LaunchOp::create(
      b, loc, grid[0], grid[1], grid[2], threads, one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, workgroupTypes);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  build(body, launch, launch.getWorkgroupAttributions());
  gpu::TerminatorOp::create(body, loc);
}

/// A launch of blocks of `blockSize` threads, a block per row of `rows`, in a
/// grid-stride loop over rows; `build` emits the work on row `row`.
void emitRowKernel(
    OpBuilder &b, Location loc, Value rows, int64_t blockSize,
    TypeRange workgroupTypes,
    function_ref<void(OpBuilder &, Location, gpu::LaunchOp, ValueRange, Value)>
        build) {
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
      });
}

/// Emits kernels for one reduction; the `Value`s it holds outside kernels
/// are host values the kernels capture.
class ReductionEmitter {
public:
  ReductionEmitter(const Reduction &reduction, int64_t blockSize)
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

  /// The body's value at loop indices `ivs`, `acc` standing for the
  /// output's: `acc` combined with what the iteration folds in. `read`, where
  /// it gives a value, stands for an input's element.
  Value emitBody(OpBuilder &b, Location loc, ArrayRef<Value> ivs, Value acc,
                 function_ref<Value(OpOperand &)> read = nullptr) const {
    linalg::LinalgOp op = red.op;
    OpOperand *init = op.getDpsInitOperand(0);
    return emitLinalgBody(b, loc, op, ivs, [&](OpOperand &operand) {
      if (&operand == init)
        return acc;
      return read ? read(operand) : Value();
    })[0];
  }

  /// The body's combiner applied to `acc` (in the output's place) and
  /// `value`.
  Value emitCombine(OpBuilder &b, Value acc, Value value) const {
    IRMapping mapping;
    mapping.map(red.combiner->getOperand(red.accOperand), acc);
    mapping.map(red.combiner->getOperand(1 - red.accOperand), value);
    return b.clone(*red.combiner, mapping)->getResult(0);
  }

  Value emitIdentity(OpBuilder &b, Location loc) const {
    return arith::ConstantOp::create(b, loc, getIdentity(red.kind, red.type));
  }

  Value widen(OpBuilder &b, Location loc, Value value) const {
    if (shuffleType == red.type)
      return value;
    return arith::ExtSIOp::create(b, loc, shuffleType, value);
  }

  Value narrow(OpBuilder &b, Location loc, Value value) const {
    if (shuffleType == red.type)
      return value;
    return arith::TruncIOp::create(b, loc, red.type, value);
  }

  MemRefType getWorkgroupType() const {
    auto space = gpu::AddressSpaceAttr::get(red.type.getContext(),
                                            gpu::AddressSpace::Workgroup);
    return MemRefType::get({numWarps}, shuffleType, MemRefLayoutAttrInterface(),
                           space);
  }

  /// Every thread's `partial` of the block combined, in every thread; all
  /// threads of the block must reach it. Each warp reduces with shuffles,
  /// lane 0 of each writes its warp's value to `workgroup`, and each warp
  /// then reduces those. Ends with a barrier, so `workgroup` may be reused.
  Value emitBlockReduce(OpBuilder &b, Location loc, Value partial, Value tid,
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
    Value blockValue = gpu::SubgroupReduceOp::create(
        b, loc, read.getResult(0), red.kind, /*uniform=*/true);
    gpu::BarrierOp::create(b, loc);
    return narrow(b, loc, blockValue);
  }

  /// A `gpu.launch` of `grid` blocks of `blockSize` threads with the
  /// workgroup buffer of `emitBlockReduce`; `build` fills its body.
  void emitLaunch(
      OpBuilder &b, Location loc, std::array<Value, 3> grid,
      function_ref<void(OpBuilder &, gpu::LaunchOp, Value)> build) const {
    SmallVector<Type> workgroup;
    if (numWarps > 1)
      workgroup.push_back(getWorkgroupType());
    createLaunch(
        b, loc, grid, blockSize, workgroup,
        [&](OpBuilder &body, gpu::LaunchOp launch, ValueRange buffers) {
          build(body, launch, buffers.empty() ? Value() : buffers.front());
        });
  }

  /// `value` combined into the output's element at loop indices `loopIvs`
  /// (parallel ones; the output does not read the others), by thread 0.
  void emitStoreResult(OpBuilder &b, Location loc, Value tid,
                       ArrayRef<Value> loopIvs, Value value) const {
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

  /// This thread's partial value: the body folded over the elements
  /// `first`, `first + step`, ... below the row's length, whose reduction
  /// indices (row-major in `reductionExtents`) join `parallelIvs`. Where the
  /// row's contiguous inputs are aligned (vectorInputs), the thread takes
  /// chunks of `lanes` elements instead, one vector load per input each,
  /// then the tail element by element.
  Value emitRowPartial(OpBuilder &b, Location loc, ArrayRef<Value> parallelIvs,
                       ArrayRef<Value> reductionExtents, Value length,
                       Value first, Value step,
                       function_ref<Value(OpOperand &)> read = nullptr) const {
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
                DenseMap<OpOperand *, Value> vectors =
                    emitVectorLoads(inner, loc, op, vectorInputs,
                                    mergeIvs(parallelIvs, {start}));
                Value value = acc[0];
                for (int64_t lane = 0; lane < lanes; ++lane) {
                  Value k = arith::AddIOp::create(
                      inner, loc, start,
                      arith::ConstantIndexOp::create(inner, loc, lane));
                  value =
                      emitBody(inner, loc, mergeIvs(parallelIvs, {k}), value,
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

  /// Loop indices in the op's order from its parallel and reduction ones;
  /// `reductionIvs` empty: zeros (for the output, which does not use them).
  SmallVector<Value> mergeIvs(ArrayRef<Value> parallelIvs,
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

  const Reduction &red;
  int64_t blockSize;
  int64_t numWarps;
  /// What threads exchange: the output's type, or i32 for narrower integers.
  Type shuffleType;
  /// The inputs a row's threads load in vectors, where the op reduces its
  /// innermost loop alone.
  VectorOperands vectorInputs;
};

//===----------------------------------------------------------------------===//
// The two lowerings
//===----------------------------------------------------------------------===//

struct LoopExtents {
  SmallVector<Value> parallel;
  SmallVector<Value> reduction;
  Value rows;
  Value length;
};

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

/// One block per row, in a grid-stride loop over rows.
void lowerByRows(OpBuilder &b, Location loc, const ReductionEmitter &emitter,
                 const LoopExtents &extents) {
  SmallVector<Type> workgroupTypes;
  if (emitter.numWarps > 1)
    workgroupTypes.push_back(emitter.getWorkgroupType());
  emitRowKernel(b, loc, extents.rows, emitter.blockSize, workgroupTypes,
                [&](OpBuilder &b, Location loc, gpu::LaunchOp launch,
                    ValueRange workgroup, Value row) {
                  Value tid = launch.getThreadIds().x;
                  SmallVector<Value> parallelIvs =
                      delinearize(b, loc, row, extents.parallel);
                  Value partial = emitter.emitRowPartial(
                      b, loc, parallelIvs, extents.reduction, extents.length,
                      tid, launch.getBlockSize().x);
                  Value total = emitter.emitBlockReduce(
                      b, loc, partial, tid,
                      workgroup.empty() ? Value() : workgroup.front());
                  emitter.emitStoreResult(
                      b, loc, tid, emitter.mergeIvs(parallelIvs, {}), total);
                });
}

/// A thread per output element, in a grid-stride loop, folding the body
/// over its row in order from the initial value, as the sequential loop
/// does: for reductions whose innermost loop is parallel, where consecutive
/// threads then read consecutive elements.
void lowerByOutputs(OpBuilder &b, Location loc, const ReductionEmitter &emitter,
                    const LoopExtents &extents) {
  linalg::LinalgOp op = emitter.red.op;
  OpOperand *init = op.getDpsInitOperand(0);
  dlbridge::emitGridStrideLoop(
      b, loc, extents.rows, emitter.blockSize,
      [&](OpBuilder &rows, Location loc, Value row) {
        Value zero = arith::ConstantIndexOp::create(rows, loc, 0);
        Value one = arith::ConstantIndexOp::create(rows, loc, 1);
        SmallVector<Value> parallelIvs =
            delinearize(rows, loc, row, extents.parallel);
        SmallVector<Value> indices =
            applyMap(rows, loc, op.getMatchingIndexingMap(init),
                     emitter.mergeIvs(parallelIvs, {}));
        Value initial = memref::LoadOp::create(rows, loc, init->get(), indices);
        auto fold = scf::ForOp::create(
            rows, loc, zero, extents.length, one, ValueRange{initial},
            [&](OpBuilder &inner, Location loc, Value k, ValueRange acc) {
              SmallVector<Value> ivs = emitter.mergeIvs(
                  parallelIvs, delinearize(inner, loc, k, extents.reduction));
              scf::YieldOp::create(inner, loc,
                                   emitter.emitBody(inner, loc, ivs, acc[0]));
            });
        memref::StoreOp::create(rows, loc, fold.getResult(0), init->get(),
                                indices);
      });
}

/// `splitBlocks` blocks per row (fewer for short rows) write partial values
/// to a buffer; a second kernel, a block per row, reduces them in order.
void lowerBySplitRows(OpBuilder &b, Location loc,
                      const ReductionEmitter &emitter,
                      const LoopExtents &extents, int64_t rows,
                      int64_t splitBlocks) {
  auto partialsType = MemRefType::get({rows, splitBlocks}, emitter.shuffleType);
  Value partials = memref::AllocOp::create(b, loc, partialsType);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value threads = arith::ConstantIndexOp::create(b, loc, emitter.blockSize);
  Value rowCount = arith::ConstantIndexOp::create(b, loc, rows);
  // Blocks per row: one per block-size elements, at least one,
  // at most splitBlocks.
  Value wanted = arith::CeilDivUIOp::create(b, loc, extents.length, threads);
  Value split = arith::MaxUIOp::create(
      b, loc, one,
      arith::MinUIOp::create(
          b, loc, wanted, arith::ConstantIndexOp::create(b, loc, splitBlocks)));

  emitter.emitLaunch(
      b, loc, {split, rowCount, one},
      [&](OpBuilder &body, gpu::LaunchOp launch, Value workgroup) {
        Value tid = launch.getThreadIds().x;
        Value block = launch.getBlockIds().x;
        Value row = launch.getBlockIds().y;
        SmallVector<Value> parallelIvs =
            delinearize(body, loc, row, extents.parallel);
        Value first = arith::AddIOp::create(
            body, loc, arith::MulIOp::create(body, loc, block, threads), tid);
        Value step = arith::MulIOp::create(body, loc, split, threads);
        Value partial =
            emitter.emitRowPartial(body, loc, parallelIvs, extents.reduction,
                                   extents.length, first, step);
        Value total =
            emitter.emitBlockReduce(body, loc, partial, tid, workgroup);
        Value zero = arith::ConstantIndexOp::create(body, loc, 0);
        Value firstThread = arith::CmpIOp::create(
            body, loc, arith::CmpIPredicate::eq, tid, zero);
        scf::IfOp::create(
            body, loc, firstThread, [&](OpBuilder &then, Location loc) {
              memref::StoreOp::create(then, loc,
                                      emitter.widen(then, loc, total), partials,
                                      ValueRange{row, block});
              scf::YieldOp::create(then, loc);
            });
      });

  emitter.emitLaunch(
      b, loc, {rowCount, one, one},
      [&](OpBuilder &body, gpu::LaunchOp launch, Value workgroup) {
        Value tid = launch.getThreadIds().x;
        Value row = launch.getBlockIds().x;
        SmallVector<Value> parallelIvs =
            delinearize(body, loc, row, extents.parallel);
        auto loop = scf::ForOp::create(
            body, loc, tid, split, threads,
            ValueRange{emitter.emitIdentity(body, loc)},
            [&](OpBuilder &inner, Location loc, Value k, ValueRange acc) {
              Value value = memref::LoadOp::create(inner, loc, partials,
                                                   ValueRange{row, k});
              scf::YieldOp::create(
                  inner, loc,
                  emitter.emitCombine(inner, acc[0],
                                      emitter.narrow(inner, loc, value)));
            });
        Value total = emitter.emitBlockReduce(body, loc, loop.getResult(0), tid,
                                              workgroup);
        emitter.emitStoreResult(body, loc, tid,
                                emitter.mergeIvs(parallelIvs, {}), total);
      });
  memref::DeallocOp::create(b, loc, partials);
}

//===----------------------------------------------------------------------===//
// Row groups: consecutive ops on the same rows, in one kernel
//===----------------------------------------------------------------------===//

/// What a loop of a row group's member, or an index it accesses a buffer
/// with, ranges over: nothing (a loop of static extent 1, the index 0), the
/// group's row dimension `pos`, its column dimension `pos`, or anything else.
struct Index {
  enum Kind { Zero, Row, Column, Other } kind;
  unsigned pos = 0;

  bool operator==(const Index &other) const {
    return kind == other.kind && pos == other.pos;
  }
};

/// The element an operand of a member accesses in each iteration: indices,
/// in terms of the group's rows and columns, into `base`, which the operand
/// is or views through `memref.expand_shape`s (`?x1` views of a vector of
/// per-row values, in particular).
struct Access {
  Value base;
  SmallVector<Index> indices;

  bool operator==(const Access &other) const {
    return base == other.base && indices == other.indices;
  }
  bool operator!=(const Access &other) const { return !(*this == other); }

  /// Whether it names each of `rows` rows and `columns` columns exactly
  /// once, and otherwise only zeros: one element per iteration of those.
  bool isOnePerElement(unsigned rows, unsigned columns) const {
    SmallVector<unsigned> seenRows(rows), seenColumns(columns);
    for (Index index : indices) {
      if (index.kind == Index::Zero)
        continue;
      SmallVector<unsigned> &seen =
          index.kind == Index::Row ? seenRows : seenColumns;
      if (index.kind == Index::Other || index.pos >= seen.size())
        return false;
      ++seen[index.pos];
    }
    auto once = [](unsigned count) { return count == 1; };
    return llvm::all_of(seenRows, once) && llvm::all_of(seenColumns, once);
  }
};

/// The buffer `value` views, through any number of views.
Value getRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// A name for extent `dim` of `memref` such that equal names mean equal
/// extents: a static size, or where a dynamic one came from (the size
/// operand of an allocation or expansion, followed to the dimension of the
/// memref it was read from).
using ExtentKey = std::pair<Value, int64_t>;

ExtentKey getExtentKey(Value memref, int64_t dim) {
  while (true) {
    auto type = cast<MemRefType>(memref.getType());
    if (!type.isDynamicDim(dim))
      return {Value(), type.getDimSize(dim)};
    Operation *def = memref.getDefiningOp();
    Value size;
    if (auto alloc = dyn_cast_if_present<memref::AllocOp>(def))
      size = alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)];
    else if (auto alloca = dyn_cast_if_present<memref::AllocaOp>(def))
      size = alloca.getDynamicSizes()[type.getDynamicDimIndex(dim)];
    else if (auto expand = dyn_cast_if_present<memref::ExpandShapeOp>(def))
      size = dyn_cast<Value>(expand.getMixedOutputShape()[dim]);
    else if (auto cast = dyn_cast_if_present<memref::CastOp>(def);
             cast && isa<MemRefType>(cast.getSource().getType())) {
      memref = cast.getSource();
      continue;
    }
    if (!size)
      return {memref, dim};
    auto dimOp = size.getDefiningOp<memref::DimOp>();
    std::optional<int64_t> index =
        dimOp ? getConstantIntValue(dimOp.getIndex()) : std::nullopt;
    if (!index)
      return {size, -1};
    memref = dimOp.getSource();
    dim = *index;
  }
}

/// For each loop of `op`, the names of the extents of the operand
/// dimensions it indexes directly.
SmallVector<SmallVector<ExtentKey>> getLoopExtentKeys(linalg::LinalgOp op) {
  SmallVector<SmallVector<ExtentKey>> keys(op.getNumLoops());
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    for (auto [i, result] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(result))
        keys[dim.getPosition()].push_back(getExtentKey(operand.get(), i));
  }
  return keys;
}

bool haveSameExtent(ArrayRef<ExtentKey> lhs, ArrayRef<ExtentKey> rhs) {
  return llvm::any_of(
      lhs, [&](const ExtentKey &key) { return llvm::is_contained(rhs, key); });
}

/// A row group's rows and columns: for each dimension (static 1s left
/// out), the names of its extent.
struct RowShape {
  SmallVector<SmallVector<ExtentKey>> rows;
  SmallVector<SmallVector<ExtentKey>> columns;
};

/// The shape of a group around `op`, a reduction over more than `splitRows`
/// rows (or a dynamic number) whose innermost loops reduce: its parallel
/// loops are the rows, its reduction loops the columns.
std::optional<RowShape> getAnchorShape(linalg::LinalgOp op, int64_t splitRows) {
  if (!matchReduction(op))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<SmallVector<ExtentKey>> keys = getLoopExtentKeys(op);
  RowShape shape;
  bool fewRows = true;
  int64_t rows = 1;
  for (auto [range, iterator, key] :
       llvm::zip_equal(ranges, op.getIteratorTypesArray(), keys)) {
    if (range == 1)
      continue;
    if (!linalg::isParallelIterator(iterator)) {
      shape.columns.push_back(key);
      continue;
    }
    if (!shape.columns.empty())
      return std::nullopt;
    shape.rows.push_back(key);
    if (ShapedType::isDynamic(range))
      fewRows = false;
    else
      rows *= range;
  }
  if (shape.columns.empty() || (fewRows && rows <= splitRows))
    return std::nullopt;
  return shape;
}

/// What each loop of `op` ranges over as a member of a group of `shape`, if
/// it can be one: a reduction's parallel loops (static 1s aside) are the
/// rows, its reduction loops, all after them, the columns; an all-parallel
/// op's loops are the rows, or the rows and then the columns.
std::optional<SmallVector<Index>> classifyLoops(linalg::LinalgOp op,
                                                const RowShape &shape) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<SmallVector<ExtentKey>> keys = getLoopExtentKeys(op);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> wide;
  for (auto [d, range] : llvm::enumerate(ranges))
    if (range != 1)
      wide.push_back(d);
  size_t rows = shape.rows.size();
  size_t all = rows + shape.columns.size();
  bool reduces = op.getNumReductionLoops() != 0;
  if (wide.size() != all && (reduces || wide.size() != rows))
    return std::nullopt;
  SmallVector<Index> loops(ranges.size(), Index{Index::Zero});
  for (auto [i, d] : llvm::enumerate(wide)) {
    bool isRow = i < rows;
    if (reduces && linalg::isParallelIterator(iterators[d]) != isRow)
      return std::nullopt;
    unsigned pos = isRow ? i : i - rows;
    if (!haveSameExtent(keys[d], isRow ? shape.rows[pos] : shape.columns[pos]))
      return std::nullopt;
    loops[d] = {isRow ? Index::Row : Index::Column, pos};
  }
  return loops;
}

/// The element `operand` of `op` accesses, `loops` saying what each loop
/// of `op` ranges over; through expansions whose every group has at most
/// one dimension that is not a static 1.
Access getAccess(linalg::LinalgOp op, OpOperand &operand,
                 ArrayRef<Index> loops) {
  Access access{operand.get(), {}};
  for (AffineExpr result : op.getMatchingIndexingMap(&operand).getResults()) {
    Index index{Index::Other};
    if (auto dim = dyn_cast<AffineDimExpr>(result))
      index = loops[dim.getPosition()];
    else if (auto constant = dyn_cast<AffineConstantExpr>(result);
             constant && constant.getValue() == 0)
      index = {Index::Zero};
    access.indices.push_back(index);
  }
  while (auto expand = access.base.getDefiningOp<memref::ExpandShapeOp>()) {
    MemRefType type = expand.getResultType();
    SmallVector<Index> indices;
    for (const ReassociationIndices &group : expand.getReassociationIndices()) {
      Index index{Index::Zero};
      unsigned wide = 0;
      for (int64_t dim : group) {
        if (type.getDimSize(dim) == 1)
          continue;
        index = access.indices[dim];
        ++wide;
      }
      if (wide > 1)
        return access;
      indices.push_back(index);
    }
    access = {expand.getSrc(), indices};
  }
  return access;
}

/// Whether running ops of a row group after `op`, although they came
/// before it, changes nothing: `op` reads and writes no buffer. Pure ops,
/// allocations and `dlpack.assert` (which only ends the call, the results
/// unused, when it fails), also inside `scf.if`s.
bool commutesWithMembers(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (isa<dlbridge::dlpack::AssertOp>(nested))
      return WalkResult::advance();
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &instance : instances)
        if (!isa<MemoryEffects::Allocate>(instance.getEffect()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    // Its nested operations' effects are its own, and the walk visits them.
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

struct RowMember {
  /// A row reduction, an op on per-row values (domain: the rows) or an op
  /// on the elements of rows (rows and columns).
  enum Kind { Reduce, PerRow, PerElement } kind;
  linalg::LinalgOp op;
  std::optional<Reduction> reduction;
  /// What each loop of `op` ranges over.
  SmallVector<Index> loops;
  /// Whether it loads a per-row value that it then writes: every thread
  /// must have loaded it before thread 0 stores.
  bool loadsOwnRow = false;
};

/// Linalg ops on buffers that one kernel runs, a block per row, each
/// member in turn on the block's row. For that every buffer that members
/// write must be accessed by all members, before and after the write, at
/// the same element in each iteration (the same per-row element or, for
/// ops on elements, the same element of the row, which the same thread
/// handles in every member); per-row buffers moreover not before the
/// member that first writes them.
class RowGroup {
public:
  explicit RowGroup(RowShape shape) : shape(std::move(shape)) {}

  /// Adds `op` as the last member if it can be one.
  bool tryAdd(linalg::LinalgOp op);

  /// Whether one kernel is better than today's: a reduction and more.
  bool isWorthFusing() const {
    return members.size() >= 2 &&
           llvm::any_of(members, [](const RowMember &member) {
             return member.kind == RowMember::Reduce;
           });
  }

  RowShape shape;
  SmallVector<RowMember> members;

private:
  /// How members write each buffer (by root, see getRoot).
  DenseMap<Value, Access> written;
  /// How members access each buffer.
  DenseMap<Value, SmallVector<Access>> accessed;
};

bool RowGroup::tryAdd(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op->getNumResults() != 0 ||
      op.getNumDpsInits() == 0 ||
      llvm::any_of(op.getIndexingMapsArray(),
                   [](AffineMap map) { return map.getNumSymbols() != 0; }))
    return false;
  for (Operation &bodyOp : op->getRegion(0).front().without_terminator())
    if (bodyOp.getNumRegions() != 0 || !isMemoryEffectFree(&bodyOp))
      return false;
  std::optional<SmallVector<Index>> loops = classifyLoops(op, shape);
  if (!loops)
    return false;
  RowMember member{RowMember::PerRow, op, std::nullopt, *loops};
  if (op.getNumReductionLoops() != 0) {
    member.kind = RowMember::Reduce;
    member.reduction = matchReduction(op);
    if (!member.reduction)
      return false;
  } else if (llvm::any_of(*loops, [](Index index) {
               return index.kind == Index::Column;
             })) {
    member.kind = RowMember::PerElement;
  }
  unsigned rows = shape.rows.size();
  unsigned outColumns =
      member.kind == RowMember::PerElement ? shape.columns.size() : 0;

  DenseMap<Value, Access> writes;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    Access access = getAccess(op, init, *loops);
    Value root = getRoot(init.get());
    if (!access.isOnePerElement(rows, outColumns) ||
        !writes.try_emplace(root, access).second)
      return false;
    auto previous = written.find(root);
    if (previous != written.end()) {
      if (previous->second != access)
        return false;
      continue;
    }
    for (const Access &earlier : accessed.lookup(root))
      if (outColumns == 0 || earlier != access)
        return false;
  }
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    Value root = getRoot(operand.get());
    auto write = written.find(root);
    bool own = write == written.end();
    if (own && (write = writes.find(root)) == writes.end())
      continue;
    if (write->second != getAccess(op, operand, *loops))
      return false;
    if (own && outColumns == 0 &&
        !op.getMatchingBlockArgument(&operand).use_empty())
      member.loadsOwnRow = true;
  }

  for (OpOperand &operand : op->getOpOperands())
    if (isa<MemRefType>(operand.get().getType()))
      accessed[getRoot(operand.get())].push_back(
          getAccess(op, operand, *loops));
  written.insert(writes.begin(), writes.end());
  members.push_back(std::move(member));
  return true;
}

/// The row groups worth fusing in `block`: around each row reduction, the
/// longest run of members before and after it, with only ops that commute
/// with members between them.
SmallVector<RowGroup, 0> findRowGroups(Block &block, int64_t splitRows) {
  SmallVector<Operation *> ops =
      llvm::map_to_vector(block, [](Operation &op) { return &op; });
  SmallVector<RowGroup, 0> groups;
  size_t next = 0;
  while (next < ops.size()) {
    std::optional<RowShape> shape;
    size_t anchor = next;
    for (; anchor < ops.size(); ++anchor) {
      if (auto op = dyn_cast<linalg::LinalgOp>(ops[anchor]))
        shape = getAnchorShape(op, splitRows);
      if (shape)
        break;
    }
    if (!shape)
      break;
    auto mayJoin = [&](Operation *op) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      return commutesWithMembers(op) ||
             (linalgOp && classifyLoops(linalgOp, *shape));
    };
    size_t start = anchor;
    while (start > next && mayJoin(ops[start - 1]))
      --start;
    RowGroup group(*shape);
    size_t end = start;
    for (; end < ops.size(); ++end) {
      auto op = dyn_cast<linalg::LinalgOp>(ops[end]);
      if ((op && group.tryAdd(op)) || commutesWithMembers(ops[end]))
        continue;
      if (end > anchor)
        break;
      // A member before the anchor that conflicts with earlier ones: the
      // group starts again with it.
      group = RowGroup(*shape);
      if (op)
        group.tryAdd(op);
    }
    if (group.isWorthFusing())
      groups.push_back(std::move(group));
    next = std::max(end, anchor + 1);
  }
  return groups;
}

/// One kernel for `group`, in place of its last member: a block per row,
/// whose threads run the members in order on that row. Reductions fold and
/// combine as lowerByRows does and leave the row's value in every thread;
/// ops on per-row values compute them in every thread; later members use
/// these values instead of reading them back, and thread 0 stores the last
/// one of each buffer. Ops on elements spread the row over the threads as
/// the reductions do: an element a member writes and a later one reads is
/// the same thread's, so no barriers separate the members.
/// An elementwise member on the block's row: each thread on the elements
/// `tid`, `tid + threads`, ... or, where the row's operands are contiguous
/// and aligned, on chunks of 16 bytes of them (vector loads and stores),
/// then the tail element by element. `getIvs` gives the member's loop
/// indices at column indices, `read` the per-row values known.
void emitPerElement(
    OpBuilder &b, Location loc, const RowMember &member,
    function_ref<SmallVector<Value>(const RowMember &, ArrayRef<Value>)> getIvs,
    ArrayRef<Value> columnExtents, Value length, Value tid, Value threads,
    function_ref<Value(OpOperand &)> read) {
  linalg::LinalgOp op = member.op;
  auto emitElements = [&](OpBuilder &b, Location loc, Value first, Value step) {
    scf::ForOp::create(
        b, loc, first, length, step, ValueRange{},
        [&](OpBuilder &b, Location loc, Value k, ValueRange) {
          SmallVector<Value> ivs =
              getIvs(member, delinearize(b, loc, k, columnExtents));
          for (auto [value, init] :
               llvm::zip_equal(emitLinalgBody(b, loc, op, ivs, read),
                               op.getDpsInitsMutable()))
            memref::StoreOp::create(
                b, loc, value, init.get(),
                applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs));
          scf::YieldOp::create(b, loc);
        });
  };
  VectorOperands vector;
  auto column = llvm::find_if(
      member.loops, [](Index index) { return index.kind == Index::Column; });
  if (columnExtents.size() == 1 && column + 1 == member.loops.end())
    vector = findVectorOperands(op, member.loops.size() - 1);
  if (vector.operands.empty() ||
      !llvm::all_of(op.getDpsInitsMutable(),
                    [&](OpOperand &init) { return vector.contains(&init); })) {
    emitElements(b, loc, tid, threads);
    return;
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value lanes = arith::ConstantIndexOp::create(b, loc, vector.lanes);
  Value aligned = vector.emitIsAligned(b, loc, op, getIvs(member, {zero}));
  scf::IfOp::create(
      b, loc, aligned,
      [&](OpBuilder &then, Location loc) {
        Value vectorEnd = arith::SubIOp::create(
            then, loc, length,
            arith::RemUIOp::create(then, loc, length, lanes));
        scf::ForOp::create(
            then, loc, arith::MulIOp::create(then, loc, tid, lanes), vectorEnd,
            arith::MulIOp::create(then, loc, threads, lanes), ValueRange{},
            [&](OpBuilder &inner, Location loc, Value start, ValueRange) {
              SmallVector<Value> ivs = getIvs(member, {start});
              DenseMap<OpOperand *, Value> vectors =
                  emitVectorLoads(inner, loc, op, vector, ivs);
              SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
              for (int64_t lane = 0; lane < vector.lanes; ++lane) {
                Value k = arith::AddIOp::create(
                    inner, loc, start,
                    arith::ConstantIndexOp::create(inner, loc, lane));
                for (auto [result, value] : llvm::zip_equal(
                         results,
                         emitLinalgBody(
                             inner, loc, op, getIvs(member, {k}),
                             readLane(inner, loc, vectors, lane, read))))
                  result.push_back(value);
              }
              for (auto [init, values] :
                   llvm::zip_equal(op.getDpsInitsMutable(), results))
                vector::StoreOp::create(
                    inner, loc,
                    vector::FromElementsOp::create(
                        inner, loc, vector.getType(&init), values),
                    init.get(),
                    applyMap(inner, loc, op.getMatchingIndexingMap(&init), ivs),
                    /*nontemporal=*/false, llvm::Align(vector.getBytes(&init)));
              scf::YieldOp::create(inner, loc);
            });
        emitElements(then, loc,
                     arith::AddIOp::create(then, loc, vectorEnd, tid), threads);
        scf::YieldOp::create(then, loc);
      },
      [&](OpBuilder &otherwise, Location loc) {
        emitElements(otherwise, loc, tid, threads);
        scf::YieldOp::create(otherwise, loc);
      });
}

void lowerRowGroup(const RowGroup &group, int64_t blockSize) {
  linalg::LinalgOp last = group.members.back().op;
  OpBuilder b(last);
  Location loc = b.getFusedLoc(
      llvm::map_to_vector(group.members, [](const RowMember &member) {
        return member.op->getLoc();
      }));

  // A reduction has a loop for every row and column.
  const RowMember &anchor =
      *llvm::find_if(group.members, [](const RowMember &member) {
        return member.kind == RowMember::Reduce;
      });
  SmallVector<Value> rowExtents(group.shape.rows.size());
  SmallVector<Value> columnExtents(group.shape.columns.size());
  for (auto [range, index] :
       llvm::zip_equal(linalg::LinalgOp(anchor.op).createLoopRanges(b, loc),
                       anchor.loops)) {
    if (index.kind == Index::Row)
      rowExtents[index.pos] =
          getValueOrCreateConstantIndexOp(b, loc, range.size);
    else if (index.kind == Index::Column)
      columnExtents[index.pos] =
          getValueOrCreateConstantIndexOp(b, loc, range.size);
  }
  Value rows = product(b, loc, rowExtents);
  Value length = product(b, loc, columnExtents);

  SmallVector<ReductionEmitter> emitters;
  SmallVector<Type> workgroupTypes;
  DenseMap<Value, size_t> lastWriter;
  for (auto [i, member] : llvm::enumerate(group.members)) {
    for (OpOperand &init : linalg::LinalgOp(member.op).getDpsInitsMutable())
      lastWriter[getRoot(init.get())] = i;
    if (!member.reduction)
      continue;
    const ReductionEmitter &emitter =
        emitters.emplace_back(*member.reduction, blockSize);
    if (emitter.numWarps > 1 &&
        !llvm::is_contained(workgroupTypes, emitter.getWorkgroupType()))
      workgroupTypes.push_back(emitter.getWorkgroupType());
  }

  emitRowKernel(
      b, loc, rows, blockSize, workgroupTypes,
      [&](OpBuilder &b, Location loc, gpu::LaunchOp launch,
          ValueRange workgroup, Value row) {
        Value tid = launch.getThreadIds().x;
        Value threads = launch.getBlockSize().x;
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        SmallVector<Value> rowIvs = delinearize(b, loc, row, rowExtents);
        // The row's per-row values so far, by buffer (root).
        DenseMap<Value, Value> known;
        auto read = [&](OpOperand &operand) {
          if (!isa<MemRefType>(operand.get().getType()))
            return Value();
          return known.lookup(getRoot(operand.get()));
        };
        // Loop indices of `member` at the row and `columnIvs` (none: only
        // rows are needed).
        auto getIvs = [&](const RowMember &member, ArrayRef<Value> columnIvs) {
          return llvm::map_to_vector(member.loops, [&](Index index) {
            if (index.kind == Index::Row)
              return rowIvs[index.pos];
            if (index.kind == Index::Column)
              return columnIvs.empty() ? Value() : columnIvs[index.pos];
            return zero;
          });
        };
        const ReductionEmitter *emitter = emitters.begin();
        // Buffers of whole rows members share: vector and element-wise
        // loops give a thread different elements of the row, so a member
        // that reads or writes what an earlier one wrote, or writes what an
        // earlier one read, waits for the block first.
        llvm::SmallDenseSet<Value> written, readBefore;
        for (auto [i, member] : llvm::enumerate(group.members)) {
          linalg::LinalgOp op = member.op;
          SmallVector<Value> reads, writes;
          for (OpOperand &operand : op->getOpOperands()) {
            AffineMap map = op.getMatchingIndexingMap(&operand);
            bool wholeRow =
                llvm::any_of(llvm::enumerate(member.loops), [&](auto loop) {
                  return loop.value().kind == Index::Column &&
                         map.isFunctionOfDim(loop.index());
                });
            if (!wholeRow || !isa<MemRefType>(operand.get().getType()))
              continue;
            Value root = getRoot(operand.get());
            if (op.isDpsInit(&operand))
              writes.push_back(root);
            if (!op.getMatchingBlockArgument(&operand).use_empty())
              reads.push_back(root);
          }
          auto wasWritten = [&](Value root) { return written.contains(root); };
          if (llvm::any_of(reads, wasWritten) ||
              llvm::any_of(writes, wasWritten) ||
              llvm::any_of(writes, [&](Value root) {
                return readBefore.contains(root);
              })) {
            gpu::BarrierOp::create(b, loc);
            written.clear();
            readBefore.clear();
          }
          written.insert(writes.begin(), writes.end());
          readBefore.insert(reads.begin(), reads.end());
          SmallVector<Value> values;
          if (member.kind == RowMember::PerElement) {
            emitPerElement(b, loc, member, getIvs, columnExtents, length, tid,
                           threads, read);
            continue;
          }
          SmallVector<Value> ivs = getIvs(member, {});
          if (member.kind == RowMember::PerRow) {
            values = emitLinalgBody(b, loc, op, ivs, read);
            if (member.loadsOwnRow)
              gpu::BarrierOp::create(b, loc);
          } else {
            const ReductionEmitter &reducer = *emitter++;
            OpOperand *init = op.getDpsInitOperand(0);
            Value initial = read(*init);
            if (!initial)
              initial = memref::LoadOp::create(
                  b, loc, init->get(),
                  applyMap(b, loc, op.getMatchingIndexingMap(init), ivs));
            SmallVector<Value> parallelIvs, reductionExtents;
            for (auto [index, iterator, iv] : llvm::zip_equal(
                     member.loops, op.getIteratorTypesArray(), ivs)) {
              if (linalg::isParallelIterator(iterator))
                parallelIvs.push_back(iv);
              else
                reductionExtents.push_back(index.kind == Index::Column
                                               ? columnExtents[index.pos]
                                               : one);
            }
            Value partial =
                reducer.emitRowPartial(b, loc, parallelIvs, reductionExtents,
                                       length, tid, threads, read);
            Value buffer;
            if (reducer.numWarps > 1)
              buffer = workgroup[llvm::find(workgroupTypes,
                                            reducer.getWorkgroupType()) -
                                 workgroupTypes.begin()];
            Value total = reducer.emitBlockReduce(b, loc, partial, tid, buffer);
            if (member.loadsOwnRow && reducer.numWarps == 1)
              gpu::BarrierOp::create(b, loc);
            values.push_back(reducer.emitCombine(b, initial, total));
          }
          SmallVector<std::pair<Value, OpOperand *>> stores;
          for (auto [value, init] :
               llvm::zip_equal(values, op.getDpsInitsMutable())) {
            Value root = getRoot(init.get());
            known[root] = value;
            if (lastWriter.lookup(root) == i)
              stores.push_back({value, &init});
          }
          if (stores.empty())
            continue;
          Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              tid, zero);
          scf::IfOp::create(b, loc, first, [&](OpBuilder &then, Location loc) {
            for (auto [value, init] : stores)
              memref::StoreOp::create(
                  then, loc, value, init->get(),
                  applyMap(then, loc, op.getMatchingIndexingMap(init), ivs));
            scf::YieldOp::create(then, loc);
          });
        }
      });
  for (const RowMember &member : group.members)
    member.op->erase();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ReductionsToKernelsPass
    : public dlbridge::impl::ReductionsToKernelsBase<ReductionsToKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (blockSize < kWarpSize || blockSize > kMaxThreadsPerBlock ||
        blockSize % kWarpSize != 0) {
      root->emitError() << "block-size=" << static_cast<int64_t>(blockSize)
                        << ": expected a multiple of " << kWarpSize << " from "
                        << kWarpSize << " to " << kMaxThreadsPerBlock;
      return signalPassFailure();
    }
    if (splitRows < 0 || splitBlocks < 1) {
      root->emitError() << "split-rows=" << static_cast<int64_t>(splitRows)
                        << " split-blocks=" << static_cast<int64_t>(splitBlocks)
                        << ": expected split-rows >= 0 and split-blocks >= 1";
      return signalPassFailure();
    }

    if (fuseRows) {
      SmallVector<RowGroup, 0> groups;
      root->walk([&](Block *block) {
        Operation *parent = block->getParentOp();
        if (!isa<gpu::LaunchOp, gpu::GPUModuleOp>(parent) &&
            !parent->getParentOfType<gpu::LaunchOp>() &&
            !parent->getParentOfType<gpu::GPUModuleOp>())
          llvm::append_range(groups, findRowGroups(*block, splitRows));
      });
      for (const RowGroup &group : groups)
        lowerRowGroup(group, blockSize);
    }

    SmallVector<Reduction> reductions;
    root->walk([&](linalg::LinalgOp op) {
      // Already in a kernel: its threads have their own work.
      if (op->getParentOfType<gpu::LaunchOp>() ||
          op->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (std::optional<Reduction> reduction = matchReduction(op))
        reductions.push_back(*reduction);
    });
    for (const Reduction &reduction : reductions) {
      linalg::LinalgOp op = reduction.op;
      OpBuilder b(op);
      Location loc = op.getLoc();
      ReductionEmitter emitter(reduction, blockSize);
      LoopExtents extents = getLoopExtents(b, loc, op);
      std::optional<int64_t> rows = getConstantIntValue(extents.rows);
      if (linalg::isParallelIterator(op.getIteratorTypesArray().back()))
        lowerByOutputs(b, loc, emitter, extents);
      else if (rows && *rows >= 1 && *rows <= splitRows)
        lowerBySplitRows(b, loc, emitter, extents, *rows, splitBlocks);
      else
        lowerByRows(b, loc, emitter, extents);
      op->erase();
    }
  }
};

} // namespace
