// REQUIRES: ptxas
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=ptx" \
// RUN:   | FileCheck %s
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_80" \
// RUN:   -o /dev/null
// RUN: dl-opt %s --dlbridge-cuda-pipeline="format=cubin chip=sm_90" \
// RUN:   -o /dev/null

// Hand-written GPU code through the CUDA pipeline: every launch, generated
// or written, goes onto the stream of the entry's call (dlrt_call_stream),
// every kernel becomes PTX, and the cubin runs (ptxas for sm_80 and sm_90)
// check that ptxas accepts it.

module attributes {gpu.container_module} {

// gpu.launch with thread/block ids, shared memory (a workgroup
// attribution), a barrier and a shuffle.
// CHECK-LABEL: llvm.func @reverse_tiles(
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @reverse_tiles_kernel::@reverse_tiles_kernel
// CHECK-SAME: threads in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK: llvm.return
// CHECK: gpu.binary @reverse_tiles_kernel
// CHECK-SAME: .shared .align 4 .b8 __wg_reverse_tiles_kernel_0[512]
// CHECK-SAME: bar.sync
// CHECK-SAME: shfl.sync.bfly.b32
func.func @reverse_tiles(%x: memref<?xf32>, %y: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %blocks = arith.ceildivui %n, %c128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<128xf32, #gpu.address_space<workgroup>>) {
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %tid = gpu.thread_id x
    %base = arith.muli %bid, %bdim : index
    %i = arith.addi %base, %tid : index
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %tile[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %last = arith.subi %bdim, %c1 : index
    %j = arith.subi %last, %tid : index
    %w = memref.load %tile[%j] : memref<128xf32, #gpu.address_space<workgroup>>
    %one = arith.constant 1 : i32
    %width = arith.constant 32 : i32
    %s, %valid = gpu.shuffle xor %w, %one, %width : f32
    %t = arith.addf %w, %s : f32
    scf.if %in {
      memref.store %t, %y[%i] : memref<?xf32>
    }
    gpu.terminator
  }
  return
}

// Dynamic shared memory, sized at the launch.
// CHECK-LABEL: llvm.func @broadcast_first(
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @broadcast_first_kernel::@broadcast_first_kernel
// CHECK-SAME: dynamic_shared_memory_size
// CHECK: gpu.binary @broadcast_first_kernel
// CHECK-SAME: .shared .align 16 .b8 __dynamic_shmem__0
func.func @broadcast_first(%x: memref<64xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %bytes = arith.constant 256 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %bytes {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %view = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %view[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %view[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %w, %x[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// gpu.all_reduce (a built-in operation and a region) and gpu.subgroup_reduce
// of floats, doubles and integers.
// CHECK-LABEL: llvm.func @reductions(
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @reductions_kernel::@reductions_kernel
// CHECK: gpu.binary @reductions_kernel
// CHECK-SAME: bar.sync
// CHECK-SAME: shfl.sync.bfly.b32
func.func @reductions(%x: memref<256xf32>, %xd: memref<256xf64>, %xi: memref<256xi32>,
                      %out: memref<3xf32>, %outd: memref<1xf64>, %outi: memref<1xi32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<256xf32>
    %sum = gpu.all_reduce add %v uniform {} : (f32) -> f32
    %max = gpu.all_reduce %v uniform {
    ^bb0(%a: f32, %b: f32):
      %m = arith.maximumf %a, %b : f32
      gpu.yield %m : f32
    } : (f32) -> f32
    %warp = gpu.subgroup_reduce add %v uniform : (f32) -> f32
    %vd = memref.load %xd[%tx] : memref<256xf64>
    %warpd = gpu.subgroup_reduce maximumf %vd uniform : (f64) -> f64
    %vi = memref.load %xi[%tx] : memref<256xi32>
    %warpi = gpu.subgroup_reduce add %vi uniform : (i32) -> i32
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      memref.store %sum, %out[%c0] : memref<3xf32>
      memref.store %max, %out[%c1] : memref<3xf32>
      memref.store %warp, %out[%c2] : memref<3xf32>
      memref.store %warpd, %outd[%c0] : memref<1xf64>
      memref.store %warpi, %outi[%c0] : memref<1xi32>
    }
    gpu.terminator
  }
  return
}

// Vector code in a kernel: transfers with a permutation map and with
// out-of-bounds padding, a contraction, a reduction.
// CHECK-LABEL: llvm.func @vector_kernel(
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @vector_kernel_kernel::@vector_kernel_kernel
// CHECK: gpu.binary @vector_kernel_kernel
// CHECK-SAME: mul.rn.f32
func.func @vector_kernel(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>,
                         %v: memref<?xf32>, %sum: memref<1xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0.0 : f32
    %va = vector.transfer_read %a[%c0, %c0], %z : memref<4x8xf32>, vector<4x8xf32>
    %vb = vector.transfer_read %b[%c0, %c0], %z {permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<8x4xf32>, vector<4x8xf32>
    %vc = vector.transfer_read %c[%c0, %c0], %z : memref<4x4xf32>, vector<4x4xf32>
    %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<4x8xf32>, vector<4x8xf32> into vector<4x4xf32>
    vector.transfer_write %r, %c[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
    %vv = vector.transfer_read %v[%c0], %z : memref<?xf32>, vector<8xf32>
    %s = vector.reduction <add>, %vv : vector<8xf32> into f32
    memref.store %s, %sum[%c0] : memref<1xf32>
    gpu.terminator
  }
  return
}

// Tensor cores: one warp computes C += A * B on 16x16 f16 tiles.
// CHECK-LABEL: llvm.func @mma(
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @mma_kernel::@mma_kernel
// CHECK: gpu.binary @mma_kernel
// CHECK-SAME: wmma.load.a.sync.aligned.row.m16n16k16.f16
// CHECK-SAME: wmma.mma.sync.aligned.row.row.m16n16k16.f16.f16
// CHECK-SAME: wmma.store.d.sync.aligned.row.m16n16k16.f16
func.func @mma(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf16>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %A = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %B = gpu.subgroup_mma_load_matrix %b[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %C = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "COp">
    %D = gpu.subgroup_mma_compute %A, %B, %C : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf16, "COp">
    gpu.subgroup_mma_store_matrix %D, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf16, "COp">, memref<16x16xf16>
    gpu.terminator
  }
  return
}

// A gpu.module written by hand, launched with gpu.launch_func: its own
// stream handling (gpu.wait, async tokens) gives way to the call's stream.
// CHECK-LABEL: gpu.binary @kernels
// CHECK-SAME: .visible .entry axpy(
// CHECK-LABEL: llvm.func @axpy(
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// CHECK-NOT: mgpuStream
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@axpy
// CHECK-NOT: mgpuStream
// CHECK: llvm.return
gpu.module @kernels {
  func.func @madd(%a: f32, %x: f32, %y: f32) -> f32 {
    %p = arith.mulf %a, %x : f32
    %s = arith.addf %p, %y : f32
    return %s : f32
  }
  gpu.func @inc(%x: memref<?xf32>, %n: index) kernel {
    %i = gpu.global_id x
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      %v = memref.load %x[%i] : memref<?xf32>
      %one = arith.constant 1.0 : f32
      %w = arith.addf %v, %one : f32
      memref.store %w, %x[%i] : memref<?xf32>
    }
    gpu.return
  }
  gpu.func @axpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel {
    %i = gpu.global_id x
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      %xv = memref.load %x[%i] : memref<?xf32>
      %yv = memref.load %y[%i] : memref<?xf32>
      %s = func.call @madd(%a, %xv, %yv) : (f32, f32, f32) -> f32
      memref.store %s, %y[%i] : memref<?xf32>
    }
    gpu.return
  }
}
func.func @axpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %blocks = arith.ceildivui %n, %c256 : index
  %t0 = gpu.wait async
  %t1 = gpu.launch_func async [%t0] @kernels::@axpy
      blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
      args(%a : f32, %x : memref<?xf32>, %y : memref<?xf32>, %n : index)
  gpu.wait [%t1]
  return
}

// Launches in a helper the entry calls in a loop: the helper reads the
// stream of the call in progress itself.
// CHECK-LABEL: llvm.func @step(
// CHECK: %[[S:.*]] = llvm.call @dlrt_call_stream() : () -> !llvm.ptr
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@inc
// CHECK-LABEL: llvm.func @iterate(
// CHECK: llvm.call @step(
func.func private @step(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %blocks = arith.ceildivui %n, %c128 : index
  gpu.launch_func @kernels::@inc blocks in (%blocks, %c1, %c1)
      threads in (%c128, %c1, %c1) args(%x : memref<?xf32>, %n : index)
  return
}
func.func @iterate(%x: memref<?xf32>, %steps: index) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %steps step %c1 {
    func.call @step(%x) : (memref<?xf32>) -> ()
  }
  return
}

}
