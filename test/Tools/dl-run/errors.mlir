// Every way a dl-run invocation can fail: one "dl-run: ..." line on stderr
// and exit code 1 (`not` checks it is a failure, not a crash).
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.ones((2, 3), np.float32)); np.save('%t/x64.npy', np.ones((2, 3), np.int64)); np.save('%t/v.npy', np.ones(3, np.float32)); np.save('%t/s.npy', np.array(['ab', 'c'])); open('%t/text.npy', 'w').write('not numpy'); open('%t/short.npy', 'wb').write(open('%t/x.npy', 'rb').read()[:-5]); open('%t/badheader.npy', 'wb').write(b'\x93NUMPY\x01\x00\x10\x00{descr: 1}     \n')"

// Missing and unreadable inputs.
// RUN: not dl-run %s --entry scale -i %t/missing.npy -i 1 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: dl-run: argument 0 'x': cannot open '{{.*}}missing.npy': No such file or directory
// RUN: not dl-run %s --entry scale -i %t/text.npy -i 1 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: dl-run: argument 0 'x': {{.*}}text.npy: not a .npy file (bad magic string)
// RUN: not dl-run %s --entry scale -i %t/short.npy -i 1 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: dl-run: argument 0 'x': {{.*}}short.npy: truncated data (24 bytes expected, 19 present)
// RUN: not dl-run %s --entry scale -i %t/badheader.npy -i 1 2>&1 | FileCheck %s --check-prefix=HEADER
// HEADER: dl-run: argument 0 'x': {{.*}}badheader.npy: bad header: expected a quoted key
// RUN: not dl-run %s --entry scale -i %t/s.npy -i 1 2>&1 | FileCheck %s --check-prefix=DESCR
// DESCR: dl-run: argument 0 'x': {{.*}}s.npy: unsupported descr '<U2'
// RUN: not dl-run %s --entry scale -i %t -i 1 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: dl-run: argument 0 'x': cannot read '{{.*}}': Is a directory

// Arguments the entry's check refuses: its message, verbatim.
// RUN: not dl-run %s --entry scale -i %t/x64.npy -i 1 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: dl-run: argument 0 'x': expected float32, got int64
// RUN: not dl-run %s --entry scale -i %t/v.npy -i 1 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not dl-run %s --entry rows -i %t/x.npy -i %t/x.npy -i 1 2>&1 | FileCheck %s --check-prefix=SHAPE
// RANK: dl-run: argument 0 'x': expected rank 2, got rank 1
// SHAPE: dl-run: argument 1 'y': dim 0 expected 4, got 2

// Scalars that do not parse as their parameter's dtype, and the wrong kind.
// RUN: not dl-run %s --entry scale -i %t/x.npy -i abc 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: dl-run: argument 1 'alpha': expected a float32 literal, got 'abc'
// RUN: not dl-run %s --entry rows -i %t/x.npy -i %t/x.npy -i 1.5 2>&1 | FileCheck %s --check-prefix=INT
// INT: dl-run: argument 2 'n': expected a int32 literal, got '1.5'
// RUN: not dl-run %s --entry rows -i %t/x.npy -i %t/x.npy -i 3000000000 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: dl-run: argument 2 'n': expected a int32 literal, got '3000000000' (out of range)
// RUN: not dl-run %s --entry scale -i scalar:1 -i 1 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: dl-run: argument 0 'x': expected a .npy file for a tensor parameter, got 'scalar:1'

// Wrong numbers of inputs and outputs.
// RUN: not dl-run %s --entry scale -i %t/x.npy 2>&1 | FileCheck %s --check-prefix=ARGS
// ARGS: dl-run: @scale takes 2 arguments (x: float32[?, ?], alpha: float32), but 1 input (-i) was given
// RUN: not dl-run %s --entry scale -i %t/x.npy -i 1 -i 2 2>&1 | FileCheck %s --check-prefix=ARGS3
// ARGS3: dl-run: @scale takes 2 arguments (x: float32[?, ?], alpha: float32), but 3 inputs (-i) were given
// RUN: not dl-run %s --entry scale -i %t/x.npy -i 1 -o %t/a.npy -o %t/b.npy 2>&1 | FileCheck %s --check-prefix=OUTS
// OUTS: dl-run: @scale returns 1 result (y: float32[?, ?]), but 2 outputs (-o) were given
// RUN: not dl-run %s --entry scale -i %t/x.npy -i 1 -o %t/no/such/dir/y.npy 2>&1 | FileCheck %s --check-prefix=WRITE
// WRITE: dl-run: result 0 'y': cannot open '{{.*}}y.npy' for writing: No such file or directory

// Entries, kernels and targets.
// RUN: not dl-run %s --entry nope -i %t/x.npy 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: dl-run: {{.*}}errors.mlir: no 'dlpack.entry' function named @nope; entries: @scale, @rows
// RUN: not dl-run %s --entry rows 2>&1 | FileCheck %s --check-prefix=ARGS0
// ARGS0: dl-run: @rows takes 3 arguments (x: float32[?, ?], y: float32[4, ?] (written), n: int32), but 0 inputs (-i) were given
// RUN: not dl-run %t/missing.mlir -i %t/x.npy 2>&1 | FileCheck %s --check-prefix=KERNEL
// KERNEL: dl-run: cannot read '{{.*}}missing.mlir': No such file or directory
// (Targets and the other compile options: options.mlir.)

// Compile errors print MLIR's diagnostics, without operation dumps.
// RUN: echo 'func.func @f(%%x: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} { %%y = arith.addf %%x, %%x : tensor<?xi32> return %%y : tensor<?xf32> }' > %t/bad.mlir
// RUN: not dl-run %t/bad.mlir -i %t/v.npy 2>&1 | FileCheck %s --check-prefix=COMPILE
// COMPILE: dl-run: cannot compile '{{.*}}bad.mlir':
// COMPILE-NEXT: {{.*}}bad.mlir:1:{{[0-9]+}}: error: {{.*}}
// RUN: echo 'func.func @f() { return }' > %t/noentry.mlir
// RUN: not dl-run %t/noentry.mlir 2>&1 | FileCheck %s --check-prefix=NOENTRY
// NOENTRY: dl-run: {{.*}}noentry.mlir: no function is marked 'dlpack.entry'

func.func @scale(%x: tensor<?x?xf32> {dlpack.name = "x"}, %alpha: f32 {dlpack.name = "alpha"})
    -> (tensor<?x?xf32> {dlpack.name = "y"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %init = tensor.empty(%m, %n) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %alpha : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// A memref-level entry with a static dim and a written parameter.
func.func @rows(%x: memref<?x?xf32, strided<[?, ?], offset: ?>> {dlpack.name = "x"},
                %y: memref<4x?xf32> {dlpack.name = "y"}, %n: i32 {dlpack.name = "n"})
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %x[%c0, %c0] : memref<?x?xf32, strided<[?, ?], offset: ?>>
  memref.store %v, %y[%c0, %c0] : memref<4x?xf32>
  return
}
