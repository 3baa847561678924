// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(gpu.module(dlbridge-gpu-limit-kernel-registers))' \
// RUN:   | FileCheck %s
// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(gpu.module(dlbridge-gpu-limit-kernel-registers{threads-per-sm=2048}))' \
// RUN:   | FileCheck %s --check-prefix=FULL
// RUN: not dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(gpu.module(dlbridge-gpu-limit-kernel-registers{threads-per-sm=4096}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=TOO-MANY

// Blocks of 512 threads must fit twice on a multiprocessor and blocks of
// 1024 once (ptxas: 64 registers at most); smaller blocks get no hint. With
// threads-per-sm=2048, blocks of 1024 must fit twice, and smaller ones get
// no hint.
// CHECK-LABEL: gpu.func @rows
// CHECK-SAME: nvvm.minctasm = 2 : i32
// CHECK-LABEL: gpu.func @whole_block
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK-LABEL: gpu.func @tiles
// CHECK-NOT: nvvm.minctasm
// CHECK-LABEL: gpu.func @elementwise
// CHECK-NOT: nvvm.minctasm
// FULL-LABEL: gpu.func @rows
// FULL-NOT: nvvm.minctasm
// FULL-LABEL: gpu.func @whole_block
// FULL-SAME: nvvm.minctasm = 2 : i32
// FULL-LABEL: gpu.func @tiles
// FULL-NOT: nvvm.minctasm
// FULL-LABEL: gpu.func @elementwise
// TOO-MANY: error: threads-per-sm=4096: expected 64 to 2048
gpu.module @kernels {
  gpu.func @rows() kernel attributes {known_block_size = array<i32: 512, 1, 1>} {
    gpu.return
  }
  gpu.func @whole_block() kernel attributes {known_block_size = array<i32: 32, 32, 1>} {
    gpu.return
  }
  gpu.func @tiles() kernel attributes {known_block_size = array<i32: 32, 8, 1>} {
    gpu.return
  }
  gpu.func @elementwise() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    gpu.return
  }
}

// -----

// Kernels of unknown block size, kernels that say already, and device
// functions are left alone.
// CHECK-LABEL: gpu.func @unknown
// CHECK-NOT: nvvm.minctasm
// CHECK-LABEL: gpu.func @told
// CHECK-SAME: nvvm.minctasm = 3 : i32
// CHECK-LABEL: gpu.func @helper
// CHECK-NOT: nvvm.minctasm
gpu.module @others {
  gpu.func @unknown() kernel {
    gpu.return
  }
  gpu.func @told() kernel attributes {known_block_size = array<i32: 512, 1, 1>, nvvm.minctasm = 3 : i32} {
    gpu.return
  }
  gpu.func @helper() {
    gpu.return
  }
}
