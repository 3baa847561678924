// RUN: dl-opt %s --dlbridge-exact-math-to-libm | FileCheck %s

// expm1 and log1p call libm, scalars and vectors (element by element), in
// f64 and f32; the functions LLVM has intrinsics for stay for math-to-llvm.

// CHECK-DAG: func.func private @expm1(f64) -> f64
// CHECK-DAG: func.func private @log1pf(f32) -> f32
// CHECK-DAG: func.func private @log1p(f64) -> f64

// CHECK-LABEL: func.func @scalars
// CHECK: call @expm1(%{{.*}}) : (f64) -> f64
// CHECK: call @log1pf(%{{.*}}) : (f32) -> f32
// CHECK: math.exp %{{.*}} : f64
// CHECK-NOT: math.expm1
// CHECK-NOT: math.log1p
func.func @scalars(%x: f64, %y: f32) -> (f64, f32, f64) {
  %e = math.expm1 %x : f64
  %l = math.log1p %y : f32
  %k = math.exp %x : f64
  return %e, %l, %k : f64, f32, f64
}

// CHECK-LABEL: func.func @vectors
// CHECK-COUNT-2: call @log1p(%{{.*}}) : (f64) -> f64
// CHECK-NOT: math.log1p
func.func @vectors(%x: vector<2xf64>) -> vector<2xf64> {
  %l = math.log1p %x : vector<2xf64>
  return %l : vector<2xf64>
}
