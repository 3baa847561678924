// --bufferize=false: a memref program that allocates and frees its own
// buffer runs with its buffers left as they are.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(4, dtype=np.float32))"
// RUN: dl-run %s --bufferize=false -i %t/x.npy --print | FileCheck %s
// CHECK: argument 0 'x' (written): float32 (4,)
// CHECK-NEXT: [1. 2. 3. 4.]

// Adds one through a buffer it allocates and frees.
func.func @own(%x: memref<4xf32> {dlpack.name = "x"}) attributes {dlpack.entry} {
  %t = memref.alloc() : memref<4xf32>
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%t : memref<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %one : f32
    linalg.yield %s : f32
  }
  memref.copy %t, %x : memref<4xf32> to memref<4xf32>
  memref.dealloc %t : memref<4xf32>
  return
}
