//===- DLPackTypes.td - dlpack types ----------------------*- tablegen -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_IR_DLPACKTYPES_TD
#define DLBRIDGE_DIALECT_DLPACK_IR_DLPACKTYPES_TD

include "dlbridge/Dialect/DLPack/IR/DLPackBase.td"
include "mlir/IR/AttrTypeBase.td"

class DLPack_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<DLPack_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def DLPack_TensorType : DLPack_Type<"Tensor", "tensor"> {
  let summary = "a borrowed DLTensor*";
  let description = [{
    A `DLTensor*` owned by the caller for the duration of a call. Lowers to
    `!llvm.ptr`.
  }];
}

def DLPack_ManagedType : DLPack_Type<"Managed", "managed"> {
  let summary = "an owned DLManagedTensorVersioned*";
  let description = [{
    A DLPack 1.3 `DLManagedTensorVersioned*` whose ownership moves to whoever
    receives it; its deleter frees the tensor exactly once. Lowers to
    `!llvm.ptr`.
  }];
}

def DLPack_ContextType : DLPack_Type<"Context", "context"> {
  let summary = "the runtime's call context, dlrt_call_ctx*";
  let description = [{
    The device and stream a call runs on and the slot its first failure is
    recorded in (see `dlbridge/Runtime/dlrt.h`). Lowers to `!llvm.ptr`.
  }];
}

#endif // DLBRIDGE_DIALECT_DLPACK_IR_DLPACKTYPES_TD
