//===- DLPackBase.td - dlpack dialect definition ----------*- tablegen -*-===//
//
// Part of dlbridge. The `dlpack` dialect: DLPack descriptors as MLIR sees them.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_IR_DLPACKBASE_TD
#define DLBRIDGE_DIALECT_DLPACK_IR_DLPACKBASE_TD

include "mlir/IR/OpBase.td"

def DLPack_Dialect : Dialect {
  let name = "dlpack";
  let cppNamespace = "::dlbridge::dlpack";
  let summary = "DLPack tensors at the boundary of compiled functions";
  let description = [{
    The `dlpack` dialect lets a function written over `memref`s be called with
    framework tensors exchanged through [DLPack](https://dmlc.github.io/dlpack/latest/)
    1.3, zero-copy in both directions.

    A borrowed `DLTensor*` is a `!dlpack.tensor`; `dlpack.check` verifies that
    it satisfies everything a memref type promises (rank, dtype, static sizes,
    layout, device, alignment, extent) and `dlpack.unpack` turns it into a
    memref without copying. A buffer the function allocated leaves as an owned
    `DLManagedTensorVersioned*` (`!dlpack.managed`) built by `dlpack.pack`.
    Failures are reported through the call's `!dlpack.context`
    (`dlrt_call_ctx*` of the runtime) with a status code and a message naming
    the argument.

    Functions marked `dlpack.entry` are given a uniform C entry point by
    `--dlbridge-expose-entry-points`; `--convert-dlpack-to-llvm` lowers the
    dialect to the LLVM dialect and calls into `libdlrt`.

    Discardable attributes understood by the dialect:
    - `dlpack.entry` (unit, on `func.func`): expose this function. The
      verifier checks that it has a body and that each parameter and result
      can cross the DLPack boundary: ranked tensors (without an encoding)
      and memrefs of an element type with a whole-byte DLPack dtype (memrefs
      with an identity or strided layout and no memory space), and integer,
      float or index scalars with a dtype; an error at the parameter says
      what to use instead.
    - `dlpack.name` (string, on arguments and results): the name used in
      error messages and signature records.
    - `dlpack.dtype` (`#dlpack.dtype`, on memref arguments and results): the
      DLPack dtype when the element type alone does not say it, e.g.
      `#dlpack.dtype<uint, 8>` for a signless `i8` buffer of unsigned bytes.
    - `dlpack.in_bounds` (unit, on an element access: `tensor.extract`,
      `memref.load`...): its producer has checked its indices, so
      `--dlbridge-check-data-indices` adds no check of its own (a frontend
      that checks a whole index array once keeps its gathers parallel).

    Tensor arguments of an entry are read-only: the pipelines bufferize them
    so that the caller's array is never written (`--dlbridge-read-only-arguments`)
    and the signature records them as `read`. MLIR's
    `bufferization.writable = true` on a tensor argument opts in to updates
    in place (the signature then says `read_write` where it is written).
    Results never alias an argument, a global or another result
    (`--dlbridge-own-results`).
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let extraClassDeclaration = [{
    /// Names of the discardable attributes described above.
    static constexpr ::llvm::StringLiteral kEntryAttrName = "dlpack.entry";
    static constexpr ::llvm::StringLiteral kNameAttrName = "dlpack.name";
    static constexpr ::llvm::StringLiteral kDTypeAttrName = "dlpack.dtype";
    static constexpr ::llvm::StringLiteral kInBoundsAttrName =
        "dlpack.in_bounds";

  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

#endif // DLBRIDGE_DIALECT_DLPACK_IR_DLPACKBASE_TD
