//===- Passes.td - dlbridge's general transforms ----------*- tablegen -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_TRANSFORMS_PASSES_TD
#define DLBRIDGE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DecomposeAggregatedOps : Pass<"dlbridge-decompose-aggregated-ops"> {
  let summary = "Decompose aggregated linalg ops (softmax, ...) into simpler ones";
  let description = [{
    Ops such as `linalg.softmax` implement `AggregatedOpInterface`: they
    stand for several linalg ops, and neither `convert-linalg-to-loops` nor
    bufferization knows them. Upstream decomposes them only from the
    transform dialect; this pass does it for every such op so the named
    pipelines accept them.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ApproximateMath : Pass<"dlbridge-approximate-math"> {
  let summary = "Inline polynomial approximations of f32 math functions";
  let description = [{
    On the host, `math.tanh`, `math.erf`, `math.exp` and friends otherwise
    become calls to libm, one element at a time: LLVM can neither inline nor
    vectorise them. MLIR's polynomial approximations (a few ULP in f32) are
    plain arithmetic that LLVM vectorises. Powers with small constant
    exponents become multiplications. Other element types keep their libm
    calls.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def MatmulLoopOrder : Pass<"dlbridge-matmul-loop-order"> {
  let summary = "Order matmul loops so the innermost one walks contiguous memory";
  let description = [{
    `linalg.matmul` lowers to loops in (i, j, k) order: the innermost loop
    reads B down a column and accumulates into one element, which LLVM cannot
    vectorise. In (i, k, j) order the innermost loop walks rows of B and C
    contiguously (for row-major operands) and is a plain vectorisable
    update. This pass generalises `linalg.matmul` and `linalg.batch_matmul`
    and interchanges their loops accordingly; it is for host code (GPU
    pipelines map the parallel loops instead).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // DLBRIDGE_TRANSFORMS_PASSES_TD
