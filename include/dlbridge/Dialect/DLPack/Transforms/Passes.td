//===- Passes.td - dlpack dialect passes ------------------*- tablegen -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_TD
#define DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    scalars or memrefs they allocate themselves; anything else is diagnosed.
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
