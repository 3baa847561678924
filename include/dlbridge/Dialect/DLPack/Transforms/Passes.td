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

#endif // DLBRIDGE_DIALECT_DLPACK_TRANSFORMS_PASSES_TD
