//===- Passes.td - dlpack dialect passes ------------------*- tablegen -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_TD
#define DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DLPackReadOnlyArguments
    : Pass<"dlpack-read-only-arguments", "::mlir::ModuleOp"> {
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

def DLPackOwnResults : Pass<"dlpack-own-results", "::mlir::ModuleOp"> {
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
    `--dlpack-expose-entry-points` diagnoses them; after
    `--buffer-deallocation-pipeline`, such results are owned already.
    Both named pipelines run this pass before exposing entries, early
    enough that the CUDA pipeline turns the copies into kernels and the
    buffers into device memory.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def DLPackExposeEntryPoints
    : Pass<"dlpack-expose-entry-points", "::mlir::ModuleOp"> {
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
    when packing fails are released.

    Next to it the pass emits `<name>__dlpack_signature`
    (`dlpack.signature`): each parameter's name (`dlpack.name`, else
    `arg<i>`/`result<i>`), type, dtype (`dlpack.dtype` or the element type's)
    and access. Access is derived from the function's memory effects, so the
    runtime can refuse read-only tensors for written parameters.

    Entry functions take memrefs (identity or strided layouts, element types
    with a DLPack dtype) and integer, float or index scalars, and return
    scalars or memrefs they allocate themselves; anything else is diagnosed
    (`--dlpack-own-results` turns returned arguments, globals and stack
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
    : Pass<"dlpack-offload-host-code", "::mlir::ModuleOp"> {
  let summary = "Keep tensor data on the GPU: device buffers, no host accesses";
  let description = [{
    Runs between `convert-parallel-loops-to-gpu` and `gpu-kernel-outlining`
    in `--dlpack-cuda-pipeline`, on every `func.func` outside a
    `gpu.module`. Afterwards host code only allocates, frees and launches;
    everything that touches tensor data runs on the device:

    - What still reads or writes memref data in host code (a reduction over
      every dimension, which `convert-linalg-to-parallel-loops` leaves as a
      sequential `scf.for`; a fill of a 0-d buffer) is moved, in maximal
      runs of consecutive operations, into a `gpu.launch` of one block of
      one thread. Sequential, but on the device and in stream order.
    - `memref.alloc` becomes `gpu.alloc` and `memref.dealloc` becomes
      `gpu.dealloc`, so buffers (results included) live in device memory.

    Diagnosed: stack buffers (`memref.alloca`) and `memref.copy` in host code,
    host operations touching data whose results host code still uses, and
    data accesses inside host loops that also launch kernels.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
  ];
}

def DLPackLaunchOnContextStream
    : Pass<"dlpack-launch-on-context-stream", "::mlir::ModuleOp"> {
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

#endif // DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_TD
