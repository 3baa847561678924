//===- LinalgBody.h - A linalg op's body at one iteration -------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//
//
// What the GPU passes that build their own kernels from linalg ops share:
// the indices an indexing map gives, and the body cloned at one iteration.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_TRANSFORMS_GPU_LINALGBODY_H
#define DLBRIDGE_LIB_TRANSFORMS_GPU_LINALGBODY_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Builders.h"

namespace dlbridge {

/// The indices `map` gives at loop indices `ivs`.
llvm::SmallVector<mlir::Value> applyMap(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::AffineMap map,
                                        llvm::ArrayRef<mlir::Value> ivs);

/// The values `op`'s body yields at loop indices `ivs`, its block
/// arguments standing for what `read` gives for their operands or, where it
/// gives nothing, for the operands' elements (a memref's loaded through its
/// indexing map, a scalar itself).
llvm::SmallVector<mlir::Value>
emitLinalgBody(mlir::OpBuilder &b, mlir::Location loc,
               mlir::linalg::LinalgOp op, llvm::ArrayRef<mlir::Value> ivs,
               llvm::function_ref<mlir::Value(mlir::OpOperand &)> read);

} // namespace dlbridge

#endif // DLBRIDGE_LIB_TRANSFORMS_GPU_LINALGBODY_H
