// RUN: dl-opt %s | dl-opt | FileCheck %s
// RUN: dl-opt %s --mlir-print-op-generic | dl-opt | FileCheck %s

// Every op, type and attribute of the dialect round-trips in custom and in
// generic form.

// CHECK-LABEL: func.func @entry_plumbing
// CHECK-SAME: (%[[ARGS:.*]]: !llvm.ptr, %[[RESULTS:.*]]: !llvm.ptr, %[[CTX:.*]]: !dlpack.context)
func.func @entry_plumbing(%args: !llvm.ptr, %results: !llvm.ptr, %ctx: !dlpack.context) -> i32 {
  // CHECK: %[[T:.*]] = dlpack.load_arg %[[ARGS]][0] : !dlpack.tensor
  %t = dlpack.load_arg %args[0] : !dlpack.tensor
  // CHECK: %[[ALPHA:.*]] = dlpack.load_arg %[[ARGS]][1] : f32
  %alpha = dlpack.load_arg %args[1] : f32
  // CHECK: %[[N:.*]] = dlpack.load_arg %[[ARGS]][2] : index
  %n = dlpack.load_arg %args[2] : index
  // CHECK: dlpack.check %[[T]], %[[CTX]] for argument 0 as <"x" : memref<?x4xf32>, read>
  %s0 = dlpack.check %t, %ctx for argument 0 as <"x" : memref<?x4xf32>, read>
  // CHECK: dlpack.check %[[T]], %[[CTX]] for argument 3 as <"y" : memref<?xi8, strided<[?], offset: ?>>, read_write, dtype = <uint, 8>>
  %s1 = dlpack.check %t, %ctx for argument 3 as <"y" : memref<?xi8, strided<[?], offset: ?>>, read_write, dtype = <uint, 8>>
  // CHECK: dlpack.unpack %[[T]] : !dlpack.tensor to memref<?x4xf32>
  %m = dlpack.unpack %t : !dlpack.tensor to memref<?x4xf32>
  // CHECK: dlpack.unpack %[[T]] : !dlpack.tensor to memref<f64>
  %m0 = dlpack.unpack %t : !dlpack.tensor to memref<f64>
  // CHECK: %[[OUT:.*]] = dlpack.pack %{{.*}}, %[[CTX]] {dtype = #dlpack.dtype<uint, 8>, name = "y"} : memref<?xi8> to !dlpack.managed
  %buf = memref.alloc(%n) : memref<?xi8>
  %out = dlpack.pack %buf, %ctx {dtype = #dlpack.dtype<uint, 8>, name = "y"} : memref<?xi8> to !dlpack.managed
  // CHECK: dlpack.call_begin %[[CTX]]
  dlpack.call_begin %ctx
  // CHECK: dlpack.call_end %[[CTX]]
  dlpack.call_end %ctx
  // CHECK: %[[STATUS:.*]] = dlpack.status %[[CTX]]
  %status = dlpack.status %ctx
  // CHECK: dlpack.store_result %[[OUT]], %[[RESULTS]][0] : !dlpack.managed
  dlpack.store_result %out, %results[0] : !dlpack.managed
  // CHECK: dlpack.store_result %[[ALPHA]], %[[RESULTS]][1] : f32
  dlpack.store_result %alpha, %results[1] : f32
  // CHECK: dlpack.release %[[OUT]]
  dlpack.release %out
  return %status : i32
}

// CHECK-LABEL: func.func @queries
func.func @queries(%t: !dlpack.tensor, %i: index) -> (index, index, i32, i32) {
  // CHECK: dlpack.rank %{{.*}}
  %r = dlpack.rank %t
  // CHECK: dlpack.dim %{{.*}}[%{{.*}}]
  %d = dlpack.dim %t[%i]
  // CHECK: dlpack.device %{{.*}}
  %type, %id = dlpack.device %t
  return %r, %d, %type, %id : index, index, i32, i32
}

// CHECK-LABEL: func.func @axpy
// CHECK-SAME: {dlpack.name = "x"}
// CHECK-SAME: {dlpack.dtype = #dlpack.dtype<uint, 8>, dlpack.name = "bytes"}
// CHECK-SAME: attributes {dlpack.entry}
func.func @axpy(%x: memref<?xf32> {dlpack.name = "x"},
                %b: memref<4xi8> {dlpack.name = "bytes", dlpack.dtype = #dlpack.dtype<uint, 8>},
                %alpha: f32) -> (memref<?xf32> {dlpack.name = "y"}) attributes {dlpack.entry} {
  return %x : memref<?xf32>
}

// CHECK: dlpack.signature @axpy__dlpack_signature for @axpy on <cpu>
// CHECK-SAME: arguments [#dlpack.param<"x" : memref<?xf32>, read>, #dlpack.param<"bytes" : memref<4xi8>, none, dtype = <uint, 8>>, #dlpack.param<"alpha" : f32, none>]
// CHECK-SAME: results [#dlpack.param<"y" : memref<?xf32>, write>]
dlpack.signature @axpy__dlpack_signature for @axpy on <cpu>
    arguments [#dlpack.param<"x" : memref<?xf32>, read>,
               #dlpack.param<"bytes" : memref<4xi8>, none, dtype = <uint, 8>>,
               #dlpack.param<"alpha" : f32, none>]
    results [#dlpack.param<"y" : memref<?xf32>, write>]

// Every dtype code, lanes and device type is an attribute of its own.
// CHECK-LABEL: func.func @attributes
// CHECK-SAME: bf16 = #dlpack.dtype<bfloat, 16>
// CHECK-SAME: bool = #dlpack.dtype<bool, 8>
// CHECK-SAME: c64 = #dlpack.dtype<complex, 64>
// CHECK-SAME: cuda = #dlpack.device<cuda>
// CHECK-SAME: cuda_host = #dlpack.device<cuda_host>
// CHECK-SAME: cuda_managed = #dlpack.device<cuda_managed>
// CHECK-SAME: devices = [#dlpack.device<cpu>, #dlpack.device<opencl>, #dlpack.device<vulkan>, #dlpack.device<metal>, #dlpack.device<vpi>, #dlpack.device<rocm>, #dlpack.device<rocm_host>, #dlpack.device<ext_dev>, #dlpack.device<oneapi>, #dlpack.device<webgpu>, #dlpack.device<hexagon>, #dlpack.device<maia>, #dlpack.device<trn>]
// CHECK-SAME: e3m4 = #dlpack.dtype<float8_e3m4, 8>
// CHECK-SAME: e4m3 = #dlpack.dtype<float8_e4m3, 8>
// CHECK-SAME: e4m3b11fnuz = #dlpack.dtype<float8_e4m3b11fnuz, 8>
// CHECK-SAME: e4m3fn = #dlpack.dtype<float8_e4m3fn, 8>
// CHECK-SAME: e4m3fnuz = #dlpack.dtype<float8_e4m3fnuz, 8>
// CHECK-SAME: e5m2 = #dlpack.dtype<float8_e5m2, 8>
// CHECK-SAME: e5m2fnuz = #dlpack.dtype<float8_e5m2fnuz, 8>
// CHECK-SAME: e8m0fnu = #dlpack.dtype<float8_e8m0fnu, 8>
// CHECK-SAME: f4 = #dlpack.dtype<float4_e2m1fn, 4>
// CHECK-SAME: f6a = #dlpack.dtype<float6_e2m3fn, 6>
// CHECK-SAME: f6b = #dlpack.dtype<float6_e3m2fn, 6>
// CHECK-SAME: handle = #dlpack.dtype<opaque_handle, 64>
// CHECK-SAME: i4 = #dlpack.dtype<int, 4>
// CHECK-SAME: lanes = #dlpack.dtype<float, 32, lanes = 4>
// CHECK-SAME: u64 = #dlpack.dtype<uint, 64>
func.func @attributes() attributes {
    bool = #dlpack.dtype<bool, 8>, i4 = #dlpack.dtype<int, 4>,
    u64 = #dlpack.dtype<uint, 64>, bf16 = #dlpack.dtype<bfloat, 16>,
    c64 = #dlpack.dtype<complex, 64>, handle = #dlpack.dtype<opaque_handle, 64>,
    e3m4 = #dlpack.dtype<float8_e3m4, 8>, e4m3 = #dlpack.dtype<float8_e4m3, 8>,
    e4m3b11fnuz = #dlpack.dtype<float8_e4m3b11fnuz, 8>,
    e4m3fn = #dlpack.dtype<float8_e4m3fn, 8>,
    e4m3fnuz = #dlpack.dtype<float8_e4m3fnuz, 8>,
    e5m2 = #dlpack.dtype<float8_e5m2, 8>,
    e5m2fnuz = #dlpack.dtype<float8_e5m2fnuz, 8>,
    e8m0fnu = #dlpack.dtype<float8_e8m0fnu, 8>,
    f6a = #dlpack.dtype<float6_e2m3fn, 6>, f6b = #dlpack.dtype<float6_e3m2fn, 6>,
    f4 = #dlpack.dtype<float4_e2m1fn, 4>,
    lanes = #dlpack.dtype<float, 32, lanes = 4>,
    cuda = #dlpack.device<cuda>, cuda_host = #dlpack.device<cuda_host>,
    cuda_managed = #dlpack.device<cuda_managed>,
    devices = [#dlpack.device<cpu>, #dlpack.device<opencl>, #dlpack.device<vulkan>,
               #dlpack.device<metal>, #dlpack.device<vpi>, #dlpack.device<rocm>,
               #dlpack.device<rocm_host>, #dlpack.device<ext_dev>,
               #dlpack.device<oneapi>, #dlpack.device<webgpu>,
               #dlpack.device<hexagon>, #dlpack.device<maia>, #dlpack.device<trn>]} {
  return
}

// CHECK-LABEL: func.func @assertions
// CHECK-SAME: (%[[OK:.*]]: i1, %[[N:.*]]: index, %[[M:.*]]: i32)
func.func @assertions(%ok: i1, %n: index, %m: i32) {
  // CHECK: dlpack.assert %[[OK]], shape_mismatch, "sizes {0} and {1} differ" (%[[N]], %[[M]] : index, i32)
  dlpack.assert %ok, shape_mismatch, "sizes {0} and {1} differ" (%n, %m : index, i32)
  // CHECK: dlpack.assert %[[OK]], out_of_memory, "no values"
  dlpack.assert %ok, out_of_memory, "no values"
  // CHECK: dlpack.assert %[[OK]], invalid_argument, "{0}" (%[[OK]] : i1)
  dlpack.assert %ok, invalid_argument, "{0}" (%ok : i1)
  return
}
