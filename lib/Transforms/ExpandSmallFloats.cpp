//===- ExpandSmallFloats.cpp - 8-bit floats as integers and f32 -----------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlbridge {
#define GEN_PASS_DEF_EXPANDSMALLFLOATS
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// A float type LLVM has no type for and this pass expands: at most 8 bits,
/// with a sign bit, a zero and a NaN (the f8E* types but f8E8M0FNU).
bool isSmallFloat(Type type) {
  auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  if (!floatType || LLVM::isCompatibleFloatingPointType(floatType) ||
      floatType.getWidth() > 8)
    return false;
  const llvm::fltSemantics &sem = floatType.getFloatSemantics();
  return llvm::APFloat::semanticsHasSignedRepr(sem) &&
         llvm::APFloat::semanticsHasZero(sem) &&
         llvm::APFloat::semanticsHasNaN(sem);
}

/// The bit-level facts of a float type, as unsigned integers.
struct Layout {
  explicit Layout(FloatType type) {
    const llvm::fltSemantics &sem = type.getFloatSemantics();
    width = type.getWidth();
    mantissaBits = llvm::APFloat::semanticsPrecision(sem) - 1;
    bias = 1 - llvm::APFloat::semanticsMinExponent(sem);
    signMask = uint64_t(1) << (width - 1);
    maxFinite = bits(llvm::APFloat::getLargest(sem));
    hasInf = llvm::APFloat::semanticsHasInf(sem);
    infinity = hasInf ? bits(llvm::APFloat::getInf(sem)) : 0;
    nan = bits(llvm::APFloat::getQNaN(sem));
    // FNUZ types: the negative-zero pattern is the only NaN.
    hasNegativeZero = bits(llvm::APFloat::getZero(sem, true)) != 0;
  }
  static uint64_t bits(const llvm::APFloat &value) {
    return value.bitcastToAPInt().getZExtValue();
  }
  unsigned width, mantissaBits;
  int64_t bias;
  uint64_t signMask, maxFinite, infinity, nan;
  bool hasInf, hasNegativeZero;
};

/// Builds integer and float operations of one shape (scalar or vector).
struct BitBuilder {
  BitBuilder(PatternRewriter &rewriter, Location loc, Type shapeOf)
      : rewriter(rewriter), loc(loc), shapeOf(shapeOf) {}
  Type like(Type element) const {
    if (auto vector = dyn_cast<VectorType>(shapeOf))
      return vector.clone(element);
    return element;
  }
  Value constant(TypedAttr attr) const {
    Type type = like(attr.getType());
    if (auto vector = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(rewriter, loc, type,
                                       SplatElementsAttr::get(vector, attr));
    return arith::ConstantOp::create(rewriter, loc, type, attr);
  }
  Value constant(Type element, uint64_t value) const {
    return constant(rewriter.getIntegerAttr(element, value));
  }
  template <typename OpTy> Value op(Value lhs, Value rhs) const {
    return OpTy::create(rewriter, loc, lhs, rhs);
  }
  Value cmp(arith::CmpIPredicate predicate, Value lhs, Value rhs) const {
    return arith::CmpIOp::create(rewriter, loc, predicate, lhs, rhs);
  }
  Value select(Value condition, Value ifTrue, Value ifFalse) const {
    return arith::SelectOp::create(rewriter, loc, condition, ifTrue, ifFalse);
  }
  /// `value >> shift` rounded to nearest, ties to even, for shift > 0.
  Value shiftRoundingToEven(Value value, Value shift, Type intType) const {
    Value one = constant(intType, 1);
    Value half = op<arith::SubIOp>(
        op<arith::ShLIOp>(one, op<arith::SubIOp>(shift, one)), one);
    Value odd = op<arith::AndIOp>(op<arith::ShRUIOp>(value, shift), one);
    Value rounded = op<arith::AddIOp>(op<arith::AddIOp>(value, half), odd);
    return op<arith::ShRUIOp>(rounded, shift);
  }
  PatternRewriter &rewriter;
  Location loc;
  Type shapeOf;
};

/// extf from a small float: its bits become those of the f32 with the same
/// value (exact), which an ordinary extf or truncf takes to the result type.
struct ExpandExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type sourceType = op.getIn().getType();
    if (!isSmallFloat(sourceType))
      return failure();
    Layout small(cast<FloatType>(getElementTypeOrSelf(sourceType)));
    BitBuilder b(rewriter, op.getLoc(), sourceType);
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    Type narrow = rewriter.getIntegerType(small.width);
    Value bits = arith::BitcastOp::create(rewriter, op.getLoc(), b.like(narrow),
                                          op.getIn());
    bits = arith::ExtUIOp::create(rewriter, op.getLoc(), b.like(i32), bits);
    auto c = [&](uint64_t value) { return b.constant(i32, value); };
    using P = arith::CmpIPredicate;

    Value magnitude = b.op<arith::AndIOp>(bits, c(small.signMask - 1));
    Value sign = b.op<arith::ShLIOp>(
        b.op<arith::AndIOp>(bits, c(small.signMask)), c(32 - small.width));
    Value exponent = b.op<arith::ShRUIOp>(magnitude, c(small.mantissaBits));
    Value mantissa =
        b.op<arith::AndIOp>(magnitude, c((1u << small.mantissaBits) - 1));
    // Normal: rebias the exponent, widen the mantissa.
    Value normal = b.op<arith::OrIOp>(
        b.op<arith::ShLIOp>(b.op<arith::AddIOp>(exponent, c(127 - small.bias)),
                            c(23)),
        b.op<arith::ShLIOp>(mantissa, c(23 - small.mantissaBits)));
    // Subnormal: mantissa * 2^(1 - bias - mantissaBits), normal in f32.
    Value scaled = arith::MulFOp::create(
        rewriter, op.getLoc(),
        arith::UIToFPOp::create(rewriter, op.getLoc(), b.like(f32), mantissa),
        b.constant(rewriter.getF32FloatAttr(
            std::ldexp(1.0f, 1 - small.bias - small.mantissaBits))));
    Value subnormal =
        arith::BitcastOp::create(rewriter, op.getLoc(), b.like(i32), scaled);
    Value result = b.select(b.cmp(P::eq, exponent, c(0)), subnormal, normal);

    Value isNaN;
    if (small.hasInf) {
      result = b.select(b.cmp(P::eq, magnitude, c(small.infinity)),
                        c(0x7f800000), result);
      isNaN = b.cmp(P::ugt, magnitude, c(small.infinity));
    } else if (small.hasNegativeZero) {
      isNaN = b.cmp(P::eq, magnitude, c(small.nan & (small.signMask - 1)));
    } else {
      isNaN = b.cmp(P::eq, bits, c(small.nan));
    }
    result = b.op<arith::OrIOp>(sign, result);
    result = b.select(isNaN, c(0x7fc00000), result);
    Value value =
        arith::BitcastOp::create(rewriter, op.getLoc(), b.like(f32), result);

    Type resultType = op.getType();
    unsigned resultWidth =
        getElementTypeOrSelf(resultType).getIntOrFloatBitWidth();
    if (resultWidth > 32)
      value = arith::ExtFOp::create(rewriter, op.getLoc(), resultType, value);
    else if (getElementTypeOrSelf(resultType) != f32)
      value = arith::TruncFOp::create(rewriter, op.getLoc(), resultType, value);
    rewriter.replaceOp(op, value);
    return success();
  }
};

/// truncf to a small float, rounding to nearest even in the integer bits of
/// the f32 or f64 source (f16 and bf16 extend to f32 first, exactly): one
/// rounding, as the op's semantics ask.
struct ExpandTruncF : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type resultType = op.getType();
    if (!isSmallFloat(resultType))
      return failure();
    if (op.getRoundingmode() &&
        *op.getRoundingmode() != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op, "rounds other than to even");
    Location loc = op.getLoc();
    BitBuilder b(rewriter, loc, resultType);
    Value in = op.getIn();
    auto inElement = cast<FloatType>(getElementTypeOrSelf(in.getType()));
    if (inElement.getWidth() < 32) {
      in = arith::ExtFOp::create(rewriter, loc, b.like(rewriter.getF32Type()),
                                 in);
      inElement = rewriter.getF32Type();
    } else if (inElement.getWidth() > 64 ||
               !LLVM::isCompatibleFloatingPointType(inElement)) {
      return rewriter.notifyMatchFailure(op, "source wider than f64");
    }
    Layout wide(inElement),
        small(cast<FloatType>(getElementTypeOrSelf(resultType)));
    Type intType = rewriter.getIntegerType(wide.width);
    auto c = [&](uint64_t value) { return b.constant(intType, value); };
    using P = arith::CmpIPredicate;

    Value bits = arith::BitcastOp::create(rewriter, loc, b.like(intType), in);
    Value sign = b.op<arith::AndIOp>(bits, c(wide.signMask));
    Value magnitude = b.op<arith::AndIOp>(bits, c(wide.signMask - 1));
    unsigned shift = wide.mantissaBits - small.mantissaBits;
    uint64_t rebias = uint64_t(wide.bias - small.bias) << wide.mantissaBits;
    // Normal results: round off the extra mantissa bits, rebias.
    Value normal = b.shiftRoundingToEven(
        b.op<arith::SubIOp>(magnitude, c(rebias)), c(shift), intType);
    // Subnormal results: the significand (with its implicit one) shifted
    // right by how far the exponent is below the small type's minimum.
    Value exponent = b.op<arith::ShRUIOp>(magnitude, c(wide.mantissaBits));
    Value isWideNormal = b.cmp(P::ne, exponent, c(0));
    Value significand = b.op<arith::OrIOp>(
        b.op<arith::AndIOp>(magnitude,
                            c((uint64_t(1) << wide.mantissaBits) - 1)),
        b.select(isWideNormal, c(uint64_t(1) << wide.mantissaBits), c(0)));
    Value distance =
        b.op<arith::SubIOp>(c(shift + uint64_t(wide.bias - small.bias) + 1),
                            b.op<arith::MaxUIOp>(exponent, c(1)));
    // Beyond mantissaBits + 2 everything rounds to zero; below 1 this is
    // not the subnormal case.
    distance = b.op<arith::MinSIOp>(b.op<arith::MaxSIOp>(distance, c(1)),
                                    c(wide.mantissaBits + 2));
    Value subnormal = b.shiftRoundingToEven(significand, distance, intType);
    uint64_t minNormal = uint64_t(wide.bias - small.bias + 1)
                         << wide.mantissaBits;
    Value result =
        b.select(b.cmp(P::ult, magnitude, c(minNormal)), subnormal, normal);

    uint64_t smallMagnitudeMask = small.signMask - 1;
    Value overflows =
        b.cmp(P::ugt, result, c(small.maxFinite & smallMagnitudeMask));
    Value isNaN = b.cmp(P::ugt, magnitude, c(wide.infinity));
    uint64_t nanMagnitude = small.nan & smallMagnitudeMask;
    Value smallSign = b.op<arith::ShRUIOp>(sign, c(wide.width - small.width));
    if (small.hasNegativeZero) {
      result = b.select(
          overflows, c(small.hasInf ? small.infinity : nanMagnitude), result);
      result = b.select(isNaN, c(nanMagnitude), result);
      result = b.op<arith::OrIOp>(smallSign, result);
    } else {
      // No -0, and the NaN is the pattern -0 would have.
      Value isZero = b.cmp(P::eq, result, c(0));
      result = b.select(isZero, c(0), b.op<arith::OrIOp>(smallSign, result));
      result =
          b.select(b.op<arith::OrIOp>(overflows, isNaN), c(small.nan), result);
    }
    Type narrow = rewriter.getIntegerType(small.width);
    result = arith::TruncIOp::create(rewriter, loc, b.like(narrow), result);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, resultType, result);
    return success();
  }
};

struct ExpandSmallFloatsPass
    : public dlbridge::impl::ExpandSmallFloatsBase<ExpandSmallFloatsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    mlir::Builder types(context);
    SmallVector<Type> smallTypes = {types.getType<Float8E5M2Type>(),
                                    types.getType<Float8E4M3Type>(),
                                    types.getType<Float8E4M3FNType>(),
                                    types.getType<Float8E5M2FNUZType>(),
                                    types.getType<Float8E4M3FNUZType>(),
                                    types.getType<Float8E4M3B11FNUZType>(),
                                    types.getType<Float8E3M4Type>()};

    // Arithmetic on small floats: in f32, between an extf and a truncf.
    TypeConverter converter;
    arith::populateEmulateUnsupportedFloatsConversions(converter, smallTypes,
                                                       types.getF32Type());
    RewritePatternSet emulation(context);
    arith::populateEmulateUnsupportedFloatsPatterns(emulation, converter);
    ConversionTarget target(*context);
    arith::populateEmulateUnsupportedFloatsLegality(target, converter);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(emulation))))
      return signalPassFailure();

    // Math functions on them too (f16 and bf16 keep theirs).
    TypeConverter mathConverter;
    SetVector<Type> supported;
    for (Type type : {types.getF16Type(), types.getBF16Type(),
                      types.getF32Type(), types.getF64Type()})
      supported.insert(type);
    math::populateExtendToSupportedTypesTypeConverter(mathConverter, supported,
                                                      types.getF32Type());
    RewritePatternSet mathPatterns(context);
    math::populateExtendToSupportedTypesPatterns(mathPatterns, mathConverter);
    ConversionTarget mathTarget(*context);
    math::populateExtendToSupportedTypesConversionTarget(mathTarget,
                                                         mathConverter);
    if (failed(applyPartialConversion(getOperation(), mathTarget,
                                      std::move(mathPatterns))))
      return signalPassFailure();

    RewritePatternSet patterns(context);
    patterns.add<ExpandExtF, ExpandTruncF>(context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
