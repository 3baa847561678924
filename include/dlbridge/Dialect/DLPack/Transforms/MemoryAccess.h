//===- MemoryAccess.h - How a function uses a memref argument ---*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_MEMORYACCESS_H
#define DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_MEMORYACCESS_H

#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"
#include "mlir/IR/Value.h"

namespace dlbridge::dlpack {

/// Whether the memory behind `memref` is read and/or written, from the memory
/// effects of its users and of its aliases: views and casts, the arguments
/// of functions it is passed to (and their call's results), the region
/// arguments and results control flow forwards it to. Users whose effects
/// are unknown (calls to external functions, ...) count as both.
Access getMemoryAccess(mlir::Value memref);

} // namespace dlbridge::dlpack

#endif // DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_MEMORYACCESS_H
