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

def LowerPackUnpack : Pass<"dlbridge-lower-pack-unpack"> {
  let summary = "Lower linalg.pack and linalg.unpack to pad, reshape and transpose";
  let description = [{
    Data-layout ops such as `linalg.pack` (tile a tensor, padding the last
    tiles) and `linalg.unpack` (its inverse) have no bufferization and no
    loop lowering: the pipelines would stop at them with "op was not
    bufferized". Upstream lowers them only from the transform dialect
    (`transform.structured.lower_pack`); this pass applies the same
    rewrites to every such op: a pack becomes `tensor.pad` (when tiles do
    not divide the source), `tensor.expand_shape` and `linalg.transpose`,
    an unpack `linalg.transpose`, `tensor.collapse_shape` and
    `tensor.extract_slice`, all of which both pipelines lower.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ExpandSmallFloats : Pass<"dlbridge-expand-small-floats"> {
  let summary = "Compute on 8-bit floats in f32, convert them with integer operations";
  let description = [{
    LLVM has no type for the 8-bit floats (f8E4M3FN, f8E5M2 and the other
    f8E* types with a sign, a zero and a NaN; not f8E8M0FNU): its type
    converter stores them as integers of their width, and
    `arith.extf`/`arith.truncf` to or from them, or arithmetic on them, have
    no lowering (the pipelines would report the op as not lowered).

    This pass computes arithmetic and math functions on such types in f32
    (upstream's `arith-emulate-unsupported-floats` and
    `math-extend-to-supported-types` patterns), then expands every
    `arith.extf` from and `arith.truncf` to them into integer operations
    on their bits: an extension is exact; a truncation rounds once to
    nearest, ties to even (from the bits of the f32 or f64 source; f16 and
    bf16 extend to f32 first, exactly), handles subnormals, and maps
    overflow to infinity, or to NaN for types without one, as the
    constant folder (APFloat) does. Types without a negative zero (FNUZ)
    get +0 and their single NaN. Scalars and vectors alike; truncations
    with a rounding mode other than to-nearest-even are left alone.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect",
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

def ExactMathToLibm : Pass<"dlbridge-exact-math-to-libm", "::mlir::ModuleOp"> {
  let summary = "math.expm1 and math.log1p to libm calls, not exp(x) - 1 and log(1 + x)";
  let description = [{
    `convert-math-to-llvm` lowers `math.expm1` to `exp(x) - 1` and
    `math.log1p` to `log(1 + x)`, which lose all the digits these functions
    exist for: `expm1(1e-12)` comes out 1e-4 off relatively. Run before it,
    this pass turns the two (scalars, and vectors element by element) into
    calls of libm's `expm1`/`log1p` (`expm1f`/`log1pf`), as
    `convert-math-to-libm` does for the functions LLVM has no intrinsic for.
    f32 ones that `dlbridge-approximate-math` already expanded are gone by
    then; other operations are left alone.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def SimplifyMath : Pass<"dlbridge-simplify-math"> {
  let summary = "Powers with small constant exponents to multiplications";
  let description = [{
    `x ** 3` traces to `math.powf %x, 3.0`, which the CUDA pipeline would
    lower to libdevice's `__nv_powf`: some eighty instructions where two
    multiplications do. This pass applies upstream's algebraic
    simplification of the math dialect: `math.powf` by a constant 1, 2, 3,
    -1, 0.5, -0.5 or 0.75 becomes multiplications, a division or square
    roots, and `math.fpowi`/`math.ipowi` by a constant of magnitude up to 8
    a chain of multiplications (and a division for negative exponents).
    `dlbridge-approximate-math` includes the same rewrites for the host.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def FuseElementwiseOps : Pass<"dlbridge-fuse-elementwise-ops"> {
  let summary = "Upstream's elementwise fusion, keeping contractions named";
  let description = [{
    `linalg-fuse-elementwise-ops` fuses chains of elementwise ops and folds
    reshapes into the linalg ops around them by expanding their loops. For
    a contraction that last step destroys what matters most: an N-D @ 2-D
    product traced as collapse, `linalg.matmul`, expand becomes a batched
    `linalg.generic`, which no BLAS call or matmul schedule recognises. Its
    rule that a producer have one use also stops fusion wherever a shape
    check asks for a result's sizes, and keeps full-size temporaries that
    several reductions or maps read (softmax's exponentials).

    This pass applies the same patterns (elementwise fusion, reshape
    folding by expansion, expand_shape bubbling, canonicalisation, constant
    folding), and:
    - never fuses into or out of an op that implements a contraction, so
      named matmuls and their reshapes reach the bufferized pipeline as
      they were written;
    - reads the sizes of linalg results from their inits, so asking for a
      size does not count as a use;
    - fuses an elementwise producer that only linalg ops read into each of
      them, recomputing it, so its full-size result is never written;
    - leaves 8-bit float values unfused: their f32 emulation rounds only
      where a value is stored, and NumPy rounds after every op.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def ReuseDeadOperands : Pass<"dlbridge-reuse-dead-operands"> {
  let summary = "Elementwise ops write into a fresh operand that dies with them";
  let description = [{
    After fusion, the epilogue of a product or reduction (`x @ w + b`, then
    an activation) is one elementwise `linalg.generic` that reads the
    product and writes a `tensor.empty`: bufferized, that is a second
    full-size buffer, allocated (page faults included) and written on every
    call while the first dies unread.

    This pass makes such an op write into the operand instead, so one-shot
    bufferization updates the product's buffer in place. It applies to a
    `linalg.generic` with only parallel loops, one `tensor.empty` init whose
    value the payload does not read, and an input of the result's type,
    read through the init's indexing map, used by nothing else (but
    `tensor.dim`), and
    produced by a linalg op into a tensor of its own (a `tensor.empty`, or
    a `linalg.fill` of one), never into an argument or a view of one.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def ContractionsToBlas : Pass<"dlbridge-contractions-to-blas",
                               "::mlir::ModuleOp"> {
  let summary = "Call an optimised BLAS (CPU) or cuBLASLt (CUDA) for matmuls";
  let description = [{
    A matmul lowered to loops, even in a vectorisable order, runs at a
    fraction of an optimised BLAS: 2.5x NumPy's time at 1024^2 f64 on this
    project's machine, and N-D products and matvecs of real programs are
    dominated by it. Register blocking, packing and cache tiling for every
    microarchitecture is what OpenBLAS ships (with runtime CPU dispatch),
    so this pass hands the named contractions to it rather than re-deriving
    them with tiling transforms. On CUDA devices the same holds for tensor
    cores, shared-memory tiling and asynchronous copies per architecture,
    which cuBLASLt ships: the CUDA pipeline's own lowering of a matmul is one
    thread per output element reading global memory.

    `linalg.matmul`, `linalg.batch_matmul`, `linalg.matvec` and
    `linalg.vecmat` (matmuls with their default indexing maps) on memrefs
    become a call into libdlrt that takes each operand's pointer and element
    strides, any layout. With `target=cpu`, ops whose three element types
    are all f32 or all f64 call `dlrt_matmul`. With `target=cuda`, ops on
    device buffers (not constants' globals or stack buffers) whose inputs
    are f16, bf16, f32 or f64 with an output of the same type, or f16/bf16
    inputs with an f32 output, call `dlrt_cuda_matmul` on the stream of the
    call in progress (`dlrt_call_stream()`); where it declines (strides
    cuBLASLt cannot read, say a view of every other column), the op runs
    as before, in the then branch of a test of its result. When the op is
    directly preceded by a `linalg.fill` of zero into its output, the fill
    is folded into the call (BLAS's beta = 0). Products of fewer than
    `min-work` multiply-adds, where the call costs more than inline loops,
    keep the op, behind a run-time test when the sizes are dynamic. Other
    ops and element types are left to the loop lowering.
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"4096",
           "Multiply-adds from which a product calls BLAS (batch included)">,
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "Where the buffers live and which library multiplies: cpu "
           "(dlrt_matmul, host memory) or cuda (dlrt_cuda_matmul, device "
           "memory, in the CUDA pipeline)">,
    Option<"allowTF32", "allow-tf32", "bool", /*default=*/"false",
           "With target=cuda, let f32 products round inputs to TF32 on "
           "tensor cores: several times faster, but 10-bit mantissas, so off "
           "unless the caller accepts it (as torch's allow_tf32 does)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
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

def ExpandIntegerPowers : Pass<"dlbridge-expand-integer-powers"> {
  let summary = "Integer powers by square-and-multiply loops, for the CUDA "
                "pipeline";
  let description = [{
    `x ** n` of integers traces to `math.ipowi`. The CPU pipeline lowers it
    to a function (upstream's convert-math-to-funcs), but the CUDA pipeline
    cannot: that function would live on the host, where kernels cannot call
    it, and nothing lowers `math.ipowi` to NVVM or to LLVM. This pass
    expands each scalar `math.ipowi` in place, in host code and kernels
    alike, with convert-math-to-funcs' semantics: an `scf.while` that
    squares the base and multiplies it in at each set bit of the exponent,
    and for negative exponents 1 (base 1), -1 or 1 (base -1, by parity) or
    0. Powers by small constants are left to `dlbridge-simplify-math`'s
    multiplications, which the pipeline runs first.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def ExpandShapesToReinterpretCasts
    : Pass<"dlbridge-expand-shapes-to-reinterpret-casts"> {
  let summary = "Lower memref.expand_shape with several dynamic sizes in a "
                "group to a reinterpret_cast";
  let description = [{
    MLIR 22's `expand-strided-metadata` crashes on a `memref.expand_shape`
    that splits one dimension into two or more dynamic sizes (`[[0, 1]]
    output_shape [%m, %n] : memref<?xf32> into memref<?x?xf32>`, which
    bufferization makes for a `tensor.collapse_shape` of a strided operand).
    This pass, run before it, rewrites such views as the
    `memref.reinterpret_cast` of the source's base buffer they are: the
    source's offset, the output shape, and in each group the source
    dimension's stride for the innermost size, multiplied outwards by the
    sizes inside. Other `expand_shape`s are left to upstream.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def HoistLoopAllocas : Pass<"dlbridge-hoist-loop-allocas"> {
  let summary = "Allocate a loop's stack buffers once, before the loop";
  let description = [{
    A `memref.alloca` lives until its function (the closest
    `AutomaticAllocationScope`) returns, so one inside a loop takes new
    stack on every iteration: a scratch buffer per row of a large input
    overflows the stack and crashes the process. Backends emit such loops
    (and upstream lowerings keep them) expecting the buffer to be reused.

    This pass moves each `memref.alloca` out of the `scf.for`, `scf.while`
    and `affine.for` loops that enclose it (through `scf.if`, `affine.if`,
    `scf.index_switch` and `scf.execute_region` in between), as far as its
    size operands are defined outside them, so every iteration reuses one
    buffer. A buffer that outlives its iteration is left in place: when it
    or a view of it is yielded, carried into a region, returned from a
    callee's result or stored as a value. Loops whose iterations may run at
    the same time (`scf.parallel`, `scf.forall`, GPU launches) are never
    crossed.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def InterchangeScans : Pass<"dlbridge-interchange-scans"> {
  let summary = "Walk scans down columns a row of columns at a time";
  let description = [{
    A scan along a dimension other than the innermost one (`cumsum(x,
    axis=0)`) is an `scf.parallel` over the other dimensions whose body
    walks a column with an `scf.for` carrying the running values. On the
    CPU each thread then walks one column after the other: every step of a
    walk reads and writes a different row, a cache line and often a page
    apart, for one element.

    This pass tiles the loop's last dimension by `tile-size` columns and,
    within a tile, walks the rows in the outer loop and the tile's columns
    in the inner one, each column's carried values in a stack buffer
    between its steps: consecutive columns touch consecutive elements. The
    loop's iterations are independent (`scf.parallel`), and each column
    computes the same values in the same order as before.

    It takes a parallel loop of unit steps that carries no reductions,
    whose body holds ops without memory effects and one `scf.for` with
    bounds defined outside the loop, unused results and integer, index or
    float iteration arguments, whose body holds ops without regions that
    load, store or have no memory effects, where every store indexes the
    walk's index and the loop's last index last, directly or as the last
    offset of the `memref.subview` in the loop's body it stores to.
  }];
  let options = [
    Option<"tileSize", "tile-size", "int64_t", /*default=*/"256",
           "Columns walked together">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def ParallelizeOuterLoops : Pass<"dlbridge-parallelize-outer-loops",
                                  "::mlir::ModuleOp"> {
  let summary = "Run the outermost safe parallel loops of host code on OpenMP threads";
  let description = [{
    `convert-linalg-to-parallel-loops` turns every parallel dimension of a
    structured op into `scf.parallel`, but upstream's `convert-scf-to-openmp`
    then makes each of them, nested ones included, a parallel region that
    forks a team of threads whatever the size of the work, and nothing
    keeps kernels called from several threads at once from starting a full
    team each. Worse, a region is outlined into a function of its own:
    control flow that leaves the loop early (a failed run-time check ends
    the call with a status) cannot cross it, and the runtime's per-call
    state (the call in progress, its allocator) belongs to the calling
    thread only.

    This pass picks, for each loop nest, the outermost `scf.parallel` (one
    with no `scf.parallel` around it) and runs it on OpenMP threads when its
    body is safe to run on another thread: no `dlpack` operation (checks,
    assertions), no `cf` operation or other unstructured control flow, no
    call (to libdlrt or anything else), no allocation or free other than
    stack allocations, no `memref.copy` (which may call libdlrt) and no
    OpenMP already. Every other `scf.parallel` becomes a nest of `scf.for`
    (with its reductions carried through the loops): those inside a chosen
    loop, so that no parallel region nests in another, and those of a nest
    that is not safe, which then runs on the calling thread exactly as
    before. The chosen loops then go through `convert-scf-to-openmp`.

    Around each `omp.parallel` the pass emits the region's thread count:
    the loop nest's iterations (the product of the trip counts of the
    parallel loop and, summed over the loops in its body, of those whose
    bounds are known before it) go to `dlrt_parallel_claim`, which returns
    1 below a grain of work and otherwise claims helper threads from a
    budget the process shares; the region runs with `num_threads` of that
    count, and `dlrt_parallel_release` hands the helpers back after it.
    Granted one thread, the loop runs as a sequential copy of itself in the
    else branch of an `scf.if` instead: a region on one thread still costs
    libomp's serialized parallel region, schedule and barrier, which a loop
    over a few columns nested in a loop over many rows paid on every row
    (`cumulative_returns` of `examples/numpy_kernels.py`, 200000 x 8: 183
    ms against 37 ms). A multi-dimensional loop is parallel over its first
    dimension only: OpenMP would collapse its dimensions into one loop that
    recomputes every index with a division, which LLVM does not vectorise.
  }];
  let options = [
    Option<"parallelize", "parallelize", "bool", /*default=*/"true",
           "Run the chosen loops on OpenMP threads; when false, every "
           "scf.parallel becomes sequential scf.for loops">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::omp::OpenMPDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def LowerVector : Pass<"dlbridge-lower-vector"> {
  let summary = "Lower vector ops to those a conversion to LLVM or NVVM takes";
  let description = [{
    `convert-vector-to-llvm` first rewrites, with patterns of its own, what
    no conversion pattern takes: transfers (to loads, masked loads, stores,
    broadcasts), masks, contractions, transposes, shape casts,
    n-d reductions, gathers. `convert-gpu-to-nvvm` converts vector ops in
    kernels but applies none of these rewrites, so a kernel reading a row
    with `vector.transfer_read` failed to compile for CUDA.

    This pass applies them wherever it runs: `vector.mask` regions around
    transfers and gathers, `vector.multi_reduction`, n-d transfers unrolled
    to 1-d ones (`convert-vector-to-scf{full-unroll}`), then the rewrites
    `convert-vector-to-llvm` applies (1-d transfers to `vector.load`,
    `vector.maskedload` and friends with materialised masks, contractions
    to dot products, element-wise transposes). The CUDA pipeline runs it on
    each `gpu.module` before converting kernels to NVVM; vector code in host
    functions is left to be diagnosed under its own name.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def BoolsAsBytes : Pass<"dlbridge-bools-as-bytes"> {
  let summary = "Read and write vectors of i1 in memory as one byte per bool";
  let description = [{
    DLPack bools, like NumPy's and C's, are one byte each, and a
    `memref<...xi1>` views such bytes. Scalar `i1` loads and stores lower to
    byte accesses, but LLVM stores a `<N x i1>` vector as N packed bits: a
    `vector.load` of `vector<8xi1>` from the bytes `[1 1 1 1 0 0 0 1]` would
    read the bits of the first byte, `[1 0 0 0 0 0 0 0]`.

    This pass runs on the LLVM dialect, after every vector and memref
    operation has been lowered, and rewrites each memory access whose data
    is a vector of `i1` into the same access on a vector of `i8`:
    `llvm.load`/`llvm.store`, `llvm.intr.masked.load`/`masked.store`,
    `masked.gather`/`masked.scatter` and `masked.expandload`/
    `masked.compressstore`. Stored bools are widened with `zext`; loaded
    bytes become bools with `icmp ne 0`, so any nonzero byte reads as true,
    as C and NumPy read them. Masks stay `i1` vectors (they are not memory).

    It works at this level, not by retyping `i1` memrefs as `i8` before
    lowering, because every path (vector.load/store, maskedload/store,
    transfer_read/write, gather/scatter, expandload/compressstore, and
    whatever a future lowering emits) ends in these few LLVM operations;
    retyping memrefs would have to rewrite every operation that takes or
    yields an `i1` memref, function signatures included. Addresses are
    unaffected: `getelementptr` already steps over `i1` elements one byte
    at a time. Run it on host code and on the kernels of a `gpu.module`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def RefuseGPUCode : Pass<"dlbridge-refuse-gpu-code"> {
  let summary = "Refuse GPU dialect operations in a module compiled for the host";
  let description = [{
    The CPU pipeline has no lowering for `gpu`, `nvvm` or `rocdl`
    operations. Left to it, a `gpu.launch` with a body fails at the end of
    the pipeline, one without a body is folded away and the kernel silently
    never runs, and a `gpu.launch_func` fails in a pass that knows nothing
    of GPUs ("ops with unknown memory side effects are not supported").

    This pass runs at the start of `--dlbridge-cpu-pipeline`: it fails, with
    one error at the location of each GPU operation (a `gpu.module` counts
    as one, whatever it holds), saying to compile for CUDA, e.g.
    `'gpu.launch' is GPU code: compile it with the CUDA target
    (target="cuda", or --dlbridge-cuda-pipeline)`.
  }];
}

def CheckBufferizable : Pass<"dlbridge-check-bufferizable"> {
  let summary = "Refuse tensor operations that bufferization cannot lower";
  let description = [{
    One-shot bufferization rejects an operation on tensors that implements
    no `BufferizableOpInterface` with "op was not bufferized", which names
    neither the operation nor a way out. The pipelines run this pass just
    before bufferizing: it fails, with one error at each such operation
    (what is nested in it is part of it), naming it and saying what to
    change, e.g. `'tosa.add' computes on tensors but has no
    bufferization: ...`.
  }];
}

def VerifyLowered : Pass<"dlbridge-verify-lowered"> {
  let summary = "Fail where a pipeline left an operation it did not lower";
  let description = [{
    A dialect conversion that meets an operation it has no pattern for
    leaves it in place, bridged to its converted neighbours by
    `builtin.unrealized_conversion_cast`s, and succeeds. A pipeline made of
    such conversions then "finishes" with code LLVM cannot translate, and
    the error surfaces much later as "LLVM Translation failed for operation:
    builtin.unrealized_conversion_cast", naming nothing the user wrote.

    This pass is the last stage of `--dlbridge-cpu-pipeline` and
    `--dlbridge-cuda-pipeline`; the CUDA pipeline also runs it on each
    `gpu.module` before serialising its kernels. It fails, with one error
    at the location of each operation left over, unless every operation is
    in the LLVM dialect (for the CPU target also OpenMP operations, which
    translate to calls into libomp; for the CUDA target `gpu.binary` and
    `gpu.launch_func`, which translate with their kernels, and NVVM
    operations in kernels). The error names the operation and what
    to change (GPU code on the host never gets here:
    `--dlbridge-refuse-gpu-code` refused it first). A cast left over without such an operation is
    reported at the operation that produced its operand, by that
    operation's name.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "What the module was lowered for: cpu or cuda">,
  ];
}

#endif // DLBRIDGE_TRANSFORMS_PASSES_TD
