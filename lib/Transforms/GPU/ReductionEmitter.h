//===- ReductionEmitter.h - Pieces of reduction kernels ---------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//
//
// What the lowerings of --dlbridge-gpu-reductions-to-kernels share: the
// body of a reduction at one iteration, a thread's fold over part of a row
// (16 bytes at a time where the row is contiguous), a block's combination of
// its threads' values, and the launches that hold them.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_TRANSFORMS_GPU_REDUCTIONEMITTER_H
#define DLBRIDGE_LIB_TRANSFORMS_GPU_REDUCTIONEMITTER_H

#include "GridStride.h"
#include "ReductionMatch.h"
#include "VectorAccess.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Builders.h"

#include <array>
#include <functional>

namespace dlbridge {

/// The most shared memory a block can ask for on any CUDA GPU (Hopper's
/// 227 KiB).
constexpr int64_t kMaxRowCacheBytes = 232448;

/// The indices of `linear` in a row-major space of `extents`.
mlir::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value linear,
                                           mlir::ArrayRef<mlir::Value> extents);

/// The product of `values`, folded where they are constants.
mlir::Value product(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::ArrayRef<mlir::Value> values);

/// The operands of `op` that threads of a row move in vectors of `lanes`
/// elements, 16 bytes of the widest: those that loop `loop` indexes, each in
/// its innermost dimension, of static stride 1, and nowhere else (outputs
/// always; inputs only when the body reads them). Empty when one indexes it
/// otherwise, or none does.
struct VectorOperands {
  mlir::SmallVector<mlir::OpOperand *> operands;
  int64_t lanes = 1;

  bool contains(mlir::OpOperand *operand) const {
    return llvm::is_contained(operands, operand);
  }
  int64_t getBytes(mlir::OpOperand *operand) const {
    return lanes * dlbridge::getVectorElementBytes(
                       getElementTypeOrSelf(operand->get().getType()));
  }
  mlir::VectorType getType(mlir::OpOperand *operand) const {
    return mlir::VectorType::get(
        {lanes}, getElementTypeOrSelf(operand->get().getType()));
  }
  /// Whether the row starting at loop indices `start` is aligned for every
  /// vector access.
  mlir::Value emitIsAligned(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::linalg::LinalgOp op,
                            mlir::ArrayRef<mlir::Value> start) const;
};

/// The operands of `op` that threads move in vectors along loop `loop`.
VectorOperands findVectorOperands(mlir::linalg::LinalgOp op, unsigned loop);

/// A vector load of each input of `vector` at loop indices `ivs`.
mlir::DenseMap<mlir::OpOperand *, mlir::Value>
emitVectorLoads(mlir::OpBuilder &b, mlir::Location loc,
                mlir::linalg::LinalgOp op, const VectorOperands &vector,
                mlir::ArrayRef<mlir::Value> ivs);

/// What an operand's element is at `lane` of `vectors`: the lane of its
/// vector, else what `read` gives (nothing: load it).
std::function<mlir::Value(mlir::OpOperand &)>
readLane(mlir::OpBuilder &b, mlir::Location loc,
         const mlir::DenseMap<mlir::OpOperand *, mlir::Value> &vectors,
         int64_t lane, mlir::function_ref<mlir::Value(mlir::OpOperand &)> read);

/// A `gpu.launch` of `grid` blocks of `blockSize` threads with a workgroup
/// buffer of each of `workgroupTypes` and `dynamicSharedMemory` bytes (i32)
/// of dynamic shared memory, if given; `build` fills its body.
void createLaunch(mlir::OpBuilder &b, mlir::Location loc,
                  std::array<mlir::Value, 3> grid, int64_t blockSize,
                  mlir::TypeRange workgroupTypes,
                  mlir::function_ref<void(
                      mlir::OpBuilder &, mlir::gpu::LaunchOp, mlir::ValueRange)>
                      build,
                  mlir::Value dynamicSharedMemory = nullptr);

/// A launch of blocks of `blockSize` threads, a block per row of `rows`, in a
/// grid-stride loop over rows; `build` emits the work on row `row`.
void emitRowKernel(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value rows, int64_t blockSize,
    mlir::TypeRange workgroupTypes,
    mlir::function_ref<void(mlir::OpBuilder &, mlir::Location,
                            mlir::gpu::LaunchOp, mlir::ValueRange, mlir::Value)>
        build,
    mlir::Value dynamicSharedMemory = nullptr);

/// A launch of blocks of `blockSize` threads, a warp per row of `rows`, in a
/// grid-stride loop over the blocks' groups of rows; `build` emits lane
/// `lane`'s work on row `row`. Warps past the last row skip the body.
void emitWarpRowKernel(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value rows, int64_t blockSize,
    mlir::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::Value,
                            mlir::Value)>
        build);

/// Emits kernels for one reduction; the `Value`s it holds outside kernels
/// are host values the kernels capture.
class ReductionEmitter {
public:
  ReductionEmitter(const Reduction &reduction, int64_t blockSize);

  /// The body's value at loop indices `ivs`, `acc` standing for the
  /// output's: `acc` combined with what the iteration folds in. `read`, where
  /// it gives a value, stands for an input's element.
  mlir::Value emitBody(
      mlir::OpBuilder &b, mlir::Location loc, mlir::ArrayRef<mlir::Value> ivs,
      mlir::Value acc,
      mlir::function_ref<mlir::Value(mlir::OpOperand &)> read = nullptr) const;

  /// The body's combiner applied to `acc` (in the output's place) and
  /// `value`.
  mlir::Value emitCombine(mlir::OpBuilder &b, mlir::Value acc,
                          mlir::Value value) const;

  mlir::Value emitIdentity(mlir::OpBuilder &b, mlir::Location loc) const;

  mlir::Value widen(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::Value value) const;

  mlir::Value narrow(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::Value value) const;

  mlir::MemRefType getWorkgroupType() const;

  /// Every thread's `partial` of the block combined, in every thread; all
  /// threads of the block must reach it. Each warp reduces with shuffles,
  /// lane 0 of each writes its warp's value to `workgroup`, and each warp
  /// then reduces those. Ends with a barrier, so `workgroup` may be reused.
  mlir::Value emitBlockReduce(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value partial, mlir::Value tid,
                              mlir::Value workgroup) const;

  /// A `gpu.launch` of `grid` blocks of `blockSize` threads with the
  /// workgroup buffer of `emitBlockReduce`; `build` fills its body.
  void emitLaunch(mlir::OpBuilder &b, mlir::Location loc,
                  std::array<mlir::Value, 3> grid,
                  mlir::function_ref<void(mlir::OpBuilder &,
                                          mlir::gpu::LaunchOp, mlir::Value)>
                      build) const;

  /// `value` combined into the output's element at loop indices `loopIvs`
  /// (parallel ones; the output does not read the others), by thread 0.
  void emitStoreResult(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tid,
                       mlir::ArrayRef<mlir::Value> loopIvs,
                       mlir::Value value) const;

  /// This thread's partial value: the body folded over the elements
  /// `first`, `first + step`, ... below the row's length, whose reduction
  /// indices (row-major in `reductionExtents`) join `parallelIvs`. Where the
  /// row's contiguous inputs are aligned (vectorInputs), the thread takes
  /// chunks of `lanes` elements instead, one vector load per input each,
  /// then the tail element by element.
  mlir::Value emitRowPartial(
      mlir::OpBuilder &b, mlir::Location loc,
      mlir::ArrayRef<mlir::Value> parallelIvs,
      mlir::ArrayRef<mlir::Value> reductionExtents, mlir::Value length,
      mlir::Value first, mlir::Value step,
      mlir::function_ref<mlir::Value(mlir::OpOperand &)> read = nullptr) const;

  /// Loop indices in the op's order from its parallel and reduction ones;
  /// `reductionIvs` empty: zeros (for the output, which does not use them).
  mlir::SmallVector<mlir::Value>
  mergeIvs(mlir::ArrayRef<mlir::Value> parallelIvs,
           mlir::ArrayRef<mlir::Value> reductionIvs) const;

  const Reduction &red;
  int64_t blockSize;
  int64_t numWarps;
  /// What threads exchange: the output's type, or i32 for narrower integers.
  mlir::Type shuffleType;
  /// The inputs a row's threads load in vectors, where the op reduces its
  /// innermost loop alone.
  VectorOperands vectorInputs;
};

/// The extents of an op's loops, parallel and reduction ones apart, and
/// their products: the number of rows (output elements) and their length.
struct LoopExtents {
  mlir::SmallVector<mlir::Value> parallel;
  mlir::SmallVector<mlir::Value> reduction;
  mlir::Value rows;
  mlir::Value length;
};

LoopExtents getLoopExtents(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::linalg::LinalgOp op);

} // namespace dlbridge

#endif // DLBRIDGE_LIB_TRANSFORMS_GPU_REDUCTIONEMITTER_H
