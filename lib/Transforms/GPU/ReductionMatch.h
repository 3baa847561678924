//===- ReductionMatch.h - Reductions threads may share ----------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//
//
// Which linalg ops --dlbridge-gpu-reductions-to-kernels lowers: one output,
// at least one reduction loop and a body that folds one value into the
// output with a combiner that may be reassociated.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_TRANSFORMS_GPU_REDUCTIONMATCH_H
#define DLBRIDGE_LIB_TRANSFORMS_GPU_REDUCTIONMATCH_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>

namespace dlbridge {

/// A linalg op that folds one value per iteration into its only output with
/// a reassociable combiner.
struct Reduction {
  mlir::linalg::LinalgOp op;
  /// The body's operation that yields the new output value.
  mlir::Operation *combiner;
  /// The operand of `combiner` that is the output's current value.
  unsigned accOperand;
  mlir::gpu::AllReduceOperation kind;
  /// The output's element type, in which the body accumulates.
  mlir::Type type;
};

/// `op` as a reduction the pass lowers, if it is one.
std::optional<Reduction> matchReduction(mlir::linalg::LinalgOp op);

/// `combiner(identity, x) == x` for every `x` of `type`: -0.0 for float sums
/// (+0.0 + -0.0 is +0.0), NaN for maxnumf/minnumf (which return the other
/// operand), infinities for maximumf/minimumf.
mlir::TypedAttr getIdentity(mlir::gpu::AllReduceOperation kind,
                            mlir::Type type);

/// The buffer `value` views, through any number of views.
mlir::Value getRoot(mlir::Value value);

/// Whether running ops that read and write buffers after `op`, although
/// they came before it, changes nothing: `op` reads and writes no buffer.
/// Pure ops, allocations and `dlpack.assert` (which only ends the call, the
/// results unused, when it fails), also inside `scf.if`s.
bool touchesNoBuffer(mlir::Operation *op);

/// Whether `op` already runs in a kernel, whose threads have their own work.
bool isInKernel(mlir::Operation *op);

/// Whether the innermost loop of `op` reduces (a row sum, a full
/// reduction), so that a row's elements are adjacent in identity layouts.
bool reducesInnermostLoop(mlir::linalg::LinalgOp op);

/// The number of output elements of `op` where it is known at compile
/// time: the product of its parallel loops' extents, all static or one 0.
std::optional<int64_t> getStaticRowCount(mlir::linalg::LinalgOp op);

/// Whether `op` has from 1 to `splitRows` output elements, known at compile
/// time: too few for a block per row to fill the GPU.
bool hasFewRows(mlir::linalg::LinalgOp op, int64_t splitRows);

} // namespace dlbridge

#endif // DLBRIDGE_LIB_TRANSFORMS_GPU_REDUCTIONMATCH_H
