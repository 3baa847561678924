//===- ExposeEntryPoints.cpp - DLPack entry points for memref functions ---===//
//
// Part of dlbridge. Generates, for each `dlpack.entry` function, the wrapper
// of the entry-point ABI (see docs/Design.md and dlbridge/Runtime/dlrt.h) and
// its signature record.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/Transforms/Passes.h"

#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"
#include "dlbridge/Dialect/DLPack/IR/DTypeMapping.h"
#include "dlbridge/Dialect/DLPack/Transforms/MemoryAccess.h"
#include "dlbridge/Dialect/DLPack/Transforms/ResultOwnership.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

namespace dlbridge::dlpack {
#define GEN_PASS_DEF_DLPACKEXPOSEENTRYPOINTS
#include "dlbridge/Dialect/DLPack/Transforms/Passes.h.inc"
} // namespace dlbridge::dlpack

using namespace mlir;
using namespace dlbridge;
using namespace dlbridge::dlpack;

namespace {

constexpr StringLiteral kEntrySuffix = "__dlpack";
constexpr StringLiteral kSignatureSuffix = "__dlpack_signature";

bool isScalar(Type type) { return type.isIntOrIndexOrFloat(); }

/// The name of argument or result `index` in messages and records.
std::string getParamName(DictionaryAttr attrs, StringRef prefix,
                         unsigned index) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>(DLPackDialect::kNameAttrName))
      return name.str();
  return (prefix + Twine(index)).str();
}

/// The record of one parameter or result, or failure after a diagnostic on
/// `func` when its type cannot cross the DLPack boundary.
FailureOr<ParamAttr> buildParam(func::FuncOp func, Type type,
                                DictionaryAttr attrs, StringRef what,
                                unsigned index, Access access) {
  auto emitError = [&] {
    return func.emitOpError() << what << " " << index << " of entry @"
                              << func.getSymName() << ": ";
  };
  auto memrefType = dyn_cast<MemRefType>(type);
  if (!memrefType && !isScalar(type))
    return emitError() << "has type " << type
                       << "; a DLPack entry takes and returns memrefs and "
                          "integer, float or index scalars";
  DTypeAttr dtype =
      attrs ? attrs.getAs<DTypeAttr>(DLPackDialect::kDTypeAttrName) : nullptr;
  if (memrefType &&
      failed(verifyBoundaryMemRefType(emitError, memrefType, dtype)))
    return failure();
  return ParamAttr::get(func.getContext(), getParamName(attrs, what, index),
                        type, memrefType ? access : Access::None, dtype);
}

/// Checks that every memref `func` returns is a heap buffer it allocated
/// itself, one per result: ownership of each moves to the caller.
LogicalResult verifyResultsAreOwned(func::FuncOp func) {
  WalkResult walk = func.walk([&](func::ReturnOp ret) {
    for (const ReturnedBuffer &buffer : classifyReturnedBuffers(func, ret)) {
      if (buffer.origin == ResultOrigin::Owned)
        continue;
      InFlightDiagnostic diag =
          ret.emitOpError() << "returns result " << buffer.resultIndex
                            << " of entry @" << func.getSymName() << ", which ";
      switch (buffer.origin) {
      case ResultOrigin::Owned:
        llvm_unreachable("owned results are accepted");
      case ResultOrigin::Argument:
        diag << "is argument "
             << cast<BlockArgument>(buffer.root).getArgNumber()
             << "; entry results must be buffers the function allocates";
        break;
      case ResultOrigin::Borrowed:
        diag << "comes from '" << buffer.root.getDefiningOp()->getName()
             << "'; entry results must be buffers the function allocates";
        break;
      case ResultOrigin::Stack:
        diag << "is allocated on the stack";
        break;
      case ResultOrigin::Shared:
        diag << "shares its buffer with result " << buffer.sharedWith;
        break;
      case ResultOrigin::Unknown:
        if (isa<BlockArgument>(buffer.root))
          diag << "is a block argument";
        else
          diag << "comes from '" << buffer.root.getDefiningOp()->getName()
               << "'";
        diag << "; entry results must be buffers the function allocates";
        break;
      }
      if (isCopyable(buffer.origin))
        diag << " (--dlbridge-own-results returns a copy instead, as the "
                "pipelines do)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Builds the wrapper and signature of one entry function.
class EntryPointBuilder {
public:
  EntryPointBuilder(func::FuncOp func, DeviceType device)
      : func(func), device(device), builder(func.getContext()),
        loc(func.getLoc()) {}

  LogicalResult build();

private:
  LogicalResult buildParams();
  void buildSignature();
  void buildWrapper();
  /// Branches to a new block, where building continues, when `status` is 0,
  /// else to the failure block.
  void continueIfOk(Value status);

  func::FuncOp func;
  DeviceType device;
  OpBuilder builder;
  Location loc;
  SmallVector<ParamAttr> argParams, resultParams;
  Block *failureBlock = nullptr;
  /// The `0 : i32` of the success status, in the wrapper's entry block.
  Value zero;
};

LogicalResult EntryPointBuilder::buildParams() {
  FunctionType type = func.getFunctionType();
  for (auto [index, argType] : llvm::enumerate(type.getInputs())) {
    FailureOr<ParamAttr> param =
        buildParam(func, argType, func.getArgAttrDict(index), "arg", index,
                   getMemoryAccess(func.getArgument(index)));
    if (failed(param))
      return failure();
    argParams.push_back(*param);
  }
  for (auto [index, resultType] : llvm::enumerate(type.getResults())) {
    FailureOr<ParamAttr> param =
        buildParam(func, resultType, func.getResultAttrDict(index), "result",
                   index, Access::ReadWrite);
    if (failed(param))
      return failure();
    resultParams.push_back(*param);
  }
  return success();
}

void EntryPointBuilder::buildSignature() {
  builder.setInsertionPointAfter(func);
  SmallVector<Attribute> args(argParams.begin(), argParams.end());
  SmallVector<Attribute> results(resultParams.begin(), resultParams.end());
  SignatureOp::create(
      builder, loc, builder.getStringAttr(func.getSymName() + kSignatureSuffix),
      FlatSymbolRefAttr::get(func), DeviceAttr::get(func.getContext(), device),
      builder.getArrayAttr(args), builder.getArrayAttr(results));
}

void EntryPointBuilder::continueIfOk(Value status) {
  Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                   status, zero);
  Block *next = builder.createBlock(failureBlock);
  builder.setInsertionPointToEnd(ok.getParentBlock());
  cf::CondBranchOp::create(builder, loc, ok, next, ValueRange(), failureBlock,
                           ValueRange(status));
  builder.setInsertionPointToStart(next);
}

void EntryPointBuilder::buildWrapper() {
  MLIRContext *context = func.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto tensorType = dlpack::TensorType::get(context);
  auto managedType = ManagedType::get(context);
  Type i32 = builder.getI32Type();

  builder.setInsertionPointAfter(func);
  auto wrapper = func::FuncOp::create(
      builder, loc, (func.getSymName() + kEntrySuffix).str(),
      builder.getFunctionType({ptrType, ptrType, ContextType::get(context)},
                              {i32}));
  Block *entry = wrapper.addEntryBlock();
  Value args = entry->getArgument(0), results = entry->getArgument(1),
        ctx = entry->getArgument(2);
  failureBlock = builder.createBlock(&wrapper.getBody(), {}, {i32}, {loc});
  func::ReturnOp::create(builder, loc, failureBlock->getArgument(0));

  // Check every tensor before touching any: a call either runs on inputs
  // that all passed or does not run.
  builder.setInsertionPointToStart(entry);
  zero = arith::ConstantIntOp::create(builder, loc, 0, 32);
  SmallVector<Value> tensors(argParams.size());
  for (auto [index, param] : llvm::enumerate(argParams)) {
    if (!param.getMemRefType())
      continue;
    tensors[index] = LoadArgOp::create(builder, loc, tensorType, args, index);
    continueIfOk(
        CheckOp::create(builder, loc, i32, tensors[index], ctx, index, param));
  }
  SmallVector<Value> callArgs;
  for (auto [index, param] : llvm::enumerate(argParams)) {
    if (MemRefType memrefType = param.getMemRefType())
      callArgs.push_back(
          UnpackOp::create(builder, loc, memrefType, tensors[index]));
    else
      callArgs.push_back(
          LoadArgOp::create(builder, loc, param.getType(), args, index));
  }
  CallBeginOp::create(builder, loc, ctx);
  auto call = func::CallOp::create(builder, loc, func, callArgs);
  // Device calls learn of failed launches and allocations when the call
  // ends (dlrt_call_end records them in ctx): read the status after it.
  bool statusAfterEnd = device != DeviceType::CPU;
  // A failed check returns early from the function with poison results
  // (--dlbridge-lower-assertions): they are never packed.
  if (statusAfterEnd) {
    CallEndOp::create(builder, loc, ctx);
    continueIfOk(StatusOp::create(builder, loc, i32, ctx));
  } else {
    Value status = StatusOp::create(builder, loc, i32, ctx);
    Block *endBlock = builder.createBlock(failureBlock, {i32}, {loc});
    CallEndOp::create(builder, loc, ctx);
    cf::BranchOp::create(builder, loc, failureBlock, endBlock->getArgument(0));
    Block *callBlock = status.getParentBlock();
    Block *next = builder.createBlock(failureBlock);
    builder.setInsertionPointToEnd(callBlock);
    Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                     status, zero);
    cf::CondBranchOp::create(builder, loc, ok, next, ValueRange(), endBlock,
                             ValueRange(status));
    builder.setInsertionPointToStart(next);
  }

  // Pack every memref result, then either hand all of them out or, when one
  // failed, release the others: the caller never owns half a result list.
  SmallVector<Value> outputs;
  SmallVector<Value> packed;
  for (auto [param, result] : llvm::zip(resultParams, call.getResults())) {
    if (!param.getMemRefType()) {
      outputs.push_back(result);
      continue;
    }
    auto pack = PackOp::create(builder, loc, managedType, result, ctx,
                               builder.getStringAttr(param.getName()),
                               param.getDtype());
    outputs.push_back(pack);
    packed.push_back(pack);
  }
  if (packed.empty() && !statusAfterEnd) {
    CallEndOp::create(builder, loc, ctx);
  } else if (!packed.empty()) {
    Value status = StatusOp::create(builder, loc, i32, ctx);
    if (!statusAfterEnd)
      CallEndOp::create(builder, loc, ctx);
    Block *storeBlock = builder.getInsertionBlock();
    Block *releaseBlock = builder.createBlock(failureBlock, {i32}, {loc});
    for (Value tensor : packed)
      ReleaseOp::create(builder, loc, tensor);
    cf::BranchOp::create(builder, loc, failureBlock,
                         releaseBlock->getArgument(0));
    builder.setInsertionPointToEnd(storeBlock);
    Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                     status, zero);
    Block *next = builder.createBlock(failureBlock);
    builder.setInsertionPointToEnd(storeBlock);
    cf::CondBranchOp::create(builder, loc, ok, next, ValueRange(), releaseBlock,
                             ValueRange(status));
    builder.setInsertionPointToStart(next);
  }
  for (auto [index, output] : llvm::enumerate(outputs))
    StoreResultOp::create(builder, loc, output, results, index);
  func::ReturnOp::create(builder, loc, zero);
}

LogicalResult EntryPointBuilder::build() {
  if (func.isExternal())
    return func.emitOpError() << "is marked '" << DLPackDialect::kEntryAttrName
                              << "' but has no body to call";
  auto module = func->getParentOfType<ModuleOp>();
  for (StringLiteral suffix : {kEntrySuffix, kSignatureSuffix}) {
    std::string name = (func.getSymName() + suffix).str();
    if (SymbolTable::lookupSymbolIn(module, name))
      return func.emitOpError()
             << "cannot be exposed: symbol @" << name << " already exists";
  }
  if (failed(buildParams()) || failed(verifyResultsAreOwned(func)))
    return failure();
  buildSignature();
  buildWrapper();
  // The signature record holds names and dtypes now; the function keeps
  // none of the dialect's attributes, which later lowerings would not
  // understand.
  func->removeAttr(DLPackDialect::kEntryAttrName);
  for (StringRef name :
       {DLPackDialect::kNameAttrName, DLPackDialect::kDTypeAttrName}) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      func.removeArgAttr(i, name);
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      func.removeResultAttr(i, StringAttr::get(func.getContext(), name));
  }
  return success();
}

struct DLPackExposeEntryPointsPass
    : public dlbridge::dlpack::impl::DLPackExposeEntryPointsBase<
          DLPackExposeEntryPointsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<DeviceType> deviceType = symbolizeDeviceType(device);
    if (!deviceType) {
      getOperation().emitError() << "dlbridge-expose-entry-points: unknown "
                                    "device '"
                                 << device << "'";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> entries;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(DLPackDialect::kEntryAttrName))
        entries.push_back(func);
    for (func::FuncOp func : entries)
      if (failed(EntryPointBuilder(func, *deviceType).build()))
        return signalPassFailure();
  }
};

} // namespace
