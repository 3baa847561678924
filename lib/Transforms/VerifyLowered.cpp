//===- VerifyLowered.cpp - Pipelines finish or fail -----------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace dlbridge {
#define GEN_PASS_DEF_VERIFYLOWERED
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

struct VerifyLoweredPass
    : public dlbridge::impl::VerifyLoweredBase<VerifyLoweredPass> {
  using Base::Base;

  void runOnOperation() override {
    if (target != "cpu" && target != "cuda") {
      getOperation()->emitError() << "dlbridge-verify-lowered: unknown target '"
                                  << target << "'; expected cpu or cuda";
      return signalPassFailure();
    }
    SmallVector<Operation *> unlowered;
    SmallVector<UnrealizedConversionCastOp> casts;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == getOperation() || isLowered(op))
        return WalkResult::advance();
      if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op)) {
        casts.push_back(cast);
        return WalkResult::advance();
      }
      // What is nested in it is part of it.
      unlowered.push_back(op);
      return WalkResult::skip();
    });
    llvm::SmallPtrSet<Operation *, 8> reported(unlowered.begin(),
                                               unlowered.end());
    for (Operation *op : unlowered)
      diagnose(op);
    // A cast is the trace of an operation left over, reported above, or of
    // one whose result type nothing converted: that one is reported here.
    for (UnrealizedConversionCastOp cast : casts) {
      if (isPartOf(cast, reported) ||
          llvm::any_of(cast->getUsers(), [&](Operation *user) {
            return isPartOf(user, reported);
          }))
        continue;
      Value operand = cast.getInputs().empty() ? Value() : cast.getInputs()[0];
      Operation *producer = !operand ? cast.getOperation()
                            : operand.getDefiningOp()
                                ? operand.getDefiningOp()
                                : operand.getParentBlock()->getParentOp();
      if (isPartOf(producer, reported))
        continue;
      reported.insert(producer);
      InFlightDiagnostic diag = producer->emitError()
                                << "'" << producer->getName() << "'";
      if (operand)
        diag << " produces a value of type " << operand.getType()
             << " that the rest of the program needs as "
             << cast.getResultTypes();
      diag << "; the " << getTargetName()
           << " pipeline has no lowering between the two: lower it to the "
              "LLVM dialect before compiling, or use types the pipeline "
              "lowers (memrefs, tensors, vectors, integers, floats, index)";
    }
    if (!reported.empty())
      signalPassFailure();
  }

private:
  bool isLowered(Operation *op) const {
    if (isa<ModuleOp>(op) ||
        isa_and_present<LLVM::LLVMDialect>(op->getDialect()))
      return true;
    // OpenMP regions on LLVM types translate to calls into libomp.
    if (target != "cuda")
      return isa_and_present<omp::OpenMPDialect>(op->getDialect());
    if (isa<gpu::BinaryOp, gpu::LaunchFuncOp>(op))
      return true;
    return isa_and_present<NVVM::NVVMDialect>(op->getDialect()) &&
           op->getParentOfType<gpu::GPUModuleOp>();
  }

  /// Whether `op` is one of `ops` or nested in one.
  static bool isPartOf(Operation *op,
                       const llvm::SmallPtrSetImpl<Operation *> &ops) {
    for (; op; op = op->getParentOp())
      if (ops.contains(op))
        return true;
    return false;
  }

  StringRef getTargetName() const { return target == "cuda" ? "CUDA" : "CPU"; }

  void diagnose(Operation *op) {
    InFlightDiagnostic diag = op->emitError() << "'" << op->getName() << "' ";
    StringRef dialect = op->getName().getDialectNamespace();
    if (dialect == "tensor" || dialect == "bufferization") {
      diag << "was left unbufferized: compile tensor programs with "
              "bufferization on (bufferize=true), or lower them to memrefs "
              "first";
    } else {
      diag << "was not lowered to the LLVM dialect by the " << getTargetName()
           << " pipeline: rewrite it with operations that pipeline lowers, "
              "or lower it to the LLVM dialect before compiling";
    }
  }
};

} // namespace
