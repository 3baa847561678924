//===- DLPackABI.cpp - DLPack and libdlrt structs as LLVM types -----------===//
//
// Part of dlbridge. The LLVM struct types of DLPack's and libdlrt's structs,
// access to DLTensor fields, and the constant dlrt_param_desc and
// dlrt_signature records that describe an entry to the runtime.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Conversion/DLPackToLLVM/DLPackABI.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

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
  return LLVM::LLVMStructType::getLiteral(context,
                                          {i32(context), i32(context)});
}

LLVM::LLVMStructType getDLDataTypeType(MLIRContext *context) {
  return LLVM::LLVMStructType::getLiteral(
      context, {i8(context), i8(context), i16(context)});
}

LLVM::LLVMStructType getDLTensorType(MLIRContext *context) {
  return LLVM::LLVMStructType::getLiteral(
      context,
      {ptr(context), getDLDeviceType(context), i32(context),
       getDLDataTypeType(context), ptr(context), ptr(context), i64(context)});
}

LLVM::LLVMStructType getDLPackVersionType(MLIRContext *context) {
  return LLVM::LLVMStructType::getLiteral(context,
                                          {i32(context), i32(context)});
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

//===----------------------------------------------------------------------===//
// Field access
//===----------------------------------------------------------------------===//

Value getDLTensorFieldPtr(OpBuilder &b, Location loc, Value tensor,
                          DLTensorField field) {
  MLIRContext *context = b.getContext();
  return LLVM::GEPOp::create(b, loc, ptr(context), getDLTensorType(context),
                             tensor, ArrayRef<LLVM::GEPArg>{0, field},
                             LLVM::GEPNoWrapFlags::inbounds);
}

Value loadDLTensorField(OpBuilder &b, Location loc, Value tensor,
                        DLTensorField field) {
  Type type = getDLTensorType(b.getContext()).getBody()[field];
  return LLVM::LoadOp::create(b, loc, type,
                              getDLTensorFieldPtr(b, loc, tensor, field));
}

Value loadDLTensorDeviceField(OpBuilder &b, Location loc, Value tensor,
                              DLDeviceField field) {
  MLIRContext *context = b.getContext();
  Value fieldPtr = LLVM::GEPOp::create(
      b, loc, ptr(context), getDLTensorType(context), tensor,
      ArrayRef<LLVM::GEPArg>{0, kDLTensorDevice, field},
      LLVM::GEPNoWrapFlags::inbounds);
  return LLVM::LoadOp::create(b, loc, getDLDeviceType(context).getBody()[field],
                              fieldPtr);
}

//===----------------------------------------------------------------------===//
// Parameter records
//===----------------------------------------------------------------------===//

namespace {

/// The contents of one `dlrt_param_desc`.
struct ParamRecord {
  std::string name;
  int32_t kind = kParamKindTensor;
  int32_t layout = kLayoutIdentity;
  int32_t access = 0;
  dlpack::DTypeAttr dtype;
  /// Sizes, kDynamic where dynamic.
  SmallVector<int64_t> shape;
  /// Set for strided layouts of rank > 0 only; kDynamic where dynamic.
  std::optional<SmallVector<int64_t>> strides;
  int64_t offset = 0;

  /// A stable, readable prefix for the globals of this record:
  /// `__dlpack_param_<name>_<hash of the contents>`.
  std::string symbolPrefix() const;
};

} // namespace

std::string ParamRecord::symbolPrefix() const {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << name << '\0' << kind << ',' << layout << ',' << access << ','
     << dtype.getCode() << ',' << dtype.getBits() << ',' << dtype.getLanes()
     << ";shape";
  for (int64_t size : shape)
    os << ',' << size;
  if (strides) {
    os << ";strides";
    for (int64_t stride : *strides)
      os << ',' << stride;
  }
  os << ";offset," << offset;

  std::string prefix = "__dlpack_param_";
  for (char c : name)
    prefix.push_back(llvm::isAlnum(c) ? c : '_');
  llvm::raw_string_ostream(prefix)
      << '_' << llvm::format_hex_no_prefix(llvm::xxh3_64bits(key), 16);
  return prefix;
}

/// A size, stride or offset of a memref type as a record holds it.
static int64_t toRecordValue(int64_t value) {
  return ShapedType::isDynamic(value) ? kDynamic : value;
}

static SmallVector<int64_t> toRecordValues(ArrayRef<int64_t> values) {
  return llvm::map_to_vector(values, toRecordValue);
}

/// Computes the record of `param`; fails (with a diagnostic at `loc`) when
/// the runtime cannot describe it.
static FailureOr<ParamRecord> describeParam(Location loc,
                                            dlpack::ParamAttr param) {
  ParamRecord record;
  record.name = param.getName().str();
  record.access = static_cast<int32_t>(param.getAccess());
  record.dtype = param.getEffectiveDType();
  if (!record.dtype)
    return emitError(loc) << "no DLPack dtype for parameter '"
                          << param.getName() << "' of type " << param.getType();
  MemRefType type = param.getMemRefType();
  if (!type) {
    record.kind = kParamKindScalar;
    return record;
  }
  record.shape = toRecordValues(type.getShape());
  if (type.getLayout().isIdentity())
    return record;
  auto strided = dyn_cast<StridedLayoutAttr>(type.getLayout());
  if (!strided)
    return emitError(loc) << "parameter '" << param.getName() << "' has layout "
                          << type.getLayout()
                          << ", neither identity nor strided";
  record.layout = kLayoutStrided;
  if (type.getRank() > 0)
    record.strides = toRecordValues(strided.getStrides());
  record.offset = toRecordValue(strided.getOffset());
  return record;
}

/// Returns the global `name` of `module`, creating it at the end of the
/// module with `build` when there is none.
static LLVM::GlobalOp
getOrCreateGlobal(OpBuilder &b, ModuleOp module, StringRef name,
                  function_ref<LLVM::GlobalOp(OpBuilder &)> build) {
  if (auto global = dyn_cast_or_null<LLVM::GlobalOp>(
          SymbolTable::lookupSymbolIn(module, name)))
    return global;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  return build(b);
}

/// A private constant NUL-terminated string global.
static LLVM::GlobalOp getOrCreateString(OpBuilder &b, Location loc,
                                        ModuleOp module, StringRef name,
                                        StringRef value) {
  return getOrCreateGlobal(b, module, name, [&](OpBuilder &b) {
    std::string contents = value.str();
    contents.push_back('\0');
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), contents.size());
    return LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                  LLVM::Linkage::Private, name,
                                  b.getStringAttr(contents));
  });
}

/// A private constant `int64_t[]` global.
static LLVM::GlobalOp getOrCreateI64Array(OpBuilder &b, Location loc,
                                          ModuleOp module, StringRef name,
                                          ArrayRef<int64_t> values) {
  return getOrCreateGlobal(b, module, name, [&](OpBuilder &b) {
    auto type = LLVM::LLVMArrayType::get(b.getI64Type(), values.size());
    auto value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(values.size())},
                              b.getI64Type()),
        values);
    return LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                  LLVM::Linkage::Private, name, value);
  });
}

/// Creates a constant global of `type` named `name` whose initializer is
/// built by `build`.
static LLVM::GlobalOp
createInitializedGlobal(OpBuilder &b, Location loc, Type type, StringRef name,
                        LLVM::Linkage linkage,
                        function_ref<Value(OpBuilder &)> build) {
  auto global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                       linkage, name, /*value=*/Attribute());
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&global.getInitializerRegion());
  LLVM::ReturnOp::create(b, loc, build(b));
  return global;
}

/// Builds a struct value of `type` at `b`'s insertion point, field `i` set
/// to `fields[i]`.
static Value buildStruct(OpBuilder &b, Location loc, LLVM::LLVMStructType type,
                         ArrayRef<Value> fields) {
  assert(fields.size() == type.getBody().size() && "one value per field");
  Value value = LLVM::PoisonOp::create(b, loc, type);
  for (auto [index, field] : llvm::enumerate(fields))
    value = LLVM::InsertValueOp::create(b, loc, value, field, index);
  return value;
}

/// The address of `global`, NULL for none.
static Value addressOrNull(OpBuilder &b, Location loc, LLVM::GlobalOp global) {
  if (!global)
    return LLVM::ZeroOp::create(b, loc, ptr(b.getContext()));
  return LLVM::AddressOfOp::create(b, loc, global);
}

/// Builds the `dlrt_param_desc` value of `record` at `b`'s insertion point (a
/// global's initializer), creating the globals it points to.
static Value buildParamRecordValue(OpBuilder &b, Location loc, ModuleOp module,
                                   const ParamRecord &record) {
  MLIRContext *context = b.getContext();
  std::string prefix = record.symbolPrefix();
  LLVM::GlobalOp name =
      getOrCreateString(b, loc, module, prefix + "_name", record.name);
  LLVM::GlobalOp shape =
      record.shape.empty()
          ? nullptr
          : getOrCreateI64Array(b, loc, module, prefix + "_shape",
                                record.shape);
  LLVM::GlobalOp strides =
      !record.strides ? nullptr
                      : getOrCreateI64Array(b, loc, module, prefix + "_strides",
                                            *record.strides);
  auto i32Constant = [&](int64_t value) -> Value {
    return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                    b.getI32IntegerAttr(value));
  };

  Value dtype = buildStruct(
      b, loc, getDLDataTypeType(context),
      {LLVM::ConstantOp::create(
           b, loc, b.getI8Type(),
           b.getI8IntegerAttr(static_cast<int8_t>(record.dtype.getCode()))),
       LLVM::ConstantOp::create(
           b, loc, b.getI8Type(),
           b.getI8IntegerAttr(static_cast<int8_t>(record.dtype.getBits()))),
       LLVM::ConstantOp::create(b, loc, b.getI16Type(),
                                b.getI16IntegerAttr(static_cast<int16_t>(
                                    record.dtype.getLanes())))});
  SmallVector<Value> fields(getParamDescType(context).getBody().size());
  fields[kParamName] = addressOrNull(b, loc, name);
  fields[kParamKind] = i32Constant(record.kind);
  fields[kParamLayout] = i32Constant(record.layout);
  fields[kParamAccess] = i32Constant(record.access);
  fields[kParamRank] = i32Constant(record.shape.size());
  fields[kParamDType] = dtype;
  fields[kParamReserved] = i32Constant(0);
  fields[kParamShape] = addressOrNull(b, loc, shape);
  fields[kParamStrides] = addressOrNull(b, loc, strides);
  fields[kParamOffset] = LLVM::ConstantOp::create(
      b, loc, b.getI64Type(), b.getI64IntegerAttr(record.offset));
  return buildStruct(b, loc, getParamDescType(context), fields);
}

FailureOr<LLVM::GlobalOp> getOrCreateParamDesc(OpBuilder &b, Operation *op,
                                               dlpack::ParamAttr param) {
  Location loc = op->getLoc();
  FailureOr<ParamRecord> record = describeParam(loc, param);
  if (failed(record))
    return failure();
  auto module = op->getParentOfType<ModuleOp>();
  if (!module)
    return op->emitOpError("must be nested in a module");
  return getOrCreateGlobal(
      b, module, record->symbolPrefix(), [&](OpBuilder &b) {
        return createInitializedGlobal(
            b, loc, getParamDescType(b.getContext()), record->symbolPrefix(),
            LLVM::Linkage::Private, [&](OpBuilder &b) {
              return buildParamRecordValue(b, loc, module, *record);
            });
      });
}

//===----------------------------------------------------------------------===//
// Signature records
//===----------------------------------------------------------------------===//

LogicalResult createSignature(OpBuilder &b, Location loc, ModuleOp module,
                              StringRef symbol, StringRef function,
                              dlpack::DeviceType device, ArrayAttr args,
                              ArrayAttr results) {
  MLIRContext *context = b.getContext();
  SmallVector<ParamRecord> argRecords, resultRecords;
  for (auto [params, records] : {std::make_pair(args, &argRecords),
                                 std::make_pair(results, &resultRecords)}) {
    for (auto param : params.getAsRange<dlpack::ParamAttr>()) {
      FailureOr<ParamRecord> record = describeParam(loc, param);
      if (failed(record))
        return failure();
      records->push_back(std::move(*record));
    }
  }

  // `@<symbol><suffix>`, an array of `records`, or none when there are no
  // records.
  auto buildArray = [&](ArrayRef<ParamRecord> records,
                        StringRef suffix) -> LLVM::GlobalOp {
    if (records.empty())
      return nullptr;
    auto arrayType =
        LLVM::LLVMArrayType::get(getParamDescType(context), records.size());
    return createInitializedGlobal(
        b, loc, arrayType, (symbol + suffix).str(), LLVM::Linkage::Private,
        [&](OpBuilder &b) {
          Value array = LLVM::PoisonOp::create(b, loc, arrayType);
          for (auto [i, record] : llvm::enumerate(records))
            array = LLVM::InsertValueOp::create(
                b, loc, array, buildParamRecordValue(b, loc, module, record),
                i);
          return array;
        });
  };
  LLVM::GlobalOp argsGlobal = buildArray(argRecords, "_args");
  LLVM::GlobalOp resultsGlobal = buildArray(resultRecords, "_results");
  LLVM::GlobalOp name =
      getOrCreateString(b, loc, module, (symbol + "_name").str(), function);

  createInitializedGlobal(
      b, loc, getSignatureType(context), symbol, LLVM::Linkage::External,
      [&](OpBuilder &b) {
        auto i32Constant = [&](int64_t value) -> Value {
          return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                          b.getI32IntegerAttr(value));
        };
        SmallVector<Value> fields(getSignatureType(context).getBody().size());
        fields[kSignatureName] = addressOrNull(b, loc, name);
        fields[kSignatureDeviceType] =
            i32Constant(static_cast<int32_t>(device));
        fields[kSignatureNumArgs] = i32Constant(argRecords.size());
        fields[kSignatureNumResults] = i32Constant(resultRecords.size());
        fields[kSignatureReserved] = i32Constant(0);
        fields[kSignatureArgs] = addressOrNull(b, loc, argsGlobal);
        fields[kSignatureResults] = addressOrNull(b, loc, resultsGlobal);
        return buildStruct(b, loc, getSignatureType(context), fields);
      });
  return success();
}

} // namespace dlbridge::dlpack_abi
