// What dl-run says when the JIT refuses a program: located messages naming
// the user's operation and what to change, without operation dumps.
// RUN: rm -rf %t && mkdir -p %t
// RUN: split-file %s %t

// RUN: not dl-run --cache=false %t/external.mlir 2>&1 | FileCheck %s --check-prefix=EXTERNAL \
// RUN:   --implicit-check-not="see current operation" --implicit-check-not=unrealized_conversion_cast \
// RUN:   --implicit-check-not="Symbols not found"
// EXTERNAL: dl-run: cannot compile '{{.*}}external.mlir':
// EXTERNAL-NEXT: {{.*}}external.mlir:5:8: error: 'func.call' uses @not_defined_anywhere, which the module declares but does not define, and which neither libdlrt nor this process exports: define @not_defined_anywhere in the module

// RUN: not dl-run --cache=false %t/gpu.mlir 2>&1 | FileCheck %s --check-prefix=GPU \
// RUN:   --implicit-check-not="see current operation" --implicit-check-not=unrealized_conversion_cast
// GPU: {{.*}}gpu.mlir:3:3: error: 'gpu.launch' is GPU code: compile it with the CUDA target

// RUN: not dl-run --cache=false %t/tensors.mlir 2>&1 | FileCheck %s --check-prefix=TENSORS \
// RUN:   --implicit-check-not="see current operation" --implicit-check-not=unrealized_conversion_cast
// TENSORS: {{.*}}tensors.mlir:2:8: error: 'tosa.add' computes on tensors but has no bufferization

// A libm function the module declares links.
// RUN: dl-run --cache=false %t/libm.mlir -i 0 --print | FileCheck %s --check-prefix=LIBM
// LIBM: 1.

//--- external.mlir
func.func private @not_defined_anywhere(f32) -> f32
func.func @f(%a: memref<4xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<4xf32>
  %w = func.call @not_defined_anywhere(%v) : (f32) -> f32
  memref.store %w, %a[%c0] : memref<4xf32>
  return
}

//--- gpu.mlir
func.func @f(%a: memref<?xf32>) attributes {dlpack.entry} {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

//--- tensors.mlir
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> attributes {dlpack.entry} {
  %r = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

//--- libm.mlir
func.func private @cosf(f32) -> f32
func.func @f(%a: f32) -> f32 attributes {dlpack.entry} {
  %r = func.call @cosf(%a) : (f32) -> f32
  return %r : f32
}
