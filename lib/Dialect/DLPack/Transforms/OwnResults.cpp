//===- OwnResults.cpp - Entries return buffers the caller can own ---------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

#include "dlbridge/Dialect/DLPack/Transforms/ResultOwnership.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKOWNRESULTS
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {

/// A fresh buffer holding a copy of `source`, of type `type`; null when no
/// identity-layout buffer can be cast to `type` (a static layout other than
/// the identity), which the entry then diagnoses.
Value copyIntoFreshBuffer(OpBuilder &builder, Location loc, Value source,
                          MemRefType type) {
  MemRefType bufferType =
      MemRefType::get(type.getShape(), type.getElementType(),
                      MemRefLayoutAttrInterface(), type.getMemorySpace());
  if (bufferType != type &&
      !memref::CastOp::areCastCompatible(bufferType, type))
    return nullptr;
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      sizes.push_back(memref::DimOp::create(builder, loc, source, dim));
  Value buffer = memref::AllocOp::create(builder, loc, bufferType, sizes);
  memref::CopyOp::create(builder, loc, source, buffer);
  if (bufferType == type)
    return buffer;
  return memref::CastOp::create(builder, loc, type, buffer);
}

struct DLPackOwnResultsPass
    : public dlbridge::dlpack::impl::DLPackOwnResultsBase<
          DLPackOwnResultsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(DLPackDialect::kEntryAttrName))
        continue;
      func.walk([&](func::ReturnOp ret) {
        OpBuilder builder(ret);
        for (const ReturnedBuffer &buffer :
             classifyReturnedBuffers(func, ret)) {
          if (!isCopyable(buffer.origin))
            continue;
          OpOperand &operand = ret->getOpOperand(buffer.resultIndex);
          if (Value copy = copyIntoFreshBuffer(
                  builder, ret.getLoc(), operand.get(),
                  cast<MemRefType>(operand.get().getType())))
            operand.set(copy);
        }
      });
    }
  }
};

} // namespace
