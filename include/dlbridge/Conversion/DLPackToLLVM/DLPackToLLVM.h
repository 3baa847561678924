//===- DLPackToLLVM.h - Lower the dlpack dialect to LLVM --------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_CONVERSION_DLPACKTOLLVM_DLPACKTOLLVM_H
#define DLBRIDGE_CONVERSION_DLPACKTOLLVM_DLPACKTOLLVM_H

namespace mlir {
class DialectRegistry;
class LLVMTypeConverter;
class RewritePatternSet;
} // namespace mlir

namespace dlbridge {

/// Adds the conversions of `!dlpack.tensor`, `!dlpack.managed` and
/// `!dlpack.context` to `!llvm.ptr` to `converter`.
void populateDLPackToLLVMTypeConversions(mlir::LLVMTypeConverter &converter);

/// Adds the patterns lowering every dlpack op to the LLVM dialect and calls
/// into libdlrt, and the type conversions they need (see
/// populateDLPackToLLVMTypeConversions).
void populateDLPackToLLVMConversionPatterns(mlir::LLVMTypeConverter &converter,
                                            mlir::RewritePatternSet &patterns);

/// Attaches a ConvertToLLVMPatternInterface to the dlpack dialect, so that
/// the upstream `--convert-to-llvm` lowers dlpack ops too.
void registerConvertDLPackToLLVMInterface(mlir::DialectRegistry &registry);

} // namespace dlbridge

#endif // DLBRIDGE_CONVERSION_DLPACKTOLLVM_DLPACKTOLLVM_H
