//===- DLPackABI.h - DLPack and libdlrt structs as LLVM types ---*- C++ -*-===//
//
// Part of dlbridge. The entry ABI's layout: the C structs generated code
// reads and writes, as LLVM dialect struct types, the indices of their
// fields, and the builders of the constant records (dlrt_param_desc,
// dlrt_signature) that describe an entry's parameters to the runtime. The
// layouts must be exactly those of DLPack 1.3's dlpack.h and of
// dlbridge/Runtime/dlrt.h; unittests/Conversion/DLPackABITest.cpp checks
// every field's offset against the C declarations.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_CONVERSION_DLPACKTOLLVM_DLPACKABI_H
#define DLBRIDGE_CONVERSION_DLPACKTOLLVM_DLPACKABI_H

#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace dlbridge::dlpack_abi {

/// `DLDevice { int32_t device_type; int32_t device_id; }`.
enum DLDeviceField : int32_t {
  kDLDeviceType = 0,
  kDLDeviceId = 1,
};

/// `DLDataType { uint8_t code; uint8_t bits; uint16_t lanes; }`.
enum DLDataTypeField : int32_t {
  kDLDataTypeCode = 0,
  kDLDataTypeBits = 1,
  kDLDataTypeLanes = 2,
};

/// `DLTensor`.
enum DLTensorField : int32_t {
  kDLTensorData = 0,       ///< void *data
  kDLTensorDevice = 1,     ///< DLDevice device
  kDLTensorNDim = 2,       ///< int32_t ndim
  kDLTensorDType = 3,      ///< DLDataType dtype
  kDLTensorShape = 4,      ///< int64_t *shape
  kDLTensorStrides = 5,    ///< int64_t *strides
  kDLTensorByteOffset = 6, ///< uint64_t byte_offset
};

/// `DLManagedTensorVersioned`.
enum DLManagedTensorVersionedField : int32_t {
  kManagedVersion = 0,    ///< DLPackVersion version {uint32 major, minor}
  kManagedManagerCtx = 1, ///< void *manager_ctx
  kManagedDeleter = 2,    ///< void (*deleter)(DLManagedTensorVersioned *)
  kManagedFlags = 3,      ///< uint64_t flags
  kManagedDLTensor = 4,   ///< DLTensor dl_tensor
};

/// `dlrt_param_desc` of dlrt.h.
enum ParamDescField : int32_t {
  kParamName = 0,     ///< const char *name
  kParamKind = 1,     ///< int32_t kind (dlrt_param_kind)
  kParamLayout = 2,   ///< int32_t layout (dlrt_layout)
  kParamAccess = 3,   ///< int32_t access (dlrt_access)
  kParamRank = 4,     ///< int32_t rank
  kParamDType = 5,    ///< DLDataType dtype
  kParamReserved = 6, ///< int32_t reserved
  kParamShape = 7,    ///< const int64_t *shape
  kParamStrides = 8,  ///< const int64_t *strides
  kParamOffset = 9,   ///< int64_t offset
};

/// `dlrt_signature` of dlrt.h.
enum SignatureField : int32_t {
  kSignatureName = 0,       ///< const char *name
  kSignatureDeviceType = 1, ///< int32_t device_type
  kSignatureNumArgs = 2,    ///< int32_t num_args
  kSignatureNumResults = 3, ///< int32_t num_results
  kSignatureReserved = 4,   ///< int32_t reserved
  kSignatureArgs = 5,       ///< const dlrt_param_desc *args
  kSignatureResults = 6,    ///< const dlrt_param_desc *results
};

/// Values of dlrt.h's enums, written into parameter records.
enum ParamKind : int32_t { kParamKindTensor = 0, kParamKindScalar = 1 };
enum Layout : int32_t { kLayoutIdentity = 0, kLayoutStrided = 1 };

/// DLRT_DYNAMIC: a dynamic size, stride or offset in a parameter record.
constexpr int64_t kDynamic = INT64_MIN;

/// `!llvm.struct<(i32, i32)>`.
mlir::LLVM::LLVMStructType getDLDeviceType(mlir::MLIRContext *context);
/// `!llvm.struct<(i8, i8, i16)>`.
mlir::LLVM::LLVMStructType getDLDataTypeType(mlir::MLIRContext *context);
/// `!llvm.struct<(ptr, struct<(i32, i32)>, i32, struct<(i8, i8, i16)>, ptr,
/// ptr, i64)>`.
mlir::LLVM::LLVMStructType getDLTensorType(mlir::MLIRContext *context);
/// `!llvm.struct<(i32, i32)>`.
mlir::LLVM::LLVMStructType getDLPackVersionType(mlir::MLIRContext *context);
/// `!llvm.struct<(struct<(i32, i32)>, ptr, ptr, i64, <DLTensor>)>`.
mlir::LLVM::LLVMStructType
getDLManagedTensorVersionedType(mlir::MLIRContext *context);
/// `!llvm.struct<(ptr, i32, i32, i32, i32, struct<(i8, i8, i16)>, i32, ptr,
/// ptr, i64)>`.
mlir::LLVM::LLVMStructType getParamDescType(mlir::MLIRContext *context);
/// `!llvm.struct<(ptr, i32, i32, i32, i32, ptr, ptr)>`.
mlir::LLVM::LLVMStructType getSignatureType(mlir::MLIRContext *context);

/// The address of `field` of the DLTensor `tensor` points to.
mlir::Value getDLTensorFieldPtr(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value tensor, DLTensorField field);
/// Loads `field`, of the field's type, of the DLTensor `tensor` points to.
mlir::Value loadDLTensorField(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value tensor, DLTensorField field);
/// Loads `field` of the device of the DLTensor `tensor` points to.
mlir::Value loadDLTensorDeviceField(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value tensor, DLDeviceField field);

/// The `dlrt_param_desc` global describing `param` in `op`'s module, one per
/// distinct record and module, created at the module's end with the globals
/// it points to. Fails, with a diagnostic at `op`, when the runtime cannot
/// describe `param` or `op` is not nested in a module.
mlir::FailureOr<mlir::LLVM::GlobalOp>
getOrCreateParamDesc(mlir::OpBuilder &b, mlir::Operation *op,
                     dlpack::ParamAttr param);

/// Creates, at `b`'s insertion point, the external `dlrt_signature` global
/// `symbol` of the entry that calls `function` on `device`, pointing to the
/// private arrays `<symbol>_args` and `<symbol>_results` of the
/// `dlrt_param_desc` records of `args` and `results` (dlpack::ParamAttr).
/// Fails, with a diagnostic at `loc`, when a parameter cannot be described.
mlir::LogicalResult
createSignature(mlir::OpBuilder &b, mlir::Location loc, mlir::ModuleOp module,
                llvm::StringRef symbol, llvm::StringRef function,
                dlpack::DeviceType device, mlir::ArrayAttr args,
                mlir::ArrayAttr results);

} // namespace dlbridge::dlpack_abi

#endif // DLBRIDGE_CONVERSION_DLPACKTOLLVM_DLPACKABI_H
