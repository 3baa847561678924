//===- CrashGuardTest.cpp - A contained crash says where it happened ------===//
//
// Part of dlbridge's unit tests. A crash inside a pass names the pass and
// the op it ran on; one in a stage the compiler names (CrashStage) names
// that stage; stages end with their scope, also after a crash.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/JIT/CrashGuard.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <csignal>
#include <string>

using namespace dlbridge::jit;

namespace {

/// Crashes on the function it runs on, as a buggy pass would.
struct CrashingPass
    : public mlir::PassWrapper<CrashingPass,
                               mlir::OperationPass<mlir::func::FuncOp>> {
  llvm::StringRef getArgument() const override { return "test-crash"; }
  void runOnOperation() override { std::raise(SIGSEGV); }
};

/// Runs nothing: the pass before the crashing one.
struct QuietPass : public mlir::PassWrapper<QuietPass, mlir::OperationPass<>> {
  llvm::StringRef getArgument() const override { return "test-quiet"; }
  void runOnOperation() override {}
};

TEST(CrashGuardTest, ACrashInAPassNamesThePassAndItsOp) {
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  context.loadDialect<mlir::func::FuncDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>("func.func @kernel() { return }",
                                              &context);
  ASSERT_TRUE(module);
  std::string crash;
  bool finished = runContained(
      [&] {
        mlir::PassManager pm(&context);
        pm.addInstrumentation(createCrashStageInstrumentation());
        pm.addPass(std::make_unique<QuietPass>());
        pm.addNestedPass<mlir::func::FuncOp>(std::make_unique<CrashingPass>());
        (void)pm.run(*module);
      },
      crash);
  ASSERT_FALSE(finished);
  EXPECT_EQ(crash, "signal 11 (Segmentation fault) in pass 'test-crash' on "
                   "'func.func @kernel'");
}

TEST(CrashGuardTest, ACrashInANamedStageNamesIt) {
  std::string crash;
  ASSERT_FALSE(runContained(
      [] {
        CrashStage outer("translating to LLVM IR");
        CrashStage inner("generating machine code");
        std::raise(SIGSEGV);
      },
      crash));
  EXPECT_EQ(crash, "signal 11 (Segmentation fault) in generating machine code");
  // The crashed stages are gone: a later crash outside any names none.
  ASSERT_FALSE(runContained([] { std::raise(SIGSEGV); }, crash));
  EXPECT_EQ(crash, "signal 11 (Segmentation fault)");
}

TEST(CrashGuardTest, StagesEndWithTheirScope) {
  std::string crash;
  ASSERT_FALSE(runContained(
      [] {
        { CrashStage finished("parsing"); }
        std::raise(SIGSEGV);
      },
      crash));
  EXPECT_EQ(crash, "signal 11 (Segmentation fault)");
}

} // namespace
