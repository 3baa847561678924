// A module's static constructors run when its code is loaded, before the
// first call (the CUDA pipeline loads kernel modules in one): here one sets
// the global the entry then reads.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/out.npy', np.zeros(1, np.int64))"
// RUN: dl-run %s --entry read -i %t/out.npy --print | FileCheck %s

// CHECK: argument 0 'out' (written): int64 (1,)
// CHECK-NEXT: [41]

llvm.mlir.global internal @counter(0 : i64) {addr_space = 0 : i32} : i64
llvm.func @set_counter() {
  %address = llvm.mlir.addressof @counter : !llvm.ptr
  %value = llvm.mlir.constant(41 : i64) : i64
  llvm.store %value, %address : i64, !llvm.ptr
  llvm.return
}
llvm.mlir.global_ctors ctors = [@set_counter], priorities = [0 : i32], data = [#llvm.zero]

func.func @read(%out: memref<1xi64> {dlpack.name = "out"}) attributes {dlpack.entry} {
  %address = llvm.mlir.addressof @counter : !llvm.ptr
  %value = llvm.load %address : !llvm.ptr -> i64
  %c0 = arith.constant 0 : index
  memref.store %value, %out[%c0] : memref<1xi64>
  return
}
