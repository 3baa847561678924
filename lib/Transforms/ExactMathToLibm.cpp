//===- ExactMathToLibm.cpp - expm1 and log1p as libm calls ----------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace dlbridge {
#define GEN_PASS_DEF_EXACTMATHTOLIBM
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {
struct ExactMathToLibmPass
    : public dlbridge::impl::ExactMathToLibmBase<ExactMathToLibmPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathToLibmConversionPatterns(patterns);
    /// Only the two: every other operation the libm patterns know stays for
    /// convert-math-to-llvm's intrinsics.
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<math::ExpM1Op, math::Log1pOp>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
