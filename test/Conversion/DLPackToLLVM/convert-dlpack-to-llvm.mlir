// RUN: dl-opt %s --convert-dlpack-to-llvm | FileCheck %s
// RUN: dl-opt %s --convert-dlpack-to-llvm --finalize-memref-to-llvm \
// RUN:   --convert-scf-to-cf --convert-func-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm \
// RUN:   --reconcile-unrealized-casts | FileCheck %s --check-prefix=LOWERED
// RUN: dl-opt %s --convert-dlpack-to-llvm --finalize-memref-to-llvm \
// RUN:   --convert-scf-to-cf --convert-func-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm \
// RUN:   --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir \
// RUN:   | FileCheck %s --check-prefix=IR
// RUN: dl-opt %s --convert-to-llvm | FileCheck %s --check-prefix=TOLLVM

// Every dlpack op lowered by --convert-dlpack-to-llvm; the LOWERED run
// finishes the lowering with upstream passes, IR checks the constant records
// as LLVM IR, and TOLLVM lowers through the dialect's ConvertToLLVM interface.

// LOWERED-NOT: builtin.unrealized_conversion_cast
// LOWERED-NOT: dlpack.
// TOLLVM-NOT: dlpack.

// Runtime functions are declared once per module.
// CHECK-DAG: llvm.func @dlrt_check_tensor(!llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @dlrt_pack_result(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> !llvm.ptr
// CHECK-DAG: llvm.func @dlrt_release_managed(!llvm.ptr)
// CHECK-DAG: llvm.func @dlrt_status(!llvm.ptr) -> i32

//===----------------------------------------------------------------------===//
// Entry-point plumbing
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @plumbing
// CHECK-SAME: (%[[ARGS:.*]]: !llvm.ptr, %[[RESULTS:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr)
func.func @plumbing(%args: !llvm.ptr, %results: !llvm.ptr, %out: !dlpack.managed) -> index {
  // A tensor argument is the DLTensor* in args[0].
  // CHECK: %[[S0:.*]] = llvm.getelementptr inbounds %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
  // CHECK: %[[T:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
  %t = dlpack.load_arg %args[0] : !dlpack.tensor
  // A scalar argument is loaded through the pointer in args[i].
  // CHECK: %[[S1:.*]] = llvm.getelementptr inbounds %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
  // CHECK: %[[P1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
  // CHECK: %[[ALPHA:.*]] = llvm.load %[[P1]] : !llvm.ptr -> f32
  %alpha = dlpack.load_arg %args[1] : f32
  // CHECK: %[[S2:.*]] = llvm.getelementptr inbounds %[[ARGS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
  // CHECK: %[[P2:.*]] = llvm.load %[[S2]] : !llvm.ptr -> !llvm.ptr
  // CHECK: %[[N:.*]] = llvm.load %[[P2]] : !llvm.ptr -> i64
  %n = dlpack.load_arg %args[2] : index
  // A managed tensor is stored into results[0].
  // CHECK: %[[R0:.*]] = llvm.getelementptr inbounds %[[RESULTS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
  // CHECK: llvm.store %[[OUT]], %[[R0]] : !llvm.ptr, !llvm.ptr
  dlpack.store_result %out, %results[0] : !dlpack.managed
  // A scalar is stored through the pointer in results[i].
  // CHECK: %[[R1:.*]] = llvm.getelementptr inbounds %[[RESULTS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
  // CHECK: %[[Q1:.*]] = llvm.load %[[R1]] : !llvm.ptr -> !llvm.ptr
  // CHECK: llvm.store %[[ALPHA]], %[[Q1]] : f32, !llvm.ptr
  dlpack.store_result %alpha, %results[1] : f32
  // CHECK: %[[R2:.*]] = llvm.getelementptr inbounds %[[RESULTS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
  // CHECK: %[[Q2:.*]] = llvm.load %[[R2]] : !llvm.ptr -> !llvm.ptr
  // CHECK: llvm.store %[[N]], %[[Q2]] : i64, !llvm.ptr
  dlpack.store_result %n, %results[2] : index
  // CHECK: %[[NDIMP:.*]] = llvm.getelementptr inbounds %[[T]][0, 2]
  %r = dlpack.rank %t
  return %r : index
}

// CHECK-LABEL: func.func @status_and_release
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr, %[[M:.*]]: !llvm.ptr) -> i32
func.func @status_and_release(%ctx: !dlpack.context, %m: !dlpack.managed) -> i32 {
  // CHECK: llvm.call @dlrt_release_managed(%[[M]]) : (!llvm.ptr) -> ()
  dlpack.release %m
  // CHECK: %[[S:.*]] = llvm.call @dlrt_status(%[[CTX]]) : (!llvm.ptr) -> i32
  // CHECK: return %[[S]] : i32
  %s = dlpack.status %ctx
  return %s : i32
}

// CHECK-LABEL: func.func @call_scope
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr)
func.func @call_scope(%ctx: !dlpack.context) {
  // CHECK: llvm.call @dlrt_call_begin(%[[CTX]]) : (!llvm.ptr) -> ()
  dlpack.call_begin %ctx
  // CHECK: llvm.call @dlrt_call_end(%[[CTX]]) : (!llvm.ptr) -> ()
  dlpack.call_end %ctx
  return
}

//===----------------------------------------------------------------------===//
// Checks: one record per distinct parameter and module
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @check
// CHECK-SAME: (%[[T:.*]]: !llvm.ptr, %[[CTX:.*]]: !llvm.ptr)
func.func @check(%t: !dlpack.tensor, %ctx: !dlpack.context) -> (i32, i32, i32) {
  // CHECK: %[[I0:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK: %[[X:.*]] = llvm.mlir.addressof @[[XREC:__dlpack_param_x_[0-9a-f]+]] : !llvm.ptr
  // CHECK: %[[S0:.*]] = llvm.call @dlrt_check_tensor(%[[CTX]], %[[I0]], %[[T]], %[[X]]) : (!llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> i32
  %0 = dlpack.check %t, %ctx for argument 0 as <"x" : memref<?x4xf32>, read>
  // The same parameter reuses the same record.
  // CHECK: llvm.mlir.addressof @[[XREC]] : !llvm.ptr
  // CHECK: llvm.call @dlrt_check_tensor
  %1 = dlpack.check %t, %ctx for argument 0 as <"x" : memref<?x4xf32>, read>
  // CHECK: %[[I3:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK: %[[Y:.*]] = llvm.mlir.addressof @[[YREC:__dlpack_param_y_[0-9a-f]+]] : !llvm.ptr
  // CHECK: llvm.call @dlrt_check_tensor(%[[CTX]], %[[I3]], %[[T]], %[[Y]])
  %2 = dlpack.check %t, %ctx for argument 3 as <"y" : memref<?x?xi8, strided<[?, 1], offset: ?>>, read_write, dtype = <uint, 8>>
  return %0, %1, %2 : i32, i32, i32
}

// The records, as the runtime reads them.
// IR-DAG: @[[XREC:__dlpack_param_x_[0-9a-f]+]] = private constant { ptr, i32, i32, i32, i32, { i8, i8, i16 }, i32, ptr, ptr, i64 } { ptr @[[XREC]]_name, i32 0, i32 0, i32 1, i32 2, { i8, i8, i16 } { i8 2, i8 32, i16 1 }, i32 0, ptr @[[XREC]]_shape, ptr null, i64 0 }
// IR-DAG: @[[XREC]]_name = private constant [2 x i8] c"x\00"
// IR-DAG: @[[XREC]]_shape = private constant [2 x i64] [i64 -9223372036854775808, i64 4]
// IR-DAG: @[[YREC:__dlpack_param_y_[0-9a-f]+]] = private constant { ptr, i32, i32, i32, i32, { i8, i8, i16 }, i32, ptr, ptr, i64 } { ptr @[[YREC]]_name, i32 0, i32 1, i32 3, i32 2, { i8, i8, i16 } { i8 1, i8 8, i16 1 }, i32 0, ptr @[[YREC]]_shape, ptr @[[YREC]]_strides, i64 -9223372036854775808 }
// IR-DAG: @[[YREC]]_shape = private constant [2 x i64] [i64 -9223372036854775808, i64 -9223372036854775808]
// IR-DAG: @[[YREC]]_strides = private constant [2 x i64] [i64 -9223372036854775808, i64 1]

//===----------------------------------------------------------------------===//
// Unpack
//===----------------------------------------------------------------------===//

// Identity layout: aligned = data + byte_offset, offset 0, compact strides
// from the sizes whatever the tensor's strides say.
// CHECK-LABEL: func.func @unpack_identity
// CHECK-SAME: (%[[T:.*]]: !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
func.func @unpack_identity(%t: !dlpack.tensor) -> memref<?x4x?xf32> {
  // CHECK: %[[D0:.*]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
  // CHECK: %[[DATAP:.*]] = llvm.getelementptr inbounds %[[T]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, struct<(i32, i32)>, i32, struct<(i8, i8, i16)>, ptr, ptr, i64)>
  // CHECK: %[[DATA:.*]] = llvm.load %[[DATAP]] : !llvm.ptr -> !llvm.ptr
  // CHECK: %[[BOP:.*]] = llvm.getelementptr inbounds %[[T]][0, 6]
  // CHECK: %[[BO:.*]] = llvm.load %[[BOP]] : !llvm.ptr -> i64
  // CHECK: %[[D1:.*]] = llvm.insertvalue %[[DATA]], %[[D0]][0]
  // CHECK: %[[ALIGNED:.*]] = llvm.getelementptr %[[DATA]][%[[BO]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  // CHECK: %[[D2:.*]] = llvm.insertvalue %[[ALIGNED]], %[[D1]][1]
  // CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : index) : i64
  // CHECK: %[[D3:.*]] = llvm.insertvalue %[[ZERO]], %[[D2]][2]
  // CHECK: %[[SHAPEP:.*]] = llvm.getelementptr inbounds %[[T]][0, 4]
  // CHECK: %[[SHAPE:.*]] = llvm.load %[[SHAPEP]] : !llvm.ptr -> !llvm.ptr
  // CHECK: %[[S0P:.*]] = llvm.getelementptr inbounds %[[SHAPE]][0] : (!llvm.ptr) -> !llvm.ptr, i64
  // CHECK: %[[S0:.*]] = llvm.load %[[S0P]] : !llvm.ptr -> i64
  // CHECK: %[[S1:.*]] = llvm.mlir.constant(4 : index) : i64
  // CHECK: %[[S2P:.*]] = llvm.getelementptr inbounds %[[SHAPE]][2] : (!llvm.ptr) -> !llvm.ptr, i64
  // CHECK: %[[S2:.*]] = llvm.load %[[S2P]] : !llvm.ptr -> i64
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
  // CHECK: %[[ST0:.*]] = llvm.mul %[[S2]], %[[S1]] : i64
  // CHECK-NOT: getelementptr inbounds %[[T]][0, 5]
  // CHECK: %[[D4:.*]] = llvm.insertvalue %[[S0]], %[[D3]][3, 0]
  // CHECK: %[[D5:.*]] = llvm.insertvalue %[[ST0]], %[[D4]][4, 0]
  // CHECK: %[[D6:.*]] = llvm.insertvalue %[[S1]], %[[D5]][3, 1]
  // CHECK: %[[D7:.*]] = llvm.insertvalue %[[S2]], %[[D6]][4, 1]
  // CHECK: %[[D8:.*]] = llvm.insertvalue %[[S2]], %[[D7]][3, 2]
  // CHECK: %[[D9:.*]] = llvm.insertvalue %[[ONE]], %[[D8]][4, 2]
  // CHECK: return %[[D9]]
  %m = dlpack.unpack %t : !dlpack.tensor to memref<?x4x?xf32>
  return %m : memref<?x4x?xf32>
}

// Strided layout: aligned = data, offset = byte_offset / 8; a dynamic stride
// is strides[i], or the compact one when strides is NULL (the load then reads
// shape[i] instead, never NULL); a static stride comes from the type.
// CHECK-LABEL: func.func @unpack_strided
// CHECK-SAME: (%[[T:.*]]: !llvm.ptr)
func.func @unpack_strided(%t: !dlpack.tensor) -> memref<?x?xf64, strided<[?, 1], offset: ?>> {
  // CHECK: %[[DATA:.*]] = llvm.load
  // CHECK: %[[BO:.*]] = llvm.load
  // CHECK: %[[D1:.*]] = llvm.insertvalue %[[DATA]], %{{.*}}[0]
  // CHECK: %[[D2:.*]] = llvm.insertvalue %[[DATA]], %[[D1]][1]
  // CHECK: %[[EIGHT:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK: %[[OFF:.*]] = llvm.udiv %[[BO]], %[[EIGHT]] : i64
  // CHECK: %[[D3:.*]] = llvm.insertvalue %[[OFF]], %[[D2]][2]
  // CHECK: %[[SHAPE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
  // CHECK: %[[S0:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
  // CHECK: %[[S1P:.*]] = llvm.getelementptr inbounds %[[SHAPE]][1]
  // CHECK: %[[S1:.*]] = llvm.load %[[S1P]] : !llvm.ptr -> i64
  // CHECK: %[[STRIDESP:.*]] = llvm.getelementptr inbounds %[[T]][0, 5]
  // CHECK: %[[STRIDES:.*]] = llvm.load %[[STRIDESP]] : !llvm.ptr -> !llvm.ptr
  // CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
  // CHECK: %[[HAS:.*]] = llvm.icmp "ne" %[[STRIDES]], %[[NULL]] : !llvm.ptr
  // CHECK: %[[BASE:.*]] = llvm.select %[[HAS]], %[[STRIDES]], %[[SHAPE]] : i1, !llvm.ptr
  // CHECK: %[[ST0P:.*]] = llvm.getelementptr inbounds %[[BASE]][0] : (!llvm.ptr) -> !llvm.ptr, i64
  // CHECK: %[[ST0L:.*]] = llvm.load %[[ST0P]] : !llvm.ptr -> i64
  // CHECK: %[[ST0:.*]] = llvm.select %[[HAS]], %[[ST0L]], %[[S1]] : i1, i64
  // CHECK: %[[ST1:.*]] = llvm.mlir.constant(1 : index) : i64
  // CHECK: %[[D4:.*]] = llvm.insertvalue %[[S0]], %[[D3]][3, 0]
  // CHECK: %[[D5:.*]] = llvm.insertvalue %[[ST0]], %[[D4]][4, 0]
  // CHECK: %[[D6:.*]] = llvm.insertvalue %[[S1]], %[[D5]][3, 1]
  // CHECK: %[[D7:.*]] = llvm.insertvalue %[[ST1]], %[[D6]][4, 1]
  // CHECK: return %[[D7]]
  %m = dlpack.unpack %t : !dlpack.tensor to memref<?x?xf64, strided<[?, 1], offset: ?>>
  return %m : memref<?x?xf64, strided<[?, 1], offset: ?>>
}

// Static sizes and a static offset come from the type: no shape or strides
// access.
// CHECK-LABEL: func.func @unpack_static
// CHECK-SAME: (%[[T:.*]]: !llvm.ptr)
func.func @unpack_static(%t: !dlpack.tensor) -> (memref<2x3xi16>, memref<3xi32, strided<[2], offset: 5>>) {
  // CHECK-NOT: getelementptr inbounds %[[T]][0, 4]
  // CHECK-NOT: getelementptr inbounds %[[T]][0, 5]
  // CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : index) : i64
  // CHECK: %[[THREE:.*]] = llvm.mlir.constant(3 : index) : i64
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
  // CHECK: %[[ST0:.*]] = llvm.mlir.constant(3 : index) : i64
  // CHECK: llvm.insertvalue %[[TWO]], %{{.*}}[3, 0]
  // CHECK: llvm.insertvalue %[[ST0]], %{{.*}}[4, 0]
  // CHECK: llvm.insertvalue %[[THREE]], %{{.*}}[3, 1]
  // CHECK: llvm.insertvalue %[[ONE]], %{{.*}}[4, 1]
  %m = dlpack.unpack %t : !dlpack.tensor to memref<2x3xi16>
  // CHECK: %[[FIVE:.*]] = llvm.mlir.constant(5 : index) : i64
  // CHECK: llvm.insertvalue %[[FIVE]], %{{.*}}[2]
  // CHECK-NOT: getelementptr inbounds %[[T]][0, 4]
  // CHECK-NOT: getelementptr inbounds %[[T]][0, 5]
  // CHECK: %[[SST:.*]] = llvm.mlir.constant(2 : index) : i64
  // CHECK: llvm.insertvalue %[[SST]], %{{.*}}[4, 0]
  // CHECK: return
  %s = dlpack.unpack %t : !dlpack.tensor to memref<3xi32, strided<[2], offset: 5>>
  return %m, %s : memref<2x3xi16>, memref<3xi32, strided<[2], offset: 5>>
}

// 0-d: neither shape nor strides is read (both may be NULL).
// CHECK-LABEL: func.func @unpack_0d
// CHECK-SAME: (%[[T:.*]]: !llvm.ptr) -> !llvm.struct<(ptr, ptr, i64)>
func.func @unpack_0d(%t: !dlpack.tensor) -> memref<f64> {
  // CHECK-NOT: getelementptr inbounds %[[T]][0, 4]
  // CHECK-NOT: getelementptr inbounds %[[T]][0, 5]
  // CHECK: return
  %m = dlpack.unpack %t : !dlpack.tensor to memref<f64>
  return %m : memref<f64>
}

//===----------------------------------------------------------------------===//
// Pack
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @pack
// CHECK-SAME: (%[[M:.*]]: !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, %[[S:.*]]: !llvm.struct<(ptr, ptr, i64)>, %[[CTX:.*]]: !llvm.ptr)
func.func @pack(%m: memref<?x4xf32>, %s: memref<i8>, %ctx: !dlpack.context) -> (!dlpack.managed, !dlpack.managed) {
  // The stack arrays live in the entry block.
  // CHECK: %[[C1:.*]] = llvm.mlir.constant(1 : i64) : i64
  // CHECK: %[[SIZES:.*]] = llvm.alloca %[[C1]] x !llvm.array<2 x i64> : (i64) -> !llvm.ptr
  // CHECK: %[[STRIDES:.*]] = llvm.alloca %[[C1]] x !llvm.array<2 x i64> : (i64) -> !llvm.ptr
  // CHECK: %[[ALLOC:.*]] = llvm.extractvalue %[[M]][0]
  // CHECK: %[[ALIGNED:.*]] = llvm.extractvalue %[[M]][1]
  // CHECK: %[[OFF:.*]] = llvm.extractvalue %[[M]][2]
  // CHECK: %[[SZ0:.*]] = llvm.extractvalue %[[M]][3, 0]
  // CHECK: %[[SZ0P:.*]] = llvm.getelementptr inbounds %[[SIZES]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x i64>
  // CHECK: llvm.store %[[SZ0]], %[[SZ0P]] : i64, !llvm.ptr
  // CHECK: %[[ST0:.*]] = llvm.extractvalue %[[M]][4, 0]
  // CHECK: %[[ST0P:.*]] = llvm.getelementptr inbounds %[[STRIDES]][0, 0]
  // CHECK: llvm.store %[[ST0]], %[[ST0P]] : i64, !llvm.ptr
  // CHECK: llvm.extractvalue %[[M]][3, 1]
  // CHECK: llvm.getelementptr inbounds %[[SIZES]][0, 1]
  // CHECK: llvm.extractvalue %[[M]][4, 1]
  // CHECK: llvm.getelementptr inbounds %[[STRIDES]][0, 1]
  // CHECK: %[[YP:.*]] = llvm.mlir.addressof @[[PACKY:__dlpack_param_y_[0-9a-f]+]] : !llvm.ptr
  // CHECK: %[[R0:.*]] = llvm.call @dlrt_pack_result(%[[CTX]], %[[ALLOC]], %[[ALIGNED]], %[[OFF]], %[[SIZES]], %[[STRIDES]], %[[YP]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> !llvm.ptr
  %0 = dlpack.pack %m, %ctx {name = "y"} : memref<?x4xf32> to !dlpack.managed
  // Rank 0: no sizes or strides.
  // CHECK: %[[SALLOC:.*]] = llvm.extractvalue %[[S]][0]
  // CHECK: %[[SALIGNED:.*]] = llvm.extractvalue %[[S]][1]
  // CHECK: %[[SOFF:.*]] = llvm.extractvalue %[[S]][2]
  // CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
  // CHECK: %[[RP:.*]] = llvm.mlir.addressof @[[PACKR:__dlpack_param_result_[0-9a-f]+]] : !llvm.ptr
  // CHECK: %[[R1:.*]] = llvm.call @dlrt_pack_result(%[[CTX]], %[[SALLOC]], %[[SALIGNED]], %[[SOFF]], %[[NULL]], %[[NULL]], %[[RP]])
  // CHECK: return %[[R0]], %[[R1]] : !llvm.ptr, !llvm.ptr
  %1 = dlpack.pack %s, %ctx {dtype = #dlpack.dtype<uint, 8>} : memref<i8> to !dlpack.managed
  return %0, %1 : !dlpack.managed, !dlpack.managed
}

// Results are records with access read_write.
// IR-DAG: @[[PACKY:__dlpack_param_y_[0-9a-f]+]] = private constant { ptr, i32, i32, i32, i32, { i8, i8, i16 }, i32, ptr, ptr, i64 } { ptr @[[PACKY]]_name, i32 0, i32 0, i32 3, i32 2, { i8, i8, i16 } { i8 2, i8 32, i16 1 }, i32 0, ptr @[[PACKY]]_shape, ptr null, i64 0 }
// IR-DAG: @[[PACKR:__dlpack_param_result_[0-9a-f]+]] = private constant { ptr, i32, i32, i32, i32, { i8, i8, i16 }, i32, ptr, ptr, i64 } { ptr @[[PACKR]]_name, i32 0, i32 0, i32 3, i32 0, { i8, i8, i16 } { i8 1, i8 8, i16 1 }, i32 0, ptr null, ptr null, i64 0 }
// IR-DAG: @[[PACKR]]_name = private constant [7 x i8] c"result\00"

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @queries
// CHECK-SAME: (%[[T:.*]]: !llvm.ptr, %[[I:.*]]: i64) -> (i64, i64, i32, i32)
// TOLLVM-LABEL: llvm.func @queries
// TOLLVM-SAME: (%[[T:.*]]: !llvm.ptr, %[[I:.*]]: i64)
func.func @queries(%t: !dlpack.tensor, %i: index) -> (index, index, i32, i32) {
  // CHECK: %[[NDIMP:.*]] = llvm.getelementptr inbounds %[[T]][0, 2]
  // CHECK: %[[NDIM:.*]] = llvm.load %[[NDIMP]] : !llvm.ptr -> i32
  // CHECK: %[[RANK:.*]] = llvm.sext %[[NDIM]] : i32 to i64
  // TOLLVM: llvm.getelementptr inbounds %[[T]][0, 2]
  %r = dlpack.rank %t
  // CHECK: %[[SHAPEP:.*]] = llvm.getelementptr inbounds %[[T]][0, 4]
  // CHECK: %[[SHAPE:.*]] = llvm.load %[[SHAPEP]] : !llvm.ptr -> !llvm.ptr
  // CHECK: %[[DIMP:.*]] = llvm.getelementptr inbounds %[[SHAPE]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i64
  // CHECK: %[[DIM:.*]] = llvm.load %[[DIMP]] : !llvm.ptr -> i64
  // TOLLVM: llvm.getelementptr inbounds %{{.*}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i64
  %d = dlpack.dim %t[%i]
  // CHECK: %[[TYPEP:.*]] = llvm.getelementptr inbounds %[[T]][0, 1, 0]
  // CHECK: %[[TYPE:.*]] = llvm.load %[[TYPEP]] : !llvm.ptr -> i32
  // CHECK: %[[IDP:.*]] = llvm.getelementptr inbounds %[[T]][0, 1, 1]
  // CHECK: %[[ID:.*]] = llvm.load %[[IDP]] : !llvm.ptr -> i32
  // CHECK: return %[[RANK]], %[[DIM]], %[[TYPE]], %[[ID]] : i64, i64, i32, i32
  %type, %id = dlpack.device %t
  return %r, %d, %type, %id : index, index, i32, i32
}

//===----------------------------------------------------------------------===//
// Values of dlpack types across calls, branches and SCF
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @callee
// CHECK-SAME: (%{{.*}}: !llvm.ptr) -> i64
func.func @callee(%t: !dlpack.tensor) -> index {
  %r = dlpack.rank %t
  return %r : index
}

// Every block of a function with dlpack values is retyped, memrefs included.
// CHECK-LABEL: func.func @branches
// CHECK-SAME: (%[[T:.*]]: !llvm.ptr, %[[M:.*]]: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, %[[C:.*]]: i1) -> i64
// CHECK: cf.cond_br %[[C]], ^[[A:.*]](%[[T]], %[[M]] : !llvm.ptr, !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>), ^{{.*}}
// CHECK: ^[[A]](%[[U:.*]]: !llvm.ptr, %{{.*}}: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>):
// CHECK: call @callee(%[[U]]) : (!llvm.ptr) -> i64
func.func @branches(%t: !dlpack.tensor, %m: memref<?xf32>, %c: i1) -> index {
  cf.cond_br %c, ^a(%t, %m : !dlpack.tensor, memref<?xf32>), ^b
^a(%u: !dlpack.tensor, %n: memref<?xf32>):
  %r = func.call @callee(%u) : (!dlpack.tensor) -> index
  %d = memref.dim %n, %r : memref<?xf32>
  return %d : index
^b:
  %z = arith.constant 0 : index
  return %z : index
}

// CHECK-LABEL: func.func @in_scf
// CHECK: scf.if %{{.*}} -> (!llvm.ptr)
func.func @in_scf(%c: i1, %t: !dlpack.tensor, %u: !dlpack.tensor) -> index {
  %x = scf.if %c -> !dlpack.tensor {
    scf.yield %t : !dlpack.tensor
  } else {
    scf.yield %u : !dlpack.tensor
  }
  %r = dlpack.rank %x
  return %r : index
}

// Functions without dlpack values are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-SAME: (%{{.*}}: memref<?xf32>, %{{.*}}: index) -> f32
func.func @untouched(%m: memref<?xf32>, %i: index) -> f32 {
  %v = memref.load %m[%i] : memref<?xf32>
  return %v : f32
}

//===----------------------------------------------------------------------===//
// Signature records
//===----------------------------------------------------------------------===//

func.func @axpy(%x: memref<?xf32>, %alpha: f32, %n: index) -> memref<?xf32> {
  return %x : memref<?xf32>
}

// CHECK-LABEL: llvm.mlir.global external constant @axpy__dlpack_signature()
// CHECK-SAME: !llvm.struct<(ptr, i32, i32, i32, i32, ptr, ptr)>
// CHECK-NOT: dlpack.signature
dlpack.signature @axpy__dlpack_signature for @axpy on <cpu>
    arguments [#dlpack.param<"x" : memref<?xf32>, read>,
               #dlpack.param<"alpha" : f32, none>,
               #dlpack.param<"n" : index, none>]
    results [#dlpack.param<"y" : memref<?xf32>, write>]

// IR-DAG: @axpy__dlpack_signature = constant { ptr, i32, i32, i32, i32, ptr, ptr } { ptr @axpy__dlpack_signature_name, i32 1, i32 3, i32 1, i32 0, ptr @axpy__dlpack_signature_args, ptr @axpy__dlpack_signature_results }
// IR-DAG: @axpy__dlpack_signature_name = private constant [5 x i8] c"axpy\00"
// IR-DAG: @axpy__dlpack_signature_args = private constant [3 x { ptr, i32, i32, i32, i32, { i8, i8, i16 }, i32, ptr, ptr, i64 }] [{ ptr, i32, i32, i32, i32, { i8, i8, i16 }, i32, ptr, ptr, i64 } { ptr @[[SX:__dlpack_param_x_[0-9a-f]+]]_name, i32 0, i32 0, i32 1, i32 1, { i8, i8, i16 } { i8 2, i8 32, i16 1 }, i32 0, ptr @[[SX]]_shape, ptr null, i64 0 }, { ptr, i32, i32, i32, i32, { i8, i8, i16 }, i32, ptr, ptr, i64 } { ptr @[[SA:__dlpack_param_alpha_[0-9a-f]+]]_name, i32 1, i32 0, i32 0, i32 0, { i8, i8, i16 } { i8 2, i8 32, i16 1 }, i32 0, ptr null, ptr null, i64 0 }, { ptr, i32, i32, i32, i32, { i8, i8, i16 }, i32, ptr, ptr, i64 } { ptr @[[SN:__dlpack_param_n_[0-9a-f]+]]_name, i32 1, i32 0, i32 0, i32 0, { i8, i8, i16 } { i8 0, i8 64, i16 1 }, i32 0, ptr null, ptr null, i64 0 }]
// IR-DAG: @axpy__dlpack_signature_results = private constant [1 x { ptr, i32, i32, i32, i32, { i8, i8, i16 }, i32, ptr, ptr, i64 }] [{ ptr, i32, i32, i32, i32, { i8, i8, i16 }, i32, ptr, ptr, i64 } { ptr @[[SY:__dlpack_param_y_[0-9a-f]+]]_name, i32 0, i32 0, i32 2, i32 1, { i8, i8, i16 } { i8 2, i8 32, i16 1 }, i32 0, ptr @[[SY]]_shape, ptr null, i64 0 }]

// A signature without results points to no array.
func.func @noresults(%x: memref<4xf32>) {
  return
}
// IR-DAG: @noresults__dlpack_signature = constant { ptr, i32, i32, i32, i32, ptr, ptr } { ptr @noresults__dlpack_signature_name, i32 2, i32 1, i32 0, i32 0, ptr @noresults__dlpack_signature_args, ptr null }
dlpack.signature @noresults__dlpack_signature for @noresults on <cuda>
    arguments [#dlpack.param<"x" : memref<4xf32>, write>]
    results []

// TOLLVM-LABEL: llvm.mlir.global external constant @noresults__dlpack_signature()
// TOLLVM-NOT: dlpack.
