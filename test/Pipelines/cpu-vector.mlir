// The vector dialect as backends emit it, memref- and tensor-level:
// transfers with permutation maps, masks and out-of-bounds padding at the end
// of a dynamic buffer, vector.mask regions, gather/scatter, contract,
// reduction, multi_reduction, broadcast, shape_cast, transpose,
// extract/insert, fma and outerproduct. The CPU pipeline lowers them all
// (dl-run checks the numbers against NumPy). For CUDA, vector code in
// parallel loops, or in loops the pipeline offloads whole, runs in kernels;
// other vector code over device memory runs as a one-thread kernel, and a
// scalar host code returns is copied back from it.
// REQUIRES: numpy
// RUN: dl-opt %s --split-input-file --dlbridge-cpu-pipeline | FileCheck %s
// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   '--dlbridge-cuda-pipeline=chip=sm_90 format=cubin' | FileCheck %s --check-prefix=CUDA

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(4); f = lambda *s: r.standard_normal(s).astype(np.float32); np.save('%t/a.npy', f(8, 16)); np.save('%t/b.npy', f(16, 8)); np.save('%t/c.npy', f(8, 8)); np.save('%t/v.npy', f(13)); np.save('%t/m.npy', f(4, 8)); np.save('%t/x.npy', f(4)); np.save('%t/t.npy', f(10, 4)); np.save('%t/idx.npy', np.array([5, 0, 9, 3, 3, 12, 1, 2], np.int32)); [np.save(f'%t/{n}.npy', np.zeros(s, np.float32)) for n, s in [('tail', 13), ('masked', 13), ('scattered', 13), ('rows', 4), ('cols', 8), ('tr', (8, 4)), ('outer', (4, 4)), ('fma', 4)]]"
// RUN: cp %t/c.npy %t/acc.npy
// RUN: dl-run %s --entry contract -i %t/a.npy -i %t/b.npy -i %t/acc.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/acc.npy "a @ b + c" a=%t/a.npy b=%t/b.npy c=%t/c.npy --rtol 1e-5 | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry scale_tail -i %t/v.npy -i %t/tail.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/tail.npy "3 * v" v=%t/v.npy | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry masked -i %t/v.npy -i %t/masked.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/masked.npy "2 * v" v=%t/v.npy | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry mask_region -i %t/v.npy -o %t/sum.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/sum.npy "v.sum()" v=%t/v.npy --rtol 1e-5 | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry gather_scatter -i %t/v.npy -i %t/idx.npy -i %t/scattered.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/scattered.npy "np.where(np.isin(np.arange(13), i[:6]), v, 0).astype(np.float32)" v=%t/v.npy i=%t/idx.npy | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry reductions -i %t/m.npy -i %t/rows.npy -i %t/cols.npy -o %t/prod.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/rows.npy "m.sum(axis=1)" m=%t/m.npy --rtol 1e-5 | FileCheck %s --check-prefix=OK
// RUN: %python %S/../Tools/dl-run/check.py %t/cols.npy "m.max(axis=0)" m=%t/m.npy | FileCheck %s --check-prefix=OK
// RUN: %python %S/../Tools/dl-run/check.py %t/prod.npy "m.prod()" m=%t/m.npy --rtol 1e-5 | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry shuffles -i %t/m.npy -i %t/x.npy -i %t/tr.npy -i %t/outer.npy -i %t/fma.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/tr.npy "np.where((np.arange(8)[:, None] == 2) & (np.arange(4) == 0), m[3, 7], m.T)" m=%t/m.npy | FileCheck %s --check-prefix=OK
// RUN: %python %S/../Tools/dl-run/check.py %t/outer.npy "np.outer(x, x) + x" x=%t/x.npy --rtol 1e-5 | FileCheck %s --check-prefix=OK
// RUN: %python %S/../Tools/dl-run/check.py %t/fma.npy "x * x + x" x=%t/x.npy --rtol 1e-5 | FileCheck %s --check-prefix=OK
// RUN: dl-run %s --entry tensor_level -i %t/t.npy -o %t/tt.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/tt.npy "t.T" t=%t/t.npy | FileCheck %s --check-prefix=OK
// RUN: %python -c "import numpy as np; np.save('%t/rows13.npy', np.random.default_rng(7).standard_normal((5, 13)).astype(np.float32)); np.save('%t/sums.npy', np.zeros(5, np.float32))"
// RUN: dl-run %s --entry parallel_row_sums -i %t/rows13.npy -i %t/sums.npy --write-back
// RUN: %python %S/../Tools/dl-run/check.py %t/sums.npy "a.sum(axis=1)" a=%t/rows13.npy --rtol 1e-5 | FileCheck %s --check-prefix=OK
// OK: ok:

// A transposed read and a contraction: C += A B.

// CHECK-LABEL: llvm.func @contract(
// CHECK: llvm.intr.vector.reduce.fadd

// CHECK-LABEL: llvm.func @contract__dlpack(
func.func @contract(%a: memref<8x16xf32>, %b: memref<16x8xf32>, %c: memref<8x8xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %va = vector.transfer_read %a[%c0, %c0], %z : memref<8x16xf32>, vector<8x16xf32>
  %vb = vector.transfer_read %b[%c0, %c0], %z {permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<16x8xf32>, vector<8x16xf32>
  %vc = vector.transfer_read %c[%c0, %c0], %z : memref<8x8xf32>, vector<8x8xf32>
  %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                         affine_map<(i, j, k) -> (j, k)>,
                                         affine_map<(i, j, k) -> (i, j)>],
                        iterator_types = ["parallel", "parallel", "reduction"],
                        kind = #vector.kind<add>}
      %va, %vb, %vc : vector<8x16xf32>, vector<8x16xf32> into vector<8x8xf32>
  vector.transfer_write %r, %c[%c0, %c0] : vector<8x8xf32>, memref<8x8xf32>
  return
}

// -----

// Tail handling: reads past the end of a dynamic buffer give the padding,
// writes past it are dropped.

// CHECK-LABEL: llvm.func @scale_tail(
// CHECK: llvm.intr.masked.load
// CHECK: llvm.intr.masked.store

// CHECK-LABEL: llvm.func @scale_tail__dlpack(
// CUDA-LABEL: llvm.func @scale_tail(
// CUDA: gpu.launch_func {{.*}}@scale_tail_kernel::@scale_tail_kernel
// CUDA-LABEL: llvm.func @scale_tail__dlpack(
// CUDA: gpu.binary @scale_tail_kernel
func.func @scale_tail(%a: memref<?xf32>, %b: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pad = arith.constant 0.0 : f32
  %three = arith.constant dense<3.0> : vector<8xf32>
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c8 {
    %v = vector.transfer_read %a[%i], %pad : memref<?xf32>, vector<8xf32>
    %w = arith.mulf %v, %three : vector<8xf32>
    vector.transfer_write %w, %b[%i] : vector<8xf32>, memref<?xf32>
  }
  return
}

// -----

// Explicit masks from the remaining length (vector.create_mask): the last
// step reads and writes 1 of 4 lanes.

// CHECK-LABEL: llvm.func @masked(
// CHECK: llvm.intr.masked.load
// CHECK: llvm.intr.masked.store

// CHECK-LABEL: llvm.func @masked__dlpack(
// CUDA-LABEL: llvm.func @masked(
// CUDA: gpu.launch_func {{.*}}@masked_kernel::@masked_kernel
// CUDA-LABEL: llvm.func @masked__dlpack(
// CUDA: gpu.binary @masked_kernel
func.func @masked(%a: memref<?xf32>, %b: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant -1.0 : f32
  %n = memref.dim %a, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c4 {
    %rem = arith.subi %n, %i : index
    %m = vector.create_mask %rem : vector<4xi1>
    %v = vector.transfer_read %a[%i], %pad, %m {in_bounds = [true]} : memref<?xf32>, vector<4xf32>
    %w = arith.addf %v, %v : vector<4xf32>
    vector.transfer_write %w, %b[%i], %m {in_bounds = [true]} : vector<4xf32>, memref<?xf32>
  }
  return
}

// -----

// vector.mask regions around a transfer and a reduction (a sum of 13
// elements in steps of 4).

// CHECK-LABEL: llvm.func @mask_region(
// CHECK: llvm.intr.masked.load
// CHECK: llvm.intr.vp.reduce.fadd

// CHECK-LABEL: llvm.func @mask_region__dlpack(

// CUDA-LABEL: llvm.func @mask_region(
// CUDA: gpu.launch_func {{.*}}@mask_region_kernel::@mask_region_kernel
// CUDA: llvm.call @mgpuMemcpy(
// CUDA-NEXT: llvm.call @dlrt_call_synchronize()
// CUDA: llvm.return %{{.*}} : f32
func.func @mask_region(%a: memref<?xf32>) -> f32 attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %n = memref.dim %a, %c0 : memref<?xf32>
  %r = scf.for %i = %c0 to %n step %c4 iter_args(%acc = %pad) -> f32 {
    %rem = arith.subi %n, %i : index
    %m = vector.create_mask %rem : vector<4xi1>
    %v = vector.mask %m { vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<?xf32>, vector<4xf32> } : vector<4xi1> -> vector<4xf32>
    %s = vector.mask %m { vector.reduction <add>, %v, %acc : vector<4xf32> into f32 } : vector<4xi1> -> f32
    scf.yield %s : f32
  }
  return %r : f32
}

// -----

// An indexed gather and scatter under vector.constant_mask: lanes 0-5 only,
// one index repeated.

// CHECK-LABEL: llvm.func @gather_scatter(
// CHECK: llvm.intr.masked.gather
// CHECK: llvm.intr.masked.scatter

// CHECK-LABEL: llvm.func @gather_scatter__dlpack(
func.func @gather_scatter(%a: memref<?xf32>, %idx: memref<8xi32>, %out: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %pass = arith.constant dense<0.0> : vector<8xf32>
  // expected-error @+1 {{'vector.constant_mask'}}
  %all = vector.constant_mask [6] : vector<8xi1>
  %vi = vector.load %idx[%c0] : memref<8xi32>, vector<8xi32>
  %g = vector.gather %a[%c0][%vi], %all, %pass : memref<?xf32>, vector<8xi32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
  vector.scatter %out[%c0][%vi], %all, %g : memref<?xf32>, vector<8xi32>, vector<8xi1>, vector<8xf32>
  return
}

// -----

// multi_reduction along each dimension (sum of rows, max of columns), and
// a shape_cast to one dimension for a product of all.

// CHECK-LABEL: llvm.func @reductions(
// CHECK: llvm.intr.maximum
// CHECK: llvm.intr.vector.reduce.fmul

// CHECK-LABEL: llvm.func @reductions__dlpack(

// CUDA-LABEL: llvm.func @reductions(
// CUDA: gpu.launch_func {{.*}}@reductions_kernel::@reductions_kernel
// CUDA: llvm.call @mgpuMemcpy(
// CUDA-NEXT: llvm.call @dlrt_call_synchronize()
// CUDA: llvm.return %{{.*}} : f32
func.func @reductions(%a: memref<4x8xf32>, %rows: memref<4xf32>, %cols: memref<8xf32>) -> f32 attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x8xf32>, vector<4x8xf32>
  %zr = arith.constant dense<0.0> : vector<4xf32>
  %r = vector.multi_reduction <add>, %v, %zr [1] : vector<4x8xf32> to vector<4xf32>
  vector.transfer_write %r, %rows[%c0] : vector<4xf32>, memref<4xf32>
  %ninf = arith.constant dense<0xFF800000> : vector<8xf32>
  %c = vector.multi_reduction <maximumf>, %v, %ninf [0] : vector<4x8xf32> to vector<8xf32>
  vector.transfer_write %c, %cols[%c0] : vector<8xf32>, memref<8xf32>
  %flat = vector.shape_cast %v : vector<4x8xf32> to vector<32xf32>
  %s = vector.reduction <mul>, %flat : vector<32xf32> into f32
  return %s : f32
}

// -----

// transpose, extract and insert (m.T with [2, 0] replaced by m[3, 7]);
// outerproduct plus a broadcast; fma.

// CHECK-LABEL: llvm.func @shuffles(
// CHECK: llvm.shufflevector
// CHECK: llvm.intr.fmuladd

// CHECK-LABEL: llvm.func @shuffles__dlpack(
func.func @shuffles(%a: memref<4x8xf32>, %x: memref<4xf32>, %t: memref<8x4xf32>, %o: memref<4x4xf32>, %f: memref<4xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %pad : memref<4x8xf32>, vector<4x8xf32>
  %tr = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
  %row = vector.extract %tr[2] : vector<4xf32> from vector<8x4xf32>
  %e = vector.extract %v[3, 7] : f32 from vector<4x8xf32>
  %ins = vector.insert %e, %row[0] : f32 into vector<4xf32>
  %tr2 = vector.insert %ins, %tr[2] : vector<4xf32> into vector<8x4xf32>
  vector.transfer_write %tr2, %t[%c0, %c0] : vector<8x4xf32>, memref<8x4xf32>
  %vx = vector.transfer_read %x[%c0], %pad : memref<4xf32>, vector<4xf32>
  %op = vector.outerproduct %vx, %vx : vector<4xf32>, vector<4xf32>
  %bc = vector.broadcast %vx : vector<4xf32> to vector<4x4xf32>
  %sum = arith.addf %op, %bc : vector<4x4xf32>
  vector.transfer_write %sum, %o[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  %fm = vector.fma %vx, %vx, %vx : vector<4xf32>
  vector.transfer_write %fm, %f[%c0] : vector<4xf32>, memref<4xf32>
  return
}

// -----

// Tensor level: a transposed read with padding past the last row of a
// dynamic tensor, written into a transposed result.

// CHECK-LABEL: llvm.func @tensor_level(
// CHECK: llvm.intr.masked.store

// CHECK-LABEL: llvm.func @tensor_level__dlpack(
// CUDA-LABEL: llvm.func @tensor_level(
// CUDA: gpu.launch_func {{.*}}@tensor_level_kernel::@tensor_level_kernel
// CUDA-LABEL: llvm.func @tensor_level__dlpack(
// CUDA: gpu.binary @tensor_level_kernel
func.func @tensor_level(%a: tensor<?x4xf32>) -> tensor<4x?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %init = tensor.empty(%n) : tensor<4x?xf32>
  %r = scf.for %i = %c0 to %n step %c4 iter_args(%acc = %init) -> tensor<4x?xf32> {
    %v = vector.transfer_read %a[%i, %c0], %pad {permutation_map = affine_map<(d0, d1) -> (d1, d0)>, in_bounds = [true, false]} : tensor<?x4xf32>, vector<4x4xf32>
    %w = vector.transfer_write %v, %acc[%c0, %i] {in_bounds = [true, false]} : vector<4x4xf32>, tensor<4x?xf32>
    scf.yield %w : tensor<4x?xf32>
  }
  return %r : tensor<4x?xf32>
}

// -----

// Vector code inside a parallel loop, device code for CUDA. The sum of each
// row in steps of 8 columns, the last step reading past the end of the row
// (padding), on the CPU and in a CUDA kernel.

// CHECK-LABEL: llvm.func @parallel_row_sums(
// CHECK: llvm.intr.masked.load
// CHECK: llvm.intr.vector.reduce.fadd
// CHECK-LABEL: llvm.func @parallel_row_sums__dlpack(
// CUDA-LABEL: llvm.func @parallel_row_sums(
// CUDA: gpu.launch_func {{.*}}@parallel_row_sums_kernel::@parallel_row_sums_kernel
// CUDA-LABEL: llvm.func @parallel_row_sums__dlpack(
// CUDA: gpu.binary @parallel_row_sums_kernel
func.func @parallel_row_sums(%a: memref<?x?xf32>, %out: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %rows = memref.dim %a, %c0 : memref<?x?xf32>
  %cols = memref.dim %a, %c1 : memref<?x?xf32>
  scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
    %s = scf.for %j = %c0 to %cols step %c8 iter_args(%acc = %zero) -> f32 {
      %v = vector.transfer_read %a[%i, %j], %zero : memref<?x?xf32>, vector<8xf32>
      %r = vector.reduction <add>, %v, %acc : vector<8xf32> into f32
      scf.yield %r : f32
    }
    memref.store %s, %out[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
