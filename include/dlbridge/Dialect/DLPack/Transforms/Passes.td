//===- Passes.td - dlpack dialect passes ------------------*- tablegen -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_TD
#define DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DLPackReadOnlyArguments
    : Pass<"dlbridge-read-only-arguments", "::mlir::ModuleOp"> {
  let summary = "Bufferize the tensor arguments of entries read-only";
  let description = [{
    One-shot bufferization treats tensor arguments of public functions as
    writable: a `tensor.insert` into an argument, or a `linalg` op with an
    argument as `outs`, then writes the caller's array in place. A DLPack
    caller lends its arrays for reading (they may be immutable, as JAX
    arrays, or READ_ONLY); a tensor-level entry writes one only when it says
    so.

    For every `func.func` marked `dlpack.entry`, this pass sets
    `bufferization.writable = false` on each tensor argument that has no
    `bufferization.writable` attribute yet. `--one-shot-bufferize` then
    copies such an argument before anything writes into it, and the entry's
    signature records it as `read`. An argument the function means to update
    in place opts in with MLIR's own attribute, which this pass leaves alone:

    ```mlir
    func.func @f(%x: tensor<?xf32>,
                 %out: tensor<?xf32> {bufferization.writable = true}) ...
    ```

    Run it before `--one-shot-bufferize`; memref arguments are not touched.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def DLPackBufferize : Pass<"dlbridge-bufferize", "::mlir::ModuleOp"> {
  let summary = "Bufferize tensor programs; leave memref-level modules alone";
  let description = [{
    A compiler backend hands dlbridge either tensor programs (linalg on
    tensors) or code it has already bufferized itself: memrefs, its own
    `memref.alloc`s and `memref.dealloc`s, private helpers that return views
    of their arguments. The first need One-Shot Bufferize and deallocation;
    the second must not go through them: ownership-based deallocation
    rejects a `memref.dealloc` ("memory free side-effect on MemRef value not
    supported!") and clones what a private helper returns, so writes
    through a returned alias of an argument would be lost.

    This pass looks at the module (after `--dlbridge-select-entry`, only the
    entry and what it calls): when any value, block argument or function
    signature has a tensor type, it runs

    ```
    one-shot-bufferize{bufferize-function-boundaries
                       function-boundary-type-conversion=<option>}
    buffer-deallocation-pipeline
    convert-bufferization-to-memref
    ```

    on it; otherwise it does nothing. Before that, an updated argument written
    back as `materialize_in_destination %v in restrict writable %buf`, whose
    buffer the function also reads as `to_tensor %buf restrict writable`, is
    rewritten to materialise in that tensor: the two `restrict` views hid
    their aliasing from One-Shot Bufferize. When `%v` is computed by an
    elementwise `linalg.generic` into a `tensor.empty` and reads the argument
    only where it writes, the generic is given the argument as its
    destination, so `w += v` bufferizes to one loop writing `w` in place
    instead of a temporary copied back; `c += c.T` keeps its temporary.

    With `function-boundary-type-conversion=identity-layout-map` (the
    contiguous specialisation, run only when every argument is compact) the
    strided memref arguments of entries (arrays the function updates in
    place, `out[...] = f(x)`) get identity layouts too, cast back for their
    uses: the kernels that write them then see unit strides and vectorise
    (on an H200, `out[...] = x * 2 + 1` took 0.79 ms with one element per
    thread, against 0.52 ms for `x * 2 + 1` returning a new array).

    A module with tensors that also frees buffers itself (`memref.dealloc`)
    is diagnosed at the dealloc, since
    deallocation would free them twice. Both named pipelines run it; their
    `bufferize=false` option leaves it out altogether.
  }];
  let options = [
    Option<"functionBoundaryTypeConversion",
           "function-boundary-type-conversion",
           "::mlir::bufferization::LayoutMapOption",
           /*default=*/
           "::mlir::bufferization::LayoutMapOption::FullyDynamicLayoutMap",
           "Layout of the memrefs that tensor arguments and results become: "
           "fully-dynamic-layout-map (any DLPack strides) or "
           "identity-layout-map (compact row-major only)",
           [{::llvm::cl::values(
             clEnumValN(::mlir::bufferization::LayoutMapOption::IdentityLayoutMap,
                        "identity-layout-map", "Compact row-major"),
             clEnumValN(::mlir::bufferization::LayoutMapOption::FullyDynamicLayoutMap,
                        "fully-dynamic-layout-map", "Any strides and offset"))}]>,
  ];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def DLPackSelectEntry : Pass<"dlbridge-select-entry", "::mlir::ModuleOp"> {
  let summary = "Keep only one entry and what it references";
  let description = [{
    A module may hold several `dlpack.entry` functions and helpers, some of
    which a target cannot compile (GPU code on the CPU, ops a pipeline does
    not lower). A caller compiling one entry should not have to care: this
    pass keeps the `dlpack.entry` function named by `entry` and every
    top-level symbol it references, transitively (helpers it calls, globals,
    GPU modules it launches), as well as what top-level operations that are
    not symbols reference (`llvm.mlir.global_ctors`), and erases all other
    symbols of the module, other entries included. It fails with the list of entries when none is
    named `entry`. With an empty `entry` it does nothing.

    Both named pipelines run it first when their `entry` option is set; the
    JIT (`compile()`, `dl-run --entry`) sets it to the entry it compiles.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Name of the dlpack.entry function to keep (without @)">,
  ];
}

def DLPackOwnResults : Pass<"dlbridge-own-results", "::mlir::ModuleOp"> {
  let summary = "Return fresh buffers for entry results the function does not own";
  let description = [{
    Every memref an entry returns becomes a `DLManagedTensorVersioned` that
    the caller owns and frees. A function may return memory it does not own:
    one of its arguments (or a view of one), a `memref.get_global` (a
    constant or a global), a stack buffer (`memref.alloca`), or the same
    buffer as another result. For each such result of a `func.func` marked
    `dlpack.entry`, this pass allocates a fresh buffer of the result's shape
    (`memref.alloc`), copies the data into it (`memref.copy`) and returns
    that instead, cast to the result type where the type has a layout.
    Buffers the function allocated on the heap are returned as they are.

    Results of other origins (a call, a select between buffers, a value
    carried through control flow) are left alone, and
    `--dlbridge-expose-entry-points` diagnoses them; after
    `--buffer-deallocation-pipeline`, such results are owned already.
    Both named pipelines run this pass before exposing entries, early
    enough that the CUDA pipeline turns the copies into kernels and the
    buffers into device memory.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def DLPackExposeEntryPoints
    : Pass<"dlbridge-expose-entry-points", "::mlir::ModuleOp"> {
  let summary = "Give every `dlpack.entry` function a DLPack entry point";
  let description = [{
    A compiler writes its kernels over `memref`s; frameworks hold DLPack
    tensors. This pass bridges the two without copies: for each `func.func`
    marked `dlpack.entry` it generates

    ```c
    int32_t <name>__dlpack(void **args, void **results, dlrt_call_ctx *ctx);
    ```

    which checks every tensor argument against its memref type
    (`dlpack.check`), views it as a memref (`dlpack.unpack`), loads scalar
    arguments, calls the function, and hands memref results back as owned
    `DLManagedTensorVersioned`s (`dlpack.pack`). The first failing check's
    status is returned, with its message in `ctx`; results already packed
    when packing fails are released. When the call's status is not 0 once
    the function returns (a `dlpack.assert` in it failed and it returned
    early, see `--dlbridge-lower-assertions`), that status is returned and
    its results, poison then, are not packed.

    Next to it the pass emits `<name>__dlpack_signature`
    (`dlpack.signature`): each parameter's name (`dlpack.name`, else
    `arg<i>`/`result<i>`), type, dtype (`dlpack.dtype` or the element type's)
    and access. Access is derived from the function's memory effects, so the
    runtime can refuse read-only tensors for written parameters.

    Entry functions take memrefs (identity or strided layouts, element types
    with a DLPack dtype) and integer, float or index scalars, and return
    scalars or memrefs they allocate themselves; anything else is diagnosed
    (`--dlbridge-own-results` turns returned arguments, globals and stack
    buffers into fresh buffers first).
    The `dlpack.entry` attribute is dropped once the entry point exists.
  }];
  let dependentDialects = [
    "::dlbridge::dlpack::DLPackDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
  ];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"",
           "DLPack device type the entry points are built for (cpu, cuda, "
           "...); recorded in their signatures">,
  ];
}

def DLPackOffloadHostCode
    : Pass<"dlbridge-offload-host-code", "::mlir::ModuleOp"> {
  let summary = "Keep tensor data on the GPU: device buffers, kernels for "
                "host accesses, scalars the host needs copied back";
  let description = [{
    Runs between `convert-parallel-loops-to-gpu` and `gpu-kernel-outlining`
    in `--dlbridge-cuda-pipeline`, on every `func.func` outside a
    `gpu.module`. A CUDA entry's tensors live in device memory, which host
    code cannot dereference; afterwards host code only allocates, frees,
    launches and copies, and everything that touches tensor data runs on the
    device:

    - What still reads or writes memref data in host code (a reduction over
      every dimension, which `convert-linalg-to-parallel-loops` leaves as a
      sequential `scf.for`; a fill of a 0-d buffer; the read of a count;
      vector code written for the host) is moved, in maximal runs of
      consecutive operations, into a `gpu.launch` of one block of one
      thread. Sequential, but on the device and in stream order. Pure
      operations do not end a run: those that use what it computed join it,
      the others move before it, and one that gives a buffer from what it
      computed (an `scf.if` choosing between two buffers on a flag, folded to
      an `arith.select`) ends it, staying host code on the scalars read
      back. In host control flow that also launches
      kernels (`scf.if`, `scf.for`, `scf.while` bodies), runs are found in
      each block of its regions.
    - Host code often needs a scalar such a run computes: a count that sizes
      the result of `x[mask]` or `np.nonzero` (count, allocate, fill), the
      maximum that sizes `np.bincount`, a value a run-time check tests (a
      singular matrix, an index out of bounds), a branch or loop bound.
      The kernel then also stores those scalars, as i64 words, into a small
      device buffer (`gpu.alloc`, zeroed with `gpu.memset` so that a kernel
      that did not run leaves zeros); host code copies it into a buffer on
      its stack (`gpu.memcpy`, on the call's stream once
      `--dlbridge-launch-on-context-stream` ran), waits for the stream
      (`dlrt_call_synchronize`), frees the device buffer and loads the words
      in place of the scalars. Integers of at most 64 bits (i1 included),
      indices, floats of at most 64 bits and complex numbers of them are
      read back; each read waits for the stream once, inside a loop once per
      iteration.
    - `memref.alloc` becomes `gpu.alloc` and `memref.dealloc` becomes
      `gpu.dealloc`, so buffers (results included) live in device memory.
      Host bookkeeping stays in host memory, and accesses to it on the
      host: the addresses and ownership flags `lower-deallocations` keeps
      for its `dealloc_helper`, and the shape operand of a `memref.reshape`
      in host code, which holds sizes the host computed.

    Diagnosed: stack buffers (`memref.alloca`) and `memref.copy` in host
    code, and results of a run that host code uses but that are not scalars
    (vectors, memrefs).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::complex::ComplexDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def DLPackLaunchOnContextStream
    : Pass<"dlbridge-launch-on-context-stream", "::mlir::ModuleOp"> {
  let summary = "Run every GPU operation on the stream of the entry's call";
  let description = [{
    Entry points take the stream to run on in their call context
    (`dlrt_call_ctx::stream`, borrowed from the caller). In each host
    `func.func` with GPU operations this pass reads it once, at the top, with
    `dlrt_call_stream()` (the stream of the call `dlpack.call_begin` marked as
    running on the thread) and views it as a token:

    ```mlir
    %s = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
    %t = builtin.unrealized_conversion_cast %s : !llvm.ptr to !gpu.async.token
    ```

    Every `gpu.launch_func`, `gpu.alloc`, `gpu.dealloc`, `gpu.memcpy` and
    `gpu.memset` becomes `async [%t]`, and uses of the tokens they return are
    replaced by `%t`: work is ordered by the stream itself. `gpu-to-llvm`
    then passes the stream to `mgpuLaunchKernel`, `mgpuMemAlloc`, ... as is.
    `gpu.wait` is removed (`gpu.wait async` is replaced by `%t`): lowered, it
    would synchronise and destroy the stream, which belongs to the caller.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
  ];
}

def DLPackGenerateShapeChecks
    : Pass<"dlbridge-generate-shape-checks", "::mlir::ModuleOp"> {
  let summary = "Check at run time the shape relations ops rely on, in O(rank)";
  let description = [{
    An entry point checks each argument against its own type, but nothing
    checks that arguments fit together: `linalg.matmul` on `(3, 4)` and
    `(5, 6)` operands, or an elementwise op on `(5,)` and `(7,)`, would read
    and write out of bounds. MLIR's `RuntimeVerifiableOpInterface` knows
    these relations (operand dims against the loop ranges of linalg
    structured ops, which also covers a `tensor.empty` sized from another
    argument; slice bounds; cast and reshape sizes; dlbridge attaches it to
    `tensor.insert_slice`, `tensor.concat`, `tensor.expand_shape` and
    `tensor.pad`, which MLIR 22 leaves without); this pass asks it for
    checks, but only where a check costs O(rank) per call:

    - linalg structured ops, wherever they are (their own work is at least
      as large);
    - every other op implementing the interface (`tensor`/`memref` casts,
      slices, reshapes, pads, `dim`, single loads and stores) only when no
      loop (`LoopLikeOpInterface`) or linalg op encloses it, so per-element
      accesses are never checked one by one;
    - element loads and stores (`memref`, `tensor`, `affine`) nested in
      loops only (`scf.for`, `affine.for`, `scf.forall`, `scf.parallel`),
      once before the outermost loop, over the whole range of each index
      that is an induction variable or invariant, when the bounds and the
      accessed value are invariant;
    - nothing inside GPU kernels (`gpu.launch`, `gpu.func`, `gpu.module`):
      checks belong to host code.

    The checks become `dlpack.assert ..., shape_mismatch` whose message
    names the op, the failing operand and dimension, the op's location and
    the operands' actual shapes ("linalg.matmul at x.mlir:4:8: dimension #0
    of operand #1 is incompatible with inferred dimension size; operand
    shapes: (3, 4) (5, 6) (3, 6)"), so a caller learns what to change.
    `--dlbridge-lower-assertions` turns them into a status of the call.
  }];
  let dependentDialects = [
    "::dlbridge::dlpack::DLPackDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::index::IndexDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def DLPackCheckDataIndices
    : Pass<"dlbridge-check-data-indices", "::mlir::ModuleOp"> {
  let summary = "Check each access whose index comes from data, where it happens";
  let description = [{
    A gather as frontends lower it (`linalg.generic` whose body does
    `tensor.extract %x[%k]` with `%k` an element of another tensor, or
    `memref.load` after bufferization) indexes with values no shape bounds;
    out of range, it would read or write arbitrary memory. The shape checks
    (`--dlbridge-generate-shape-checks`) cover indices that come from the
    program's structure, once per call; this pass covers the others, one
    access at a time.

    An index is structural when it is computed, by pure scalar operations,
    from constants, function arguments, induction variables of loops
    (`LoopLikeOpInterface`), `linalg.index`, GPU thread and block ids, and
    `tensor.dim`/`memref.dim`. Every other index of a `tensor.extract`,
    `tensor.insert`, `memref.load`, `memref.store`, `memref.atomic_rmw`,
    `memref.generic_atomic_rmw`, `affine.load` or `affine.store` (in the
    affine ones, every map result that uses such an operand) depends on
    data: a loaded element, a linalg body's element
    argument, a value carried through `scf.for`/`scf.while` iterations or
    between blocks. Before each such access this pass compares the index
    with its dimension (one unsigned compare: negative indices fail too)
    and emits

    ```mlir
    dlpack.assert %ok, index_out_of_range,
        "'tensor.extract' at gather.mlir:9:12: index {0} is out of bounds for dimension #0 of operand #0 with size {1}"
        (%k, %dim : index, index)
    ```

    so the call ends with status `index_out_of_range` (Python:
    `IndexError`) instead of reading garbage. Vector accesses (`vector.load`,
    `vector.gather`, transfers) are not checked here. Accesses in `gpu.module`s are
    left alone (they cannot report; kernels the pipeline generates are
    covered before they are outlined).

    Both named pipelines run it first thing on the program as it comes, before
    the shape checks and bufferization: tensor programs still have their
    `tensor.extract`s (bufferization carries the checks along into loops and
    kernels), and memref-level modules their loads and stores. With
    `guard-accesses` (the CUDA pipeline, where a failed check cannot stop a
    kernel) an access in a loop, a linalg op or a `gpu.launch` itself also
    runs only when its indices are in range:
    a load yields zero (or poison) instead, a `tensor.insert` its
    destination, a store does nothing; `--dlbridge-report-kernel-checks`
    then turns the assertions that end up in kernels into a status the host
    reads after the kernels ran. On the CPU a loop holding such a check
    runs on the calling thread: `--dlbridge-parallelize-outer-loops` keeps
    loops whose checks may end the call sequential.
  }];
  let options = [
    Option<"guardAccesses", "guard-accesses", "bool", /*default=*/"false",
           "Also run each checked access only when its indices are in range">,
  ];
  let dependentDialects = [
    "::dlbridge::dlpack::DLPackDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::ub::UBDialect",
  ];
}

def DLPackReportKernelChecks
    : Pass<"dlbridge-report-kernel-checks", "::mlir::ModuleOp"> {
  let summary = "Failed checks in kernels end the call with their status";
  let description = [{
    A `dlpack.assert` inside a `gpu.launch` (put there by
    `--dlbridge-check-data-indices`, whose guarded accesses keep a failing
    thread from touching memory) cannot return to the host. In each host
    `func.func` with such assertions, this pass

    - allocates a small device buffer of i64 words when the function starts
      (`gpu.alloc`, zeroed with `gpu.memcpy` from the host);
    - replaces each assertion in a kernel with: when the condition is false,
      `memref.atomic_rmw assign` 1 into word 0; the one thread that found
      it 0 (the first failure) writes the assertion's number (from 1) into
      word 1 and its message values into the words after it;
    - before each `func.return`, copies the words back (`gpu.memcpy`), waits
      for the call's stream (`dlrt_call_synchronize`), frees the buffer and
      asserts on the host, one `dlpack.assert` per kernel assertion with its
      status and message, that word 1 is not its number; in an entry,
      the buffers it allocated for its results are freed first when one
      failed (the entry point returns the failure instead of them).

    So a kernel's failed check ends the call like a host check does, at
    the cost of one stream synchronisation per call of a function whose
    kernels have checks. Runs in `--dlbridge-cuda-pipeline` after
    `--dlbridge-offload-host-code` (host code is final) and before kernel
    outlining and `--dlbridge-launch-on-context-stream`, which puts the
    copies on the call's stream.
  }];
  let dependentDialects = [
    "::dlbridge::dlpack::DLPackDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def DLPackCheckAllocations
    : Pass<"dlbridge-check-allocations", "::mlir::ModuleOp"> {
  let summary = "End the call with out_of_memory instead of using a bad buffer";
  let description = [{
    `memref.alloc` (and `gpu.alloc` in host code) lower to a size computed
    with wrapping multiplication and a call that returns NULL when memory
    runs out; generated code would then write through NULL, or into a buffer
    far smaller than the shape, when sizes come from arguments (an outer
    product of two large vectors, a size argument). For each allocation with
    dynamic sizes this pass checks before it that no size is negative and
    that the byte size fits int64, and for every allocation it checks after
    it that the buffer is not NULL; a failing check is a
    `dlpack.assert ..., out_of_memory` (negative sizes: `shape_mismatch`),
    so the call ends with that status (Python: `MemoryError`, as NumPy
    raises) instead of crashing. libdlrt's allocation functions record the
    failed request's size in the call's context first.
  }];
  let dependentDialects = [
    "::dlbridge::dlpack::DLPackDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def DLPackLowerAssertions
    : Pass<"dlbridge-lower-assertions", "::mlir::ModuleOp"> {
  let summary = "Turn failed assertions into early returns with a call status";
  let description = [{
    Nothing inside a compiled function may abort the process; a failed
    check must end the call with a status the entry point returns. Runs on
    host functions (`func.func` outside GPU modules) whose control flow is a
    CFG (after `convert-scf-to-cf`), so that returning early works from
    inside loops:

    - `cf.assert %c, "msg"`, which MLIR's runtime verification emits (and
      which would otherwise lower to `abort()`), becomes
      `dlpack.assert %c, shape_mismatch, "msg"`.
    - `dlpack.assert` splits its block: when the condition is false, a
      failure block calls `dlrt_check_failed(status, format, count, values)`
      (values as i64) and returns from the function, with poison results.
    - Each `func.call` of a function that may return that way (transitively)
      is followed by a check of `dlrt_call_status()`; when it is not 0 the
      caller returns early too.

    Entry wrappers (functions taking a `!dlpack.context`) read the status
    themselves after their call (`dlpack.status`) and are left alone; they
    return it without packing results. A `dlpack.assert` or `cf.assert`
    nested in a region other than the function body is diagnosed.
  }];
  let dependentDialects = [
    "::dlbridge::dlpack::DLPackDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::ub::UBDialect",
  ];
}

#endif // DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_TD
