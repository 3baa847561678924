// RUN: not dl-opt %s -split-input-file 2>&1 | FileCheck %s

// Malformed dlpack syntax: dl-opt exits non-zero with a located diagnostic
// for every case, and never crashes.

// CHECK: malformed.mlir:[[# @LINE + 1]]:57: error: expected ::dlbridge::dlpack::TypeCode to be one of: int, uint, float,
func.func @unknown_code() attributes {d = #dlpack.dtype<float7, 8>}

// -----

// CHECK: malformed.mlir:[[# @LINE + 1]]:60: error: expected ::dlbridge::dlpack::DeviceType to be one of: cpu, cuda,
func.func @unknown_device() attributes {d = #dlpack.device<tpu>}

// -----

// CHECK: malformed.mlir:[[# @LINE + 1]]:37: error: unknown  type `tensors` in dialect `dlpack`
func.func @unknown_type(%t: !dlpack.tensors)

// -----

// CHECK: malformed.mlir:[[# @LINE + 2]]:29: error: expected '['
func.func @missing_index(%args: !llvm.ptr) {
  %t = dlpack.load_arg %args : !dlpack.tensor
  return
}

// -----

// CHECK: malformed.mlir:[[# @LINE + 2]]:8: error: unregistered operation 'dlpack.frobnicate' found in dialect ('dlpack')
func.func @unknown_op(%t: !dlpack.tensor) {
  %r = "dlpack.frobnicate"(%t) : (!dlpack.tensor) -> index
  return
}

// -----

// CHECK: malformed.mlir:[[# @LINE + 1]]:68: error: expected integer value
func.func @bits_not_integer() attributes {d = #dlpack.dtype<float, x>}
