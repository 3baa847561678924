//===- ReportKernelChecks.cpp - Kernels' failed checks reach the host -----===//
//
// Part of dlbridge. A kernel cannot end the call; a failing thread records
// which check failed, with its message's values, in a device buffer the
// host function reads back once its kernels ran, and asserts on there.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"
#include "dlbridge/Dialect/DLPack/Transforms/DeviceWords.h"
#include "dlbridge/Dialect/DLPack/Transforms/ResultOwnership.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKREPORTKERNELCHECKS
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;
using namespace dlbridge;
using namespace dlbridge::dlpack;

namespace {

/// Layout of the device buffer: word 0 claims the first failure, word 1
/// holds its assertion's number (from 1), the values follow.
constexpr int64_t kClaimWord = 0;
constexpr int64_t kNumberWord = 1;
constexpr int64_t kFirstValueWord = 2;

Value constantIndex(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

Value constantI64(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, builder.getI64Type(),
                                      value);
}

/// `value` (an integer or index) as one i64 word, sign-extended (i1
/// zero-extended), so that the message shows its value.
Value toI64(OpBuilder &builder, Location loc, Value value) {
  SmallVector<Value, 1> words;
  packWords(builder, loc, value, words);
  return words.front();
}

/// Replaces `assertion`, in a kernel, with the recording of its failure.
void recordInKernel(AssertOp assertion, int64_t number, Value words) {
  OpBuilder builder(assertion);
  Location loc = assertion.getLoc();
  Value isTrue = arith::ConstantIntOp::create(builder, loc, 1, 1);
  Value failed =
      arith::XOrIOp::create(builder, loc, assertion.getCondition(), isTrue);
  auto ifFailed = scf::IfOp::create(builder, loc, failed);
  builder.setInsertionPointToStart(ifFailed.thenBlock());
  Value old = memref::AtomicRMWOp::create(
      builder, loc, arith::AtomicRMWKind::assign, constantI64(builder, loc, 1),
      words, constantIndex(builder, loc, kClaimWord));
  Value first = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                      old, constantI64(builder, loc, 0));
  auto ifFirst = scf::IfOp::create(builder, loc, first);
  builder.setInsertionPointToStart(ifFirst.thenBlock());
  memref::StoreOp::create(builder, loc, constantI64(builder, loc, number),
                          words, constantIndex(builder, loc, kNumberWord));
  for (auto [i, value] : llvm::enumerate(assertion.getValues()))
    memref::StoreOp::create(
        builder, loc, toI64(builder, loc, value), words,
        constantIndex(builder, loc, kFirstValueWord + int64_t(i)));
  assertion.erase();
}

/// Frees the buffers an entry owns and would return, when a check failed:
/// the entry point returns the failure instead of them.
void freeResultsIfFailed(OpBuilder &builder, Location loc, func::FuncOp func,
                         func::ReturnOp ret, Value failedNumber) {
  if (!func->hasAttr(DLPackDialect::kEntryAttrName))
    return;
  SmallVector<Value> owned;
  for (const ReturnedBuffer &buffer : classifyReturnedBuffers(func, ret))
    if (buffer.origin == ResultOrigin::Owned)
      owned.push_back(ret.getOperand(buffer.resultIndex));
  if (owned.empty())
    return;
  Value failed =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                            failedNumber, constantI64(builder, loc, 0));
  auto ifFailed = scf::IfOp::create(builder, loc, failed);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(ifFailed.thenBlock());
  for (Value buffer : owned)
    gpu::DeallocOp::create(builder, loc, TypeRange(), ValueRange(), buffer);
}

/// Before `ret`: reads the words back and asserts, for each of `assertions`
/// (numbered from 1), that it is not the one that failed.
LogicalResult reportBeforeReturn(func::FuncOp func, func::ReturnOp ret,
                                 Value words, ArrayRef<AssertOp> assertions) {
  OpBuilder builder(ret);
  Location loc = ret->getLoc();
  auto type = cast<MemRefType>(words.getType());
  // Zeroed first (copyWordsToHost): when the copy fails, no check reads as
  // failed.
  Value host = memref::AllocaOp::create(builder, loc, type);
  if (failed(copyWordsToHost(builder, loc, ret, host, words)))
    return failure();
  gpu::DeallocOp::create(builder, loc, TypeRange(), ValueRange(), words);
  Value failedNumber = memref::LoadOp::create(
      builder, loc, host, constantIndex(builder, loc, kNumberWord));
  freeResultsIfFailed(builder, loc, func, ret, failedNumber);
  for (auto [i, original] : llvm::enumerate(assertions)) {
    AssertOp assertion = original;
    Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                     failedNumber,
                                     constantI64(builder, loc, int64_t(i) + 1));
    SmallVector<Value> values;
    for (int64_t v = 0, e = assertion.getValues().size(); v < e; ++v)
      values.push_back(memref::LoadOp::create(
          builder, loc, host,
          constantIndex(builder, loc, kFirstValueWord + v)));
    AssertOp::create(builder, assertion.getLoc(), ok, assertion.getStatus(),
                     assertion.getMessage(), values);
  }
  return success();
}

LogicalResult reportKernelChecks(func::FuncOp func) {
  SmallVector<AssertOp> assertions;
  func.walk([&](AssertOp assertion) {
    if (assertion->getParentOfType<gpu::LaunchOp>())
      assertions.push_back(assertion);
  });
  if (assertions.empty())
    return success();
  int64_t maxValues = 0;
  for (AssertOp assertion : assertions)
    maxValues = std::max<int64_t>(maxValues, assertion.getValues().size());

  OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
  Location loc = func.getLoc();
  auto type =
      MemRefType::get({kFirstValueWord + maxValues}, builder.getI64Type());
  Value words = gpu::AllocOp::create(builder, loc, type, Type(), ValueRange(),
                                     ValueRange(), ValueRange(),
                                     /*hostShared=*/false)
                    .getMemref();
  Value zeros = createZeroedHostWords(builder, loc, type);
  gpu::MemcpyOp::create(builder, loc, TypeRange(), ValueRange(), words, zeros);

  // The host assertions keep each kernel assertion's message and status.
  SmallVector<func::ReturnOp> returns;
  func.walk([&](func::ReturnOp ret) { returns.push_back(ret); });
  for (func::ReturnOp ret : returns)
    if (failed(reportBeforeReturn(func, ret, words, assertions)))
      return failure();
  for (auto [i, assertion] : llvm::enumerate(assertions))
    recordInKernel(assertion, int64_t(i) + 1, words);
  return success();
}

struct DLPackReportKernelChecksPass
    : public dlbridge::dlpack::impl::DLPackReportKernelChecksBase<
          DLPackReportKernelChecksPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(reportKernelChecks(func)))
        return signalPassFailure();
  }
};

} // namespace
