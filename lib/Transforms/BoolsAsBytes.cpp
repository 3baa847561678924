//===- BoolsAsBytes.cpp - Vectors of i1 in memory are bytes ---------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

namespace dlbridge {
#define GEN_PASS_DEF_BOOLSASBYTES
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// `type` with i8 elements when it is a vector of i1, else null.
VectorType getByteVectorType(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isInteger(1))
    return nullptr;
  return vector.cloneWith(std::nullopt, IntegerType::get(type.getContext(), 8));
}

/// Stores the bools of `operand` (data of a store) as bytes.
void widenStoredValue(OpBuilder &builder, OpOperand &operand) {
  VectorType bytes = getByteVectorType(operand.get().getType());
  if (!bytes)
    return;
  builder.setInsertionPoint(operand.getOwner());
  operand.set(LLVM::ZExtOp::create(builder, operand.getOwner()->getLoc(), bytes,
                                   operand.get()));
}

/// Makes `op`, a load of a vector of i1 whose pass-through values (the
/// results of masked-off lanes) are `passThru`, load bytes, and gives its
/// users the bools those bytes hold.
void widenLoad(OpBuilder &builder, Operation *op,
               MutableOperandRange passThru) {
  Value result = op->getResult(0);
  VectorType bytes = getByteVectorType(result.getType());
  if (!bytes)
    return;
  Location loc = op->getLoc();
  for (OpOperand &operand : passThru)
    widenStoredValue(builder, operand);
  result.setType(bytes);
  builder.setInsertionPointAfter(op);
  Value zero = LLVM::ZeroOp::create(builder, loc, bytes);
  auto bools =
      LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ne, result, zero);
  result.replaceAllUsesExcept(bools, bools);
}

struct BoolsAsBytesPass
    : public dlbridge::impl::BoolsAsBytesBase<BoolsAsBytesPass> {
  void runOnOperation() override {
    OpBuilder builder(&getContext());
    getOperation()->walk([&](Operation *op) {
      llvm::TypeSwitch<Operation *>(op)
          .Case([&](LLVM::LoadOp load) {
            widenLoad(builder, load, MutableOperandRange(load, 0, 0));
          })
          .Case([&](LLVM::MaskedLoadOp load) {
            widenLoad(builder, load, load.getPassThruMutable());
          })
          .Case([&](LLVM::masked_gather gather) {
            widenLoad(builder, gather, gather.getPassThruMutable());
          })
          .Case([&](LLVM::masked_expandload load) {
            widenLoad(builder, load, load.getPassthruMutable());
          })
          .Case<LLVM::StoreOp, LLVM::MaskedStoreOp, LLVM::masked_scatter,
                LLVM::masked_compressstore>([&](auto store) {
            widenStoredValue(builder, store.getValueMutable());
          });
    });
  }
};

} // namespace
