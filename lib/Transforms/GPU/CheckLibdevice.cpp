//===- CheckLibdevice.cpp - Math in kernels needs libdevice ---------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/GPU/Passes.h"

#include "dlbridge/Transforms/GPU/CUDATarget.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/FileSystem.h"

namespace dlbridge {
#define GEN_PASS_DEF_CHECKLIBDEVICE
#include "dlbridge/Transforms/GPU/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {
struct CheckLibdevicePass
    : public dlbridge::impl::CheckLibdeviceBase<CheckLibdevicePass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      SmallVector<StringRef> needed;
      module.walk([&](LLVM::LLVMFuncOp func) {
        if (func.isExternal() && func.getSymName().starts_with("__nv_"))
          needed.push_back(func.getSymName());
      });
      if (needed.empty())
        continue;
      std::string found = dlbridge::findCUDAToolkit(toolkit);
      std::string libdevice =
          found.empty() ? "" : dlbridge::getLibdevicePath(found);
      if (!libdevice.empty() && llvm::sys::fs::is_regular_file(libdevice))
        continue;
      InFlightDiagnostic diag = module.emitError()
                                << "kernels call libdevice (";
      llvm::interleaveComma(needed, diag);
      diag << ") but ";
      if (found.empty())
        diag << "no CUDA toolkit was found (toolkit option, CUDA_HOME, "
                "CUDA_PATH, CUDA_ROOT, ptxas on PATH, /usr/local/cuda)";
      else
        diag << "libdevice is not at " << libdevice
             << (toolkit.empty() ? "" : " (toolkit option)");
      diag << "; point the toolkit option (CompileOptions::toolkit) or "
              "CUDA_HOME at a CUDA toolkit with nvvm/libdevice/libdevice.10.bc";
      return signalPassFailure();
    }
  }
};
} // namespace
