// RUN: dl-opt %s --split-input-file --dlbridge-report-kernel-checks | FileCheck %s

// A failed check in a kernel: the first failing thread claims word 0 and
// records the check's number and its values; after the kernel the host
// copies the words back, waits for the call's stream and asserts with the
// check's own status and message.
// CHECK-LABEL: func.func @gather(
// CHECK-SAME: %[[X:[^:]*]]: memref<?xf32>
// CHECK: %[[WORDS:.*]] = gpu.alloc () : memref<4xi64>
// CHECK: %[[ZEROS:.*]] = memref.alloca() : memref<4xi64>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[ZEROS]]
// CHECK: gpu.memcpy %[[WORDS]], %[[ZEROS]]
// CHECK: gpu.launch
// CHECK: } else {
// CHECK: %[[FAILED:.*]] = arith.xori %[[OK:.*]], %true
// CHECK: scf.if %[[FAILED]] {
// CHECK: %[[OLD:.*]] = memref.atomic_rmw assign %{{.*}}, %[[WORDS]][%{{.*}}] : (i64, memref<4xi64>) -> i64
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[OLD]], %{{.*}} : i64
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.*}}, %[[WORDS]]
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: memref.store %{{.*}}, %[[WORDS]]
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: memref.store %{{.*}}, %[[WORDS]]
// CHECK-NOT: dlpack.assert
// CHECK: gpu.terminator
// CHECK: %[[HOST:.*]] = memref.alloca() : memref<4xi64>
// CHECK: gpu.memcpy %[[HOST]], %[[WORDS]]
// CHECK-NEXT: llvm.call @dlrt_call_synchronize() : () -> ()
// CHECK-NEXT: gpu.dealloc %[[WORDS]]
// CHECK: %[[NUMBER:.*]] = memref.load %[[HOST]][%c1{{.*}}]
// CHECK: %[[NOT_IT:.*]] = arith.cmpi ne, %[[NUMBER]], %c1_i64
// CHECK: %[[V0:.*]] = memref.load %[[HOST]][%c2
// CHECK: %[[V1:.*]] = memref.load %[[HOST]][%c3
// CHECK: dlpack.assert %[[NOT_IT]], index_out_of_range, "index {0} out of {1}" (%[[V0]], %[[V1]] : i64, i64)
// CHECK-NEXT: return
func.func @gather(%x: memref<?xf32>, %idx: memref<?xindex>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %idx, %c0 : memref<?xindex>
  %m = memref.dim %x, %c0 : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %k = memref.load %idx[%tx] : memref<?xindex>
    %ok = arith.cmpi ult, %k, %m : index
    %v = scf.if %ok -> f32 {
      %e = memref.load %x[%k] : memref<?xf32>
      scf.yield %e : f32
    } else {
      dlpack.assert %ok, index_out_of_range, "index {0} out of {1}" (%k, %m : index, index)
      scf.yield %zero : f32
    }
    memref.store %v, %out[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// Two checks in two kernels and two returns: numbered 1 and 2, each
// return reads the words back; i32 values are sign-extended.
// CHECK-LABEL: func.func @two(
// CHECK-COUNT-1: gpu.alloc () : memref<3xi64>
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: cf.cond_br
// CHECK: llvm.call @dlrt_call_synchronize
// CHECK: dlpack.assert {{.*}}, index_out_of_range, "first {0}"
// CHECK: dlpack.assert {{.*}}, shape_mismatch, "second"
// CHECK: return
// CHECK: llvm.call @dlrt_call_synchronize
// CHECK: dlpack.assert {{.*}}, index_out_of_range, "first {0}"
// CHECK: dlpack.assert {{.*}}, shape_mismatch, "second"
// CHECK: return
func.func @two(%c: i1, %v: i32) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    dlpack.assert %c, index_out_of_range, "first {0}" (%v : i32)
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    dlpack.assert %c, shape_mismatch, "second"
    gpu.terminator
  }
  cf.cond_br %c, ^a, ^b
^a:
  return
^b:
  return
}

// -----

// Host assertions and functions without kernel checks are left alone.
// CHECK-LABEL: func.func @host_only(
// CHECK-NOT: gpu.alloc
// CHECK-NOT: dlrt_call_synchronize
// CHECK: dlpack.assert
// CHECK-NEXT: gpu.launch
func.func @host_only(%c: i1) {
  %c1 = arith.constant 1 : index
  dlpack.assert %c, shape_mismatch, "host"
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// An entry whose kernel check failed returns the failure, not its results:
// the buffers it allocated for them are freed then (an argument it returns
// is not its to free).
// CHECK-LABEL: func.func @entry(
// CHECK-SAME: %[[ARG:[^:]*]]: memref<4xf32>
// CHECK: %[[OUT:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: llvm.call @dlrt_call_synchronize
// CHECK: %[[NUMBER:.*]] = memref.load
// CHECK: %[[FAILED:.*]] = arith.cmpi ne, %[[NUMBER]], %c0_i64
// CHECK-NEXT: scf.if %[[FAILED]] {
// CHECK-NEXT: gpu.dealloc %[[OUT]] : memref<4xf32>
// CHECK-NEXT: }
// CHECK: dlpack.assert
// CHECK-NEXT: return %[[OUT]], %[[ARG]]
func.func @entry(%a: memref<4xf32>, %c: i1) -> (memref<4xf32>, memref<4xf32>)
    attributes {dlpack.entry} {
  %c1 = arith.constant 1 : index
  %out = gpu.alloc () : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    dlpack.assert %c, index_out_of_range, "check"
    gpu.terminator
  }
  return %out, %a : memref<4xf32>, memref<4xf32>
}
