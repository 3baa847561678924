// Bools through n-d vector transfers: a vector<4x8xi1> read from and
// written to DLPack bools (one byte each). Lowered through a stack buffer of
// vector<8xi1>, which LLVM lays out as bits, the widened byte stores
// overlapped and overflowed it and the result was all False.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/a.npy', np.random.default_rng(3).random((4, 8)) > 0.5)"
// RUN: dl-run %s -i %t/a.npy -o %t/r.npy
// RUN: %python %S/check.py %t/r.npy "~a" a=%t/a.npy | FileCheck %s
// CHECK: ok: bool (4, 8)

func.func @invert(%a: memref<4x8xi1> {dlpack.name = "a"}) -> memref<4x8xi1> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %v = vector.transfer_read %a[%c0, %c0], %false : memref<4x8xi1>, vector<4x8xi1>
  %true = arith.constant dense<true> : vector<4x8xi1>
  %x = arith.xori %v, %true : vector<4x8xi1>
  %r = memref.alloc() : memref<4x8xi1>
  vector.transfer_write %x, %r[%c0, %c0] : vector<4x8xi1>, memref<4x8xi1>
  return %r : memref<4x8xi1>
}
