//===- DLPackToLLVM.cpp - Lower the dlpack dialect to LLVM ----------------===//
//
// Part of dlbridge. Lowers dlpack ops to LLVM dialect loads, stores and GEPs
// on DLPack 1.3's structs and to calls into libdlrt (dlbridge/Runtime/dlrt.h).
// The structs, and the records describing an entry's parameters, come from
// DLPackABI.h; the runtime functions from the table of RuntimeCalls.h.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Conversion/DLPackToLLVM/DLPackToLLVM.h"

#include "dlbridge/Conversion/DLPackToLLVM/DLPackABI.h"
#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.h"
#include "dlbridge/Conversion/Passes.h"
#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"
#include "dlbridge/Dialect/DLPack/IR/DTypeMapping.h"
#include "mlir/Analysis/DataLayoutAnalysis.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMInterface.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace dlbridge {
#define GEN_PASS_DEF_CONVERTDLPACKTOLLVM
#include "dlbridge/Conversion/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;
using namespace dlbridge;
using namespace dlbridge::dlpack;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Type llvmPtrType(MLIRContext *context) {
  return LLVM::LLVMPointerType::get(context);
}

/// Sign-extends or truncates the integer `value` to `type`.
Value castInteger(OpBuilder &b, Location loc, Value value, Type type) {
  unsigned from = value.getType().getIntOrFloatBitWidth();
  unsigned to = type.getIntOrFloatBitWidth();
  if (from == to)
    return value;
  if (from < to)
    return LLVM::SExtOp::create(b, loc, type, value);
  return LLVM::TruncOp::create(b, loc, type, value);
}

/// Whether `type` is or contains a dlpack type.
bool containsDLPackType(Type type) {
  return type
      .walk([](Type t) {
        return isa<DLPackDialect>(t.getDialect()) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether an operand or result of `op` has a dlpack type.
bool mentionsDLPackType(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), containsDLPackType) ||
         llvm::any_of(op->getResultTypes(), containsDLPackType);
}

/// Whether `op` is a function whose signature mentions a dlpack type, i.e.
/// one whose blocks the conversion retypes.
bool isConvertedFunction(Operation *op) {
  auto function = dyn_cast_or_null<FunctionOpInterface>(op);
  return function && containsDLPackType(function.getFunctionType());
}

/// Address of `slots[index]` in a `void **` array.
Value getSlotPtr(OpBuilder &b, Location loc, Value slots, int64_t index) {
  Type ptrType = llvmPtrType(b.getContext());
  return LLVM::GEPOp::create(
      b, loc, ptrType, ptrType, slots,
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)},
      LLVM::GEPNoWrapFlags::inbounds);
}

//===----------------------------------------------------------------------===//
// Entry-point plumbing
//===----------------------------------------------------------------------===//

/// `dlpack.load_arg %args[i]`: `args[i]` is the DLTensor* itself, or points
/// to the scalar.
struct LoadArgOpLowering : public ConvertOpToLLVMPattern<LoadArgOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(LoadArgOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getIndex() > INT32_MAX)
      return rewriter.notifyMatchFailure(op, "argument index out of range");
    Location loc = op.getLoc();
    Type ptrType = llvmPtrType(getContext());
    Value slot = getSlotPtr(rewriter, loc, adaptor.getArgs(), op.getIndex());
    Value pointer = LLVM::LoadOp::create(rewriter, loc, ptrType, slot);
    if (isa<dlpack::TensorType>(op.getType())) {
      rewriter.replaceOp(op, pointer);
      return success();
    }
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unconvertible scalar type");
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, type, pointer);
    return success();
  }
};

/// `dlpack.store_result %v, %results[i]`: a managed tensor goes into
/// `results[i]`, a scalar through the pointer in `results[i]`.
struct StoreResultOpLowering : public ConvertOpToLLVMPattern<StoreResultOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(StoreResultOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getIndex() > INT32_MAX)
      return rewriter.notifyMatchFailure(op, "result index out of range");
    Location loc = op.getLoc();
    Value slot = getSlotPtr(rewriter, loc, adaptor.getResults(), op.getIndex());
    if (!isa<ManagedType>(op.getValue().getType()))
      slot =
          LLVM::LoadOp::create(rewriter, loc, llvmPtrType(getContext()), slot);
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(op, adaptor.getValue(), slot);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Tensors in
//===----------------------------------------------------------------------===//

/// `dlpack.check` → `dlrt_check_tensor(ctx, index, tensor, &param)`.
struct CheckOpLowering : public ConvertOpToLLVMPattern<CheckOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(CheckOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getIndex() > INT32_MAX)
      return rewriter.notifyMatchFailure(op, "argument index out of range");
    FailureOr<LLVM::GlobalOp> param =
        dlpack_abi::getOrCreateParamDesc(rewriter, op, op.getParam());
    if (failed(param))
      return failure();
    Location loc = op.getLoc();
    Value index = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(),
                                           op.getIndex());
    FailureOr<LLVM::CallOp> call =
        createRuntimeCall(rewriter, op, RuntimeFunction::CheckTensor,
                          {adaptor.getCtx(), index, adaptor.getTensor(),
                           LLVM::AddressOfOp::create(rewriter, loc, *param)});
    if (failed(call))
      return failure();
    rewriter.replaceOp(op, call->getResults());
    return success();
  }
};

/// `dlpack.unpack`: a memref descriptor viewing the DLTensor.
///
/// - Identity layout: the aligned pointer is `data + byte_offset` and the
///   offset 0 (the type promises offset 0), strides are compact row-major
///   whatever the tensor says (the check ignored strides of size-1 dims).
/// - Strided layout: the aligned pointer is `data`, the offset
///   `byte_offset / element size`; a static stride is taken from the type,
///   a dynamic one from `strides[i]`, or the compact one when `strides` is
///   NULL.
/// - 0-d: `shape` and `strides` are never read.
struct UnpackOpLowering : public ConvertOpToLLVMPattern<UnpackOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(UnpackOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    auto descriptorType = dyn_cast_or_null<LLVM::LLVMStructType>(
        getTypeConverter()->convertType(type));
    DTypeAttr dtype = getDefaultDType(type.getElementType());
    if (!descriptorType || !dtype || dtype.getElementBits() % 8 != 0)
      return rewriter.notifyMatchFailure(op, "unsupported memref type");
    SmallVector<int64_t> typeStrides;
    int64_t typeOffset;
    if (failed(type.getStridesAndOffset(typeStrides, typeOffset)))
      return rewriter.notifyMatchFailure(op, "layout is not strided");
    bool identity = type.getLayout().isIdentity();

    Location loc = op.getLoc();
    MLIRContext *context = getContext();
    Type ptrType = llvmPtrType(context);
    Type i64Type = rewriter.getI64Type();
    Type indexType = getIndexType();
    Value tensor = adaptor.getTensor();
    auto indexConstant = [&](int64_t value) {
      return createIndexAttrConstant(rewriter, loc, indexType, value);
    };

    MemRefDescriptor descriptor =
        MemRefDescriptor::poison(rewriter, loc, descriptorType);
    Value data = dlpack_abi::loadDLTensorField(rewriter, loc, tensor,
                                               dlpack_abi::kDLTensorData);
    Value byteOffset = dlpack_abi::loadDLTensorField(
        rewriter, loc, tensor, dlpack_abi::kDLTensorByteOffset);
    descriptor.setAllocatedPtr(rewriter, loc, data);
    if (identity) {
      Value aligned =
          LLVM::GEPOp::create(rewriter, loc, ptrType, rewriter.getI8Type(),
                              data, ArrayRef<LLVM::GEPArg>{byteOffset});
      descriptor.setAlignedPtr(rewriter, loc, aligned);
      descriptor.setOffset(rewriter, loc, indexConstant(0));
    } else {
      descriptor.setAlignedPtr(rewriter, loc, data);
      if (!ShapedType::isDynamic(typeOffset)) {
        descriptor.setOffset(rewriter, loc, indexConstant(typeOffset));
      } else {
        int64_t elementBytes = dtype.getElementBits() / 8;
        Value offset = byteOffset;
        if (elementBytes != 1)
          offset = LLVM::UDivOp::create(
              rewriter, loc, byteOffset,
              LLVM::ConstantOp::create(rewriter, loc, i64Type, elementBytes));
        descriptor.setOffset(rewriter, loc,
                             castInteger(rewriter, loc, offset, indexType));
      }
    }

    int64_t rank = type.getRank();
    if (rank == 0) {
      rewriter.replaceOp(op, {descriptor});
      return success();
    }

    // Sizes: static ones from the type, dynamic ones from shape[i].
    SmallVector<Value> sizes;
    Value shape;
    for (int64_t i = 0; i < rank; ++i) {
      if (!type.isDynamicDim(i)) {
        sizes.push_back(indexConstant(type.getDimSize(i)));
        continue;
      }
      if (!shape)
        shape = dlpack_abi::loadDLTensorField(rewriter, loc, tensor,
                                              dlpack_abi::kDLTensorShape);
      Value sizePtr =
          LLVM::GEPOp::create(rewriter, loc, ptrType, i64Type, shape,
                              ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)},
                              LLVM::GEPNoWrapFlags::inbounds);
      Value size = LLVM::LoadOp::create(rewriter, loc, i64Type, sizePtr);
      sizes.push_back(castInteger(rewriter, loc, size, indexType));
    }

    // Compact row-major strides: suffix products of the sizes, folded while
    // they are static.
    SmallVector<Value> compact(rank);
    std::optional<int64_t> staticStride = 1;
    Value stride;
    for (int64_t i = rank - 1; i >= 0; --i) {
      compact[i] = staticStride ? indexConstant(*staticStride) : stride;
      if (staticStride && !type.isDynamicDim(i)) {
        staticStride = *staticStride * type.getDimSize(i);
        continue;
      }
      stride = staticStride == 1
                   ? sizes[i]
                   : LLVM::MulOp::create(rewriter, loc, compact[i], sizes[i]);
      staticStride.reset();
    }

    // Strides of a strided layout: static from the type, dynamic from the
    // tensor unless its strides are NULL. `strides[i]` must not be read when
    // `strides` is NULL, so the load goes through a pointer selected between
    // `&strides[i]` and `&shape[i]` (never NULL for ndim > 0, which the check
    // established) and its value is then discarded.
    SmallVector<Value> strides = compact;
    if (!identity) {
      Value tensorStrides, hasStrides;
      for (int64_t i = 0; i < rank; ++i) {
        if (!ShapedType::isDynamic(typeStrides[i])) {
          strides[i] = indexConstant(typeStrides[i]);
          continue;
        }
        if (!tensorStrides) {
          tensorStrides = dlpack_abi::loadDLTensorField(
              rewriter, loc, tensor, dlpack_abi::kDLTensorStrides);
          hasStrides = LLVM::ICmpOp::create(
              rewriter, loc, LLVM::ICmpPredicate::ne, tensorStrides,
              LLVM::ZeroOp::create(rewriter, loc, ptrType));
          if (!shape)
            shape = dlpack_abi::loadDLTensorField(rewriter, loc, tensor,
                                                  dlpack_abi::kDLTensorShape);
        }
        Value base = LLVM::SelectOp::create(rewriter, loc, hasStrides,
                                            tensorStrides, shape);
        Value stridePtr =
            LLVM::GEPOp::create(rewriter, loc, ptrType, i64Type, base,
                                ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)},
                                LLVM::GEPNoWrapFlags::inbounds);
        Value loaded = castInteger(
            rewriter, loc,
            LLVM::LoadOp::create(rewriter, loc, i64Type, stridePtr), indexType);
        strides[i] = LLVM::SelectOp::create(rewriter, loc, hasStrides, loaded,
                                            compact[i]);
      }
    }

    for (int64_t i = 0; i < rank; ++i) {
      descriptor.setSize(rewriter, loc, i, sizes[i]);
      descriptor.setStride(rewriter, loc, i, strides[i]);
    }
    rewriter.replaceOp(op, {descriptor});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Tensors out
//===----------------------------------------------------------------------===//

/// `dlpack.pack` → `dlrt_pack_result(ctx, allocated, aligned, offset, sizes,
/// strides, &param)`. Sizes and strides go through two stack arrays
/// allocated once in the entry block of the enclosing allocation scope (the
/// runtime copies them), so a pack in a loop does not grow the stack.
struct PackOpLowering : public ConvertOpToLLVMPattern<PackOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(PackOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getMemref().getType();
    FailureOr<LLVM::GlobalOp> param =
        dlpack_abi::getOrCreateParamDesc(rewriter, op, op.getResultParam());
    if (failed(param))
      return failure();

    Location loc = op.getLoc();
    Type ptrType = llvmPtrType(getContext());
    Type i64Type = rewriter.getI64Type();
    MemRefDescriptor descriptor(adaptor.getMemref());
    Value allocated = descriptor.allocatedPtr(rewriter, loc);
    Value aligned = descriptor.alignedPtr(rewriter, loc);
    Value offset =
        castInteger(rewriter, loc, descriptor.offset(rewriter, loc), i64Type);

    int64_t rank = type.getRank();
    Value sizes, strides;
    if (rank == 0) {
      sizes = strides = LLVM::ZeroOp::create(rewriter, loc, ptrType);
    } else {
      Operation *scope =
          op->getParentWithTrait<OpTrait::AutomaticAllocationScope>();
      if (!scope || scope->getNumRegions() == 0 || scope->getRegion(0).empty())
        return rewriter.notifyMatchFailure(op, "no allocation scope");
      auto arrayType = LLVM::LLVMArrayType::get(i64Type, rank);
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(&scope->getRegion(0).front());
        Value one = LLVM::ConstantOp::create(rewriter, loc, i64Type, 1);
        sizes = LLVM::AllocaOp::create(rewriter, loc, ptrType, arrayType, one);
        strides =
            LLVM::AllocaOp::create(rewriter, loc, ptrType, arrayType, one);
      }
      for (int64_t i = 0; i < rank; ++i) {
        auto storeAt = [&](Value array, Value value) {
          Value element = LLVM::GEPOp::create(
              rewriter, loc, ptrType, arrayType, array,
              ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)},
              LLVM::GEPNoWrapFlags::inbounds);
          LLVM::StoreOp::create(rewriter, loc,
                                castInteger(rewriter, loc, value, i64Type),
                                element);
        };
        storeAt(sizes, descriptor.size(rewriter, loc, i));
        storeAt(strides, descriptor.stride(rewriter, loc, i));
      }
    }

    FailureOr<LLVM::CallOp> call = createRuntimeCall(
        rewriter, op, RuntimeFunction::PackResult,
        {adaptor.getCtx(), allocated, aligned, offset, sizes, strides,
         LLVM::AddressOfOp::create(rewriter, loc, *param)});
    if (failed(call))
      return failure();
    rewriter.replaceOp(op, call->getResults());
    return success();
  }
};

/// Ops that are one call to the runtime with their (pointer) operands:
/// `dlpack.status` → `dlrt_status(ctx)`, `dlpack.release` →
/// `dlrt_release_managed(tensor)`, `dlpack.call_begin`/`call_end` →
/// `dlrt_call_begin/end(ctx)`. A result, where the op has one, is the
/// call's i32.
template <typename OpTy>
struct RuntimeCallLowering : public ConvertOpToLLVMPattern<OpTy> {
  RuntimeCallLowering(const LLVMTypeConverter &converter,
                      RuntimeFunction function)
      : ConvertOpToLLVMPattern<OpTy>(converter), function(function) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<LLVM::CallOp> call =
        createRuntimeCall(rewriter, op, function, adaptor.getOperands());
    if (failed(call))
      return failure();
    rewriter.replaceOp(op, call->getResults());
    return success();
  }

  RuntimeFunction function;
};

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

/// `dlpack.rank` → `(index)tensor->ndim`.
struct RankOpLowering : public ConvertOpToLLVMPattern<RankOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(RankOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value ndim = dlpack_abi::loadDLTensorField(
        rewriter, loc, adaptor.getTensor(), dlpack_abi::kDLTensorNDim);
    rewriter.replaceOp(op, castInteger(rewriter, loc, ndim, getIndexType()));
    return success();
  }
};

/// `dlpack.dim %t[%i]` → `(index)tensor->shape[i]`.
struct DimOpLowering : public ConvertOpToLLVMPattern<DimOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(DimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type ptrType = llvmPtrType(getContext());
    Type i64Type = rewriter.getI64Type();
    Value shape = dlpack_abi::loadDLTensorField(
        rewriter, loc, adaptor.getTensor(), dlpack_abi::kDLTensorShape);
    Value sizePtr =
        LLVM::GEPOp::create(rewriter, loc, ptrType, i64Type, shape,
                            ArrayRef<LLVM::GEPArg>{adaptor.getIndex()},
                            LLVM::GEPNoWrapFlags::inbounds);
    Value size = LLVM::LoadOp::create(rewriter, loc, i64Type, sizePtr);
    rewriter.replaceOp(op, castInteger(rewriter, loc, size, getIndexType()));
    return success();
  }
};

/// `dlpack.device` → `tensor->device.device_type, tensor->device.device_id`.
struct DeviceOpLowering : public ConvertOpToLLVMPattern<DeviceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(DeviceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value, 2> fields;
    for (dlpack_abi::DLDeviceField field :
         {dlpack_abi::kDLDeviceType, dlpack_abi::kDLDeviceId})
      fields.push_back(dlpack_abi::loadDLTensorDeviceField(
          rewriter, loc, adaptor.getTensor(), field));
    rewriter.replaceOp(op, fields);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Signature records
//===----------------------------------------------------------------------===//

/// `dlpack.signature @sym` → a constant `dlrt_signature` global `@sym`
/// (dlpack_abi::createSignature).
struct SignatureOpLowering : public ConvertOpToLLVMPattern<SignatureOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(SignatureOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    if (failed(dlpack_abi::createSignature(
            rewriter, op.getLoc(), op->getParentOfType<ModuleOp>(),
            op.getSymName(), op.getFunctionAttr().getValue(),
            op.getDevice().getType(), op.getArgParams(), op.getResultParams())))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Functions that carry dlpack values
//===----------------------------------------------------------------------===//

/// Converts the types of a `func.func` in place, every block of its body
/// included (upstream's FunctionOpInterface signature conversion retypes the
/// entry block only, which leaves branches to the other blocks mistyped).
struct FuncOpSignatureConversion : public OpConversionPattern<func::FuncOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(func::FuncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FunctionType type = op.getFunctionType();
    TypeConverter::SignatureConversion signature(type.getNumInputs());
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertSignatureArgs(type.getInputs(),
                                                        signature)) ||
        failed(getTypeConverter()->convertTypes(type.getResults(), results)))
      return rewriter.notifyMatchFailure(op, "unconvertible signature");
    if (!op.isExternal() &&
        failed(rewriter.convertRegionTypes(&op.getBody(), *getTypeConverter(),
                                           &signature)))
      return rewriter.notifyMatchFailure(op, "unconvertible block types");
    rewriter.modifyOpInPlace(op, [&] {
      op.setType(FunctionType::get(getContext(), signature.getConvertedTypes(),
                                   results));
    });
    return success();
  }
};

//===----------------------------------------------------------------------===//
// ConvertToLLVMPatternInterface
//===----------------------------------------------------------------------===//

/// Lets `--convert-to-llvm` lower dlpack ops.
struct DLPackToLLVMDialectInterface : public ConvertToLLVMPatternInterface {
  using ConvertToLLVMPatternInterface::ConvertToLLVMPatternInterface;

  void populateConvertToLLVMConversionPatterns(
      ConversionTarget &target, LLVMTypeConverter &typeConverter,
      RewritePatternSet &patterns) const final {
    target.addIllegalDialect<DLPackDialect>();
    populateDLPackToLLVMConversionPatterns(typeConverter, patterns);
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct ConvertDLPackToLLVMPass
    : public dlbridge::impl::ConvertDLPackToLLVMBase<ConvertDLPackToLLVMPass> {
  using ConvertDLPackToLLVMBase::ConvertDLPackToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    const auto &dataLayoutAnalysis = getAnalysis<DataLayoutAnalysis>();
    LowerToLLVMOptions options(context,
                               dataLayoutAnalysis.getAtOrAbove(module));
    if (indexBitwidth != kDeriveIndexBitwidthFromDataLayout)
      options.overrideIndexBitwidth(indexBitwidth);
    LLVMTypeConverter converter(context, options, &dataLayoutAnalysis);

    RewritePatternSet patterns(context);
    populateDLPackToLLVMConversionPatterns(converter, patterns);
    // Ops that carry dlpack values keep their identity but change types.
    patterns.add<FuncOpSignatureConversion>(converter, context);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateBranchOpInterfaceTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversions(converter, patterns);

    // Only what mentions a dlpack type is converted; a function whose
    // signature does has all its types converted (memrefs to descriptors,
    // index to iN), and so do its returns and the branches between its
    // blocks, which the signature conversion retypes. Those functions are
    // collected first: once converted, their signatures no longer say so.
    llvm::DenseSet<Operation *> convertedFunctions;
    module.walk([&](FunctionOpInterface function) {
      if (isConvertedFunction(function))
        convertedFunctions.insert(function);
    });
    // A return or branch of such a function is legal once its operands have
    // the converted types.
    auto isLegalTerminator = [&](Operation *op) -> std::optional<bool> {
      if (!convertedFunctions.contains(op->getParentOp()))
        return std::nullopt;
      return converter.isLegal(op->getOperandTypes());
    };
    ConversionTarget target(*context);
    target.addIllegalDialect<DLPackDialect>();
    target.addLegalDialect<LLVM::LLVMDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>(
        [](func::FuncOp op) { return !isConvertedFunction(op); });
    target.addDynamicallyLegalOp<func::ReturnOp>([&](func::ReturnOp op) {
      return isLegalTerminator(op).value_or(!mentionsDLPackType(op));
    });
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (isa<BranchOpInterface>(op))
        if (std::optional<bool> legal = isLegalTerminator(op))
          return *legal;
      return !mentionsDLPackType(op);
    });

    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

void dlbridge::populateDLPackToLLVMTypeConversions(
    LLVMTypeConverter &converter) {
  converter.addConversion([](dlpack::TensorType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext());
  });
  converter.addConversion([](ManagedType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext());
  });
  converter.addConversion([](ContextType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext());
  });
}

void dlbridge::populateDLPackToLLVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  populateDLPackToLLVMTypeConversions(converter);
  patterns.add<CheckOpLowering, DeviceOpLowering, DimOpLowering,
               LoadArgOpLowering, PackOpLowering, RankOpLowering,
               SignatureOpLowering, StoreResultOpLowering, UnpackOpLowering>(
      converter);
  patterns.add<RuntimeCallLowering<StatusOp>>(converter,
                                              RuntimeFunction::Status);
  patterns.add<RuntimeCallLowering<ReleaseOp>>(converter,
                                               RuntimeFunction::ReleaseManaged);
  patterns.add<RuntimeCallLowering<CallBeginOp>>(converter,
                                                 RuntimeFunction::CallBegin);
  patterns.add<RuntimeCallLowering<CallEndOp>>(converter,
                                               RuntimeFunction::CallEnd);
}

void dlbridge::registerConvertDLPackToLLVMInterface(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, DLPackDialect *dialect) {
    dialect->addInterfaces<DLPackToLLVMDialectInterface>();
  });
}
