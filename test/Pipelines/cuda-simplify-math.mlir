// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx chip=sm_90" | FileCheck %s

// `x ** 3` as the tracer emits it (math.powf by a constant 3.0): two
// multiplications in the kernel (dlbridge-simplify-math), not libdevice's
// __nv_powf (some eighty instructions of logarithms and exponentials).
// CHECK-LABEL: gpu.binary @cube_kernel
// CHECK-SAME: .entry cube_kernel
// CHECK-NOT: lg2
// CHECK-NOT: ex2
// CHECK: mul.rn.f32
// CHECK: mul.rn.f32
// CHECK-NOT: mul.rn.f32
// CHECK-NOT: lg2
// CHECK-NOT: ex2
// CHECK: ret;
func.func @cube(%a: tensor<?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %three = arith.constant 3.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %p = math.powf %x, %three : f32
    linalg.yield %p : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
