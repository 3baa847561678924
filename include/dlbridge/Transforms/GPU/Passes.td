//===- Passes.td - Transforms for NVIDIA GPUs -------------*- tablegen -*-===//
//
// Part of dlbridge. The steps `--dlbridge-cuda-pipeline` adds to upstream's
// GPU lowering.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_TRANSFORMS_GPU_PASSES_TD
#define DLBRIDGE_TRANSFORMS_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CheckCUDAOptions
    : Pass<"dlbridge-gpu-check-cuda-options", "::mlir::ModuleOp"> {
  let summary = "Fail with the reason when the CUDA target options are invalid";
  let description = [{
    Wrong CUDA target options do not fail cleanly downstream: LLVM's NVPTX
    backend aborts the process when the PTX version is too old for the chip
    (`+ptx60` with `sm_90`), CUDA 13's `ptxas` rejects chips older than
    `sm_75` only after everything else has run, and
    `gpu-module-to-binary` reports an unknown format without saying which
    ones exist.

    This pass checks the options the way `--dlbridge-cuda-pipeline` takes them
    (it runs first there, so a bad option fails before any lowering) and
    fails with one error that names the option and what it accepts: an
    unknown chip, a PTX version LLVM does not know (written `ptx78`, `78` or
    `7.8`) or one below the chip's minimum, a format other than `ptx`,
    `cubin` or `fatbin`, an optimisation level above 3. Valid options leave
    the module unchanged.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "GPU architecture: sm_75 ... sm_121f">,
    Option<"ptxVersion", "ptx-version", "std::string", /*default=*/"\"\"",
           "PTX ISA version (ptx78, 78 or 7.8); empty: the chip's minimum">,
    Option<"format", "format", "std::string", /*default=*/"\"fatbin\"",
           "What the gpu.binary holds: ptx, cubin or fatbin">,
    Option<"optLevel", "opt-level", "unsigned", /*default=*/"2",
           "Optimisation level of device code (0-3)">,
  ];
}

def CopiesToLinalg : Pass<"dlbridge-gpu-copies-to-linalg"> {
  let summary = "Turn memref.copy into linalg.copy so it becomes a kernel";
  let description = [{
    Bufferization and `--dlbridge-own-results` copy buffers with
    `memref.copy`, which lowers to a host `memcpy` (or a call to the
    runtime's strided copy): on device buffers that would read and write GPU
    memory from the host. `linalg.copy` is a structured op like any other,
    so the GPU pipeline turns it into parallel loops and then into a
    kernel. This pass replaces every `memref.copy` with a `linalg.copy` of
    the same operands; run it before `convert-linalg-to-parallel-loops`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def VectorizeElementwise : Pass<"dlbridge-gpu-vectorize-elementwise"> {
  let summary = "Lower contiguous elementwise ops to kernels of 16-byte "
                "loads and stores";
  let description = [{
    A GPU moves data fastest in wide accesses: one `ld.global.v4.f32` per
    thread instead of four `ld.global.f32` halves the instructions per byte
    and lets an elementwise kernel approach the device's copy bandwidth.
    `convert-linalg-to-parallel-loops` gives every thread one element,
    indexed through the op's strides, so LLVM cannot widen its accesses.

    This pass runs on buffers, before that conversion, and replaces each
    linalg op that is elementwise over contiguous memory with a
    `gpu.launch` of its own: every iterator parallel, every memref operand
    of identity layout (the contiguous specialisation's arguments,
    `identity-layouts=true`, and buffers the function allocates) read and
    written through the identity map, scalars besides, element types of 8
    to 64 bits other than 8-bit floats, and a body without memory effects,
    regions or `linalg.index`. The kernel views each memref as 1-d and, in
    a grid-stride loop over tiles, gives each thread of a block of
    `block-size` threads `chunks-per-thread` chunks of 16 bytes of the
    widest element type, each chunk coalesced across the warp: a
    `vector.load` of each operand the body reads for every chunk first,
    then the body once per element, a `vector.store` of each output, all
    aligned to the vector's size. Several independent loads in flight per
    thread are what a memory-bound kernel needs to reach the copy
    bandwidth: with one chunk per thread, `x * 2 + 1` reached 84 % of it on
    an H200. Where the data is not so aligned (a compact DLPack view can start
    anywhere) or at the tail, the thread takes its elements one by one.
    Everything else is left to the loop path.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block: a multiple of 32, at most 1024">,
    Option<"chunksPerThread", "chunks-per-thread", "int64_t",
           /*default=*/"4",
           "16-byte chunks each thread loads before it computes: 1 to 16">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TileParallelLoops : Pass<"dlbridge-gpu-tile-parallel-loops"> {
  let summary = "Tile innermost scf.parallel loops into blocks of threads";
  let description = [{
    `dlbridge-gpu-map-parallel-loops` (like upstream's
    `gpu-map-parallel-loops`) maps the outer loop of a nest of two
    `scf.parallel` loops to blocks and the inner one to threads, its
    innermost dimension to `x`. An untiled loop from
    `convert-linalg-to-parallel-loops` would become one thread per block.
    Upstream's `scf-parallel-loop-tiling` takes one list of tile sizes for
    every loop, whatever its rank and static shape; the right block shape
    depends on both: the innermost (contiguous) dimension should spread
    over consecutive threads, since warps are formed along `x` first,
    `blockDim.z` is at most 64, and a static dimension shorter than its
    tile would leave threads idle.

    This pass tiles each innermost `scf.parallel` (one with no
    `scf.parallel` nested in it) by the sizes of its rank: `block-sizes-1d`
    (default 256), `block-sizes-2d` (default 1,256) and `block-sizes-3d`
    (default 1,1,256, also the inner three dimensions of deeper loops, whose
    outer dimensions are tiled by 1). Where a dimension's static trip count
    is smaller than its size, the size shrinks to the trip count's next
    power of two and the threads it frees multiply the next dimension out
    (`tensor<1000x4xf32>` gets tiles of 64x4), so that blocks stay full.
    Each list needs as many positive sizes as its rank, at most 1024
    threads in all and at most 64 in the first of three (`z`); anything
    else is an error. Run `canonicalize` after it:
    `convert-parallel-loops-to-gpu` maps nothing otherwise.
  }];
  let options = [
    ListOption<"blockSizes1d", "block-sizes-1d", "int64_t",
               "Threads per block for 1-d loops (default 256)">,
    ListOption<"blockSizes2d", "block-sizes-2d", "int64_t",
               "Threads per block for 2-d loops (default 1,256)">,
    ListOption<"blockSizes3d", "block-sizes-3d", "int64_t",
               "Threads per block for loops of 3 or more dimensions "
               "(default 1,1,256)">,
    Option<"noMinMaxBounds", "no-min-max-bounds", "bool",
           /*default=*/"false",
           "Guard the tile with an scf.if instead of min/max bounds, as "
           "scf-parallel-loop-tiling's option of that name">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def ReductionsToKernels : Pass<"dlbridge-gpu-reductions-to-kernels"> {
  let summary = "Lower linalg reductions to kernels whose threads cooperate";
  let description = [{
    `convert-linalg-to-parallel-loops` turns the reduction dimensions of a
    linalg op into a sequential `scf.for` inside the parallel loop over its
    outputs: one thread reduces a whole row, a reduction to a single
    value (a 0-d output, a sum of everything) runs on one thread of one
    block, and one over a middle dimension on blocks of one thread. This
    pass runs on buffers, before that conversion, and replaces such ops
    with `gpu.launch`es of full blocks, whose threads share each row where
    rows are contiguous.

    It takes a linalg op with one output, at least one reduction dimension
    and a body that folds one value into the output with a combiner that
    may be reassociated:
    `arith.addf`, `mulf`, `maximumf`, `minimumf`, `maxnumf`, `minnumf`,
    `addi`, `muli`, `andi`, `ori`, `xori`, `maxsi`, `minsi`, `maxui` or
    `minui` whose other operand does not depend on the output, in `f16`,
    `bf16`, `f32`, `f64` or an integer of 1 to 64 bits. Any strides, dynamic
    shapes and input indexing maps; contractions and convolutions with two
    or more parallel dimensions (matmul-like ops, which have their own
    lowering) and everything else are left to the sequential path.

    Where the innermost loop is parallel (a column sum, a sum over a
    middle axis), the outputs along it, the columns, are adjacent in
    contiguous layouts; a thread per output element would fold its column
    alone, with as few threads as outputs and 4-byte loads. Instead blocks
    of `block-size` threads take tiles of adjacent columns at one point of
    the outer parallel loops, in a grid-stride loop over tiles: the
    threads of a warp take consecutive columns (up to 32 threads, fewer
    for narrower rows), 16 bytes each where every input that loop indexes
    is read along the innermost dimension of an identity layout, starts
    16-byte aligned and has a whole number of vectors per row (otherwise
    one element each), and the block's other threads further rows of the
    same columns. Each thread folds its rows from the combiner's identity
    (loading four rows before it folds them, for loads in flight),
    the block writes its values to workgroup memory, and a thread per
    column combines them in a fixed order. When the tiles number fewer
    than `column-blocks`, the reduced axis (all reduction loops) is split
    over blocks as well, until there are about that many, each thread
    folding 8 rows at the least: these blocks write partial values to a
    temporary buffer and a second kernel, a thread per output element,
    combines them in order; otherwise one kernel writes the output. The
    output's initial value is loaded and combined with the result, or,
    where a `linalg.fill` sets the whole output just before the reduction
    (only ops that touch no buffer in between, and no input views the
    output), the fill's value is, and the fill is erased: no kernel of its
    own, no reading it back.

    Where it reduces (a row sum, a full reduction), each block of
    `block-size` threads reduces one row (the output element at one point
    of the parallel dimensions, in a grid-stride loop over rows): its
    threads fold the body over every `block-size`-th element,
    starting from the combiner's identity, then combine their partial
    values with `gpu.subgroup_reduce` in each warp, through workgroup
    memory across warps, and thread 0 combines the result into the
    output's initial value with the body's own combiner. When the number
    of rows is known at compile time and at most `split-rows` (a full
    reduction has one), one block cannot fill the GPU: up to `split-blocks`
    blocks per row write partial values to a temporary buffer, which a
    second kernel reduces, in a fixed order, so that results do not change
    from run to run. Integers narrower than 32 bits are sign-extended to
    32 bits between threads (every listed combiner commutes with that and
    the truncation back); rows of no elements leave the initial value.
    Where the op reduces its innermost loop alone and each input that loop
    indexes is read along the innermost dimension of an identity layout
    (the contiguous specialisation's arguments, buffers the function
    allocates), a thread takes 16 bytes of each such input at a time, one
    aligned `vector.load` each, in rows where every one is so aligned; the
    rest of a row, and rows that are not, go element by element.

    With `fuse-rows`, a row reduction over more rows than that is lowered
    together with the ops on the same rows around it, in one kernel: by the
    time this pass runs, elementwise fusion has left a softmax as a fill, a
    max, a fill, a sum of `exp(x - max)` and an elementwise op reading both
    per-row values through `?x1` views, five kernels that read `x` three
    times. A group is a run of linalg ops on buffers in one block, with only
    ops that touch no buffer between them (pure ops, allocations,
    `dlpack.assert`s): row reductions whose innermost loops reduce, ops on
    per-row values (their loops the rows) and elementwise ops (the rows
    and then the columns), all with the same row and column extents (static
    1s aside). Every buffer the group writes must be accessed by its members
    at the same element in each iteration: per-row buffers at the row
    (directly or through `memref.expand_shape`), and not before the member
    that first writes them; others through the same indexing map. The
    kernel has a block per row in a grid-stride loop and runs the members
    in order on the block's row: reductions as above, leaving the combined
    value in every thread; ops on per-row values in every thread; ops on
    elements with each thread on the elements a reduction gives it. Later
    members use per-row values instead of reading them back, thread 0
    stores the last one written to each buffer (a fill followed by a
    reduction is the reduction's initial value, never stored). Members move
    contiguous, aligned rows in 16-byte vectors as reductions do, the rest
    element by element; since the two give a thread different elements of
    a row, a member that touches a row buffer an earlier member wrote (or
    writes one it read) waits at a barrier first, and otherwise none
    separates the members. Anything else keeps the lowering above.

    A row of an input that two or more members read whole (a softmax's
    `x`, for its max, its sum and its output; a layer norm's, for its mean,
    variance and output), each at the same element per iteration, is read
    from device memory once: where the rows of all such inputs fit in
    `row-cache-bytes` of shared memory together, the kernel asks for that
    much dynamic shared memory, the block copies each row in (16 bytes per
    thread at a time, four in flight, where the row is contiguous and
    aligned) before the first member that reads it, and every member reads
    it there. Longer rows run as above, in the same kernel.

    Rows of at most `warp-row-length` elements (a softmax over 64 values)
    would leave most of a block idle: where the row length allows (known
    statically, or tested on the host, which then launches one kernel or
    the other), a group's kernel gives each row a warp instead, blocks of
    `block-size` threads taking as many rows as they have warps. Its
    reductions are warp shuffles alone; its members wait at warp barriers
    (`nvvm.bar.warp.sync`) where the block's would wait at block barriers;
    it keeps no rows in shared memory.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block: a multiple of 32, at most 1024">,
    Option<"splitRows", "split-rows", "int64_t", /*default=*/"32",
           "Static row counts up to which rows are split over several "
           "blocks (two kernels)">,
    Option<"splitBlocks", "split-blocks", "int64_t", /*default=*/"1024",
           "Most blocks a split row is reduced by">,
    Option<"columnBlocks", "column-blocks", "int64_t", /*default=*/"2048",
           "Blocks a column reduction aims for, splitting the reduced "
           "axis where its tiles are fewer (two kernels); at most 65535">,
    Option<"fuseRows", "fuse-rows", "bool", /*default=*/"true",
           "Run each row reduction and the ops on the same rows around it "
           "in one kernel">,
    Option<"warpRowLength", "warp-row-length", "int64_t", /*default=*/"512",
           "Rows of at most this many elements get a warp each, several "
           "per block (0: a block per row always)">,
    Option<"rowBlockSize", "row-block-size", "int64_t", /*default=*/"512",
           "Threads per block of a fused row kernel that gives each row a "
           "block: a multiple of 32, at most 1024 (more threads keep more "
           "of a row's loads in flight while its phases run one after "
           "another)">,
    Option<"rowCacheBytes", "row-cache-bytes", "int64_t",
           /*default=*/"98304",
           "Shared memory per block that keeps rows several members read on "
           "chip (0: none; at most 232448, Hopper's limit); the default "
           "leaves room for two blocks per multiprocessor">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def ScansToKernels : Pass<"dlbridge-gpu-scans-to-kernels"> {
  let summary = "Lower scans along contiguous rows to kernels of a block per row";
  let description = [{
    A scan (`cumsum`, `cumprod`) reaches the GPU pipeline as an
    `scf.parallel` over every index but the scanned one whose body walks the
    scanned axis with an `scf.for` carrying the running value. Mapped as it
    is, a thread walks each row: coalesced where the scanned axis is not the
    innermost one (consecutive threads take consecutive columns), but
    where it is, the threads of a warp read 32 different rows at once,
    one element each, and a single long row runs on one thread.

    This pass replaces such a loop whose walk stores along the innermost,
    unit-stride dimension of its output with a `gpu.launch` of a block of
    `block-size` threads per row (a grid-stride loop over rows). The block
    walks its row in chunks: each thread computes its elements (the walk's
    body at those indices) and scans them in order, the block scans the
    threads' totals (shuffles up in each warp, the warp totals through
    workgroup memory), each thread combines the running value carried from
    the previous chunks and the totals before its own in front of its
    values, stores, and the chunk's total is carried on. Where every load
    along the row and the store index the walk's index last, alone, in a
    unit-stride innermost dimension (the contiguous specialisation), a
    thread takes 16 bytes of the widest of them at a time (4 `f32`s), in
    one aligned `vector.load` per input and one `vector.store`, where the
    run-time addresses are so aligned and the elements all in the row;
    element by element otherwise; elsewhere a thread takes one element. The order in which
    values are combined depends only on the row's length, so results do not
    change from run to run.

    A 1-d scan is such a walk in host code, with no loop around it (the
    forall of one row that the tracer emits is folded away by then): it
    becomes a kernel of one block.

    The loop must carry no reductions and hold, besides ops without
    memory effects, exactly one `scf.for` of step 1 whose results are
    unused, carrying one integer (up to 64 bits) or `f16`, `bf16`, `f32`,
    `f64` value that is used once, by `arith.addf`, `mulf`, `maximumf`,
    `minimumf`, `maxnumf`, `minnumf`, `addi`, `muli`, `andi`, `ori`, `xori`,
    `maxsi`, `minsi`, `maxui` or `minui`, whose result is yielded and
    stored once at the walk's index in the innermost dimension; the rest
    of the walk's body may only load and compute. A load must read a
    buffer other than the one the walk allocates and stores to, or the
    element it stores. Anything else (complex values, scans along other
    dimensions) keeps the thread per row.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"512",
           "Threads per block: a multiple of 32, at most 1024">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def MapParallelLoops : Pass<"dlbridge-gpu-map-parallel-loops"> {
  let summary = "Map scf.parallel loops to blocks, and threads innermost first";
  let description = [{
    Upstream's `gpu-map-parallel-loops` maps the outermost `scf.parallel`
    of a nest to blocks and the next one to threads, each dimension `i` to
    `x`, `y`, `z` in order. For the threads of a tile that puts the
    innermost, contiguous dimension on `y` or `z`, not on `x`, along which
    warps are formed. And a loop whose tile loop canonicalisation folded
    away (a static shape that fits one block, `tensor<4x3xf32>`) becomes
    blocks of one thread each.

    This pass sets the same `mapping` attributes that
    `convert-parallel-loops-to-gpu` reads, with these differences: the
    dimensions of the thread loop go to threads from the innermost out
    (last dimension to `x`, the one before to `y`, the one before that to
    `z`; outer ones run sequentially in each thread); an outermost loop
    with no `scf.parallel` directly in its body whose static trip counts
    fit one block becomes the threads of a single block; and any other such
    loop (canonicalisation merges a tile loop with its threads whenever
    their bounds are independent, as for every static shape its tiles
    divide, `tensor<1024x100xf32>`) becomes a loop over blocks of 256
    threads (of the warps a smaller static count needs) and one over the
    threads of each: its iterations numbered in row-major order, one per
    thread, the innermost dimension fastest, indices recovered by division,
    the body guarded where the count is not a multiple of the block. Never
    blocks of one thread, except for loops with reductions, which
    `convert-parallel-loops-to-gpu` does not map. Blocks are mapped in
    order (dimension 0 to `x`, whose grid may be largest), loops nested
    deeper run sequentially.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def ParallelizeAffineLoops
    : Pass<"dlbridge-gpu-parallelize-affine-loops", "::mlir::func::FuncOp"> {
  let summary = "Turn parallel affine.for nests over buffers into scf.parallel";
  let description = [{
    A program written at the memref level may loop over its buffers with
    `affine.for` instead of linalg ops. The CUDA pipeline maps only
    `scf.parallel` loops to blocks of threads; any other loop that touches
    data in host code is moved whole into a kernel of one thread
    (`dlbridge-offload-host-code`): correct, since the device runs it in
    order, but sequential.

    This pass runs on host code (a `func.func`, outside `gpu.launch`
    bodies), before `dlbridge-gpu-tile-parallel-loops`. It takes each
    outermost `affine.for` (one in no other loop) that affine dependence
    analysis proves parallel, with no `iter_args`, and whose body only
    computes, reads and writes through `affine.load` and `affine.store` and
    nests `affine.for`, `affine.if` and `affine.apply` (no allocation, call,
    other memory access or kernel, which a thread could not do or the
    analysis cannot see), through distinct buffers (the analysis takes two
    memref values for distinct memory: arguments of an entry point, which
    callers pass without overlap where one is written, and allocations are;
    two views of one buffer, a memref a call returned or an argument of a
    helper are not), and turns it into an
    `scf.parallel`; the same for
    each loop in a perfect nest below it, as far as the loops stay parallel,
    and perfectly nested parallel loops become one multi-dimensional
    `scf.parallel`, as `convert-linalg-to-parallel-loops` gives. The
    existing mapping then gives it full blocks of threads. Loops it does not
    prove parallel (a recurrence, a reduction into a scalar) are left as
    they are: they become single-thread kernels.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def SinkDeviceReads
    : Pass<"dlbridge-gpu-sink-device-reads", "::mlir::func::FuncOp"> {
  let summary = "Compute host scalars that only kernels use inside those kernels";
  let description = [{
    Tensor programs read scalars out of tensors in host code: a
    `tensor.extract` of a 0-d tensor (a scale factor, a threshold) becomes a
    `memref.load` before the kernels whose bodies use the value. On CUDA that
    buffer lives in device memory, which the host cannot read, so
    `dlbridge-offload-host-code` would read it back: a kernel of one thread,
    a copy to the host and a wait for the stream, only for the host to pass
    the value to kernels that could have loaded it themselves.

    This pass runs on host code between `convert-parallel-loops-to-gpu` and
    `dlbridge-offload-host-code`. It takes each operation in host code that
    only reads memory through memrefs (`memref.load`, `affine.load`,
    `vector.load`, ...), and each pure operation computed from such a read
    (an `arith.index_cast`, `arith.mulf`, a read at an index read before),
    whose every use is inside `gpu.launch` bodies, and computes it inside
    each of those launches instead, at the top of the body:

    - directly, when nothing between the read and the launch (the launch
      included, since all its threads read at the start) may write to the
      memref read (`memref.store`, another kernel, a call; aliasing as
      local alias analysis sees it);
    - otherwise through a fresh 0-d buffer: the read stays where it is, its
      value is stored to the buffer (which `dlbridge-offload-host-code` then
      moves into a single-thread kernel, in stream order), and each launch
      loads it from there; the buffer is freed after the last launch.

    Values host code itself uses (a loop bound, a buffer size) stay in host
    code, where `dlbridge-offload-host-code` reports the read that computes
    them.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def SinkConstantGlobals : Pass<"dlbridge-gpu-sink-constant-globals"> {
  let summary = "Give kernels their own copy of the constant globals they read";
  let description = [{
    Bufferization turns constant tensors (`arith.constant dense<...>`) into
    `memref.global` constants read with `memref.get_global` in host code.
    A kernel that reads one through a memref captured from host code
    receives the address of host memory, which the GPU cannot read: the
    launch fails with an illegal address at run time.

    For each `gpu.launch` that uses the result of a `memref.get_global` of a
    constant global defined outside it, this pass clones the `get_global`
    into the launch body; `gpu-kernel-outlining` then copies the global into
    the kernel's `gpu.module`, and it becomes device memory in the binary.
    A mutable global used by a kernel, or any `memref.get_global` passed to
    a `gpu.launch_func`, is an error: host and device would each see their
    own copy.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LegalizeKernelNames : Pass<"dlbridge-gpu-legalize-kernel-names",
                                "::mlir::ModuleOp"> {
  let summary = "Rename kernels and their modules to names PTX can spell";
  let description = [{
    `gpu-kernel-outlining` names a kernel and its `gpu.module` after the
    function that launched it, plus `_kernel`. MLIR symbols may hold any
    character (`@"<lambda>"`, `@"my-op"`); PTX identifiers may not, and
    the NVPTX back end stops with "Symbol name with unsupported
    characters": `@dlbridge.jit` of a lambda, or an entry whose name has a
    hyphen, could not be compiled for CUDA.

    This pass renames every `gpu.module`, and every symbol in one, whose
    name is not a PTX identifier (letters, digits, `_` and `$`, not
    starting with a digit): each other character becomes `_`, a leading
    digit gets a `_` before it, and a numeric suffix keeps names unique.
    Every reference follows, the host's `gpu.launch_func` included.
  }];
}

def LimitKernelRegisters : Pass<"dlbridge-gpu-limit-kernel-registers",
                                 "::mlir::gpu::GPUModuleOp"> {
  let summary = "Keep the registers of large-block kernels within what lets "
                "two blocks stay resident";
  let description = [{
    Unless told how many blocks must fit on a multiprocessor, ptxas gives a
    kernel up to 255 registers per thread. A fused row kernel of 512 threads
    (a softmax: copy the row into shared memory, its max, its sum, the
    output) took 109 on sm_90, so one block ran per multiprocessor, 16
    warps: on an H200 a float32 softmax over 16384 columns ran at 53 % of
    copy bandwidth, where 256-thread blocks of 64 registers (24 warps) ran
    at 71 %, and an RMS norm of 512-thread blocks that happened to need 64
    registers (32 warps) ran 20 % faster than either.

    This pass gives every kernel whose blocks (`known_block_size`) hold at
    least half of `threads-per-sm` threads `nvvm.minctasm` =
    threads-per-sm / its threads (2 for 512 threads, 1 for 1024), which
    NVPTX emits as `.minnctapersm`: ptxas then keeps the kernel within
    65536 / threads-per-sm registers per thread (64 for the default),
    spilling if it must. Smaller blocks get no hint: ptxas already sizes
    their registers for several blocks per multiprocessor, and a hint makes
    it use more (an elementwise kernel of 256 threads went from 28 to 40
    registers under `.minnctapersm 4`). A kernel that already has
    `nvvm.minctasm` keeps it.
  }];
  let options = [
    Option<"threadsPerSM", "threads-per-sm", "int64_t", /*default=*/"1024",
           "Threads of a large-block kernel a multiprocessor must be able to "
           "keep resident, by registers: 64 to 2048">,
  ];
}

def LowerSubgroupReduce : Pass<"dlbridge-gpu-lower-subgroup-reduce"> {
  let summary = "Lower gpu.subgroup_reduce to gpu.shuffle butterflies";
  let description = [{
    `convert-gpu-to-nvvm` lowers `gpu.subgroup_reduce` only where a single
    NVVM instruction does it (`redux.sync` on 32-bit integers for some
    chips) and fails on the rest, e.g. a float sum. Upstream has the
    lowering to shuffles only as patterns (and a test pass), not as a pass
    a pipeline can run.

    This pass breaks reductions of vectors and of values wider than
    `shuffle-bitwidth` into reductions of at most that width and lowers
    every `gpu.subgroup_reduce` (clustered ones too) into a butterfly of
    `gpu.shuffle xor`, assuming `subgroup-size` lanes (32 on NVIDIA GPUs).
    Scalars wider than `shuffle-bitwidth` (`f64`, `i64`) shuffle whole,
    and `convert-gpu-to-nvvm` splits each such shuffle into two 32-bit ones.
    `gpu.all_reduce` is unaffected: `convert-gpu-to-nvvm` lowers it itself.
  }];
  let options = [
    Option<"subgroupSize", "subgroup-size", "unsigned", /*default=*/"32",
           "Lanes in a subgroup (a warp)">,
    Option<"shuffleBitwidth", "shuffle-bitwidth", "unsigned",
           /*default=*/"32", "Widest value one gpu.shuffle moves">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def CheckDeviceCalls
    : Pass<"dlbridge-gpu-check-device-calls", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Refuse calls from device code to what exists only on the host";
  let description = [{
    A kernel runs on the GPU and can call only code compiled for it.
    `gpu-kernel-outlining` copies the functions a kernel calls into its
    `gpu.module`, but a function that is only declared (implemented by the
    host program or a host library) stays a declaration, and a function
    value that comes from the host (a kernel argument of function type) is
    a host address. Both compile, and then fail far from their cause:
    `ptxas` reports an unresolved extern (or the driver refuses to load the
    module), and an indirect call through a host address faults the GPU.

    This pass runs on each `gpu.module` (after outlining, or on a module
    the program wrote itself) and fails with an error at each such call:
    a `func.call` or `llvm.call` to a function the module only declares,
    unless the device provides it (an LLVM intrinsic `llvm.*`, libdevice's
    `__nv_*`, linked when the module is serialised, or one of PTX's system
    calls `vprintf`, `malloc`, `free`, `__assertfail`), and a
    `func.call_indirect` or indirect
    `llvm.call` whose callee is not the address of a function the module
    defines (`func.constant`, `llvm.mlir.addressof`).
  }];
}

def ExternDynamicSharedMemory
    : Pass<"dlbridge-gpu-extern-dynamic-shared-memory",
           "::mlir::gpu::GPUModuleOp"> {
  let summary = "Make gpu.dynamic_shared_memory PTX's dynamic shared memory";
  let description = [{
    `convert-gpu-to-nvvm` lowers `gpu.dynamic_shared_memory` to a
    zero-length array in shared memory with internal linkage. The NVPTX
    back end then declares it `.shared .align 16 .b8 __dynamic_shmem__0;`:
    one byte of static shared memory, placed among the kernel's other
    static buffers (a reduction's warp partials), so that a kernel writing
    the dynamic shared memory its launch asked for overwrote them. The
    dynamic region is what CUDA C++ spells `extern __shared__ char s[];`,
    in PTX `.extern .shared .align 16 .b8 s[];`: this pass gives every
    zero-length shared array of the module external linkage, which makes
    the back end declare it so. Run after `convert-gpu-to-nvvm`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CheckLibdevice : Pass<"dlbridge-gpu-check-libdevice", "::mlir::ModuleOp"> {
  let summary = "Fail when kernels call libdevice and no libdevice is found";
  let description = [{
    Math in kernels (`math.exp`, `math.tanh`, ...) lowers to calls to
    libdevice's `__nv_*` functions, which only `gpu-module-to-binary` links,
    and only when it finds libdevice in a CUDA toolkit. Without it the PTX
    keeps unresolved externs: `ptxas` fails for a cubin, and PTX fails when
    the driver loads it, long after compilation.

    Run after `convert-gpu-to-nvvm`: for each `gpu.module` that declares
    `__nv_*` functions, this pass checks that
    `<toolkit>/nvvm/libdevice/libdevice.10.bc` exists and otherwise fails
    with an error that lists the functions and says where the toolkit was
    looked for and how to point at one. `toolkit` empty: the toolkit is
    searched as the CUDA pipeline searches it (CUDA_HOME, CUDA_PATH,
    CUDA_ROOT, `ptxas` on PATH, /usr/local/cuda).
  }];
  let options = [
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit directory; empty: searched">,
  ];
}

#endif // DLBRIDGE_TRANSFORMS_GPU_PASSES_TD
