//===- DLPackABITest.cpp - LLVM struct types against dlpack.h and dlrt.h --===//
//
// Part of dlbridge. The lowering addresses DLPack's and libdlrt's structs by
// field index on the LLVM struct types of DLPackABI.h; these tests lay those
// types out with the host's LLVM DataLayout (what the JIT compiles for) and
// compare every field's offset, and each struct's size and alignment, with
// what the C compiler says about the real declarations.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Conversion/DLPackToLLVM/DLPackABI.h"
#include "dlbridge/Dialect/DLPack/IR/DLPackDialect.h"
#include "dlbridge/Runtime/dlrt.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/TypeToLLVM.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <cstddef>
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>
#include <memory>

using namespace dlbridge;

namespace {

class DLPackABITest : public ::testing::Test {
protected:
  void SetUp() override {
    context.loadDialect<mlir::LLVM::LLVMDialect, dlpack::DLPackDialect>();
    llvm::InitializeNativeTarget();
    llvm::Triple triple(llvm::sys::getProcessTriple());
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    ASSERT_NE(target, nullptr) << error;
    std::unique_ptr<llvm::TargetMachine> machine(
        target->createTargetMachine(triple, llvm::sys::getHostCPUName(), "",
                                    llvm::TargetOptions(), std::nullopt));
    ASSERT_NE(machine, nullptr);
    dataLayout =
        std::make_unique<llvm::DataLayout>(machine->createDataLayout());
  }

  /// The layout of `type` under the host's data layout.
  const llvm::StructLayout *layout(mlir::LLVM::LLVMStructType type) {
    auto *llvmType =
        llvm::cast<llvm::StructType>(translator.translateType(type));
    return dataLayout->getStructLayout(llvmType);
  }

  uint64_t sizeOf(mlir::LLVM::LLVMStructType type) {
    return dataLayout->getTypeAllocSize(translator.translateType(type));
  }

  uint64_t alignOf(mlir::LLVM::LLVMStructType type) {
    return dataLayout->getABITypeAlign(translator.translateType(type)).value();
  }

  mlir::MLIRContext context;
  llvm::LLVMContext llvmContext;
  mlir::LLVM::TypeToLLVMIRTranslator translator{llvmContext};
  std::unique_ptr<llvm::DataLayout> dataLayout;
};

#define EXPECT_FIELD(LAYOUT, INDEX, CTYPE, FIELD)                              \
  EXPECT_EQ((LAYOUT)->getElementOffset(INDEX), offsetof(CTYPE, FIELD))         \
      << #CTYPE "." #FIELD

#define EXPECT_SIZE_AND_ALIGN(TYPE, CTYPE)                                     \
  do {                                                                         \
    EXPECT_EQ(sizeOf(TYPE), sizeof(CTYPE)) << "sizeof(" #CTYPE ")";            \
    EXPECT_EQ(alignOf(TYPE), alignof(CTYPE)) << "alignof(" #CTYPE ")";         \
  } while (false)

TEST_F(DLPackABITest, DLDevice) {
  auto type = dlpack_abi::getDLDeviceType(&context);
  const llvm::StructLayout *l = layout(type);
  EXPECT_FIELD(l, dlpack_abi::kDLDeviceType, DLDevice, device_type);
  EXPECT_FIELD(l, dlpack_abi::kDLDeviceId, DLDevice, device_id);
  EXPECT_SIZE_AND_ALIGN(type, DLDevice);
}

TEST_F(DLPackABITest, DLDataType) {
  auto type = dlpack_abi::getDLDataTypeType(&context);
  const llvm::StructLayout *l = layout(type);
  EXPECT_FIELD(l, dlpack_abi::kDLDataTypeCode, DLDataType, code);
  EXPECT_FIELD(l, dlpack_abi::kDLDataTypeBits, DLDataType, bits);
  EXPECT_FIELD(l, dlpack_abi::kDLDataTypeLanes, DLDataType, lanes);
  EXPECT_SIZE_AND_ALIGN(type, DLDataType);
}

TEST_F(DLPackABITest, DLTensor) {
  auto type = dlpack_abi::getDLTensorType(&context);
  const llvm::StructLayout *l = layout(type);
  EXPECT_FIELD(l, dlpack_abi::kDLTensorData, DLTensor, data);
  EXPECT_FIELD(l, dlpack_abi::kDLTensorDevice, DLTensor, device);
  EXPECT_FIELD(l, dlpack_abi::kDLTensorNDim, DLTensor, ndim);
  EXPECT_FIELD(l, dlpack_abi::kDLTensorDType, DLTensor, dtype);
  EXPECT_FIELD(l, dlpack_abi::kDLTensorShape, DLTensor, shape);
  EXPECT_FIELD(l, dlpack_abi::kDLTensorStrides, DLTensor, strides);
  EXPECT_FIELD(l, dlpack_abi::kDLTensorByteOffset, DLTensor, byte_offset);
  EXPECT_SIZE_AND_ALIGN(type, DLTensor);
  // The nested DLDevice fields the lowering of dlpack.device reaches with a
  // three-index GEP.
  EXPECT_EQ(l->getElementOffset(dlpack_abi::kDLTensorDevice) +
                layout(dlpack_abi::getDLDeviceType(&context))
                    ->getElementOffset(dlpack_abi::kDLDeviceId),
            offsetof(DLTensor, device) + offsetof(DLDevice, device_id));
}

TEST_F(DLPackABITest, DLManagedTensorVersioned) {
  auto version = dlpack_abi::getDLPackVersionType(&context);
  const llvm::StructLayout *v = layout(version);
  EXPECT_EQ(v->getElementOffset(0), offsetof(DLPackVersion, major));
  EXPECT_EQ(v->getElementOffset(1), offsetof(DLPackVersion, minor));
  EXPECT_SIZE_AND_ALIGN(version, DLPackVersion);

  auto type = dlpack_abi::getDLManagedTensorVersionedType(&context);
  const llvm::StructLayout *l = layout(type);
  EXPECT_FIELD(l, dlpack_abi::kManagedVersion, DLManagedTensorVersioned,
               version);
  EXPECT_FIELD(l, dlpack_abi::kManagedManagerCtx, DLManagedTensorVersioned,
               manager_ctx);
  EXPECT_FIELD(l, dlpack_abi::kManagedDeleter, DLManagedTensorVersioned,
               deleter);
  EXPECT_FIELD(l, dlpack_abi::kManagedFlags, DLManagedTensorVersioned, flags);
  EXPECT_FIELD(l, dlpack_abi::kManagedDLTensor, DLManagedTensorVersioned,
               dl_tensor);
  EXPECT_SIZE_AND_ALIGN(type, DLManagedTensorVersioned);
}

TEST_F(DLPackABITest, ParamDesc) {
  auto type = dlpack_abi::getParamDescType(&context);
  const llvm::StructLayout *l = layout(type);
  EXPECT_FIELD(l, dlpack_abi::kParamName, dlrt_param_desc, name);
  EXPECT_FIELD(l, dlpack_abi::kParamKind, dlrt_param_desc, kind);
  EXPECT_FIELD(l, dlpack_abi::kParamLayout, dlrt_param_desc, layout);
  EXPECT_FIELD(l, dlpack_abi::kParamAccess, dlrt_param_desc, access);
  EXPECT_FIELD(l, dlpack_abi::kParamRank, dlrt_param_desc, rank);
  EXPECT_FIELD(l, dlpack_abi::kParamDType, dlrt_param_desc, dtype);
  EXPECT_FIELD(l, dlpack_abi::kParamReserved, dlrt_param_desc, reserved);
  EXPECT_FIELD(l, dlpack_abi::kParamShape, dlrt_param_desc, shape);
  EXPECT_FIELD(l, dlpack_abi::kParamStrides, dlrt_param_desc, strides);
  EXPECT_FIELD(l, dlpack_abi::kParamOffset, dlrt_param_desc, offset);
  EXPECT_SIZE_AND_ALIGN(type, dlrt_param_desc);
}

TEST_F(DLPackABITest, Signature) {
  auto type = dlpack_abi::getSignatureType(&context);
  const llvm::StructLayout *l = layout(type);
  EXPECT_FIELD(l, dlpack_abi::kSignatureName, dlrt_signature, name);
  EXPECT_FIELD(l, dlpack_abi::kSignatureDeviceType, dlrt_signature,
               device_type);
  EXPECT_FIELD(l, dlpack_abi::kSignatureNumArgs, dlrt_signature, num_args);
  EXPECT_FIELD(l, dlpack_abi::kSignatureNumResults, dlrt_signature,
               num_results);
  EXPECT_FIELD(l, dlpack_abi::kSignatureReserved, dlrt_signature, reserved);
  EXPECT_FIELD(l, dlpack_abi::kSignatureArgs, dlrt_signature, args);
  EXPECT_FIELD(l, dlpack_abi::kSignatureResults, dlrt_signature, results);
  EXPECT_SIZE_AND_ALIGN(type, dlrt_signature);
}

/// The enum values written into records are the runtime's.
TEST_F(DLPackABITest, RecordValues) {
  EXPECT_EQ(dlpack_abi::kParamKindTensor, DLRT_PARAM_TENSOR);
  EXPECT_EQ(dlpack_abi::kParamKindScalar, DLRT_PARAM_SCALAR);
  EXPECT_EQ(dlpack_abi::kLayoutIdentity, DLRT_LAYOUT_IDENTITY);
  EXPECT_EQ(dlpack_abi::kLayoutStrided, DLRT_LAYOUT_STRIDED);
  EXPECT_EQ(dlpack_abi::kDynamic, DLRT_DYNAMIC);
  using dlpack::Access;
  EXPECT_EQ(static_cast<int32_t>(Access::None), DLRT_ACCESS_NONE);
  EXPECT_EQ(static_cast<int32_t>(Access::Read), DLRT_ACCESS_READ);
  EXPECT_EQ(static_cast<int32_t>(Access::Write), DLRT_ACCESS_WRITE);
  EXPECT_EQ(static_cast<int32_t>(Access::ReadWrite), DLRT_ACCESS_READ_WRITE);
  EXPECT_EQ(static_cast<int32_t>(dlpack::DeviceType::CPU), kDLCPU);
  EXPECT_EQ(static_cast<int32_t>(dlpack::DeviceType::CUDA), kDLCUDA);
  EXPECT_EQ(static_cast<int32_t>(dlpack::DeviceType::CUDAManaged),
            kDLCUDAManaged);
}

/// Records are shared per module and distinct per contents; dynamic sizes
/// are written as DLRT_DYNAMIC.
TEST_F(DLPackABITest, ParamRecords) {
  mlir::OpBuilder b(&context);
  mlir::Location loc = b.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto anchor = mlir::LLVM::LLVMFuncOp::create(
      b, loc, "f",
      mlir::LLVM::LLVMFunctionType::get(mlir::LLVM::LLVMVoidType::get(&context),
                                        {}));
  auto type =
      mlir::MemRefType::get({mlir::ShapedType::kDynamic, 4}, b.getF32Type());
  auto x = dlpack::ParamAttr::get(&context, "x", type, dlpack::Access::Read,
                                  nullptr);
  auto y = dlpack::ParamAttr::get(&context, "y", type, dlpack::Access::Read,
                                  nullptr);
  auto xRecord = dlpack_abi::getOrCreateParamDesc(b, anchor, x);
  auto xAgain = dlpack_abi::getOrCreateParamDesc(b, anchor, x);
  auto yRecord = dlpack_abi::getOrCreateParamDesc(b, anchor, y);
  ASSERT_TRUE(mlir::succeeded(xRecord) && mlir::succeeded(xAgain) &&
              mlir::succeeded(yRecord));
  EXPECT_EQ(*xRecord, *xAgain);
  EXPECT_NE(*xRecord, *yRecord);
  EXPECT_EQ(xRecord->getGlobalType(), dlpack_abi::getParamDescType(&context));

  auto shape = module->lookupSymbol<mlir::LLVM::GlobalOp>(
      (xRecord->getSymName() + "_shape").str());
  ASSERT_TRUE(shape);
  auto sizes = llvm::cast<mlir::DenseElementsAttr>(*shape.getValue());
  EXPECT_EQ(llvm::to_vector(sizes.getValues<int64_t>()),
            (llvm::SmallVector<int64_t>{DLRT_DYNAMIC, 4}));
}

/// A signature points to an array of argument records and to none for no
/// results.
TEST_F(DLPackABITest, SignatureRecord) {
  mlir::OpBuilder b(&context);
  mlir::Location loc = b.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto alpha = dlpack::ParamAttr::get(&context, "alpha", b.getF32Type(),
                                      dlpack::Access::None, nullptr);
  ASSERT_TRUE(mlir::succeeded(dlpack_abi::createSignature(
      b, loc, *module, "sig", "f", dlpack::DeviceType::CPU,
      b.getArrayAttr({alpha, alpha}), b.getArrayAttr({}))));
  auto signature = module->lookupSymbol<mlir::LLVM::GlobalOp>("sig");
  ASSERT_TRUE(signature);
  EXPECT_EQ(signature.getLinkage(), mlir::LLVM::Linkage::External);
  EXPECT_EQ(signature.getGlobalType(), dlpack_abi::getSignatureType(&context));
  auto args = module->lookupSymbol<mlir::LLVM::GlobalOp>("sig_args");
  ASSERT_TRUE(args);
  EXPECT_EQ(args.getGlobalType(),
            mlir::LLVM::LLVMArrayType::get(
                dlpack_abi::getParamDescType(&context), 2));
  EXPECT_FALSE(module->lookupSymbol("sig_results"));
  EXPECT_TRUE(module->lookupSymbol("sig_name"));
}

} // namespace
