// Outputs are written all or none: when one result cannot be written, no
// other result (and no written parameter) is; a header declaring more data
// than its file holds is refused before anything is allocated.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(4, dtype=np.float32)); h = \"{'descr': '<f8', 'fortran_order': False, 'shape': (1048576, 1048576), }\".ljust(117) + '\n'; open('%t/huge.npy', 'wb').write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode())"

// The second output's directory does not exist: the first is not written.
// RUN: not dl-run %s --entry two -i %t/x.npy -o %t/a.npy -o %t/no/such/dir/b.npy 2>&1 | FileCheck %s --check-prefix=SECOND
// SECOND: dl-run: result 1 'b': cannot open '{{.*}}b.npy' for writing: No such file or directory (no output was written)
// RUN: %python -c "import os, sys; sys.exit(os.path.exists('%t/a.npy'))"

// A result that cannot be written leaves a written parameter's file alone.
// RUN: cp %t/x.npy %t/w.npy
// RUN: not dl-run %s --entry inc -i %t/w.npy --write-back -o %t/no/such/dir/y.npy
// RUN: %python %S/check.py %t/w.npy "x" x=%t/x.npy | FileCheck %s --check-prefix=SAME
// SAME: ok: float32 (4,)

// An existing output keeps its old contents when the run fails, and its
// permission bits when it is replaced.
// RUN: echo old > %t/keep.npy && chmod 640 %t/keep.npy
// RUN: not dl-run %s --entry two -i %t/x.npy -o %t/keep.npy -o %t/no/such/dir/b.npy
// RUN: grep -qx old %t/keep.npy
// RUN: dl-run %s --entry two -i %t/x.npy -o %t/keep.npy -o -
// RUN: %python %S/check.py %t/keep.npy "2 * x" x=%t/x.npy | FileCheck %s --check-prefix=SAME
// RUN: %python -c "import os; print(oct(os.stat('%t/keep.npy').st_mode & 0o7777))" | FileCheck %s --check-prefix=MODE
// MODE: 0o640

// Everything writable: every output and the write-back land.
// RUN: dl-run %s --entry two -i %t/x.npy -o %t/a.npy -o %t/b.npy
// RUN: %python %S/check.py %t/a.npy "2 * x" x=%t/x.npy | FileCheck %s --check-prefix=SAME
// RUN: %python %S/check.py %t/b.npy "3 * x" x=%t/x.npy | FileCheck %s --check-prefix=SAME
// RUN: dl-run %s --entry inc -i %t/w.npy --write-back -o %t/y.npy
// RUN: %python %S/check.py %t/w.npy "x + 1" x=%t/x.npy | FileCheck %s --check-prefix=SAME
// RUN: %python %S/check.py %t/y.npy "x + 1" x=%t/x.npy | FileCheck %s --check-prefix=SAME
// RUN: %python -c "import os; print(sorted(f for f in os.listdir('%t') if not f.endswith('.npy')))" | FileCheck %s --check-prefix=NOTEMP
// NOTEMP: []

// 2**40 float64 declared in a file of a header only: an error, not a crash.
// RUN: not dl-run %s --entry two -i %t/huge.npy 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: dl-run: argument 0 'x': {{.*}}huge.npy: truncated data (8796093022208 bytes expected, 0 present)

#id = affine_map<(i) -> (i)>
func.func @two(%x: tensor<?xf32> {dlpack.name = "x"})
    -> (tensor<?xf32> {dlpack.name = "a"}, tensor<?xf32> {dlpack.name = "b"})
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %ia = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%ia : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %two : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %ib = tensor.empty(%n) : tensor<?xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%ib : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %three : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %a, %b : tensor<?xf32>, tensor<?xf32>
}

// x += 1 in place, and a fresh copy of the result.
func.func @inc(%x: memref<?xf32> {dlpack.name = "x"}) -> (memref<?xf32> {dlpack.name = "y"})
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %y = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %x[%i] : memref<?xf32>
    memref.store %w, %y[%i] : memref<?xf32>
  }
  return %y : memref<?xf32>
}
