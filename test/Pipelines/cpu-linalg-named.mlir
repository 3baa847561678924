// linalg named ops and linalg.generic: contractions, convolutions, pooling,
// data movement, reductions, softmax, pack/unpack. The CPU pipeline lowers
// and runs them (Fortran-order inputs where the signature admits strides),
// the CUDA pipeline compiles them through ptxas for sm_80 and sm_90.
// REQUIRES: numpy
// RUN: dl-opt %s --dlbridge-cpu-pipeline | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="chip=sm_80 format=cubin" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="chip=sm_90 format=cubin" -o /dev/null
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(4); f = lambda *s: rng.standard_normal(s).astype(np.float32); a = f(3, 4); np.save('%t/a.npy', a); np.save('%t/af.npy', np.asfortranarray(a)); [np.save('%t/' + n + '.npy', v) for n, v in [('b', f(4, 5)), ('x', f(4)), ('y', f(3)), ('ba', f(2, 3, 4)), ('bb', f(2, 4, 5)), ('m4a', f(2, 3, 4, 5)), ('m4b', f(6, 3, 7, 5)), ('qa', rng.integers(-128, 128, (3, 4)).astype(np.int8)), ('qb', rng.integers(-128, 128, (4, 5)).astype(np.int8)), ('img', f(1, 8, 8, 3)), ('w', f(3, 3, 3, 4)), ('dw', f(3, 3, 3)), ('nchw', f(1, 3, 6, 6)), ('fchw', f(4, 3, 3, 3)), ('i2', f(6, 7)), ('k2', f(3, 2)), ('i3', f(4, 5, 6)), ('k3', f(2, 2, 3)), ('r', f(4, 6)), ('ri', rng.integers(-50, 50, (4, 6)).astype(np.int32)), ('p', f(5, 7))]]; np.save('%t/pf.npy', np.asfortranarray(np.load('%t/p.npy')))"
// RUN: dl-run %s --entry contractions -i %t/af.npy -i %t/b.npy -i %t/x.npy -i %t/y.npy -o %t/mm.npy -o %t/mmt.npy -o %t/mv.npy -o %t/vm.npy -o %t/dot.npy -o %t/ct.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/mm.npy "a @ b" a=%t/a.npy b=%t/b.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/mmt.npy "a @ a.T" a=%t/a.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/mv.npy "a @ x" a=%t/a.npy x=%t/x.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/vm.npy "y @ a" a=%t/a.npy y=%t/y.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/dot.npy "np.float32(x @ x)" x=%t/x.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/ct.npy "a.T @ np.ones((3, 2), np.float32) + 1" a=%t/a.npy --rtol 1e-5
// RUN: dl-run %s --entry batched -i %t/ba.npy -i %t/bb.npy -i %t/m4a.npy -i %t/m4b.npy -i %t/qa.npy -i %t/qb.npy -i 3 -i -5 -o %t/bmm.npy -o %t/brmm.npy -o %t/bmv.npy -o %t/mmt4d.npy -o %t/qmm.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/bmm.npy "a @ b" a=%t/ba.npy b=%t/bb.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/brmm.npy "(a @ b).sum(0)" a=%t/ba.npy b=%t/bb.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/bmv.npy "np.einsum('bmk,bk->bm', a, b[:, :, 0])" a=%t/ba.npy b=%t/bb.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/mmt4d.npy "np.einsum('mkab,nkcb->mnac', a, b)" a=%t/m4a.npy b=%t/m4b.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/qmm.npy "(a.astype(np.int32) - 3) @ (b.astype(np.int32) + 5)" a=%t/qa.npy b=%t/qb.npy
// RUN: dl-run %s --entry convolutions -i %t/img.npy -i %t/w.npy -i %t/dw.npy -i %t/nchw.npy -i %t/fchw.npy -i %t/i2.npy -i %t/k2.npy -i %t/i3.npy -i %t/k3.npy -o %t/nhwc.npy -o %t/depthwise.npy -o %t/nchw_out.npy -o %t/c2.npy -o %t/c3.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/nhwc.npy "np.einsum('nhwcij,ijcf->nhwf', np.lib.stride_tricks.sliding_window_view(i, (5, 5), axis=(1, 2))[..., ::2, ::2], w)" i=%t/img.npy w=%t/w.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/depthwise.npy "np.einsum('nhwcij,ijc->nhwc', np.lib.stride_tricks.sliding_window_view(i, (3, 3), axis=(1, 2))[:, ::2, ::2], w)" i=%t/img.npy w=%t/dw.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/nchw_out.npy "np.einsum('nchwij,fcij->nfhw', np.lib.stride_tricks.sliding_window_view(i, (3, 3), axis=(2, 3)), w)" i=%t/nchw.npy w=%t/fchw.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/c2.npy "np.einsum('hwij,ij->hw', np.lib.stride_tricks.sliding_window_view(i, (3, 2)), k)" i=%t/i2.npy k=%t/k2.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/c3.npy "np.einsum('dhwijk,ijk->dhw', np.lib.stride_tricks.sliding_window_view(i, (2, 2, 3)), k)" i=%t/i3.npy k=%t/k3.npy --rtol 1e-5
// RUN: dl-run %s --entry pooling -i %t/img.npy -o %t/pmax.npy -o %t/psum.npy -o %t/pmin.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/pmax.npy "np.lib.stride_tricks.sliding_window_view(i, (2, 2), axis=(1, 2))[:, ::2, ::2].max(axis=(4, 5))" i=%t/img.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/psum.npy "np.lib.stride_tricks.sliding_window_view(i, (3, 3), axis=(1, 2)).sum(axis=(4, 5))" i=%t/img.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/pmin.npy "np.lib.stride_tricks.sliding_window_view(i, (2, 2), axis=(1, 2))[:, ::3, ::3].min(axis=(4, 5))" i=%t/img.npy
// RUN: dl-run %s --entry structured -i %t/r.npy -i %t/ri.npy -i %t/y.npy -o %t/tr.npy -o %t/bc.npy -o %t/rsum.npy -o %t/rmax.npy -o %t/sm.npy -o %t/gen.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/tr.npy "r.T.copy()" r=%t/r.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/bc.npy "np.broadcast_to(y[None, :, None], (2, 3, 4))" y=%t/y.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/rsum.npy "r.sum(1)" r=%t/r.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/rmax.npy "ri.max(1)" ri=%t/ri.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/sm.npy "np.exp(r - r.max(0)) / np.exp(r - r.max(0)).sum(0)" r=%t/r.npy --rtol 1e-5
// RUN: %python %S/../Tools/dl-run/check.py %t/gen.npy "np.where(r > 0, r, 0.5 * r) + np.arange(6, dtype=np.float32)" r=%t/r.npy --rtol 1e-6
// RUN: dl-run %s --entry pack_unpack -i %t/pf.npy -o %t/packed.npy -o %t/unpacked.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/packed.npy "np.pad(p, ((0, 1), (0, 1)), constant_values=-1).reshape(3, 2, 2, 4).transpose(2, 0, 3, 1)" p=%t/p.npy
// RUN: %python %S/../Tools/dl-run/check.py %t/unpacked.npy "p" p=%t/p.npy

// CHECK-LABEL: llvm.func @contractions(
// CHECK: llvm.fmul
// CHECK-LABEL: llvm.func @contractions__dlpack(
func.func @contractions(%a: tensor<?x?xf32> {dlpack.name = "a"}, %b: tensor<?x?xf32>, %x: tensor<?xf32>, %y: tensor<?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<4x2xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %k = tensor.dim %a, %c1 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e_mn = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z_mn = linalg.fill ins(%zero : f32) outs(%e_mn : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%z_mn : tensor<?x?xf32>) -> tensor<?x?xf32>
  %e_mm = tensor.empty(%m, %m) : tensor<?x?xf32>
  %z_mm = linalg.fill ins(%zero : f32) outs(%e_mm : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mmt = linalg.matmul indexing_maps = [affine_map<(i, j, l) -> (i, l)>, affine_map<(i, j, l) -> (j, l)>, affine_map<(i, j, l) -> (i, j)>]
      ins(%a, %a : tensor<?x?xf32>, tensor<?x?xf32>) outs(%z_mm : tensor<?x?xf32>) -> tensor<?x?xf32>
  %e_m = tensor.empty(%m) : tensor<?xf32>
  %z_m = linalg.fill ins(%zero : f32) outs(%e_m : tensor<?xf32>) -> tensor<?xf32>
  %mv = linalg.matvec ins(%a, %x : tensor<?x?xf32>, tensor<?xf32>) outs(%z_m : tensor<?xf32>) -> tensor<?xf32>
  %e_k = tensor.empty(%k) : tensor<?xf32>
  %z_k = linalg.fill ins(%zero : f32) outs(%e_k : tensor<?xf32>) -> tensor<?xf32>
  %vm = linalg.vecmat ins(%y, %a : tensor<?xf32>, tensor<?x?xf32>) outs(%z_k : tensor<?xf32>) -> tensor<?xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %dot = linalg.dot ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%z0 : tensor<f32>) -> tensor<f32>
  // a^T @ ones(3, 2), accumulated onto ones: linalg.contract with a
  // transposed operand.
  %one = arith.constant 1.0 : f32
  %ones32 = tensor.empty() : tensor<3x2xf32>
  %o32 = linalg.fill ins(%one : f32) outs(%ones32 : tensor<3x2xf32>) -> tensor<3x2xf32>
  %acc = tensor.empty() : tensor<4x2xf32>
  %o42 = linalg.fill ins(%one : f32) outs(%acc : tensor<4x2xf32>) -> tensor<4x2xf32>
  %a3 = tensor.cast %a : tensor<?x?xf32> to tensor<3x4xf32>
  %ct = linalg.contract indexing_maps = [affine_map<(i, j, l) -> (l, i)>, affine_map<(i, j, l) -> (l, j)>, affine_map<(i, j, l) -> (i, j)>]
      ins(%a3, %o32 : tensor<3x4xf32>, tensor<3x2xf32>) outs(%o42 : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %mm, %mmt, %mv, %vm, %dot, %ct : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<4x2xf32>
}

// CHECK-LABEL: llvm.func @batched(
// CHECK: llvm.sext
// CHECK: llvm.mul
func.func @batched(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %ma: tensor<2x3x4x5xf32>, %mb: tensor<6x3x7x5xf32>,
                   %qa: tensor<3x4xi8>, %qb: tensor<4x5xi8>, %az: i32, %bz: i32)
    -> (tensor<2x3x5xf32>, tensor<3x5xf32>, tensor<2x3xf32>, tensor<2x6x4x7xf32>, tensor<3x5xi32>) attributes {dlpack.entry} {
  %zero = arith.constant 0.0 : f32
  %zi = arith.constant 0 : i32
  %e1 = tensor.empty() : tensor<2x3x5xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %bmm = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%z1 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e2 = tensor.empty() : tensor<3x5xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %brmm = linalg.batch_reduce_matmul ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%z2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %col = tensor.extract_slice %b[0, 0, 0] [2, 4, 1] [1, 1, 1] : tensor<2x4x5xf32> to tensor<2x4xf32>
  %e3 = tensor.empty() : tensor<2x3xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %bmv = linalg.batch_matvec ins(%a, %col : tensor<2x3x4xf32>, tensor<2x4xf32>) outs(%z3 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %e4 = tensor.empty() : tensor<2x6x4x7xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x6x4x7xf32>) -> tensor<2x6x4x7xf32>
  %mmt4d = linalg.mmt4d ins(%ma, %mb : tensor<2x3x4x5xf32>, tensor<6x3x7x5xf32>) outs(%z4 : tensor<2x6x4x7xf32>) -> tensor<2x6x4x7xf32>
  %e5 = tensor.empty() : tensor<3x5xi32>
  %z5 = linalg.fill ins(%zi : i32) outs(%e5 : tensor<3x5xi32>) -> tensor<3x5xi32>
  %qmm = linalg.quantized_matmul ins(%qa, %qb, %az, %bz : tensor<3x4xi8>, tensor<4x5xi8>, i32, i32) outs(%z5 : tensor<3x5xi32>) -> tensor<3x5xi32>
  return %bmm, %brmm, %bmv, %mmt4d, %qmm : tensor<2x3x5xf32>, tensor<3x5xf32>, tensor<2x3xf32>, tensor<2x6x4x7xf32>, tensor<3x5xi32>
}

// CHECK-LABEL: llvm.func @convolutions(
func.func @convolutions(%img: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %dw: tensor<3x3x3xf32>,
                        %nchw: tensor<1x3x6x6xf32>, %fchw: tensor<4x3x3x3xf32>,
                        %i2: tensor<6x7xf32>, %k2: tensor<3x2xf32>, %i3: tensor<4x5x6xf32>, %k3: tensor<2x2x3xf32>)
    -> (tensor<1x4x4x4xf32>, tensor<1x3x3x3xf32>, tensor<1x4x4x4xf32>, tensor<4x6xf32>, tensor<3x4x4xf32>) attributes {dlpack.entry} {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x4x4x4xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %nhwc = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%img, %w : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) outs(%z1 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %e2 = tensor.empty() : tensor<1x3x3x3xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %depthwise = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%img, %dw : tensor<1x8x8x3xf32>, tensor<3x3x3xf32>) outs(%z2 : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %nchw_out = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%nchw, %fchw : tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>) outs(%z1 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %e4 = tensor.empty() : tensor<4x6xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %c2 = linalg.conv_2d ins(%i2, %k2 : tensor<6x7xf32>, tensor<3x2xf32>) outs(%z4 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %e5 = tensor.empty() : tensor<3x4x4xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
  %c3 = linalg.conv_3d ins(%i3, %k3 : tensor<4x5x6xf32>, tensor<2x2x3xf32>) outs(%z5 : tensor<3x4x4xf32>) -> tensor<3x4x4xf32>
  return %nhwc, %depthwise, %nchw_out, %c2, %c3 : tensor<1x4x4x4xf32>, tensor<1x3x3x3xf32>, tensor<1x4x4x4xf32>, tensor<4x6xf32>, tensor<3x4x4xf32>
}

// CHECK-LABEL: llvm.func @pooling(
// CHECK: llvm.intr.maximum
func.func @pooling(%img: tensor<1x8x8x3xf32>) -> (tensor<1x4x4x3xf32>, tensor<1x6x6x3xf32>, tensor<1x3x3x3xf32>) attributes {dlpack.entry} {
  %ninf = arith.constant 0xFF800000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %zero = arith.constant 0.0 : f32
  %k2 = tensor.empty() : tensor<2x2xf32>
  %k3 = tensor.empty() : tensor<3x3xf32>
  %e1 = tensor.empty() : tensor<1x4x4x3xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %max = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%img, %k2 : tensor<1x8x8x3xf32>, tensor<2x2xf32>) outs(%f1 : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %e2 = tensor.empty() : tensor<1x6x6x3xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  %sum = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%img, %k3 : tensor<1x8x8x3xf32>, tensor<3x3xf32>) outs(%f2 : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  %e3 = tensor.empty() : tensor<1x3x3x3xf32>
  %f3 = linalg.fill ins(%inf : f32) outs(%e3 : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %min = linalg.pooling_nhwc_min {dilations = dense<1> : tensor<2xi64>, strides = dense<3> : tensor<2xi64>}
      ins(%img, %k2 : tensor<1x8x8x3xf32>, tensor<2x2xf32>) outs(%f3 : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %max, %sum, %min : tensor<1x4x4x3xf32>, tensor<1x6x6x3xf32>, tensor<1x3x3x3xf32>
}

// transpose, broadcast, a variadic reduce (f32 sum and i32 max in one op),
// softmax over dimension 0, and a generic with linalg.index.
// CHECK-LABEL: llvm.func @structured(
// CHECK: llvm.intr.smax
func.func @structured(%r: tensor<4x6xf32>, %ri: tensor<4x6xi32>, %y: tensor<3xf32>)
    -> (tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4x6xf32>, tensor<4x6xf32>) attributes {dlpack.entry} {
  %et = tensor.empty() : tensor<6x4xf32>
  %tr = linalg.transpose ins(%r : tensor<4x6xf32>) outs(%et : tensor<6x4xf32>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<2x3x4xf32>
  %bc = linalg.broadcast ins(%y : tensor<3xf32>) outs(%eb : tensor<2x3x4xf32>) dimensions = [0, 2]
  %zero = arith.constant 0.0 : f32
  %low = arith.constant -2147483648 : i32
  %es = tensor.empty() : tensor<4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<4xf32>) -> tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi32>
  %fi = linalg.fill ins(%low : i32) outs(%ei : tensor<4xi32>) -> tensor<4xi32>
  %red:2 = linalg.reduce ins(%r, %ri : tensor<4x6xf32>, tensor<4x6xi32>) outs(%fs, %fi : tensor<4xf32>, tensor<4xi32>) dimensions = [1]
    (%v: f32, %w: i32, %accv: f32, %accw: i32) {
      %s = arith.addf %v, %accv : f32
      %m = arith.maxsi %w, %accw : i32
      linalg.yield %s, %m : f32, i32
    }
  %esm = tensor.empty() : tensor<4x6xf32>
  %sm = linalg.softmax dimension(0) ins(%r : tensor<4x6xf32>) outs(%esm : tensor<4x6xf32>) -> tensor<4x6xf32>
  %half = arith.constant 0.5 : f32
  %gen = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4x6xf32>) outs(%esm : tensor<4x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %pos = arith.cmpf ogt, %v, %zero : f32
    %leak = arith.mulf %v, %half : f32
    %sel = arith.select %pos, %v, %leak : f32
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %out = arith.addf %sel, %jf : f32
    linalg.yield %out : f32
  } -> tensor<4x6xf32>
  return %tr, %bc, %red#0, %red#1, %sm, %gen : tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4x6xf32>, tensor<4x6xf32>
}

// A padded pack with permuted outer and inner dims, and its unpack.
// CHECK-LABEL: llvm.func @pack_unpack(
func.func @pack_unpack(%p: tensor<?x?xf32>) -> (tensor<?x?x4x2xf32>, tensor<?x?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %m = tensor.dim %p, %c0 : tensor<?x?xf32>
  %n = tensor.dim %p, %c1 : tensor<?x?xf32>
  %mo = arith.ceildivui %m, %c2 : index
  %no = arith.ceildivui %n, %c4 : index
  %e = tensor.empty(%no, %mo) : tensor<?x?x4x2xf32>
  %pad = arith.constant -1.0 : f32
  %packed = linalg.pack %p padding_value(%pad : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [4, 2] into %e : tensor<?x?xf32> -> tensor<?x?x4x2xf32>
  %eu = tensor.empty(%m, %n) : tensor<?x?xf32>
  %unpacked = linalg.unpack %packed outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [4, 2] into %eu : tensor<?x?x4x2xf32> -> tensor<?x?xf32>
  return %packed, %unpacked : tensor<?x?x4x2xf32>, tensor<?x?xf32>
}
