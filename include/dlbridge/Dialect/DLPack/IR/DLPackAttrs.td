//===- DLPackAttrs.td - dlpack attributes -----------------*- tablegen -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_DIALECT_DLPACK_IR_DLPACKATTRS_TD
#define DLBRIDGE_DIALECT_DLPACK_IR_DLPACKATTRS_TD

include "dlbridge/Dialect/DLPack/IR/DLPackBase.td"
include "dlbridge/Dialect/DLPack/IR/DLPackEnums.td"
include "mlir/IR/AttrTypeBase.td"

class DLPack_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<DLPack_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def DLPack_DTypeAttr : DLPack_Attr<"DType", "dtype"> {
  let summary = "a DLPack data type: type code, bits and lanes";
  let description = [{
    The `DLDataType` of DLPack 1.3. `lanes` is elided when 1.

    ```mlir
    #dlpack.dtype<float, 32>
    #dlpack.dtype<uint, 8>
    #dlpack.dtype<float8_e4m3fn, 8>
    #dlpack.dtype<float, 32, lanes = 4>
    ```

    The verifier accepts only the widths DLPack defines for each code
    (`bool` is 8 bits, `bfloat` 16, `complex` 32/64/128, each fp8 kind 8, ...).
    `DTypeMapping.h` maps dtypes to and from MLIR element types.
  }];
  let parameters = (ins EnumParameter<DLPack_TypeCode>:$code,
                        "unsigned":$bits,
                        DefaultValuedParameter<"unsigned", "1">:$lanes);
  let assemblyFormat = "`<` $code `,` $bits (`,` `lanes` `=` $lanes^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bits of one element: bits × lanes.
    unsigned getElementBits() const { return getBits() * getLanes(); }
  }];
}

def DLPack_DeviceAttr : DLPack_Attr<"Device", "device"> {
  let summary = "a DLPack device type";
  let description = [{
    A `DLDeviceType` of DLPack 1.3: `cpu`, `cuda`, `cuda_host`,
    `cuda_managed`, `rocm`, ... It names the kind of device an entry point is
    built for; the device id comes from each call's context.

    ```mlir
    #dlpack.device<cuda>
    ```
  }];
  let parameters = (ins EnumParameter<DLPack_DeviceType>:$type);
  let assemblyFormat = "`<` $type `>`";
}

def DLPack_ParamAttr : DLPack_Attr<"Param", "param"> {
  let summary = "one parameter or result of an entry point";
  let description = [{
    Everything the runtime checks a tensor against, and what the signature
    record tells a caller: the name used in messages, the memref (or scalar)
    type, how the function uses the memory, and the DLPack dtype when it
    differs from the element type's default.

    ```mlir
    #dlpack.param<"x" : memref<?x4xf32>, read>
    #dlpack.param<"out" : memref<?xi8, strided<[?], offset: ?>>, write,
                  dtype = #dlpack.dtype<uint, 8>>
    #dlpack.param<"alpha" : f32, none>
    ```

    Memref parameters must have an element type with a DLPack dtype, an
    identity or `strided` layout and no memory space; scalars are integers,
    floats or `index` and have access `none`.
  }];
  let parameters = (ins StringRefParameter<"the name used in messages">:$name,
                        "::mlir::Type":$type,
                        EnumParameter<DLPack_Access>:$access,
                        OptionalParameter<"::dlbridge::dlpack::DTypeAttr">:$dtype);
  let assemblyFormat =
      "`<` $name `:` $type `,` $access (`,` `dtype` `=` $dtype^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The memref type of a tensor parameter, null for a scalar.
    ::mlir::MemRefType getMemRefType() const {
      return ::llvm::dyn_cast<::mlir::MemRefType>(getType());
    }
    /// The dtype the runtime checks: the explicit one, else the element
    /// type's default.
    DTypeAttr getEffectiveDType() const;
  }];
}

#endif // DLBRIDGE_DIALECT_DLPACK_IR_DLPACKATTRS_TD
