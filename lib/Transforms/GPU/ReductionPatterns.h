//===- ReductionPatterns.h - Lowerings of reductions ------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//
//
// The lowerings --dlbridge-gpu-reductions-to-kernels chooses between, one
// file each: a linalg reduction (see ReductionMatch.h) on buffers, outside
// kernels, becomes `gpu.launch`es in its place.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_TRANSFORMS_GPU_REDUCTIONPATTERNS_H
#define DLBRIDGE_LIB_TRANSFORMS_GPU_REDUCTIONPATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace dlbridge {

/// Reductions whose innermost loop is parallel (a column sum, a sum over a
/// middle axis): blocks on tiles of adjacent columns, their threads on
/// further rows, the reduced axis split over blocks until there are about
/// `targetBlocks` (partial values, a second kernel).
void populateReduceColumnsPatterns(mlir::RewritePatternSet &patterns,
                                   int64_t blockSize, int64_t targetBlocks);

/// Reductions whose innermost loop reduces, over more than `splitRows` rows
/// or a number unknown at compile time: a block per row.
void populateReduceByRowsPatterns(mlir::RewritePatternSet &patterns,
                                  int64_t blockSize, int64_t splitRows);

/// Reductions whose innermost loop reduces, over 1 to `splitRows` rows (a
/// full reduction has one): up to `splitBlocks` blocks per row write
/// partial values, which a second kernel reduces in a fixed order.
void populateReduceBySplitRowsPatterns(mlir::RewritePatternSet &patterns,
                                       int64_t blockSize, int64_t splitRows,
                                       int64_t splitBlocks);

/// How fuseRowGroups builds kernels: the pass's options of those names.
struct RowGroupOptions {
  /// Threads per block of the warp-per-row kernel.
  int64_t blockSize;
  /// Threads per block of the block-per-row kernel.
  int64_t rowBlockSize;
  int64_t splitRows;
  /// Rows of at most this many elements get a warp each (0: never).
  int64_t warpRowLength;
  /// Shared memory per block for rows several members read (0: none).
  int64_t rowCacheBytes;
};

/// Lowers each run of linalg ops on the rows of a row reduction over more
/// than `splitRows` rows under `root` (outside kernels) to one kernel, a
/// block of `blockSize` threads per row (a warp per row for short rows),
/// where that is worth it.
void fuseRowGroups(mlir::Operation *root, const RowGroupOptions &options);

} // namespace dlbridge

#endif // DLBRIDGE_LIB_TRANSFORMS_GPU_REDUCTIONPATTERNS_H
