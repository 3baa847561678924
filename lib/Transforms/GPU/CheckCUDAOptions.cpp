//===- CheckCUDAOptions.cpp - Bad CUDA options fail before lowering -------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "dlbridge/Transforms/GPU/CUDATarget.h"

namespace dlbridge {
#define GEN_PASS_DEF_CHECKCUDAOPTIONS
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {
struct CheckCUDAOptionsPass
    : public dlbridge::impl::CheckCUDAOptionsBase<CheckCUDAOptionsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    if (succeeded(dlbridge::resolveCUDATarget(chip, ptxVersion, format,
                                              optLevel, error)))
      return markAllAnalysesPreserved();
    getOperation().emitError() << error;
    signalPassFailure();
  }
};
} // namespace
