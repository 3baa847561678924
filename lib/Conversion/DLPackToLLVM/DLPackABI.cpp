//===- DLPackABI.cpp - DLPack and libdlrt structs as LLVM types -----------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Conversion/DLPackToLLVM/DLPackABI.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace dlbridge::dlpack_abi {

static Type i8(MLIRContext *context) { return IntegerType::get(context, 8); }
static Type i16(MLIRContext *context) { return IntegerType::get(context, 16); }
static Type i32(MLIRContext *context) { return IntegerType::get(context, 32); }
static Type i64(MLIRContext *context) { return IntegerType::get(context, 64); }
static Type ptr(MLIRContext *context) {
  return LLVM::LLVMPointerType::get(context);
}

LLVM::LLVMStructType getDLDeviceType(MLIRContext *context) {
  return LLVM::LLVMStructType::getLiteral(context, {i32(context), i32(context)});
}

LLVM::LLVMStructType getDLDataTypeType(MLIRContext *context) {
  return LLVM::LLVMStructType::getLiteral(
      context, {i8(context), i8(context), i16(context)});
}

LLVM::LLVMStructType getDLTensorType(MLIRContext *context) {
  return LLVM::LLVMStructType::getLiteral(
      context, {ptr(context), getDLDeviceType(context), i32(context),
                getDLDataTypeType(context), ptr(context), ptr(context),
                i64(context)});
}

LLVM::LLVMStructType getDLPackVersionType(MLIRContext *context) {
  return LLVM::LLVMStructType::getLiteral(context, {i32(context), i32(context)});
}

LLVM::LLVMStructType getDLManagedTensorVersionedType(MLIRContext *context) {
  return LLVM::LLVMStructType::getLiteral(
      context, {getDLPackVersionType(context), ptr(context), ptr(context),
                i64(context), getDLTensorType(context)});
}

LLVM::LLVMStructType getParamDescType(MLIRContext *context) {
  return LLVM::LLVMStructType::getLiteral(
      context, {ptr(context), i32(context), i32(context), i32(context),
                i32(context), getDLDataTypeType(context), i32(context),
                ptr(context), ptr(context), i64(context)});
}

LLVM::LLVMStructType getSignatureType(MLIRContext *context) {
  return LLVM::LLVMStructType::getLiteral(
      context, {ptr(context), i32(context), i32(context), i32(context),
                i32(context), ptr(context), ptr(context)});
}

} // namespace dlbridge::dlpack_abi
