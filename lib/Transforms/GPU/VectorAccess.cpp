//===- VectorAccess.cpp - What kernels may load and store as vectors ------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "VectorAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

int64_t dlbridge::getVectorElementBytes(Type type) {
  if (!isa<FloatType, IntegerType>(type))
    return 0;
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits < 8 || bits > 64 || !llvm::isPowerOf2_32(bits) ||
      (bits == 8 && isa<FloatType>(type)))
    return 0;
  return bits / 8;
}

Value dlbridge::emitIsAligned(OpBuilder &b, Location loc, Value memref,
                              ValueRange indices, int64_t alignment) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value element = metadata.getOffset();
  for (auto [index, stride] : llvm::zip_equal(indices, metadata.getStrides()))
    element = arith::AddIOp::create(
        b, loc, element, arith::MulIOp::create(b, loc, index, stride));
  int64_t bytes = getVectorElementBytes(
      cast<MemRefType>(memref.getType()).getElementType());
  Value address = arith::AddIOp::create(
      b, loc, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref),
      arith::MulIOp::create(b, loc, element,
                            arith::ConstantIndexOp::create(b, loc, bytes)));
  Value misalignment = arith::RemUIOp::create(
      b, loc, address, arith::ConstantIndexOp::create(b, loc, alignment));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, misalignment,
                               arith::ConstantIndexOp::create(b, loc, 0));
}
