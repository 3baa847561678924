// RUN: dl-opt %s --dlbridge-simplify-math | FileCheck %s

// CHECK-LABEL: func.func @cube
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[SQUARE:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[CUBE:.*]] = arith.mulf %[[X]], %[[SQUARE]] : f32
// CHECK-NOT: math.powf
// CHECK: return %[[CUBE]]
func.func @cube(%x: f32) -> f32 {
  %three = arith.constant 3.0 : f32
  %r = math.powf %x, %three : f32
  return %r : f32
}

// CHECK-LABEL: func.func @square_and_root
// CHECK: arith.mulf
// CHECK: math.sqrt
// CHECK-NOT: math.powf
func.func @square_and_root(%x: f32) -> (f32, f32) {
  %two = arith.constant 2.0 : f32
  %half = arith.constant 0.5 : f32
  %s = math.powf %x, %two : f32
  %r = math.powf %x, %half : f32
  return %s, %r : f32, f32
}

// CHECK-LABEL: func.func @integer_power
// CHECK-COUNT-3: arith.mulf
// CHECK-NOT: math.fpowi
func.func @integer_power(%x: f32) -> f32 {
  %four = arith.constant 4 : i32
  %r = math.fpowi %x, %four : f32, i32
  return %r : f32
}

// Other exponents, and exponents that are not constants, keep pow.
// CHECK-LABEL: func.func @kept
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
func.func @kept(%x: f32, %y: f32) -> (f32, f32) {
  %e = arith.constant 2.5 : f32
  %a = math.powf %x, %e : f32
  %b = math.powf %x, %y : f32
  return %a, %b : f32, f32
}
