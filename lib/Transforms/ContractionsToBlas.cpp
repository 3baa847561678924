//===- ContractionsToBlas.cpp - Matmuls call libdlrt's BLAS or cuBLASLt ---===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Transforms/Passes.h"

#include "dlbridge/Conversion/DLPackToLLVM/RuntimeCalls.h"
#include "dlbridge/Dialect/DLPack/IR/DLPackOps.h"
#include "dlbridge/Runtime/dlrt_cuda.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dlbridge {
#define GEN_PASS_DEF_CONTRACTIONSTOBLAS
#include "dlbridge/Transforms/Passes.h.inc"
} // namespace dlbridge

using namespace mlir;

namespace {

/// One operand of dlrt_matmul and dlrt_cuda_matmul: a pointer to its first
/// element and its element strides between batches, rows and columns.
struct BlasOperand {
  Value pointer;
  Value batchStride, rowStride, colStride;
};

/// A contraction as the runtime sees it: batch x (m x k) * (k x n).
struct BlasProduct {
  Value batch, m, n, k;
  BlasOperand a, b, c;
};

/// Reads a memref's first element address, sizes and strides (as i64 and
/// index) for a call into the runtime.
class MemRefReader {
public:
  MemRefReader(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value i64(int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 64);
  }
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value toI64(Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  }

  /// The memref's metadata, extracted once per operand.
  struct Parts {
    Value pointer;
    SmallVector<Value> sizes;   // index
    SmallVector<Value> strides; // i64
  };

  Parts read(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    Value aligned =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    Value offsetBytes = arith::MulIOp::create(
        b, loc, metadata.getOffset(), index(type.getElementTypeBitWidth() / 8));
    Value address = arith::AddIOp::create(b, loc, aligned, offsetBytes);
    Parts parts;
    parts.pointer = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), toI64(address));
    parts.sizes = llvm::to_vector_of<Value>(metadata.getSizes());
    for (Value stride : metadata.getStrides())
      parts.strides.push_back(toI64(stride));
    return parts;
  }

private:
  OpBuilder &b;
  Location loc;
};

/// The product `op` computes, read from its operands at `b`'s insertion
/// point; the operands are already known to be memrefs of its kind.
BlasProduct describe(OpBuilder &b, linalg::LinalgOp op) {
  MemRefReader reader(b, op.getLoc());
  MemRefReader::Parts a = reader.read(op.getDpsInputs()[0]);
  MemRefReader::Parts bb = reader.read(op.getDpsInputs()[1]);
  MemRefReader::Parts c = reader.read(op.getDpsInits()[0]);
  Value zero = reader.i64(0), one = reader.i64(1), unit = reader.index(1);
  BlasProduct p;
  p.batch = unit;
  auto matrix = [&](MemRefReader::Parts &parts, unsigned first) {
    return BlasOperand{parts.pointer, zero, parts.strides[first],
                       parts.strides[first + 1]};
  };
  if (isa<linalg::BatchMatmulOp>(op)) {
    p.batch = a.sizes[0];
    p.m = a.sizes[1], p.k = a.sizes[2], p.n = bb.sizes[2];
    p.a = matrix(a, 1), p.b = matrix(bb, 1), p.c = matrix(c, 1);
    p.a.batchStride = a.strides[0];
    p.b.batchStride = bb.strides[0];
    p.c.batchStride = c.strides[0];
  } else if (isa<linalg::MatvecOp>(op)) {
    // y(m) = A(m x k) x(k): x and y are single columns.
    p.m = a.sizes[0], p.k = a.sizes[1], p.n = unit;
    p.a = matrix(a, 0);
    p.b = {bb.pointer, zero, bb.strides[0], one};
    p.c = {c.pointer, zero, c.strides[0], one};
  } else if (isa<linalg::VecmatOp>(op)) {
    // y(n) = x(k) B(k x n): x and y are single rows.
    p.m = unit, p.k = a.sizes[0], p.n = bb.sizes[1];
    p.a = {a.pointer, zero, one, a.strides[0]};
    p.b = matrix(bb, 0);
    p.c = {c.pointer, zero, one, c.strides[0]};
  } else {
    p.m = a.sizes[0], p.k = a.sizes[1], p.n = bb.sizes[1];
    p.a = matrix(a, 0), p.b = matrix(bb, 0), p.c = matrix(c, 0);
  }
  return p;
}

/// The dlrt_cuda_matmul_type of `type`, if it has one.
std::optional<int32_t> getCudaMatmulType(Type type) {
  if (type.isF16())
    return DLRT_CUDA_MATMUL_F16;
  if (type.isBF16())
    return DLRT_CUDA_MATMUL_BF16;
  if (type.isF32())
    return DLRT_CUDA_MATMUL_F32;
  if (type.isF64())
    return DLRT_CUDA_MATMUL_F64;
  return std::nullopt;
}

/// Whether dlrt_matmul computes a product of `input`s into `output`: one
/// element type, f32 or f64.
bool isCpuTypePair(Type input, Type output) {
  return input == output && (input.isF32() || input.isF64());
}

/// Whether dlrt_cuda_matmul computes a product of `input`s into `output`:
/// one type, or f16/bf16 into f32 (linalg's products extend the inputs to
/// the output type, as cuBLASLt's f32 accumulation does).
bool isCudaTypePair(Type input, Type output) {
  if (!getCudaMatmulType(input))
    return false;
  return input == output ||
         ((input.isF16() || input.isBF16()) && output.isF32());
}

/// Whether `memref` is device memory in the host code of the CUDA
/// pipeline: not (a view of) a constant's global or a stack buffer, which
/// stay in host memory.
bool isDeviceBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return !isa_and_nonnull<memref::GetGlobalOp, memref::AllocaOp>(
      memref.getDefiningOp());
}

/// Whether the runtime computes `op`, on the CUDA target if `cuda`: a named
/// contraction with its default maps, outside kernels, on memrefs (device
/// buffers for CUDA) of a type pair the target's library takes.
bool isBlasContraction(linalg::LinalgOp op, bool cuda) {
  if (auto matmul = dyn_cast<linalg::MatmulOp>(*op)) {
    if (matmul.hasUserDefinedMaps())
      return false;
  } else if (auto batched = dyn_cast<linalg::BatchMatmulOp>(*op)) {
    if (batched.hasUserDefinedMaps())
      return false;
  } else if (!isa<linalg::MatvecOp, linalg::VecmatOp>(*op)) {
    return false;
  }
  if (!op.hasPureBufferSemantics() || op->getNumOperands() != 3)
    return false;
  // Device code (a hand-written kernel) cannot call the host's runtime.
  if (op->getParentOfType<gpu::LaunchOp>() ||
      op->getParentOfType<gpu::GPUModuleOp>())
    return false;
  if (!llvm::all_of(op->getOperands(), [&](Value operand) {
        auto type = dyn_cast<MemRefType>(operand.getType());
        return type && !type.getMemorySpace() &&
               (!cuda || isDeviceBuffer(operand));
      }))
    return false;
  Type input = getElementTypeOrSelf(op->getOperand(0).getType());
  Type output = getElementTypeOrSelf(op->getOperand(2).getType());
  if (getElementTypeOrSelf(op->getOperand(1).getType()) != input)
    return false;
  return cuda ? isCudaTypePair(input, output) : isCpuTypePair(input, output);
}

/// Whether `op` can sit between a fill and the product it initialises with
/// the fill folded into the product: it reads and writes no memory, or only
/// checks (shape checks come between them), which may end the call but never
/// look at the buffer.
bool isFillTransparent(Operation *op) {
  return !op->walk([](Operation *nested) {
              if (isa<dlbridge::dlpack::AssertOp>(nested) ||
                  isMemoryEffectFree(nested) ||
                  nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
                return WalkResult::advance();
              return WalkResult::interrupt();
            }).wasInterrupted();
}

/// The `linalg.fill` of zero into `op`'s output before it, with nothing in
/// between that touches memory, which the call replaces by not
/// accumulating; null when there is none.
linalg::FillOp findZeroFill(linalg::LinalgOp op) {
  Operation *previous = op->getPrevNode();
  while (previous && !isa<linalg::FillOp>(previous) &&
         isFillTransparent(previous))
    previous = previous->getPrevNode();
  auto fill = dyn_cast_or_null<linalg::FillOp>(previous);
  if (!fill || !fill.hasPureBufferSemantics() ||
      fill.getDpsInits()[0] != op.getDpsInits()[0])
    return nullptr;
  Value value = fill.getDpsInputs()[0];
  if (!matchPattern(value, m_AnyZeroFloat()))
    return nullptr;
  return fill;
}

/// The number of multiply-adds of `op` when all its sizes are static.
std::optional<int64_t> getStaticWork(linalg::LinalgOp op) {
  int64_t work = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    work *= range;
  }
  return work;
}

struct ContractionsToBlasPass
    : public dlbridge::impl::ContractionsToBlasBase<ContractionsToBlasPass> {
  using ContractionsToBlasBase::ContractionsToBlasBase;

  void runOnOperation() override {
    if (target != "cpu" && target != "cuda") {
      getOperation()->emitError()
          << "dlbridge-contractions-to-blas: unknown target '" << target
          << "'; expected cpu or cuda";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> contractions;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!isBlasContraction(op, target == "cuda"))
        return;
      std::optional<int64_t> work = getStaticWork(op);
      if (work && *work < minWork)
        return;
      contractions.push_back(op);
    });
    for (linalg::LinalgOp op : contractions)
      if (failed(replace(op)))
        return signalPassFailure();
  }

  LogicalResult replace(linalg::LinalgOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    linalg::FillOp fill = findZeroFill(op);
    if (fill)
      b.setInsertionPoint(fill);
    BlasProduct p = describe(b, op);

    // Below min-work, where the sizes are only known at run time, the op
    // (and its fill) stays, in the else branch of a test.
    Block *callBlock = nullptr;
    if (!getStaticWork(op) && minWork > 1) {
      Value work = p.batch;
      for (Value size : {p.m, p.n, p.k})
        work = arith::MulIOp::create(b, loc, work, size);
      Value large = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::uge, work,
          arith::ConstantIndexOp::create(b, loc, minWork));
      auto test = scf::IfOp::create(b, loc, large, /*withElseRegion=*/true);
      OpBuilder elseBuilder = test.getElseBodyBuilder();
      IRMapping mapping;
      if (fill)
        elseBuilder.clone(*fill, mapping);
      elseBuilder.clone(*op, mapping);
      callBlock = test.thenBlock();
      b.setInsertionPointToStart(callBlock);
    }

    MemRefReader reader(b, loc);
    SmallVector<Value> product;
    for (Value size : {p.batch, p.m, p.n, p.k})
      product.push_back(reader.toI64(size));
    for (const BlasOperand &operand : {p.a, p.b, p.c})
      product.append({operand.pointer, operand.batchStride, operand.rowStride,
                      operand.colStride});
    if (failed(target == "cuda" ? callCuda(b, op, fill, product)
                                : callCpu(b, op, fill, product)))
      return failure();
    if (fill)
      fill->erase();
    op->erase();
    return success();
  }

  /// dlrt_matmul(bits, accumulate, `product`...).
  LogicalResult callCpu(OpBuilder &b, linalg::LinalgOp op, linalg::FillOp fill,
                        ArrayRef<Value> product) {
    Location loc = op.getLoc();
    Type element = getElementTypeOrSelf(op->getOperand(0).getType());
    SmallVector<Value> args = {
        arith::ConstantIntOp::create(b, loc, element.getIntOrFloatBitWidth(),
                                     32),
        arith::ConstantIntOp::create(b, loc, fill ? 0 : 1, 32)};
    args.append(product.begin(), product.end());
    return dlbridge::createRuntimeCall(b, op, dlbridge::RuntimeFunction::Matmul,
                                       args);
  }

  /// dlrt_cuda_matmul(stream, types, flags, `product`...) on the call's
  /// stream, and the op itself (after its fill) where the runtime declines.
  LogicalResult callCuda(OpBuilder &b, linalg::LinalgOp op, linalg::FillOp fill,
                         ArrayRef<Value> product) {
    Location loc = op.getLoc();
    FailureOr<LLVM::CallOp> stream = dlbridge::createRuntimeCall(
        b, op, dlbridge::RuntimeFunction::CallStream, ValueRange());
    if (failed(stream))
      return failure();
    Type input = getElementTypeOrSelf(op->getOperand(0).getType());
    Type output = getElementTypeOrSelf(op->getOperand(2).getType());
    int32_t flags =
        (fill ? 0 : DLRT_CUDA_MATMUL_ACCUMULATE) |
        (allowTF32 && input.isF32() ? DLRT_CUDA_MATMUL_ALLOW_TF32 : 0);
    auto i32 = [&](int32_t value) -> Value {
      return arith::ConstantIntOp::create(b, loc, value, 32);
    };
    SmallVector<Value> args = {stream->getResult(),
                               i32(*getCudaMatmulType(input)),
                               i32(*getCudaMatmulType(output)), i32(flags)};
    args.append(product.begin(), product.end());
    FailureOr<LLVM::CallOp> call = dlbridge::createRuntimeCall(
        b, op, dlbridge::RuntimeFunction::CudaMatmul, args);
    if (failed(call))
      return failure();
    Value declined = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           call->getResult(),
                                           i32(DLRT_CUDA_MATMUL_DECLINED));
    auto fallback = scf::IfOp::create(b, loc, declined);
    OpBuilder thenBuilder = fallback.getThenBodyBuilder();
    IRMapping mapping;
    if (fill)
      thenBuilder.clone(*fill, mapping);
    thenBuilder.clone(*op, mapping);
    return success();
  }
};

} // namespace
