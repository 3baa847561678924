// RUN: dl-opt %s --dlbridge-expand-small-floats | FileCheck %s
// (The values, for every f8 type against ml_dtypes, are checked end to end
// by test/Pipelines/cpu-element-types.mlir.)

// Arithmetic on f8 runs in f32; the conversions are integer operations.
// CHECK-LABEL: func.func @add
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FN
func.func @add(%a: f8E4M3FN, %b: f8E4M3FN) -> f8E4M3FN {
  %s = arith.addf %a, %b : f8E4M3FN
  return %s : f8E4M3FN
}

// From f64 the rounding works on the 64-bit pattern (no double rounding
// through f32); f16 extends to f32 first, exactly.
// CHECK-LABEL: func.func @truncate
// CHECK: arith.bitcast %{{.*}} : f64 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i8
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
func.func @truncate(%x: f64, %h: f16) -> (f8E5M2, f8E4M3FNUZ) {
  %t = arith.truncf %x : f64 to f8E5M2
  %u = arith.truncf %h : f16 to f8E4M3FNUZ
  return %t, %u : f8E5M2, f8E4M3FNUZ
}

// Vectors, and extensions past f32 go through it.
// CHECK-LABEL: func.func @extend
// CHECK: arith.bitcast %{{.*}} : vector<4xf8E4M3FN> to vector<4xi8>
// CHECK: arith.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: arith.extf %{{.*}} : vector<4xf32> to vector<4xf64>
func.func @extend(%v: vector<4xf8E4M3FN>) -> vector<4xf64> {
  %w = arith.extf %v : vector<4xf8E4M3FN> to vector<4xf64>
  return %w : vector<4xf64>
}

// Other types, and truncations with another rounding mode, are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.truncf %{{.*}} toward_zero : f32 to f8E4M3FN
func.func @untouched(%x: f32) -> (f16, f8E4M3FN) {
  %h = arith.truncf %x : f32 to f16
  %z = arith.truncf %x toward_zero : f32 to f8E4M3FN
  return %h, %z : f16, f8E4M3FN
}

// Math functions on f8 run in f32 too; f16 keeps its own.
// CHECK-LABEL: func.func @math
// CHECK: math.exp %{{.*}} : f32
// CHECK: math.exp %{{.*}} : f16
func.func @math(%a: f8E5M2, %h: f16) -> (f8E5M2, f16) {
  %e = math.exp %a : f8E5M2
  %g = math.exp %h : f16
  return %e, %g : f8E5M2, f16
}
