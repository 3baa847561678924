//===- CheckAllocations.cpp - Allocations that fail end the call ----------===//
//
// Part of dlbridge. Guards every heap allocation of host code with
// dlpack.assert: sizes that are negative or whose byte size overflows int64
// before it, a NULL buffer after it.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

#include "CheckMessages.h"
#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKCHECKALLOCATIONS
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {

/// The bytes of one element of `type`; 1 when unknown, so that at least the
/// number of elements is checked.
uint64_t getElementBytes(MemRefType type) {
  Type element = type.getElementType();
  if (element.isIndex())
    return 8;
  if (element.isIntOrFloat())
    return llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  if (auto complex = dyn_cast<ComplexType>(element))
    if (complex.getElementType().isIntOrFloat())
      return 2 * llvm::divideCeil(
                     complex.getElementType().getIntOrFloatBitWidth(), 8);
  if (auto vector = dyn_cast<VectorType>(element))
    if (vector.hasStaticShape() && vector.getElementType().isIntOrFloat())
      return vector.getNumElements() *
             llvm::divideCeil(vector.getElementType().getIntOrFloatBitWidth(),
                              8);
  return 1;
}

/// The message prefix "cannot allocate memref<...> of shape (...) for
/// '<op>' at ...: ".
CheckMessage describeAllocation(Operation *op, MemRefType type,
                                ValueRange dynamicSizes) {
  CheckMessage message;
  std::string typeText;
  llvm::raw_string_ostream(typeText) << type;
  message << "cannot allocate " << typeText << " of shape ";
  message.appendShape(type, dynamicSizes);
  message << " for ";
  message << describeOp(op) << ": ";
  return message;
}

void emitAssert(OpBuilder &builder, Location loc, Value ok,
                FailureStatus status, const CheckMessage &message) {
  AssertOp::create(builder, loc, ok, status, message.getFormat(),
                   message.getValues());
}

/// Checks, before `op`, that its dynamic sizes are not negative and that the
/// byte size of the buffer fits int64.
void checkSizes(OpBuilder &builder, Operation *op, Value buffer,
                ValueRange dynamicSizes) {
  Location loc = op->getLoc();
  auto type = cast<MemRefType>(buffer.getType());
  builder.setInsertionPoint(op);
  Type i64 = builder.getI64Type();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value nonNegative;
  for (Value size : dynamicSizes) {
    Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge,
                                     size, zero);
    nonNegative =
        nonNegative ? arith::AndIOp::create(builder, loc, nonNegative, ok) : ok;
  }
  CheckMessage negative = describeAllocation(op, type, dynamicSizes);
  negative << "negative dimensions are not allowed";
  emitAssert(builder, loc, nonNegative, FailureStatus::ShapeMismatch, negative);

  // Bytes = static factor * dynamic sizes; each partial product of
  // non-negative factors below 2^63 fits when the high half of the 128-bit
  // product is 0 and the low half is not negative.
  uint64_t factor = getElementBytes(type);
  for (int64_t dim : type.getShape())
    if (!ShapedType::isDynamic(dim) &&
        __builtin_mul_overflow(factor, static_cast<uint64_t>(dim), &factor))
      factor = UINT64_MAX;
  if (factor > static_cast<uint64_t>(INT64_MAX))
    factor = static_cast<uint64_t>(INT64_MAX);
  Value bytes = arith::ConstantIntOp::create(builder, loc, i64, factor);
  Value zero64 = arith::ConstantIntOp::create(builder, loc, i64, 0);
  Value fits;
  for (Value size : dynamicSizes) {
    Value size64 = arith::IndexCastOp::create(builder, loc, i64, size);
    auto product = arith::MulUIExtendedOp::create(builder, loc, bytes, size64);
    Value noHigh = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         product.getHigh(), zero64);
    Value lowFits = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::sge, product.getLow(), zero64);
    Value ok = arith::AndIOp::create(builder, loc, noHigh, lowFits);
    fits = fits ? arith::AndIOp::create(builder, loc, fits, ok) : ok;
    bytes = product.getLow();
  }
  CheckMessage overflow = describeAllocation(op, type, dynamicSizes);
  overflow << "its size in bytes overflows int64";
  emitAssert(builder, loc, fits, FailureStatus::OutOfMemory, overflow);
}

/// Checks, after `op`, that `buffer` is not NULL unless it has no elements:
/// allocators may answer a request for no bytes with NULL (the CUDA
/// runtime's mgpuMemAlloc always does).
void checkNotNull(OpBuilder &builder, Operation *op, Value buffer,
                  ValueRange dynamicSizes) {
  auto type = cast<MemRefType>(buffer.getType());
  if (llvm::is_contained(type.getShape(), 0))
    return;
  Location loc = op->getLoc();
  builder.setInsertionPointAfter(op);
  Value pointer =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
  Value null = arith::ConstantIndexOp::create(builder, loc, 0);
  Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                   pointer, null);
  for (Value size : dynamicSizes)
    ok = arith::OrIOp::create(builder, loc, ok,
                              arith::CmpIOp::create(builder, loc,
                                                    arith::CmpIPredicate::eq,
                                                    size, null));
  CheckMessage message = describeAllocation(op, type, dynamicSizes);
  message << "out of memory";
  emitAssert(builder, loc, ok, FailureStatus::OutOfMemory, message);
}

/// Whether `op` runs on the device.
bool isDeviceCode(Operation *op) {
  return op->getParentOfType<gpu::GPUModuleOp>() ||
         op->getParentOfType<gpu::LaunchOp>();
}

struct DLPackCheckAllocationsPass
    : public dlbridge::dlpack::impl::DLPackCheckAllocationsBase<
          DLPackCheckAllocationsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> allocations;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::AllocOp, gpu::AllocOp>(op) && !isDeviceCode(op))
        allocations.push_back(op);
    });
    OpBuilder builder(&getContext());
    for (Operation *op : allocations) {
      Value buffer = op->getResult(0);
      ValueRange sizes = isa<memref::AllocOp>(op)
                             ? cast<memref::AllocOp>(op).getDynamicSizes()
                             : cast<gpu::AllocOp>(op).getDynamicSizes();
      if (!sizes.empty())
        checkSizes(builder, op, buffer, sizes);
      checkNotNull(builder, op, buffer, sizes);
    }
  }
};

} // namespace
