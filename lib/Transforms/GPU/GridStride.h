//===- GridStride.h - Kernels of a thread per index -------------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_TRANSFORMS_GPU_GRIDSTRIDE_H
#define DLBRIDGE_LIB_TRANSFORMS_GPU_GRIDSTRIDE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

namespace dlbridge {

/// Threads of a warp, and the most a block may have, on every CUDA GPU.
inline constexpr int64_t kWarpSize = 32;
inline constexpr int64_t kMaxThreadsPerBlock = 1024;

/// Fails with an error at `root` naming `option` unless `blockSize` is a
/// block CUDA can launch whose warps are full: the check of every GPU pass
/// with a `block-size` option.
mlir::LogicalResult checkBlockSize(mlir::Operation *root, int64_t blockSize,
                                   llvm::StringRef option = "block-size");

/// Blocks a grid-stride kernel launches at most; more work loops.
inline constexpr int64_t kMaxGridBlocks = int64_t(1) << 20;

/// A `gpu.launch` of blocks of `blockSize` threads, enough (up to
/// kMaxGridBlocks) for a thread per index below `count`, each thread taking
/// the indices `blockIdx * blockSize + threadIdx`, then a grid further, and
/// so on; `build` emits the work at one index.
void emitGridStrideLoop(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value count,
    int64_t blockSize,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::Value)>
        build);

} // namespace dlbridge

#endif // DLBRIDGE_LIB_TRANSFORMS_GPU_GRIDSTRIDE_H
