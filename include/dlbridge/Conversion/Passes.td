//===- Passes.td - dlbridge conversion passes --------------*- tablegen -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_CONVERSION_PASSES_TD
#define DLBRIDGE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// DLPackToLLVM
//===----------------------------------------------------------------------===//

def ConvertDLPackToLLVM : Pass<"convert-dlpack-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower the dlpack dialect to the LLVM dialect and libdlrt calls";
  let description = [{
    Lowers every `dlpack` operation to the LLVM dialect, so that entry points
    built by `--dlbridge-expose-entry-points` can be compiled by the usual
    `*-to-llvm` passes and linked against `libdlrt`.

    The pass exists separately from the upstream `--convert-to-llvm` (which
    also lowers `dlpack` ops, through the dialect's
    `ConvertToLLVMPatternInterface`) because it runs *before* memrefs are
    lowered: it only rewrites what mentions a `dlpack` type and leaves every
    other operation alone, so the rest of the pipeline (bufferization
    clean-ups, `expand-strided-metadata`, `finalize-memref-to-llvm`, ...) still
    sees plain memrefs.

    - `!dlpack.tensor`, `!dlpack.managed` and `!dlpack.context` become
      `!llvm.ptr`; memrefs produced or consumed by `dlpack` ops become memref
      descriptors (`!llvm.struct<(ptr, ptr, i64, array<N x i64>,
      array<N x i64>)>`), joined to the surrounding memref code with
      `builtin.unrealized_conversion_cast` for `--reconcile-unrealized-casts`
      to remove once everything is lowered.
    - `func.func`, `func.call`, `func.return`, branches and SCF ops whose types
      mention a `dlpack` type have their types converted in place (they stay
      `func`/`cf`/`scf` ops); the `func` ops are lowered later.
    - Field accesses to `DLTensor` are GEPs on DLPack 1.3's exact layout
      (`dlbridge/Conversion/DLPackToLLVM/DLPackABI.h`, checked against
      `dlpack.h` by a unit test).
    - `dlpack.check` and `dlpack.pack` call `dlrt_check_tensor` and
      `dlrt_pack_result` with a constant `dlrt_param_desc` record
      (`__dlpack_param_*`, one per distinct record and module);
      `dlpack.signature` becomes a constant `dlrt_signature` global of the
      same name. Runtime functions are declared once per module.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned",
           /*default=kDeriveIndexBitwidthFromDataLayout*/"0",
           "Bitwidth of the index type, 0 to use size of machine word">,
  ];
}

#endif // DLBRIDGE_CONVERSION_PASSES_TD
