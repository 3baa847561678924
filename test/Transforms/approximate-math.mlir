// RUN: dl-opt %s --dlbridge-approximate-math | FileCheck %s

// f32 tanh, erf, exp and log become arithmetic LLVM can vectorise; powers
// with small constant exponents become multiplications.

// CHECK-LABEL: func.func @approximated
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK-NOT: math.powf
// CHECK: return
func.func @approximated(%x: f32) -> (f32, f32, f32, f32, f32) {
  %c3 = arith.constant 3.0 : f32
  %t = math.tanh %x : f32
  %e = math.erf %x : f32
  %x2 = math.exp %x : f32
  %l = math.log %x : f32
  %p = math.powf %x, %c3 : f32
  return %t, %e, %x2, %l, %p : f32, f32, f32, f32, f32
}

// f64 keeps its library calls (the approximations are f32's).
// CHECK-LABEL: func.func @kept
// CHECK: math.tanh %{{.*}} : f64
func.func @kept(%x: f64) -> f64 {
  %t = math.tanh %x : f64
  return %t : f64
}
