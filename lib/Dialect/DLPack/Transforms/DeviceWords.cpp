//===- DeviceWords.cpp - Scalars the host reads from device memory --------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/DeviceWords.h"

#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace {

/// Whether one word holds a value of `type`.
bool fitsOneWord(Type type) {
  if (type.isIndex())
    return true;
  if (isa<IntegerType, FloatType>(type))
    return type.getIntOrFloatBitWidth() <= 64;
  return false;
}

Value packOne(OpBuilder &builder, Location loc, Value value) {
  Type i64 = builder.getI64Type();
  Type type = value.getType();
  if (type.isIndex())
    return arith::IndexCastOp::create(builder, loc, i64, value);
  unsigned width = type.getIntOrFloatBitWidth();
  if (isa<FloatType>(type)) {
    value = arith::BitcastOp::create(builder, loc,
                                     builder.getIntegerType(width), value);
    return width == 64 ? value
                       : arith::ExtUIOp::create(builder, loc, i64, value);
  }
  if (width == 64)
    return value;
  if (width == 1)
    return arith::ExtUIOp::create(builder, loc, i64, value);
  return arith::ExtSIOp::create(builder, loc, i64, value);
}

Value unpackOne(OpBuilder &builder, Location loc, Type type, Value word) {
  if (type.isIndex())
    return arith::IndexCastOp::create(builder, loc, type, word);
  unsigned width = type.getIntOrFloatBitWidth();
  Type bits = builder.getIntegerType(width);
  if (width < 64)
    word = arith::TruncIOp::create(builder, loc, bits, word);
  if (isa<FloatType>(type))
    return arith::BitcastOp::create(builder, loc, type, word);
  return word;
}

} // namespace

std::optional<unsigned> dlbridge::dlpack::getNumWords(Type type) {
  if (fitsOneWord(type))
    return 1;
  if (auto complex = dyn_cast<ComplexType>(type))
    if (isa<FloatType>(complex.getElementType()) &&
        fitsOneWord(complex.getElementType()))
      return 2;
  return std::nullopt;
}

void dlbridge::dlpack::packWords(OpBuilder &builder, Location loc, Value value,
                                 SmallVectorImpl<Value> &words) {
  if (isa<ComplexType>(value.getType())) {
    words.push_back(
        packOne(builder, loc, complex::ReOp::create(builder, loc, value)));
    words.push_back(
        packOne(builder, loc, complex::ImOp::create(builder, loc, value)));
    return;
  }
  words.push_back(packOne(builder, loc, value));
}

Value dlbridge::dlpack::unpackWords(OpBuilder &builder, Location loc, Type type,
                                    ValueRange words) {
  if (auto complex = dyn_cast<ComplexType>(type)) {
    Type part = complex.getElementType();
    Value re = unpackOne(builder, loc, part, words[0]);
    Value im = unpackOne(builder, loc, part, words[1]);
    return complex::CreateOp::create(builder, loc, type, re, im);
  }
  return unpackOne(builder, loc, type, words.front());
}

void dlbridge::dlpack::zeroWords(OpBuilder &builder, Location loc,
                                 Value words) {
  Value zero =
      arith::ConstantIntOp::create(builder, loc, builder.getI64Type(), 0);
  auto type = cast<MemRefType>(words.getType());
  for (int64_t i = 0, e = type.getDimSize(0); i < e; ++i)
    memref::StoreOp::create(
        builder, loc, zero, words,
        arith::ConstantIndexOp::create(builder, loc, i).getResult());
}

Value dlbridge::dlpack::createZeroedHostWords(OpBuilder &builder, Location loc,
                                              MemRefType type) {
  Value words = memref::AllocaOp::create(builder, loc, type);
  zeroWords(builder, loc, words);
  return words;
}

LogicalResult dlbridge::dlpack::copyWordsToHost(OpBuilder &builder,
                                                Location loc, Operation *anchor,
                                                Value host, Value device) {
  zeroWords(builder, loc, host);
  gpu::MemcpyOp::create(builder, loc, TypeRange(), ValueRange(), host, device);
  return createRuntimeCall(builder, anchor, RuntimeFunction::CallSynchronize,
                           ValueRange());
}
