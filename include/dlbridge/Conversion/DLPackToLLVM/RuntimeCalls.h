//===- RuntimeCalls.h - Typed calls into libdlrt ----------------*- C++ -*-===//
//
// Part of dlbridge. The one table of the libdlrt functions generated code
// calls (RuntimeCalls.def), as upstream's FunctionCallBuilder is for the
// mgpu* functions: every pass that emits a call declares the callee from
// here, so no two emitters can disagree on a signature.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_CONVERSION_DLPACKTOLLVM_RUNTIMECALLS_H
#define DLBRIDGE_CONVERSION_DLPACKTOLLVM_RUNTIMECALLS_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace dlbridge {

/// A libdlrt function that generated code calls.
enum class RuntimeFunction {
#define DLRT_FUNCTION(ENUMERATOR, NAME, RESULT, PARAMS) ENUMERATOR,
#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.def"
};

/// The C name of `function`.
llvm::StringRef getRuntimeFunctionName(RuntimeFunction function);

/// The LLVM type of `function`'s C prototype.
mlir::LLVM::LLVMFunctionType getRuntimeFunctionType(mlir::MLIRContext *context,
                                                    RuntimeFunction function);

/// The declaration of `function` in `module`, created at its start unless
/// there is one. Fails, with a diagnostic at the symbol, when `module` has a
/// symbol of that name that is not an `llvm.func` of the table's type.
mlir::FailureOr<mlir::LLVM::LLVMFuncOp>
getOrDeclareRuntimeFunction(mlir::OpBuilder &b, mlir::Operation *module,
                            RuntimeFunction function);

/// Calls `function` with `args` at `b`'s insertion point, at `op`'s
/// location, declaring it in `op`'s module. Fails with a diagnostic at `op`
/// when it is not nested in a module, or as getOrDeclareRuntimeFunction.
mlir::FailureOr<mlir::LLVM::CallOp> createRuntimeCall(mlir::OpBuilder &b,
                                                      mlir::Operation *op,
                                                      RuntimeFunction function,
                                                      mlir::ValueRange args);

} // namespace dlbridge

#endif // DLBRIDGE_CONVERSION_DLPACKTOLLVM_RUNTIMECALLS_H
