//===- CheckMessages.h - Messages of run-time checks -----------*- C++ -*-===//
//
// Part of dlbridge. What the passes that emit `dlpack.assert` share to make
// its message say where a check is and what the caller passed.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_DIALECT_DLPACK_TRANSFORMS_CHECKMESSAGES_H
#define DLBRIDGE_LIB_DIALECT_DLPACK_TRANSFORMS_CHECKMESSAGES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Location.h"

#include <string>

namespace dlbridge::dlpack {

/// `text` with every brace doubled, so that a dlpack.assert message shows it
/// literally.
std::string escapeBraces(llvm::StringRef text);

/// "'<op name>' at <file>:<line>:<col>" (the location part left out when
/// `op` has no file location).
std::string describeOp(mlir::Operation *op);

/// A message builder for dlpack.assert: literal text plus placeholders for
/// run-time values.
class CheckMessage {
public:
  /// Appends `text` literally.
  CheckMessage &operator<<(llvm::StringRef text);
  /// Appends a placeholder for `value` (an integer or index).
  CheckMessage &operator<<(mlir::Value value);
  /// Appends "(d0, d1, ...)": the static sizes of `shaped` (a ranked tensor
  /// or memref) as numbers, the dynamic ones as placeholders of
  /// `tensor.dim`/`memref.dim` values built with `builder` at `loc`.
  void appendShape(mlir::OpBuilder &builder, mlir::Location loc,
                   mlir::Value shaped);
  /// Appends "(d0, d1, ...)" for `type`, whose dynamic sizes are
  /// `dynamicSizes`, in order.
  void appendShape(mlir::ShapedType type, mlir::ValueRange dynamicSizes);

  const std::string &getFormat() const { return format; }
  llvm::ArrayRef<mlir::Value> getValues() const { return values; }

private:
  std::string format;
  llvm::SmallVector<mlir::Value> values;
};

} // namespace dlbridge::dlpack

#endif // DLBRIDGE_LIB_DIALECT_DLPACK_TRANSFORMS_CHECKMESSAGES_H
