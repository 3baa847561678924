//===- LowerAssertions.cpp - Failed checks end the call with a status -----===//
//
// Part of dlbridge. Lowers `dlpack.assert` (and upstream `cf.assert`) in host
// functions to a branch that records the failure in the call's context
// (dlrt_check_failed) and returns early, and makes callers of functions that
// may return so return early too.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

#include "CheckMessages.h"
#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.h"
#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKLOWERASSERTIONS
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;
using namespace dlbridge;
using namespace dlbridge::dlpack;

namespace {

/// Whether `func` is an entry wrapper (it takes the call context), which
/// reads the call's status itself.
bool isEntryWrapper(func::FuncOp func) {
  return llvm::any_of(func.getArgumentTypes(),
                      [](Type type) { return isa<ContextType>(type); });
}

/// Lowers the assertions of one module.
class AssertionLowering {
public:
  explicit AssertionLowering(ModuleOp module)
      : module(module), builder(module.getContext()) {}

  LogicalResult run();

private:
  /// The host functions whose bodies the pass rewrites.
  SmallVector<func::FuncOp> getHostFunctions();
  void convertUpstreamAsserts(func::FuncOp func);
  /// The block returning poison from `func`, created on first use.
  Block *getEarlyReturn(func::FuncOp func);
  /// Branches to `failure` unless `ok`, continuing after `op` in a new
  /// block.
  void branchUnless(Operation *op, Value ok, Block *failure);
  LogicalResult lowerAssert(AssertOp op);
  LogicalResult propagateAfterCall(func::CallOp call);
  Value getMessage(Location loc, StringRef text);

  ModuleOp module;
  OpBuilder builder;
  DenseMap<Operation *, Block *> earlyReturns;
};

SmallVector<func::FuncOp> AssertionLowering::getHostFunctions() {
  SmallVector<func::FuncOp> functions;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && !isEntryWrapper(func))
      functions.push_back(func);
  return functions;
}

void AssertionLowering::convertUpstreamAsserts(func::FuncOp func) {
  SmallVector<cf::AssertOp> asserts;
  func.walk([&](cf::AssertOp op) { asserts.push_back(op); });
  for (cf::AssertOp op : asserts) {
    builder.setInsertionPoint(op);
    AssertOp::create(builder, op.getLoc(), op.getArg(),
                     FailureStatus::ShapeMismatch, escapeBraces(op.getMsg()),
                     ValueRange());
    op.erase();
  }
}

Block *AssertionLowering::getEarlyReturn(func::FuncOp func) {
  Block *&block = earlyReturns[func];
  if (block)
    return block;
  OpBuilder::InsertionGuard guard(builder);
  block = builder.createBlock(&func.getBody(), func.getBody().end());
  SmallVector<Value> poison;
  for (Type type : func.getResultTypes())
    poison.push_back(ub::PoisonOp::create(builder, func.getLoc(), type));
  func::ReturnOp::create(builder, func.getLoc(), poison);
  return block;
}

void AssertionLowering::branchUnless(Operation *op, Value ok, Block *failure) {
  Block *before = op->getBlock();
  Block *after = before->splitBlock(op->getNextNode());
  builder.setInsertionPointToEnd(before);
  cf::CondBranchOp::create(builder, op->getLoc(), ok, after, ValueRange(),
                           failure, ValueRange());
}

/// The message of `op`, followed by " at <name>" when its location is named
/// (@jit names a check by the user's Python line: `loc("f.py:3: y = a +
/// b"(...))`), with the name's braces escaped from the message's placeholders.
static std::string messageWithSource(AssertOp op) {
  std::string text = op.getMessage().str();
  auto named = dyn_cast<NameLoc>(op.getLoc());
  if (!named)
    return text;
  text += " at ";
  for (char c : named.getName().strref()) {
    if (c == '{' || c == '}')
      text.push_back(c);
    text.push_back(c);
  }
  return text;
}

Value AssertionLowering::getMessage(Location loc, StringRef text) {
  std::string name;
  llvm::raw_string_ostream(name)
      << "__dlpack_assert_message_"
      << llvm::format_hex_no_prefix(llvm::xxh3_64bits(text), 16);
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  if (!global) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    std::string bytes = text.str();
    bytes.push_back('\0');
    auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), bytes.size());
    global = LLVM::GlobalOp::create(builder, loc, type, /*isConstant=*/true,
                                    LLVM::Linkage::Private, name,
                                    builder.getStringAttr(bytes));
  }
  return LLVM::AddressOfOp::create(builder, loc, global);
}

LogicalResult AssertionLowering::lowerAssert(AssertOp op) {
  auto func = op->getParentOfType<func::FuncOp>();
  Location loc = op.getLoc();
  MLIRContext *context = module.getContext();
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type();
  auto ptrType = LLVM::LLVMPointerType::get(context);

  // The failure block: record, then return through the shared exit.
  OpBuilder::InsertionGuard guard(builder);
  Block *failureBlock = builder.createBlock(getEarlyReturn(func));
  SmallVector<Value> values;
  for (Value value : op.getValues()) {
    if (value.getType().isIndex())
      values.push_back(arith::IndexCastOp::create(builder, loc, i64, value));
    else if (value.getType().isInteger(1))
      values.push_back(arith::ExtUIOp::create(builder, loc, i64, value));
    else if (value.getType().getIntOrFloatBitWidth() < 64)
      values.push_back(arith::ExtSIOp::create(builder, loc, i64, value));
    else if (value.getType().getIntOrFloatBitWidth() > 64)
      values.push_back(arith::TruncIOp::create(builder, loc, i64, value));
    else
      values.push_back(value);
  }
  Value array = LLVM::ZeroOp::create(builder, loc, ptrType);
  if (!values.empty()) {
    Value one = LLVM::ConstantOp::create(builder, loc, i64,
                                         builder.getI64IntegerAttr(1));
    auto arrayType = LLVM::LLVMArrayType::get(i64, values.size());
    array = LLVM::AllocaOp::create(builder, loc, ptrType, arrayType, one);
    for (auto [index, value] : llvm::enumerate(values)) {
      Value slot = LLVM::GEPOp::create(
          builder, loc, ptrType, arrayType, array,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(index)},
          LLVM::GEPNoWrapFlags::inbounds);
      LLVM::StoreOp::create(builder, loc, value, slot);
    }
  }
  Value status = LLVM::ConstantOp::create(
      builder, loc, i32,
      builder.getI32IntegerAttr(static_cast<int32_t>(op.getStatus())));
  Value count = LLVM::ConstantOp::create(
      builder, loc, i32, builder.getI32IntegerAttr(values.size()));
  if (failed(createRuntimeCall(
          builder, op, RuntimeFunction::CheckFailed,
          {status, getMessage(loc, messageWithSource(op)), count, array})))
    return failure();
  cf::BranchOp::create(builder, loc, getEarlyReturn(func));

  branchUnless(op, op.getCondition(), failureBlock);
  op.erase();
  return success();
}

LogicalResult AssertionLowering::propagateAfterCall(func::CallOp call) {
  auto func = call->getParentOfType<func::FuncOp>();
  Location loc = call.getLoc();
  builder.setInsertionPointAfter(call);
  FailureOr<LLVM::CallOp> callStatus = createRuntimeCall(
      builder, call, RuntimeFunction::CallStatus, ValueRange());
  if (failed(callStatus))
    return failure();
  Value status = callStatus->getResult();
  Value zero = arith::ConstantIntOp::create(builder, loc, 0, 32);
  Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                   status, zero);
  branchUnless(ok.getDefiningOp(), ok, getEarlyReturn(func));
  return success();
}

LogicalResult AssertionLowering::run() {
  SmallVector<func::FuncOp> functions = getHostFunctions();
  for (func::FuncOp func : functions)
    convertUpstreamAsserts(func);

  // Functions that may return early: those with assertions, then their
  // callers, to a fixed point.
  DenseSet<StringRef> mayFail;
  llvm::MapVector<Operation *, SmallVector<AssertOp>> assertsOf;
  for (func::FuncOp func : functions) {
    WalkResult walk =
        func.walk([&](AssertOp op) {
          assertsOf[func].push_back(op);
          if (op->getParentRegion() != &func.getBody()) {
            op.emitOpError()
                << "inside '" << op->getParentOp()->getName()
                << "' cannot return early from its function; lower structured "
                   "control flow first (convert-scf-to-cf)";
            return WalkResult::interrupt();
          }
          return WalkResult::advance();
        });
    if (walk.wasInterrupted())
      return failure();
    if (assertsOf.contains(func))
      mayFail.insert(func.getSymName());
  }
  SmallVector<func::CallOp> propagating;
  for (bool changed = true; changed;) {
    changed = false;
    propagating.clear();
    for (func::FuncOp func : functions) {
      func.walk([&](func::CallOp call) {
        if (mayFail.contains(call.getCallee()))
          propagating.push_back(call);
      });
    }
    for (func::CallOp call : propagating) {
      auto caller = call->getParentOfType<func::FuncOp>();
      if (mayFail.insert(caller.getSymName()).second)
        changed = true;
    }
  }
  for (func::CallOp call : propagating) {
    if (call->getParentRegion() !=
        &call->getParentOfType<func::FuncOp>().getBody())
      return call.emitOpError()
             << "calls @" << call.getCallee()
             << ", which may return early, inside '"
             << call->getParentOp()->getName()
             << "'; lower structured control flow first (convert-scf-to-cf)";
  }

  for (auto &[func, asserts] : assertsOf)
    for (AssertOp op : asserts)
      if (failed(lowerAssert(op)))
        return failure();
  for (func::CallOp call : propagating)
    if (failed(propagateAfterCall(call)))
      return failure();
  return success();
}

struct DLPackLowerAssertionsPass
    : public dlbridge::dlpack::impl::DLPackLowerAssertionsBase<
          DLPackLowerAssertionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(AssertionLowering(getOperation()).run()))
      signalPassFailure();
  }
};

} // namespace
