//===- RuntimeCalls.cpp - Typed calls into libdlrt ------------------------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace dlbridge;

namespace {

/// The C types of RuntimeCalls.def, by their LLVM types.
enum ABIType { Void, I32, I64, Ptr };

Type getLLVMType(MLIRContext *context, ABIType type) {
  switch (type) {
  case Void:
    return LLVM::LLVMVoidType::get(context);
  case I32:
    return IntegerType::get(context, 32);
  case I64:
    return IntegerType::get(context, 64);
  case Ptr:
    return LLVM::LLVMPointerType::get(context);
  }
  llvm_unreachable("unknown ABI type");
}

} // namespace

/// Spells a parenthesised parameter list of RuntimeCalls.def as a braced one.
#define DLRT_BRACED(...)                                                       \
  { __VA_ARGS__ }

StringRef dlbridge::getRuntimeFunctionName(RuntimeFunction function) {
  switch (function) {
#define DLRT_FUNCTION(ENUMERATOR, NAME, RESULT, PARAMS)                        \
  case RuntimeFunction::ENUMERATOR:                                            \
    return #NAME;
#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.def"
  }
  llvm_unreachable("unknown runtime function");
}

LLVM::LLVMFunctionType
dlbridge::getRuntimeFunctionType(MLIRContext *context,
                                 RuntimeFunction function) {
  auto get = [&](ABIType result, std::initializer_list<ABIType> params) {
    SmallVector<Type> paramTypes;
    for (ABIType param : params)
      paramTypes.push_back(getLLVMType(context, param));
    return LLVM::LLVMFunctionType::get(getLLVMType(context, result),
                                       paramTypes);
  };
  switch (function) {
#define DLRT_FUNCTION(ENUMERATOR, NAME, RESULT, PARAMS)                        \
  case RuntimeFunction::ENUMERATOR:                                            \
    return get(RESULT, DLRT_BRACED PARAMS);
#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.def"
  }
  llvm_unreachable("unknown runtime function");
}

FailureOr<LLVM::LLVMFuncOp>
dlbridge::getOrDeclareRuntimeFunction(OpBuilder &b, Operation *module,
                                      RuntimeFunction function) {
  StringRef name = getRuntimeFunctionName(function);
  LLVM::LLVMFunctionType type =
      getRuntimeFunctionType(module->getContext(), function);
  Operation *existing = SymbolTable::lookupSymbolIn(module, name);
  if (existing && !isa<LLVM::LLVMFuncOp>(existing))
    return existing->emitOpError()
           << "takes the name of the libdlrt function " << type << " @" << name
           << " that generated code calls; rename it";
  return LLVM::lookupOrCreateFn(b, module, name, type.getParams(),
                                type.getReturnType());
}

FailureOr<LLVM::CallOp> dlbridge::createRuntimeCall(OpBuilder &b, Operation *op,
                                                    RuntimeFunction function,
                                                    ValueRange args) {
  auto module = op->getParentOfType<ModuleOp>();
  if (!module)
    return op->emitOpError("must be nested in a module to call ")
           << getRuntimeFunctionName(function);
  FailureOr<LLVM::LLVMFuncOp> callee =
      getOrDeclareRuntimeFunction(b, module, function);
  if (failed(callee))
    return failure();
  return LLVM::CallOp::create(b, op->getLoc(), *callee, args);
}
