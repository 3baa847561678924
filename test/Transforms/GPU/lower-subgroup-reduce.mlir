// RUN: dl-opt %s --dlbridge-gpu-lower-subgroup-reduce | FileCheck %s
// RUN: dl-opt %s --dlbridge-gpu-lower-subgroup-reduce="subgroup-size=8" \
// RUN:   | FileCheck %s --check-prefix=EIGHT

gpu.module @kernels {
  // A float sum over a warp: a butterfly of five xor shuffles (offsets 1, 2,
  // 4, 8, 16), or three for subgroups of eight lanes.
  // CHECK-LABEL: gpu.func @sum
  // CHECK-NOT: gpu.subgroup_reduce
  // CHECK-COUNT-5: gpu.shuffle xor %{{.*}} : f32
  // CHECK-NOT: gpu.shuffle
  // CHECK: gpu.return
  // EIGHT-LABEL: gpu.func @sum
  // EIGHT-COUNT-3: gpu.shuffle xor
  // EIGHT-NOT: gpu.shuffle
  // EIGHT: gpu.return
  gpu.func @sum(%x: f32, %out: memref<1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %s = gpu.subgroup_reduce add %x : (f32) -> f32
    memref.store %s, %out[%c0] : memref<1xf32>
    gpu.return
  }

  // Vectors of halves shuffle as one 32-bit value.
  // CHECK-LABEL: gpu.func @halves
  // CHECK-NOT: gpu.subgroup_reduce
  // CHECK-COUNT-5: gpu.shuffle xor %{{.*}} : i32
  // CHECK-NOT: gpu.shuffle
  // CHECK: gpu.return
  gpu.func @halves(%v: vector<2xf16>, %out: memref<2xf16>) kernel {
    %c0 = arith.constant 0 : index
    %w = gpu.subgroup_reduce add %v : (vector<2xf16>) -> vector<2xf16>
    vector.store %w, %out[%c0] : memref<2xf16>, vector<2xf16>
    gpu.return
  }

  // 64-bit values shuffle whole (convert-gpu-to-nvvm splits each in two).
  // CHECK-LABEL: gpu.func @double
  // CHECK-NOT: gpu.subgroup_reduce
  // CHECK-COUNT-5: gpu.shuffle xor %{{.*}} : f64
  // CHECK: gpu.return
  gpu.func @double(%x: f64, %out: memref<1xf64>) kernel {
    %c0 = arith.constant 0 : index
    %s = gpu.subgroup_reduce maximumf %x : (f64) -> f64
    memref.store %s, %out[%c0] : memref<1xf64>
    gpu.return
  }

  // Clusters of four lanes: offsets 1 and 2.
  // CHECK-LABEL: gpu.func @clustered
  // CHECK-NOT: gpu.subgroup_reduce
  // CHECK-COUNT-2: gpu.shuffle xor %{{.*}} : i32
  // CHECK-NOT: gpu.shuffle
  // CHECK: gpu.return
  gpu.func @clustered(%i: i32, %out: memref<1xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c = gpu.subgroup_reduce add %i cluster(size = 4) : (i32) -> i32
    memref.store %c, %out[%c0] : memref<1xi32>
    gpu.return
  }
}
