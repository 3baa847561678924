// Errors are located messages without upstream's generic-form dump of the
// operation ("see current operation: ..."), unless asked for.
// RUN: not dl-opt %s --split-input-file --dlbridge-cpu-pipeline 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not="see current operation" \
// RUN:       --implicit-check-not=unrealized_conversion_cast
// RUN: not dl-opt %s --split-input-file --dlbridge-cpu-pipeline \
// RUN:     --mlir-print-op-on-diagnostic 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DUMP

// CHECK: diagnostics.mlir:[[# @LINE + 3]]:8: error: 'tosa.add' computes on tensors but has no bufferization
// DUMP: note: see current operation: %{{.*}} = "tosa.add"
func.func @upstream_error(%a: tensor<4xf32>) -> tensor<4xf32> attributes {dlpack.entry} {
  %r = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK: diagnostics.mlir:[[# @LINE + 1]]:21: error: 'func.func' @no_dtype (dlpack.entry) argument 0: element type 'index' has no DLPack dtype
func.func @no_dtype(%a: memref<4xindex>) attributes {dlpack.entry} {
  return
}

// -----

func.func @on_gpu(%x: memref<?xf32>) attributes {dlpack.entry} {
  %c1 = arith.constant 1 : index
  // CHECK: diagnostics.mlir:[[# @LINE + 1]]:3: error: 'gpu.launch' is GPU code: compile it with the CUDA target
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<?xf32>
    memref.store %v, %x[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}
