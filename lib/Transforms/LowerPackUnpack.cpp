//===- LowerPackUnpack.cpp - linalg.pack/unpack to pad, reshape, transpose ===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace dlbridge {
#define GEN_PASS_DEF_LOWERPACKUNPACK
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {
struct LowerPackUnpackPass
    : public dlbridge::impl::LowerPackUnpackBase<LowerPackUnpackPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      auto pack = dyn_cast<linalg::PackOp>(op);
      // Upstream's lowering needs static tiles to expand the padded source.
      if (pack &&
          llvm::any_of(pack.getStaticInnerTiles(), ShapedType::isDynamic)) {
        op->emitOpError("with dynamic inner tile sizes is not supported: use "
                        "constant inner_tiles");
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(op);
      LogicalResult lowered =
          pack ? LogicalResult(linalg::lowerPack(rewriter, pack))
               : LogicalResult(
                     linalg::lowerUnPack(rewriter, cast<linalg::UnPackOp>(op)));
      if (failed(lowered)) {
        op->emitOpError("cannot be lowered to tensor.pad, tensor reshapes "
                        "and linalg.transpose");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
