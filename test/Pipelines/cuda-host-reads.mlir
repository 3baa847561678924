// REQUIRES: ptxas
// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-cuda-pipeline="format=ptx chip=sm_90" | FileCheck %s
// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-cuda-pipeline="format=cubin chip=sm_90" -o /dev/null

// Host code that needs a scalar computed from device data compiles for CUDA:
// a kernel of one thread stores it into a device buffer, host code copies
// it on the call's stream, waits for the stream and uses what it loads.

// A compaction, as `x[x > 0]` is traced: a count, a result of that many
// elements, then one pass storing the selected positions in order. The
// count comes back to size the result.

// CHECK-LABEL: llvm.func @compact(
// CHECK: %[[STREAM:.*]] = llvm.call @dlrt_call_stream()
// CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @compact_kernel{{.*}} blocks in (%[[ONE:[^,]*]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]])
// CHECK: llvm.call @mgpuMemcpy(%[[HOST:.*]], %{{.*}}, %{{.*}}, %[[STREAM]])
// CHECK-NEXT: llvm.call @dlrt_call_synchronize()
// CHECK: %[[COUNT:.*]] = llvm.load %[[HOST]] : !llvm.ptr -> i64
// CHECK: %[[BYTES:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr to i64
// CHECK: llvm.call @mgpuMemAlloc(%[[BYTES]], %[[STREAM]]
// CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @compact_kernel
// CHECK: llvm.return
func.func @compact(%x: tensor<?xf32>) -> tensor<?xi64> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %init = tensor.empty() : tensor<i64>
  %c0_i64 = arith.constant 0 : i64
  %acc = linalg.fill ins(%c0_i64 : i64) outs(%init : tensor<i64>) -> tensor<i64>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<?xf32>) outs(%acc : tensor<i64>) {
  ^bb0(%in: f32, %out: i64):
    %pos = arith.cmpf ogt, %in, %zero : f32
    %one = arith.extui %pos : i1 to i64
    %add = arith.addi %out, %one : i64
    linalg.yield %add : i64
  } -> tensor<i64>
  %s = tensor.extract %sum[] : tensor<i64>
  %count = arith.index_cast %s : i64 to index
  %positions = tensor.empty(%count) : tensor<?xi64>
  %found:2 = scf.for %i = %c0 to %n step %c1 iter_args(%slots = %positions, %slot = %c0) -> (tensor<?xi64>, index) {
    %v = tensor.extract %x[%i] : tensor<?xf32>
    %selected = arith.cmpf ogt, %v, %zero : f32
    %kept:2 = scf.if %selected -> (tensor<?xi64>, index) {
      %position = arith.index_cast %i : index to i64
      %slots_1 = tensor.insert %position into %slots[%slot] : tensor<?xi64>
      %slot_1 = arith.addi %slot, %c1 : index
      scf.yield %slots_1, %slot_1 : tensor<?xi64>, index
    } else {
      scf.yield %slots, %slot : tensor<?xi64>, index
    }
    scf.yield %kept#0, %kept#1 : tensor<?xi64>, index
  }
  return %found#0 : tensor<?xi64>
}

// -----

// A run-time check of a value kernels computed (a determinant that must not
// be zero, as np.linalg.solve checks): host code asserts on what it read
// back, and the call fails with the check's status.

// CHECK-LABEL: llvm.func @checked_inverse(
// CHECK: llvm.call @mgpuMemcpy(
// CHECK-NEXT: llvm.call @dlrt_call_synchronize()
// CHECK-NEXT: llvm.call @mgpuMemFree(
// CHECK-NEXT: %[[WORD:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK-NEXT: %[[OK:.*]] = llvm.trunc %[[WORD]] : i64 to i1
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAIL:bb[0-9]+]](
// CHECK: ^[[FAIL]](%{{.*}}: i32, %{{.*}}: !llvm.ptr):
// CHECK: llvm.return
func.func @checked_inverse(%d: tensor<f64>, %x: tensor<?xf64>) -> tensor<?xf64> attributes {dlpack.entry} {
  %det = tensor.extract %d[] : tensor<f64>
  %zero = arith.constant 0.0 : f64
  %ok = arith.cmpf one, %det, %zero : f64
  dlpack.assert %ok, invalid_argument, "Singular matrix"
  %r = arith.divf %x, %x : tensor<?xf64>
  return %r : tensor<?xf64>
}

// -----

// Host control flow that launches kernels and decides on data: a loop that
// halves every element while the largest is above 1 reads the maximum back
// each time round; the complex scalar a branch picks from data comes back
// as its two parts and is passed to the kernel that stores it.

// CHECK-LABEL: llvm.func @halve_while_large(
// CHECK: %[[HOST:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-NEXT: llvm.br ^[[HEAD:bb[0-9]+]]
// CHECK: ^[[HEAD]]:
// CHECK-NOT: llvm.alloca
// CHECK: gpu.launch_func {{.*}}@halve_while_large_kernel
// CHECK: llvm.call @mgpuMemcpy(%[[HOST]],
// CHECK-NEXT: llvm.call @dlrt_call_synchronize()
// CHECK: llvm.cond_br
// CHECK: gpu.launch_func {{.*}}@halve_while_large_kernel
// CHECK: llvm.br ^[[HEAD]]
func.func @halve_while_large(%x: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.while : () -> () {
    %m = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %ninf) -> f32 {
      %v = memref.load %x[%i] : memref<?xf32>
      %a = arith.maximumf %acc, %v : f32
      scf.yield %a : f32
    }
    %go = arith.cmpf ogt, %m, %one : f32
    scf.condition(%go)
  } do {
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %x[%i] : memref<?xf32>
      %w = arith.mulf %v, %half : f32
      memref.store %w, %x[%i] : memref<?xf32>
      scf.reduce
    }
    scf.yield
  }
  return
}

// CHECK-LABEL: llvm.func @pick_complex(
// CHECK: gpu.launch_func {{.*}}@pick_complex_kernel
// CHECK: llvm.call @mgpuMemcpy(
// CHECK-NEXT: llvm.call @dlrt_call_synchronize()
// CHECK: %[[FLAG:.*]] = llvm.trunc %{{.*}} : i64 to i1
// CHECK: %[[RE:.*]] = llvm.bitcast %{{.*}} : i32 to f32
// CHECK: %[[IM:.*]] = llvm.bitcast %{{.*}} : i32 to f32
// CHECK: llvm.cond_br %[[FLAG]]
// CHECK: gpu.launch_func {{.*}}@pick_complex_kernel
func.func @pick_complex(%flag: memref<i1>, %z: memref<complex<f32>>, %y: memref<?xf32>, %out: memref<complex<f32>>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %y, %c0 : memref<?xf32>
  %f = memref.load %flag[] : memref<i1>
  %v = memref.load %z[] : memref<complex<f32>>
  %r = scf.if %f -> complex<f32> {
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %e = memref.load %y[%i] : memref<?xf32>
      %w = arith.addf %e, %e : f32
      memref.store %w, %y[%i] : memref<?xf32>
      scf.reduce
    }
    scf.yield %v : complex<f32>
  } else {
    %c = complex.constant [0.0 : f32, 1.0 : f32] : complex<f32>
    scf.yield %c : complex<f32>
  }
  memref.store %r, %out[] : memref<complex<f32>>
  return
}
