// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{warp-row-length=0}))' \
// RUN:   | FileCheck %s
// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{row-cache-bytes=0 warp-row-length=0}))' \
// RUN:   | FileCheck %s --check-prefix=NOCACHE

// The row cache of row groups (row-cache-bytes): an input row that several
// members read is copied into shared memory once, and the members read it
// there.

// Softmax over contiguous rows reads x for its max, its sum and its output.
// (warp-row-length=0: rows of any length get a block.)
// The host asks for a row of x in dynamic shared memory (16-byte multiples)
// when it fits in 96 KiB, none otherwise; the kernel, where it fits, copies
// the row in before the max, four 16-byte chunks per thread at a time
// between barriers, and every member reads the copy; longer rows run as
// without the cache.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:[^ ,)]*]]: memref<?x?xf32>, %[[Y:[^ ,)]*]]: memref<?x?xf32>
// CHECK: %[[X3:[^ ,)]*]] = memref.expand_shape %[[X]]
// CHECK: %[[BYTES:[^ ,)]*]] = arith.muli %[[LEN:[^ ,)]*]], %c4
// CHECK: %[[PADDED:[^ ,)]*]] = arith.muli %{{.*}}, %c16
// CHECK: %[[FITS:[^ ,)]*]] = arith.cmpi ule, %[[TOTAL:[^ ,)]*]], %c98304
// CHECK: %[[ASK:[^ ,)]*]] = arith.select %[[FITS]], %[[TOTAL]], %c0
// CHECK: %[[ASK32:[^ ,)]*]] = arith.index_cast %[[ASK]] : index to i32
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %[[ASK32]]
// CHECK: scf.for %[[ROW:[^ ,)]*]] =
// CHECK: %[[FITS_IN:[^ ,)]*]] = arith.cmpi ule, %{{.*}}, %c98304
// CHECK: scf.if %[[FITS_IN]] {
// CHECK: %[[SHARED:[^ ,)]*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[VIEW:[^ ,)]*]] = memref.view %[[SHARED]][%{{.*}}][%[[LEN]]] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
// CHECK: %[[ROWX:[^ ,)]*]] = memref.memory_space_cast %[[VIEW]] : memref<?xf32, #gpu.address_space<workgroup>> to memref<?xf32>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: scf.for %[[START:[^ ,)]*]] =
// CHECK-COUNT-4: vector.load %[[X3]][%[[ROW]], %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x1x?xf32>, vector<4xf32>
// CHECK-COUNT-4: vector.store %{{.*}}, %[[ROWX]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK: %[[VIEW3:[^ ,)]*]] = memref.reinterpret_cast %[[ROWX]] to offset: [0], sizes: [%{{.*}}, 1, %{{.*}}], strides: [0, 0, 1]
// CHECK-NOT: memref.load %[[X3]]
// CHECK-NOT: vector.load %[[X3]]
// CHECK: vector.load %[[VIEW3]]
// CHECK: arith.maximumf
// CHECK: gpu.subgroup_reduce maximumf
// CHECK: %[[VIEW2:[^ ,)]*]] = memref.reinterpret_cast %[[ROWX]] to offset: [0], sizes: [%{{.*}}, %{{.*}}], strides: [0, 1]
// CHECK-NOT: %[[X]][
// CHECK: vector.load %[[VIEW2]]
// CHECK: math.exp
// CHECK: gpu.subgroup_reduce add
// CHECK: %[[VIEW2B:[^ ,)]*]] = memref.reinterpret_cast %[[ROWX]] to offset: [0], sizes: [%{{.*}}, %{{.*}}], strides: [0, 1]
// CHECK: vector.load %[[VIEW2B]]
// CHECK: arith.divf
// CHECK: vector.store %{{.*}}, %[[Y]]
// CHECK: } else {
// CHECK-NOT: gpu.dynamic_shared_memory
// CHECK: vector.load %[[X3]]
// NOCACHE-LABEL: func.func @softmax(
// NOCACHE-NOT: dynamic_shared_memory
// NOCACHE: return
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d0, 0)>
#row2 = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %max = memref.alloc(%m) : memref<?xf32>
  %max1 = memref.expand_shape %max [[0, 1]] output_shape [%m, 1] : memref<?xf32> into memref<?x1xf32>
  linalg.fill ins(%ninf : f32) outs(%max1 : memref<?x1xf32>)
  %x3 = memref.expand_shape %x [[0, 1], [2]] output_shape [%m, 1, %n] : memref<?x?xf32> into memref<?x1x?xf32>
  linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x3 : memref<?x1x?xf32>) outs(%max1 : memref<?x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.maximumf %out, %in : f32
    linalg.yield %v : f32
  }
  %sum = memref.alloc(%m) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
  linalg.generic {indexing_maps = [#id2, #bcast, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max1 : memref<?x?xf32>, memref<?x1xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %v = arith.addf %out, %e : f32
    linalg.yield %v : f32
  }
  %sum1 = memref.expand_shape %sum [[0, 1]] output_shape [%m, 1] : memref<?xf32> into memref<?x1xf32>
  linalg.generic {indexing_maps = [#id2, #bcast, #bcast, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max1, %sum1 : memref<?x?xf32>, memref<?x1xf32>, memref<?x1xf32>)
      outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %mx: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %v = arith.divf %e, %s : f32
    linalg.yield %v : f32
  }
  memref.dealloc %max : memref<?xf32>
  memref.dealloc %sum : memref<?xf32>
  return
}

// -----

// A row read once (a sum, then a scale of the sums' buffer alone) needs no
// copy: no dynamic shared memory.
// CHECK-LABEL: func.func @read_once(
// CHECK: gpu.launch
// CHECK-NOT: dynamic_shared_memory
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @read_once(%x: memref<?x?xf32>, %sum: memref<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %out, %in : f32
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]}
      outs(%sum : memref<?xf32>) {
  ^bb0(%out: f32):
    %v = arith.mulf %out, %two : f32
    linalg.yield %v : f32
  }
  return
}

// -----

// A row a member writes (x normalised in place by its sum) is no input: it
// stays in device memory, where the members read and write it.
// CHECK-LABEL: func.func @in_place(
// CHECK: gpu.launch
// CHECK-NOT: dynamic_shared_memory
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d0, 0)>
#row2 = affine_map<(d0, d1) -> (d0)>
func.func @in_place(%x: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %sum = memref.alloc(%m) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %out, %in : f32
    linalg.yield %v : f32
  }
  %sum1 = memref.expand_shape %sum [[0, 1]] output_shape [%m, 1] : memref<?xf32> into memref<?x1xf32>
  linalg.generic {indexing_maps = [#bcast, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%sum1 : memref<?x1xf32>) outs(%x : memref<?x?xf32>) {
  ^bb0(%s: f32, %out: f32):
    %v = arith.divf %out, %s : f32
    linalg.yield %v : f32
  }
  memref.dealloc %sum : memref<?xf32>
  return
}
