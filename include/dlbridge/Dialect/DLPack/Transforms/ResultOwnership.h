//===- ResultOwnership.h - Whose buffer an entry returns --------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_RESULTOWNERSHIP_H
#define DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_RESULTOWNERSHIP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

namespace dlbridge::dlpack {

/// Where the buffer behind a memref operand of a `func.return` comes from.
enum class ResultOrigin {
  /// A heap buffer the function allocated, returned once: the caller can own
  /// it as it is.
  Owned,
  /// An argument of the function (or a view of one).
  Argument,
  /// Memory no operation of the function allocated: a `memref.get_global`,
  /// or another producer without an allocation effect.
  Borrowed,
  /// A stack buffer (`memref.alloca`), gone when the function returns.
  Stack,
  /// The same buffer as an earlier result.
  Shared,
  /// A value produced by an operation whose effects are unknown (a call of
  /// an external function), or one that control flow merges from buffers of
  /// both kinds (an argument or an allocation): it may or may not be owned.
  Unknown,
};

/// How one memref result of a function is backed.
struct ReturnedBuffer {
  unsigned resultIndex;
  ResultOrigin origin;
  /// The allocation, argument or producer the result views.
  mlir::Value root;
  /// For `Shared`, the earlier result with the same buffer.
  unsigned sharedWith = 0;
};

/// Classifies every memref operand of `ret`, a terminator of `func`, looking
/// through `func.call`s of functions in the module and the `scf.if`,
/// `scf.for` and `arith.select` results that merge buffers.
llvm::SmallVector<ReturnedBuffer>
classifyReturnedBuffers(mlir::func::FuncOp func, mlir::func::ReturnOp ret);

/// Whether a fresh copy of a result of this origin is what the caller should
/// get: the function returns memory it does not own, and nothing else
/// would free the copy's source.
bool isCopyable(ResultOrigin origin);

} // namespace dlbridge::dlpack

#endif // DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_RESULTOWNERSHIP_H
