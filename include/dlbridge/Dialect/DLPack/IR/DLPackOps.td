//===- DLPackOps.td - dlpack operations -------------------*- tablegen -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_IR_DLPACKOPS_TD
#define DLBRIDGE_DIALECT_DLPACK_IR_DLPACKOPS_TD

include "dlbridge/Dialect/DLPack/IR/DLPackAttrs.td"
include "dlbridge/Dialect/DLPack/IR/DLPackTypes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class DLPack_Op<string mnemonic, list<Trait> traits = []>
    : Op<DLPack_Dialect, mnemonic, traits>;

def DLPack_LLVMPointer : Type<
    CPred<"::llvm::isa<::mlir::LLVM::LLVMPointerType>($_self)">,
    "LLVM pointer", "::mlir::LLVM::LLVMPointerType">,
  BuildableType<"::mlir::LLVM::LLVMPointerType::get($_builder.getContext())">;
def DLPack_Scalar : AnyTypeOf<[AnySignlessInteger, AnyFloat, Index],
                              "integer, float or index scalar">;
def DLPack_NonNegativeIndex : ConfinedAttr<I64Attr, [IntNonNegative]>;

//===----------------------------------------------------------------------===//
// Entry-point plumbing
//===----------------------------------------------------------------------===//

def DLPack_LoadArgOp : DLPack_Op<"load_arg", [MemoryEffects<[MemRead]>]> {
  let summary = "reads one argument of an entry point";
  let description = [{
    Reads `args[index]` of the entry ABI's `void **args`: a tensor argument is
    the `DLTensor*` stored there, a scalar argument is loaded through the
    pointer stored there.

    ```mlir
    %x = dlpack.load_arg %args[0] : !dlpack.tensor
    %alpha = dlpack.load_arg %args[1] : f32
    ```
  }];
  let arguments = (ins DLPack_LLVMPointer:$args, DLPack_NonNegativeIndex:$index);
  let results = (outs AnyTypeOf<[DLPack_TensorType, DLPack_Scalar]>:$value);
  let assemblyFormat = "$args `[` $index `]` attr-dict `:` type($value)";
}

def DLPack_StoreResultOp : DLPack_Op<"store_result", [MemoryEffects<[MemWrite]>]> {
  let summary = "writes one result of an entry point";
  let description = [{
    Writes a result into the entry ABI's `void **results`: a managed tensor is
    stored into `results[index]` (ownership moves to the caller), a scalar is
    stored through the pointer in `results[index]`.

    ```mlir
    dlpack.store_result %out, %results[0] : !dlpack.managed
    ```
  }];
  let arguments = (ins AnyTypeOf<[DLPack_ManagedType, DLPack_Scalar]>:$value,
                       DLPack_LLVMPointer:$results,
                       DLPack_NonNegativeIndex:$index);
  let assemblyFormat =
      "$value `,` $results `[` $index `]` attr-dict `:` type($value)";
}

def DLPack_StatusOp : DLPack_Op<"status", [MemoryEffects<[MemRead]>]> {
  let summary = "the status recorded in a call context";
  let description = [{
    `0` unless an operation of this call failed; then the first failure's
    status code (`dlrt_status`).

    ```mlir
    %status = dlpack.status %ctx
    ```
  }];
  let arguments = (ins DLPack_ContextType:$ctx);
  let results = (outs I32:$status);
  let assemblyFormat = "$ctx attr-dict";
}

def DLPack_CallBeginOp : DLPack_Op<"call_begin", [MemoryEffects<[MemWrite]>]> {
  let summary = "marks the context's call as running on this thread";
  let description = [{
    Until the matching `dlpack.call_end`, buffers the called function
    allocates come from the context's allocator hooks when it has some (and
    are otherwise 64-byte aligned), and results are packed with the matching
    free (`dlrt_call_begin`).

    ```mlir
    dlpack.call_begin %ctx
    ```
  }];
  let arguments = (ins DLPack_ContextType:$ctx);
  let assemblyFormat = "$ctx attr-dict";
}

def DLPack_CallEndOp : DLPack_Op<"call_end", [MemoryEffects<[MemWrite]>]> {
  let summary = "ends the context's call on this thread";
  let description = [{
    ```mlir
    dlpack.call_end %ctx
    ```
  }];
  let arguments = (ins DLPack_ContextType:$ctx);
  let assemblyFormat = "$ctx attr-dict";
}

//===----------------------------------------------------------------------===//
// Checks in generated code
//===----------------------------------------------------------------------===//

def DLPack_AssertOp : DLPack_Op<"assert", [MemoryEffects<[MemWrite]>]> {
  let summary = "ends the call with a status unless a condition holds";
  let description = [{
    Checks a relation the function relies on at run time, such as two
    arguments' dimensions being equal. When `condition` is false the call
    fails: `status` and `message` are recorded in the context of the call in
    progress (`dlrt_check_failed`), and the function returns early, as do its
    callers up to the entry point, which returns `status`.

    In `message`, `{i}` stands for the run-time value of the `i`-th value
    (signless integers and indices, printed in decimal; `i1` as 0 or 1), so
    that messages can state actual shapes; `{{` and `}}` stand for a brace.

    ```mlir
    dlpack.assert %ok, shape_mismatch,
        "operands could not be broadcast together with shapes ({0},) ({1},)"
        (%n, %m : index, index)
    ```

    `--dlbridge-lower-assertions` lowers it once control flow is a CFG; an
    assertion whose condition is a constant true canonicalizes away.
  }];
  let arguments = (ins I1:$condition, DLPack_FailureStatus:$status,
                       StrAttr:$message,
                       Variadic<AnySignlessIntegerOrIndex>:$values);
  let assemblyFormat = [{
    $condition `,` $status `,` $message (` ` `(` $values^ `:` type($values) `)`)?
    attr-dict
  }];
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
}

//===----------------------------------------------------------------------===//
// Tensors in
//===----------------------------------------------------------------------===//

def DLPack_CheckOp : DLPack_Op<"check", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "checks that a DLTensor can be viewed as a memref";
  let description = [{
    Checks every property the parameter's memref type promises: rank; dtype
    (code, bits, lanes); static sizes; layout (identity: compact row-major,
    ignoring strides of size-1 dims and of empty tensors; `strided`: any
    strides, zero and negative included, with static strides and offset
    matched); the device against the call context's; `byte_offset` a multiple
    of the element size; data non-NULL unless the tensor is empty; no int64
    overflow of the addressed extent; and no READ_ONLY tensor for a parameter
    that is written. Returns `0`, or a status code after recording
    "argument <index> '<name>': expected ..., got ..." in the context.

    ```mlir
    %status = dlpack.check %x, %ctx for argument 0 as <"x" : memref<?x4xf32>, read>
    ```
  }];
  let arguments = (ins DLPack_TensorType:$tensor, DLPack_ContextType:$ctx,
                       DLPack_NonNegativeIndex:$index, DLPack_ParamAttr:$param);
  let results = (outs I32:$status);
  let assemblyFormat =
      "$tensor `,` $ctx `for` `argument` $index `as` $param attr-dict";
  let hasVerifier = 1;
}

def DLPack_UnpackOp : DLPack_Op<"unpack", [MemoryEffects<[MemRead]>]> {
  let summary = "views a checked DLTensor as a memref, without copying";
  let description = [{
    Builds a memref descriptor from the tensor's `data + byte_offset`, shape
    and strides: strides NULL means compact row-major, a 0-d tensor may have a
    NULL shape, and an identity-layout memref gets compact strides whatever
    the tensor says for size-1 dimensions. The tensor must have passed a
    `dlpack.check` against the same memref type.

    ```mlir
    %m = dlpack.unpack %x : !dlpack.tensor to memref<?x4xf32>
    ```
  }];
  let arguments = (ins DLPack_TensorType:$tensor);
  let results = (outs AnyMemRef:$memref);
  let assemblyFormat = "$tensor attr-dict `:` type($tensor) `to` type($memref)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensors out
//===----------------------------------------------------------------------===//

def DLPack_PackOp : DLPack_Op<"pack", [MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "hands a buffer the function allocated to the caller";
  let description = [{
    Wraps a memref whose buffer was allocated by this function into a
    DLPack 1.3 `DLManagedTensorVersioned` on the context's device; the
    runtime's deleter frees the buffer. Ownership of the buffer moves into the
    result even when packing fails; then the result is NULL and the failure
    is recorded in the context. `name` is the result's name in messages,
    `dtype` overrides the element type's default dtype.

    ```mlir
    %out = dlpack.pack %buf, %ctx {name = "y"} : memref<?xf32> to !dlpack.managed
    ```
  }];
  let arguments = (ins AnyMemRef:$memref, DLPack_ContextType:$ctx,
                       OptionalAttr<StrAttr>:$name,
                       OptionalAttr<DLPack_DTypeAttr>:$dtype);
  let results = (outs DLPack_ManagedType:$result);
  let assemblyFormat =
      "$memref `,` $ctx attr-dict `:` type($memref) `to` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The record the runtime packs against.
    ParamAttr getResultParam();
  }];
}

def DLPack_ReleaseOp : DLPack_Op<"release", [MemoryEffects<[MemFree]>]> {
  let summary = "releases a managed tensor that will not be handed out";
  let description = [{
    Calls the tensor's deleter unless the tensor is NULL. Entry points use it
    to release the results already packed when a later step fails.

    ```mlir
    dlpack.release %out
    ```
  }];
  let arguments = (ins DLPack_ManagedType:$tensor);
  let assemblyFormat = "$tensor attr-dict";
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

def DLPack_RankOp : DLPack_Op<"rank", [MemoryEffects<[MemRead]>]> {
  let summary = "the tensor's `ndim`";
  let description = [{
    ```mlir
    %r = dlpack.rank %x
    ```
  }];
  let arguments = (ins DLPack_TensorType:$tensor);
  let results = (outs Index:$rank);
  let assemblyFormat = "$tensor attr-dict";
}

def DLPack_DimOp : DLPack_Op<"dim", [MemoryEffects<[MemRead]>]> {
  let summary = "the tensor's `shape[index]`";
  let description = [{
    The caller guarantees `index < ndim` (e.g. after `dlpack.check`).

    ```mlir
    %n = dlpack.dim %x[%c0]
    ```
  }];
  let arguments = (ins DLPack_TensorType:$tensor, Index:$index);
  let results = (outs Index:$size);
  let assemblyFormat = "$tensor `[` $index `]` attr-dict";
}

def DLPack_DeviceOp : DLPack_Op<"device", [MemoryEffects<[MemRead]>]> {
  let summary = "the tensor's device type and id";
  let description = [{
    ```mlir
    %type, %id = dlpack.device %x
    ```
  }];
  let arguments = (ins DLPack_TensorType:$tensor);
  let results = (outs I32:$device_type, I32:$device_id);
  let assemblyFormat = "$tensor attr-dict";
}

//===----------------------------------------------------------------------===//
// Signature records
//===----------------------------------------------------------------------===//

def DLPack_SignatureOp : DLPack_Op<"signature", [
    Symbol, HasParent<"::mlir::ModuleOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the signature record of an entry point";
  let description = [{
    A constant a caller reads without MLIR (`dlrt_signature` in the runtime):
    the wrapped function, the device kind the entry was built for, and one
    record per argument and result, in order.

    ```mlir
    dlpack.signature @axpy__dlpack_signature for @axpy on <cpu>
        arguments [#dlpack.param<"x" : memref<?xf32>, read>,
                   #dlpack.param<"alpha" : f32, none>]
        results [#dlpack.param<"result0" : memref<?xf32>, write>]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$function,
                       DLPack_DeviceAttr:$device,
                       TypedArrayAttrBase<DLPack_ParamAttr, "parameter records">:$arg_params,
                       TypedArrayAttrBase<DLPack_ParamAttr, "result records">:$result_params);
  let assemblyFormat = [{
    $sym_name `for` $function `on` $device `arguments` $arg_params
    `results` $result_params attr-dict
  }];
}

#endif // DLBRIDGE_DIALECT_DLPACK_IR_DLPACKOPS_TD
