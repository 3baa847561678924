// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx" | FileCheck %s

// Kernels read and write bools one byte each: a vector<8xi1> load from a
// memref<8xi1> reads the eight bytes at offsets 0 to 7 (packed as bits it
// would read one byte), and the store writes eight bytes.

// CHECK: gpu.binary @vnot_kernel
// CHECK-DAG: ld.global.b8 {{[^;]*}}[%[[X:rd[0-9]+]]];
// CHECK-DAG: ld.global.b8 {{[^;]*}}[%[[X]]+1];
// CHECK-DAG: ld.global.b8 {{[^;]*}}[%[[X]]+2];
// CHECK-DAG: ld.global.b8 {{[^;]*}}[%[[X]]+3];
// CHECK-DAG: ld.global.b8 {{[^;]*}}[%[[X]]+4];
// CHECK-DAG: ld.global.b8 {{[^;]*}}[%[[X]]+5];
// CHECK-DAG: ld.global.b8 {{[^;]*}}[%[[X]]+6];
// CHECK-DAG: ld.global.b8 {{[^;]*}}[%[[X]]+7];
// CHECK-DAG: st.global.b8 {{[^;]*}}[%[[Y:rd[0-9]+]]],
// CHECK-DAG: st.global.b8 {{[^;]*}}[%[[Y]]+1],
// CHECK-DAG: st.global.b8 {{[^;]*}}[%[[Y]]+2],
// CHECK-DAG: st.global.b8 {{[^;]*}}[%[[Y]]+3],
// CHECK-DAG: st.global.b8 {{[^;]*}}[%[[Y]]+4],
// CHECK-DAG: st.global.b8 {{[^;]*}}[%[[Y]]+5],
// CHECK-DAG: st.global.b8 {{[^;]*}}[%[[Y]]+6],
// CHECK-DAG: st.global.b8 {{[^;]*}}[%[[Y]]+7],
func.func @vnot(%x: memref<8xi1>, %y: memref<8xi1>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %true = arith.constant dense<true> : vector<8xi1>
    %v = vector.load %x[%c0] : memref<8xi1>, vector<8xi1>
    %n = arith.xori %v, %true : vector<8xi1>
    vector.store %n, %y[%c0] : memref<8xi1>, vector<8xi1>
    gpu.terminator
  }
  return
}
