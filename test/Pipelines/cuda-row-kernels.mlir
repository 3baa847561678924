// REQUIRES: ptxas
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx chip=sm_90" | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_80" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_90" -o /dev/null

// Softmax and layer norm, as the Python tracer writes them for NumPy code,
// through the CUDA pipeline: after elementwise fusion and bufferization
// each is a group of fills, row reductions and ops on the same rows, which
// dlbridge-gpu-reductions-to-kernels makes one kernel for rows of at most
// 512 elements, a warp per row, and one for longer rows, a block of 512
// threads per row, which the host chooses between. In the first, each
// reduction is butterfly shuffles (shfl.sync.bfly) alone. In the second,
// warps combine through shared memory between two bar.syncs, and the row
// of x, which several members read, is copied into dynamic shared memory
// first (where it fits) and read there; the ops after a reduction use the
// row's value without a barrier. ptxas accepts the kernels for sm_80 and
// sm_90.

// np.exp(x - x.max(-1, keepdims=True)), divided by its sum over the row.
// CHECK-LABEL: llvm.func @softmax(
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK-DAG: %[[BLOCK:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK-DAG: %[[ROWBLOCK:.*]] = llvm.mlir.constant(512 : index) : i64
// CHECK: gpu.launch_func {{.*}} @softmax_kernel::@softmax_kernel blocks in (%{{.*}}, %[[ONE]], %[[ONE]]) threads in (%[[BLOCK]], %[[ONE]], %[[ONE]]) : i64 args
// CHECK: gpu.launch_func {{.*}} @softmax_kernel_0::@softmax_kernel blocks in (%{{.*}}, %[[ONE]], %[[ONE]]) threads in (%[[ROWBLOCK]], %[[ONE]], %[[ONE]]) : i64 dynamic_shared_memory_size
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @softmax_kernel [
// CHECK-SAME: .entry softmax_kernel(
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: ld.global.b32
// CHECK-SAME: max.NaN.f32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: ld.global.b32
// CHECK-SAME: ex2.approx
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: ld.global.b32
// CHECK-SAME: div.rn.f32
// CHECK-SAME: st.global.b32
// CHECK-NOT: bar.sync
// CHECK: gpu.binary @softmax_kernel_0 [
// CHECK-SAME: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// CHECK-SAME: .entry softmax_kernel(
// CHECK-SAME: .maxntid 512, 1, 1
// CHECK-SAME: .minnctapersm 2
// CHECK-SAME: .shared .align 4 .b8 __wg_softmax_kernel_0[64];
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.global.b32
// CHECK-SAME: st.shared.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: max.NaN.f32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: ex2.approx
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: div.rn.f32
// CHECK-SAME: st.global.b32
// CHECK-NOT: gpu.binary @softmax
func.func @softmax(%v: tensor<?x?xf32> {dlpack.name = "v"}) -> (tensor<?x?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dim = tensor.dim %v, %c1 : tensor<?x?xf32>
  %nonempty = arith.cmpi ne, %dim, %c0 : index
  dlpack.assert %nonempty, invalid_argument, "zero-size array to reduction operation maximum which has no identity"
  %dim_1 = tensor.dim %v, %c0 : tensor<?x?xf32>
  %empty = tensor.empty(%dim_1) : tensor<?xf32>
  %cst = arith.constant 0xFF800000 : f32
  %init = linalg.fill ins(%cst : f32) outs(%empty : tensor<?xf32>) -> tensor<?xf32>
  %max_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%v : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %max = arith.maximumf %out, %in : f32
    linalg.yield %max : f32
  } -> tensor<?xf32>
  %expanded = tensor.expand_shape %max_1 [[0, 1]] output_shape [%dim_1, 1] : tensor<?xf32> into tensor<?x1xf32>
  %empty_1 = tensor.empty(%dim_1, %dim) : tensor<?x?xf32>
  %sub_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v, %expanded : tensor<?x?xf32>, tensor<?x1xf32>) outs(%empty_1 : tensor<?x?xf32>) {
  ^bb0(%in_1: f32, %in_2: f32, %out_1: f32):
    %sub = arith.subf %in_1, %in_2 : f32
    linalg.yield %sub : f32
  } -> tensor<?x?xf32>
  %empty_2 = tensor.empty(%dim_1, %dim) : tensor<?x?xf32>
  %exp_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sub_1 : tensor<?x?xf32>) outs(%empty_2 : tensor<?x?xf32>) {
  ^bb0(%in_3: f32, %out_2: f32):
    %exp = math.exp %in_3 : f32
    linalg.yield %exp : f32
  } -> tensor<?x?xf32>
  %empty_3 = tensor.empty(%dim_1) : tensor<?xf32>
  %cst_1 = arith.constant 0.00000000000000000e+00 : f32
  %init_1 = linalg.fill ins(%cst_1 : f32) outs(%empty_3 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%exp_1 : tensor<?x?xf32>) outs(%init_1 : tensor<?xf32>) {
  ^bb0(%in_4: f32, %out_3: f32):
    %add = arith.addf %out_3, %in_4 fastmath<reassoc> : f32
    linalg.yield %add : f32
  } -> tensor<?xf32>
  %expanded_1 = tensor.expand_shape %sum [[0, 1]] output_shape [%dim_1, 1] : tensor<?xf32> into tensor<?x1xf32>
  %empty_4 = tensor.empty(%dim_1, %dim) : tensor<?x?xf32>
  %div_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%exp_1, %expanded_1 : tensor<?x?xf32>, tensor<?x1xf32>) outs(%empty_4 : tensor<?x?xf32>) {
  ^bb0(%in_5: f32, %in_6: f32, %out_4: f32):
    %div = arith.divf %in_5, %in_6 : f32
    linalg.yield %div : f32
  } -> tensor<?x?xf32>
  return %div_1 : tensor<?x?xf32>
}

// (x - mean) / sqrt(var + eps) * g + b with mean and var as sums over the
// row divided by its length: two reductions, in each kernel.
// CHECK-LABEL: llvm.func @layer_norm(
// CHECK: gpu.launch_func {{.*}} @layer_norm_kernel::@layer_norm_kernel
// CHECK: gpu.launch_func {{.*}} @layer_norm_kernel_1::@layer_norm_kernel {{.*}} dynamic_shared_memory_size
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @layer_norm_kernel [
// CHECK-SAME: .entry layer_norm_kernel(
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: ld.global.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: ld.global.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: div.rn.f32
// CHECK-SAME: st.global.b32
// CHECK-NOT: bar.sync
// CHECK: gpu.binary @layer_norm_kernel_1 [
// CHECK-SAME: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// CHECK-SAME: .entry layer_norm_kernel(
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.global.b32
// CHECK-SAME: st.shared.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: bar.sync
// CHECK-SAME: sqrt.{{[a-z]+}}.f32
// CHECK-SAME: div.rn.f32
// CHECK-SAME: st.global.b32
// CHECK-NOT: gpu.binary @layer_norm
func.func @layer_norm(%x: tensor<?x?xf32> {dlpack.name = "x"}, %g: tensor<?xf32> {dlpack.name = "g"}, %b: tensor<?xf32> {dlpack.name = "b"}) -> (tensor<?x?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c1 = arith.constant 1 : index
  %dim_1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %empty = tensor.empty(%dim) : tensor<?xf32>
  %cst = arith.constant 0.00000000000000000e+00 : f32
  %init = linalg.fill ins(%cst : f32) outs(%empty : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %add = arith.addf %out, %in fastmath<reassoc> : f32
    linalg.yield %add : f32
  } -> tensor<?xf32>
  %expanded = tensor.expand_shape %sum [[0, 1]] output_shape [%dim, 1] : tensor<?xf32> into tensor<?x1xf32>
  %n = arith.index_cast %dim_1 : index to i64
  %cast = arith.sitofp %n : i64 to f32
  %empty_1 = tensor.empty(%dim) : tensor<?x1xf32>
  %div_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<?x1xf32>) outs(%empty_1 : tensor<?x1xf32>) {
  ^bb0(%in_1: f32, %out_1: f32):
    %div = arith.divf %in_1, %cast : f32
    linalg.yield %div : f32
  } -> tensor<?x1xf32>
  %empty_2 = tensor.empty(%dim, %dim_1) : tensor<?x?xf32>
  %sub_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %div_1 : tensor<?x?xf32>, tensor<?x1xf32>) outs(%empty_2 : tensor<?x?xf32>) {
  ^bb0(%in_2: f32, %in_3: f32, %out_2: f32):
    %sub = arith.subf %in_2, %in_3 : f32
    linalg.yield %sub : f32
  } -> tensor<?x?xf32>
  %empty_3 = tensor.empty(%dim, %dim_1) : tensor<?x?xf32>
  %mul_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sub_1 : tensor<?x?xf32>) outs(%empty_3 : tensor<?x?xf32>) {
  ^bb0(%in_4: f32, %out_3: f32):
    %mul = arith.mulf %in_4, %in_4 : f32
    linalg.yield %mul : f32
  } -> tensor<?x?xf32>
  %empty_4 = tensor.empty(%dim) : tensor<?xf32>
  %init_1 = linalg.fill ins(%cst : f32) outs(%empty_4 : tensor<?xf32>) -> tensor<?xf32>
  %sum_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%mul_1 : tensor<?x?xf32>) outs(%init_1 : tensor<?xf32>) {
  ^bb0(%in_5: f32, %out_4: f32):
    %add_1 = arith.addf %out_4, %in_5 fastmath<reassoc> : f32
    linalg.yield %add_1 : f32
  } -> tensor<?xf32>
  %expanded_1 = tensor.expand_shape %sum_1 [[0, 1]] output_shape [%dim, 1] : tensor<?xf32> into tensor<?x1xf32>
  %n_1 = arith.index_cast %dim_1 : index to i64
  %cast_1 = arith.sitofp %n_1 : i64 to f32
  %empty_5 = tensor.empty(%dim) : tensor<?x1xf32>
  %div_3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%expanded_1 : tensor<?x1xf32>) outs(%empty_5 : tensor<?x1xf32>) {
  ^bb0(%in_6: f32, %out_5: f32):
    %div_2 = arith.divf %in_6, %cast_1 : f32
    linalg.yield %div_2 : f32
  } -> tensor<?x1xf32>
  %cst_1 = arith.constant 1.00000000000000008e-05 : f32
  %empty_6 = tensor.empty(%dim) : tensor<?x1xf32>
  %add_3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%div_3 : tensor<?x1xf32>) outs(%empty_6 : tensor<?x1xf32>) {
  ^bb0(%in_7: f32, %out_6: f32):
    %add_2 = arith.addf %in_7, %cst_1 : f32
    linalg.yield %add_2 : f32
  } -> tensor<?x1xf32>
  %empty_7 = tensor.empty(%dim) : tensor<?x1xf32>
  %sqrt_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%add_3 : tensor<?x1xf32>) outs(%empty_7 : tensor<?x1xf32>) {
  ^bb0(%in_8: f32, %out_7: f32):
    %sqrt = math.sqrt %in_8 : f32
    linalg.yield %sqrt : f32
  } -> tensor<?x1xf32>
  %empty_8 = tensor.empty(%dim, %dim_1) : tensor<?x?xf32>
  %div_5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sub_1, %sqrt_1 : tensor<?x?xf32>, tensor<?x1xf32>) outs(%empty_8 : tensor<?x?xf32>) {
  ^bb0(%in_9: f32, %in_10: f32, %out_8: f32):
    %div_4 = arith.divf %in_9, %in_10 : f32
    linalg.yield %div_4 : f32
  } -> tensor<?x?xf32>
  %dim_2 = tensor.dim %g, %c0 : tensor<?xf32>
  %bcast_ok = arith.cmpi eq, %dim_2, %dim_1 : index
  dlpack.assert %bcast_ok, shape_mismatch, "operands could not be broadcast together with shapes ({0},{1}) ({2},)" (%dim, %dim_1, %dim_2 : index, index, index)
  %empty_9 = tensor.empty(%dim, %dim_1) : tensor<?x?xf32>
  %mul_3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%div_5, %g : tensor<?x?xf32>, tensor<?xf32>) outs(%empty_9 : tensor<?x?xf32>) {
  ^bb0(%in_11: f32, %in_12: f32, %out_9: f32):
    %mul_2 = arith.mulf %in_11, %in_12 : f32
    linalg.yield %mul_2 : f32
  } -> tensor<?x?xf32>
  %dim_3 = tensor.dim %b, %c0 : tensor<?xf32>
  %bcast_ok_1 = arith.cmpi eq, %dim_3, %dim_1 : index
  dlpack.assert %bcast_ok_1, shape_mismatch, "operands could not be broadcast together with shapes ({0},{1}) ({2},)" (%dim, %dim_1, %dim_3 : index, index, index)
  %empty_10 = tensor.empty(%dim, %dim_1) : tensor<?x?xf32>
  %add_5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mul_3, %b : tensor<?x?xf32>, tensor<?xf32>) outs(%empty_10 : tensor<?x?xf32>) {
  ^bb0(%in_13: f32, %in_14: f32, %out_10: f32):
    %add_4 = arith.addf %in_13, %in_14 : f32
    linalg.yield %add_4 : f32
  } -> tensor<?x?xf32>
  return %add_5 : tensor<?x?xf32>
}
