// Row softmax in linalg: max, exp(x - max), sum, divide.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(1); np.save('%t/x.npy', (4 * rng.standard_normal((6, 10))).astype(np.float32))"
// RUN: dl-run %s -i %t/x.npy -o %t/p.npy
// RUN: %python %S/check.py %t/p.npy "np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)" x=%t/x.npy --rtol 1e-5 | FileCheck %s
// CHECK: ok: float32 (6, 10)

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (i)>
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty(%m) : tensor<?xf32>
  %max0 = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%max0 : tensor<?xf32>) dimensions = [1]
    (%in: f32, %a: f32) {
      %s = arith.maximumf %in, %a : f32
      linalg.yield %s : f32
    }
  %full = tensor.empty(%m, %n) : tensor<?x?xf32>
  %e = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%xv: f32, %mv: f32, %o: f32):
    %d = arith.subf %xv, %mv : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<?x?xf32>
  %sum0 = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.reduce ins(%e : tensor<?x?xf32>) outs(%sum0 : tensor<?xf32>) dimensions = [1]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  %p = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%ev: f32, %sv: f32, %o: f32):
    %q = arith.divf %ev, %sv : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}
