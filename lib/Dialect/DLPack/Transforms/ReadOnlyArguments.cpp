//===- ReadOnlyArguments.cpp - Entries bufferize their arguments read-only ===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKREADONLYARGUMENTS
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {

struct DLPackReadOnlyArgumentsPass
    : public dlbridge::dlpack::impl::DLPackReadOnlyArgumentsBase<
          DLPackReadOnlyArgumentsPass> {
  void runOnOperation() override {
    auto writable = StringAttr::get(
        &getContext(), bufferization::BufferizationDialect::kWritableAttrName);
    auto no = BoolAttr::get(&getContext(), false);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(DLPackDialect::kEntryAttrName) || func.isExternal())
        continue;
      for (BlockArgument arg : func.getArguments())
        if (isa<mlir::TensorType>(arg.getType()) &&
            !func.getArgAttr(arg.getArgNumber(), writable))
          func.setArgAttr(arg.getArgNumber(), writable, no);
    }
  }
};

} // namespace
