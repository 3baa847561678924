//===- TensorRuntimeVerification.h - Checks upstream lacks ------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_TENSORRUNTIMEVERIFICATION_H
#define DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_TENSORRUNTIMEVERIFICATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace dlbridge::dlpack {

/// Attaches `RuntimeVerifiableOpInterface` to the tensor ops MLIR 22 gives
/// none although they rely on shape relations between their operands:
/// `tensor.insert_slice`, `tensor.concat`, `tensor.expand_shape` and
/// `tensor.pad`. Bufferized unchecked, each writes or reads out of bounds
/// when dynamic sizes do not fit.
void registerTensorRuntimeVerification(mlir::DialectRegistry &registry);

} // namespace dlbridge::dlpack

#endif // DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_TENSORRUNTIMEVERIFICATION_H
