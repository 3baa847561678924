//===- DTypeMappingTest.cpp - MLIR element types <-> DLPack dtypes --------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Dialect/DLPack/IR/DTypeMapping.h"
#include "dlbridge/Runtime/dlrt.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

using namespace mlir;
using namespace dlbridge::dlpack;

namespace {

class DTypeMappingTest : public ::testing::Test {
protected:
  DTypeMappingTest() { context.loadDialect<DLPackDialect>(); }

  Type parse(StringRef source) { return parseType(source, &context); }

  DTypeAttr dtype(TypeCode code, unsigned bits, unsigned lanes = 1) {
    return DTypeAttr::get(&context, code, bits, lanes);
  }

  MLIRContext context;
};

struct Case {
  const char *type;
  uint8_t code; // DLDataTypeCode from the real dlpack.h.
  unsigned bits;
  unsigned lanes;
};

/// Every element type with a DLPack dtype, against dlpack.h's own codes.
const Case kCases[] = {
    {"i1", kDLBool, 8, 1},
    {"i8", kDLInt, 8, 1},
    {"i16", kDLInt, 16, 1},
    {"i32", kDLInt, 32, 1},
    {"i64", kDLInt, 64, 1},
    {"ui8", kDLUInt, 8, 1},
    {"ui16", kDLUInt, 16, 1},
    {"ui32", kDLUInt, 32, 1},
    {"ui64", kDLUInt, 64, 1},
    {"f16", kDLFloat, 16, 1},
    {"f32", kDLFloat, 32, 1},
    {"f64", kDLFloat, 64, 1},
    {"bf16", kDLBfloat, 16, 1},
    {"complex<f16>", kDLComplex, 32, 1},
    {"complex<f32>", kDLComplex, 64, 1},
    {"complex<f64>", kDLComplex, 128, 1},
    {"f8E3M4", kDLFloat8_e3m4, 8, 1},
    {"f8E4M3", kDLFloat8_e4m3, 8, 1},
    {"f8E4M3B11FNUZ", kDLFloat8_e4m3b11fnuz, 8, 1},
    {"f8E4M3FN", kDLFloat8_e4m3fn, 8, 1},
    {"f8E4M3FNUZ", kDLFloat8_e4m3fnuz, 8, 1},
    {"f8E5M2", kDLFloat8_e5m2, 8, 1},
    {"f8E5M2FNUZ", kDLFloat8_e5m2fnuz, 8, 1},
    {"f8E8M0FNU", kDLFloat8_e8m0fnu, 8, 1},
    {"f6E2M3FN", kDLFloat6_e2m3fn, 6, 1},
    {"f6E3M2FN", kDLFloat6_e3m2fn, 6, 1},
    {"f4E2M1FN", kDLFloat4_e2m1fn, 4, 1},
    {"vector<4xf32>", kDLFloat, 32, 4},
    {"vector<2xi8>", kDLInt, 8, 2},
};

TEST_F(DTypeMappingTest, ElementTypeToDTypeAndBack) {
  for (const Case &c : kCases) {
    SCOPED_TRACE(c.type);
    Type type = parse(c.type);
    ASSERT_TRUE(type);
    DTypeAttr expected = dtype(static_cast<TypeCode>(c.code), c.bits, c.lanes);
    EXPECT_EQ(getDefaultDType(type), expected);
    EXPECT_EQ(getElementType(expected), type);
    EXPECT_TRUE(isCompatible(expected, type));
  }
}

TEST_F(DTypeMappingTest, EnumValuesAreDLPacks) {
  EXPECT_EQ(static_cast<int>(TypeCode::Float4E2M1FN), kDLFloat4_e2m1fn);
  EXPECT_EQ(static_cast<int>(TypeCode::OpaqueHandle), kDLOpaqueHandle);
  EXPECT_EQ(static_cast<int>(DeviceType::CUDAManaged), kDLCUDAManaged);
  EXPECT_EQ(static_cast<int>(DeviceType::Trn), kDLTrn);
  EXPECT_EQ(static_cast<int>(DeviceType::CUDAHost), kDLCUDAHost);
}

TEST_F(DTypeMappingTest, SignedIntegersAreInt) {
  EXPECT_EQ(getDefaultDType(parse("si32")), dtype(TypeCode::Int, 32));
}

TEST_F(DTypeMappingTest, TypesWithoutDType) {
  for (const char *source :
       {"index", "i3", "i4", "i128", "tf32", "f80", "f128", "complex<bf16>",
        "complex<i32>", "vector<2x2xf32>", "vector<[4]xf32>", "none"}) {
    SCOPED_TRACE(source);
    Type type = parse(source);
    ASSERT_TRUE(type);
    EXPECT_FALSE(getDefaultDType(type));
  }
}

TEST_F(DTypeMappingTest, DTypesWithoutElementType) {
  EXPECT_FALSE(getElementType(dtype(TypeCode::OpaqueHandle, 64)));
  EXPECT_FALSE(getElementType(dtype(TypeCode::Int, 4)));
  EXPECT_FALSE(getElementType(dtype(TypeCode::UInt, 1)));
}

TEST_F(DTypeMappingTest, SignlessIntegersTakeUnsignedDTypes) {
  EXPECT_TRUE(isCompatible(dtype(TypeCode::UInt, 8), parse("i8")));
  EXPECT_TRUE(isCompatible(dtype(TypeCode::UInt, 8, 4), parse("vector<4xi8>")));
  EXPECT_FALSE(isCompatible(dtype(TypeCode::UInt, 16), parse("i8")));
  EXPECT_FALSE(isCompatible(dtype(TypeCode::Int, 8), parse("ui8")));
  EXPECT_FALSE(isCompatible(dtype(TypeCode::UInt, 8), parse("si8")));
  EXPECT_FALSE(isCompatible(dtype(TypeCode::Float, 32), parse("i32")));
  EXPECT_FALSE(isCompatible(dtype(TypeCode::Bool, 8), parse("i8")));
}

TEST_F(DTypeMappingTest, AttributeSyntax) {
  Attribute parsed =
      parseAttribute("#dlpack.dtype<float8_e4m3fn, 8>", &context);
  EXPECT_EQ(parsed, dtype(TypeCode::Float8E4M3FN, 8));
  std::string printed;
  llvm::raw_string_ostream os(printed);
  os << dtype(TypeCode::Float, 32, 4) << " " << dtype(TypeCode::UInt, 8);
  EXPECT_EQ(printed,
            "#dlpack.dtype<float, 32, lanes = 4> #dlpack.dtype<uint, 8>");
}

/// The IR spells device types and dtype codes through ODS enums; what users
/// read in messages and Python is libdlrt's. Both must be one spelling.
TEST(DLPackEnumSpellingTest, DeviceTypesAreLibdlrtsNames) {
  int named = 0;
  for (uint32_t value = 0; value < 256; ++value) {
    std::optional<DeviceType> type = symbolizeDeviceType(value);
    const char *runtimeName =
        dlrt_device_type_name(static_cast<int32_t>(value));
    if (!type) {
      EXPECT_EQ(runtimeName, nullptr) << value;
      continue;
    }
    ++named;
    ASSERT_NE(runtimeName, nullptr) << value;
    EXPECT_EQ(stringifyDeviceType(*type), runtimeName);
  }
  EXPECT_EQ(named, 16);
}

TEST(DLPackEnumSpellingTest, DTypeCodesStartLibdlrtsDTypeNames) {
  for (uint32_t value = 0; value < 256; ++value) {
    std::optional<TypeCode> code = symbolizeTypeCode(value);
    if (!code)
      continue;
    // Widths whose names are complete: fixed-width codes name their own.
    uint8_t bits =
        *code == TypeCode::Float6E2M3FN || *code == TypeCode::Float6E3M2FN ? 6
        : *code == TypeCode::Float4E2M1FN                                  ? 4
        : *code == TypeCode::Complex                                       ? 64
                                                                           : 8;
    char name[64];
    dlrt_dtype_name({static_cast<uint8_t>(value), bits, 1}, name, sizeof(name));
    EXPECT_TRUE(llvm::StringRef(name).starts_with(stringifyTypeCode(*code)))
        << name << " vs " << stringifyTypeCode(*code).str();
    EXPECT_EQ(llvm::StringRef(name).find("unknown"), llvm::StringRef::npos);
  }
}

} // namespace
