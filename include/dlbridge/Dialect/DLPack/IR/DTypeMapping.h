//===- DTypeMapping.h - MLIR element types <-> DLPack dtypes ----*- C++ -*-===//
//
// Part of dlbridge. The one place that says which MLIR element type a DLPack
// dtype describes, and back.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_IR_DTYPEMAPPING_H
#define DLBRIDGE_DIALECT_DLPACK_IR_DTYPEMAPPING_H

#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"
#include "mlir/IR/Diagnostics.h"

namespace dlbridge::dlpack {

/// The dtype DLPack uses for elements of `type`, or null when DLPack has
/// none. `i1` is `bool` (8 bits), signless and signed integers are `int`,
/// unsigned ones `uint`, `complex<fN>` is `complex` of 2N bits, each fp8/6/4
/// type its own code, and a 1-D `vector<L x T>` is T's dtype with L lanes.
DTypeAttr getDefaultDType(mlir::Type type);

/// The element type `dtype` describes: the inverse of getDefaultDType (`uint`
/// gives unsigned integers, lanes give 1-D vectors), or null when MLIR has no
/// such type (opaque handles, widths DLPack allows but MLIR lacks).
mlir::Type getElementType(DTypeAttr dtype);

/// Whether memory of `type` may be described by `dtype`: its default dtype,
/// or for signless integers `uint` of the same width.
bool isCompatible(DTypeAttr dtype, mlir::Type type);

/// Checks that memrefs of `type` can cross the DLPack boundary with `dtype`
/// (null: the element type's default): an element type with a whole-byte
/// dtype compatible with `dtype`, an identity or strided layout and no memory
/// space. Emits through `emitError` otherwise.
mlir::LogicalResult verifyBoundaryMemRefType(
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
    mlir::MemRefType type, DTypeAttr dtype);

/// Checks that values of `type` can be a parameter or result of a
/// `dlpack.entry` function: ranked tensors (without an encoding) and memrefs
/// whose element type has a whole-byte dtype, memrefs with an identity or
/// strided layout and no memory space, index and scalars with a dtype.
/// Emits through `emitError`, saying what to use instead, otherwise.
mlir::LogicalResult
verifyBoundaryType(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                   mlir::Type type);

} // namespace dlbridge::dlpack

#endif // DLBRIDGE_DIALECT_DLPACK_IR_DTYPEMAPPING_H
