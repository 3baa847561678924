//===- TestCrashPass.cpp - A pass that crashes, for tests only ------------===//
//
// Part of dlbridge. --dlbridge-test-crash raises SIGSEGV on each function it
// runs on, as a buggy pass would; it exists only so that tests can check how
// dl-opt reports a crash inside a pass (like upstream's -test-* passes).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include <csignal>

namespace {

struct TestCrashPass
    : public mlir::PassWrapper<TestCrashPass,
                               mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestCrashPass)
  llvm::StringRef getArgument() const override { return "dlbridge-test-crash"; }
  llvm::StringRef getDescription() const override {
    return "Test only: raise SIGSEGV on each function";
  }
  void runOnOperation() override { std::raise(SIGSEGV); }
};

} // namespace

namespace dlbridge {
void registerTestCrashPass() { mlir::PassRegistration<TestCrashPass>(); }
} // namespace dlbridge
