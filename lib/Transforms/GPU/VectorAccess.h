//===- VectorAccess.h - What kernels may load and store as vectors -*- C++
//-*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//
//
// The rules the GPU passes share for 16-byte accesses: which element types
// move in vectors, and the run-time check that an access is aligned enough.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_TRANSFORMS_GPU_VECTORACCESS_H
#define DLBRIDGE_LIB_TRANSFORMS_GPU_VECTORACCESS_H

#include "mlir/IR/Builders.h"

namespace dlbridge {

/// The widest access one thread makes: `ld.global.v4.f32` and its kin.
inline constexpr int64_t kVectorBytes = 16;

/// Bytes of an element of `type` when threads may move it in vectors: whole
/// bytes, a power of two, and not an 8-bit float (emulated through f32 by
/// --dlbridge-expand-small-floats, one element at a time); 0 otherwise.
int64_t getVectorElementBytes(mlir::Type type);

/// Whether the element of `memref` at `indices` starts at a multiple of
/// `alignment` bytes: compact DLPack tensors need not, since a view's
/// byte_offset can put the data anywhere.
mlir::Value emitIsAligned(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value memref, mlir::ValueRange indices,
                          int64_t alignment);

} // namespace dlbridge

#endif // DLBRIDGE_LIB_TRANSFORMS_GPU_VECTORACCESS_H
