// A character device given as an output is written in place, never replaced
// by a regular file: a copy of /dev/full (made with mknod, so that a wrong
// rename could not touch the real one) reports its write error, stays a
// device, and the other outputs are not written.
// REQUIRES: numpy, mknod
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(4, dtype=np.float32))"
// RUN: %python -c "import os, stat; os.mknod('%t/full', 0o666 | stat.S_IFCHR, os.makedev(1, 7))"
// RUN: not dl-run %s --entry two -i %t/x.npy -o %t/a.npy -o %t/full 2>&1 | FileCheck %s
// CHECK: dl-run: result 1 'b': cannot write '{{.*}}full': No space left on device (no output was written)
// RUN: test -c %t/full
// RUN: test ! -e %t/a.npy

#id = affine_map<(i) -> (i)>
func.func @two(%x: tensor<?xf32> {dlpack.name = "x"})
    -> (tensor<?xf32> {dlpack.name = "a"}, tensor<?xf32> {dlpack.name = "b"})
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %two : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %a, %a : tensor<?xf32>, tensor<?xf32>
}
