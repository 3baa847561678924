//===- LoopAccessChecks.h - Element accesses in loops, checked once -*- C++
//-*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_DIALECT_DLPACK_TRANSFORMS_LOOPACCESSCHECKS_H
#define DLBRIDGE_LIB_DIALECT_DLPACK_TRANSFORMS_LOOPACCESSCHECKS_H

#include "mlir/IR/Builders.h"

namespace dlbridge::dlpack {

/// Checks, before the outermost loop around `access` (an element load or
/// store of a memref or tensor), that every index which is an induction
/// variable of the loops, or invariant in them, stays in bounds over all
/// iterations: O(rank) once, instead of a check per element. Does nothing
/// when the loops' bounds or the accessed value vary in the loops, or when
/// anything but loops encloses the access (an scf.if may guard it).
/// Returns the ops generated.
llvm::SmallVector<mlir::Operation *>
generateLoopAccessChecks(mlir::OpBuilder &builder, mlir::Operation *access);

} // namespace dlbridge::dlpack

#endif // DLBRIDGE_LIB_DIALECT_DLPACK_TRANSFORMS_LOOPACCESSCHECKS_H
