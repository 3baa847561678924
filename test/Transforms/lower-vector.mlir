// RUN: dl-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(dlbridge-lower-vector))' | FileCheck %s

// In kernels, transfers become loads and stores (masked where they may run
// past the end), vector.mask regions and n-d reductions simpler ops, so
// that convert-gpu-to-nvvm converts them.

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @tail
  // CHECK: %[[N:.*]] = memref.dim
  // CHECK: arith.subi %[[N]]
  // CHECK: vector.maskedload
  // CHECK: vector.maskedstore
  // CHECK-NOT: vector.transfer
  gpu.func @tail(%a: memref<?xf32>, %b: memref<?xf32>, %i: index) kernel {
    %pad = arith.constant 0.0 : f32
    %v = vector.transfer_read %a[%i], %pad : memref<?xf32>, vector<8xf32>
    vector.transfer_write %v, %b[%i] : vector<8xf32>, memref<?xf32>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @mask_region
  // CHECK: vector.maskedload
  // CHECK-NOT: vector.mask
  // CHECK-NOT: vector.transfer
  gpu.func @mask_region(%a: memref<?xf32>, %b: memref<4xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f32
    %m = vector.create_mask %n : vector<4xi1>
    %v = vector.mask %m { vector.transfer_read %a[%c0], %pad {in_bounds = [true]} : memref<?xf32>, vector<4xf32> } : vector<4xi1> -> vector<4xf32>
    vector.transfer_write %v, %b[%c0] {in_bounds = [true]} : vector<4xf32>, memref<4xf32>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @transposed_sums
  // CHECK: scf.for
  // CHECK: memref.load
  // CHECK-COUNT-8: arith.addf %{{.*}} : vector<4xf32>
  // CHECK: vector.store
  // CHECK-NOT: vector.multi_reduction
  // CHECK-NOT: vector.transfer
  gpu.func @transposed_sums(%a: memref<8x4xf32>, %b: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f32
    %v = vector.transfer_read %a[%c0, %c0], %pad {permutation_map = affine_map<(d0, d1) -> (d1, d0)>, in_bounds = [true, true]} : memref<8x4xf32>, vector<4x8xf32>
    %z = arith.constant dense<0.0> : vector<4xf32>
    %s = vector.multi_reduction <add>, %v, %z [1] : vector<4x8xf32> to vector<4xf32>
    vector.transfer_write %s, %b[%c0] {in_bounds = [true]} : vector<4xf32>, memref<4xf32>
    gpu.return
  }
}
