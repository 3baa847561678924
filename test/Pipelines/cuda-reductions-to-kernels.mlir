// REQUIRES: ptxas
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx chip=sm_90" | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_80" -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_90" -o /dev/null

// Reductions through the CUDA pipeline (dlbridge-gpu-reductions-to-kernels):
// each becomes a kernel of 256-thread blocks (512 where a block takes a row;
// .maxntid, and .minnctapersm keeping their registers to 64) whose warps reduce
// with butterfly shuffles (shfl.sync.bfly) and combine across warps through
// shared memory (.shared, bar.sync); full reductions take two such kernels
// and a temporary device buffer. A row reduction takes the fill of its
// initial values into its kernel (cuda-row-kernels.mlir has more of such
// groups). ptxas accepts every kernel for sm_80 and sm_90.

// A row sum, starting from the fill's value: a warp per row where rows have
// at most 512 elements (shuffles alone), a block per row otherwise.
// CHECK-LABEL: llvm.func @row_sum(
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK-DAG: %[[BLOCK:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK-DAG: %[[ROWBLOCK:.*]] = llvm.mlir.constant(512 : index) : i64
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.launch_func {{.*}} @row_sum_kernel::@row_sum_kernel blocks in (%{{.*}}, %[[ONE]], %[[ONE]]) threads in (%[[BLOCK]], %[[ONE]], %[[ONE]])
// CHECK: gpu.launch_func {{.*}} @row_sum_kernel_{{[0-9]+}}::@row_sum_kernel blocks in (%{{.*}}, %[[ONE]], %[[ONE]]) threads in (%[[ROWBLOCK]], %[[ONE]], %[[ONE]])
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @row_sum_kernel [
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: ld.global.b32
// CHECK-SAME: st.global.b32
// CHECK-NOT: bar.sync
// CHECK: gpu.binary @row_sum_kernel_{{[0-9]+}} [
// CHECK-SAME: .maxntid 512, 1, 1
// CHECK-SAME: .minnctapersm 2
// CHECK-SAME: .shared .align 4 .b8 __wg_{{[a-z0-9_]*}}[64];
// CHECK-SAME: ld.global.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: st.shared.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: st.global.b32
func.func @row_sum(%x: tensor<?x?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %out, %in fastmath<reassoc> : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}

// Halves shuffle in 32-bit registers, and sit in 16-bit shared slots.
// CHECK-LABEL: llvm.func @row_max_f16(
// CHECK: gpu.binary @row_max_f16_kernel_{{[0-9]+}} [
// CHECK-SAME: .maxntid 512, 1, 1
// CHECK-SAME: .minnctapersm 2
// CHECK-SAME: .shared .align 2 .b8 __wg_{{[a-z0-9_]*}}[32];
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: max.NaN.f16
// CHECK-SAME: bar.sync
func.func @row_max_f16(%x: tensor<?x?xf16>) -> tensor<?xf16> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %ninf = arith.constant 0xFC00 : f16
  %e = tensor.empty(%m) : tensor<?xf16>
  %init = linalg.fill ins(%ninf : f16) outs(%e : tensor<?xf16>) -> tensor<?xf16>
  %r = linalg.reduce ins(%x : tensor<?x?xf16>) outs(%init : tensor<?xf16>) dimensions = [1]
    (%in: f16, %out: f16) {
      %s = arith.maximumf %out, %in : f16
      linalg.yield %s : f16
    }
  return %r : tensor<?xf16>
}

// A full reduction: partial sums of up to 1024 blocks in a temporary
// buffer, then one block; f64 shuffles as two 32-bit halves.
// CHECK-LABEL: llvm.func @full_sum_f64(
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK-DAG: %[[BLOCK:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK: llvm.call @mgpuMemAlloc(
// CHECK: %[[PARTS:.*]] = llvm.call @mgpuMemAlloc(
// CHECK: gpu.launch_func {{.*}} @full_sum_f64_kernel_{{[0-9]+}}::@full_sum_f64_kernel blocks in (%[[SPLIT:.*]], %[[ONE]], %[[ONE]]) threads in (%[[BLOCK]], %[[ONE]], %[[ONE]])
// CHECK-NEXT: gpu.launch_func {{.*}} @full_sum_f64_kernel_{{[0-9]+}}::@full_sum_f64_kernel blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[BLOCK]], %[[ONE]], %[[ONE]])
// CHECK: llvm.call @mgpuMemFree(%[[PARTS]],
// CHECK: gpu.binary @full_sum_f64_kernel_{{[0-9]+}} [
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: .shared .align 8 .b8 __wg_{{[a-z0-9_]*}}[64];
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: add.rn.f64
// CHECK-SAME: bar.sync
// CHECK: gpu.binary @full_sum_f64_kernel_{{[0-9]+}} [
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
func.func @full_sum_f64(%x: tensor<?xf64>) -> tensor<f64> attributes {dlpack.entry} {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<f64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %r = linalg.reduce ins(%x : tensor<?xf64>) outs(%init : tensor<f64>) dimensions = [0]
    (%in: f64, %out: f64) {
      %s = arith.addf %out, %in : f64
      linalg.yield %s : f64
    }
  return %r : tensor<f64>
}

// Bools: bytes in memory, 32-bit values between threads.
// CHECK-LABEL: llvm.func @any_rows(
// CHECK: gpu.binary @any_rows_kernel_{{[0-9]+}} [
// CHECK-SAME: .maxntid 512, 1, 1
// CHECK-SAME: .minnctapersm 2
// CHECK-SAME: .shared .align 4 .b8 __wg_{{[a-z0-9_]*}}[64];
// CHECK-SAME: ld.global.b8
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: or.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: st.global.b8
func.func @any_rows(%x: tensor<?x?xi1>) -> tensor<?xi1> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xi1>
  %false = arith.constant false
  %e = tensor.empty(%m) : tensor<?xi1>
  %init = linalg.fill ins(%false : i1) outs(%e : tensor<?xi1>) -> tensor<?xi1>
  %r = linalg.reduce ins(%x : tensor<?x?xi1>) outs(%init : tensor<?xi1>) dimensions = [1]
    (%in: i1, %out: i1) {
      %s = arith.ori %out, %in : i1
      linalg.yield %s : i1
    }
  return %r : tensor<?xi1>
}

// Bytes summed into int64 over every dimension of a matrix.
// CHECK-LABEL: llvm.func @sum_i8_to_i64(
// CHECK: gpu.binary @sum_i8_to_i64_kernel_{{[0-9]+}} [
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: .shared .align 8 .b8 __wg_{{[a-z0-9_]*}}[64];
// CHECK-SAME: ld.global.s8
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: add.s64
// CHECK-SAME: bar.sync
func.func @sum_i8_to_i64(%x: tensor<?x?xi8>) -> tensor<i64> attributes {dlpack.entry} {
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %init = linalg.fill ins(%zero : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<?x?xi8>) outs(%init : tensor<i64>) {
  ^bb0(%in: i8, %out: i64):
    %w = arith.extsi %in : i8 to i64
    %s = arith.addi %out, %w : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  return %r : tensor<i64>
}

// CHECK-LABEL: llvm.func @min_bf16(
// CHECK: gpu.binary @min_bf16_kernel_{{[0-9]+}} [
// CHECK-SAME: .maxntid 512, 1, 1
// CHECK-SAME: .minnctapersm 2
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
func.func @min_bf16(%x: tensor<?x?xbf16>) -> tensor<?xbf16> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %inf = arith.constant 0x7F80 : bf16
  %e = tensor.empty(%m) : tensor<?xbf16>
  %init = linalg.fill ins(%inf : bf16) outs(%e : tensor<?xbf16>) -> tensor<?xbf16>
  %r = linalg.reduce ins(%x : tensor<?x?xbf16>) outs(%init : tensor<?xbf16>) dimensions = [1]
    (%in: bf16, %out: bf16) {
      %s = arith.minimumf %out, %in : bf16
      linalg.yield %s : bf16
    }
  return %r : tensor<?xbf16>
}

// Softmax rows: one kernel, a block per row, runs both cooperative row
// reductions (max, then the sum of the exponentials) and the elementwise
// ops on the row.
// CHECK-LABEL: llvm.func @softmax(
// CHECK: gpu.launch_func {{.*}} @softmax_kernel::@softmax_kernel
// CHECK: gpu.launch_func {{.*}} @softmax_kernel_{{[0-9]+}}::@softmax_kernel
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @softmax_kernel_{{[0-9]+}} [
// CHECK-SAME: .maxntid 512, 1, 1
// CHECK-SAME: .minnctapersm 2
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: max.NaN.f32
// CHECK-SAME: bar.sync
// CHECK-SAME: ex2.approx
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: add.rn.f32
// CHECK-SAME: bar.sync
// CHECK-SAME: div.rn.f32
// CHECK-NOT: gpu.binary @softmax
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%m) : tensor<?xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  %mx = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%mi : tensor<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.maximumf %out, %in : f32
      linalg.yield %s : f32
    }
  %e1 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%x, %mx : tensor<?x?xf32>, tensor<?xf32>) outs(%e1 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  %sm = linalg.reduce ins(%ex : tensor<?x?xf32>) outs(%si : tensor<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %out, %in : f32
      linalg.yield %s : f32
    }
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sm : tensor<?x?xf32>, tensor<?xf32>) outs(%e1 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.divf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// A column max: 256-thread blocks on tiles of adjacent columns, whose
// threads fold further rows and combine through shared memory (no
// shuffles); the fill is the initial value, no kernel of its own. Three
// kernels: tiles writing partial values along a split reduced axis, a
// thread per column combining them, and tiles writing the output where no
// split is needed.
// CHECK-LABEL: llvm.func @col_max(
// CHECK: gpu.binary @col_max_kernel {{.*}}.maxntid 256, 1, 1
// CHECK-SAME: max.NaN.f32
// CHECK-SAME: bar.sync
// CHECK-NOT: shfl.sync
// CHECK: gpu.binary @col_max_kernel_{{[0-9]+}} {{.*}}.maxntid 256, 1, 1
// CHECK-SAME: max.NaN.f32
// CHECK-NOT: .shared
// CHECK: gpu.binary @col_max_kernel_{{[0-9]+}} {{.*}}.maxntid 256, 1, 1
// CHECK-SAME: max.NaN.f32
// CHECK-SAME: bar.sync
// CHECK-NOT: shfl.sync
func.func @col_max(%x: tensor<?x?xf32>) -> tensor<?xf32> attributes {dlpack.entry} {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) dimensions = [0]
    (%in: f32, %out: f32) {
      %s = arith.maximumf %out, %in : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}
