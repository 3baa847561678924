//===- DeviceWords.h - Scalars the host reads from device memory -*- C++
//-*-===//
//
// Part of dlbridge. Kernels leave scalars the host needs (a failed check, a
// count that sizes a buffer) in a small device buffer of i64 words; host
// code copies it back on the call's stream, waits, and reads the words.
// Shared by --dlbridge-offload-host-code and --dlbridge-report-kernel-checks.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_DEVICEWORDS_H
#define DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_DEVICEWORDS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace dlbridge::dlpack {

/// How many i64 words hold a value of `type`: one for an integer of at most
/// 64 bits (i1 included), an index or a float of at most 64 bits, two for a
/// complex number of such floats; std::nullopt for anything else.
std::optional<unsigned> getNumWords(mlir::Type type);

/// `value` (of a type getNumWords accepts) as i64 words, appended to
/// `words`. Integers and indices are sign-extended (i1 zero-extended), so
/// that a word printed as a signed number shows the value; floats keep their
/// bits in the low half.
void packWords(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value value,
               llvm::SmallVectorImpl<mlir::Value> &words);

/// The value of `type` that packWords stored as `words`.
mlir::Value unpackWords(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Type type, mlir::ValueRange words);

/// A host buffer of `type` (a static memref of i64) on the stack, zeroed.
mlir::Value createZeroedHostWords(mlir::OpBuilder &builder, mlir::Location loc,
                                  mlir::MemRefType type);

/// Stores zeros into every word of `words`, a static memref of i64.
void zeroWords(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value words);

/// At the builder's insertion point: zeroes `host`, copies `device` into it
/// (`gpu.memcpy`, which --dlbridge-launch-on-context-stream puts on the call's
/// stream, after every kernel launched before) and waits for the call's
/// stream (`dlrt_call_synchronize`), so that the host reads what those
/// kernels wrote. When the copy fails (its failure is the call's status),
/// the host reads zeros, not what its stack held. `anchor` is an operation
/// of the module, which declares the runtime function.
mlir::LogicalResult copyWordsToHost(mlir::OpBuilder &builder,
                                    mlir::Location loc, mlir::Operation *anchor,
                                    mlir::Value host, mlir::Value device);

} // namespace dlbridge::dlpack

#endif // DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_DEVICEWORDS_H
