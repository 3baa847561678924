// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{row-block-size=256 row-cache-bytes=0 warp-row-length=0}))' \
// RUN:   | FileCheck %s
// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{fuse-rows=false}))' \
// RUN:   | FileCheck %s --check-prefix=NOFUSE
// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{block-size=32 row-block-size=32 row-cache-bytes=0 warp-row-length=0}))' \
// RUN:   | FileCheck %s --check-prefix=WARP

// Row groups of dlbridge-gpu-reductions-to-kernels (fuse-rows): a row
// reduction and the ops on the same rows around it become one kernel, a
// block per row running the ops in order on its row.

// Softmax as bufferization leaves it: a fill and a max through `?x1` views
// (the max over a ?x1x? view of x), a shape check, a fill and a sum of
// exp(x - max), then the elementwise op reading both through `?x1` views.
// One launch: the fill of -inf is the max's initial value, thread 0 stores
// the max and the sum, the later ops use the values every thread holds,
// and the last op's loop spreads the row over the threads as the
// reductions do.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:[^ ,)]*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[Y:[^ ,)]*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-DAG: %[[NINF:[^ ,)]*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:[^ ,)]*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[MAX:[^ ,)]*]] = memref.alloc
// CHECK: %[[MAX1:[^ ,)]*]] = memref.expand_shape %[[MAX]]
// CHECK: %[[X3:[^ ,)]*]] = memref.expand_shape %[[X]]
// CHECK: dlpack.assert
// CHECK: %[[SUM:[^ ,)]*]] = memref.alloc
// CHECK-NOT: linalg.
// CHECK: gpu.launch blocks(%{{.*}}) threads(%[[TX:[^ ,)]*]], %{{.*}}) in (%[[NT:[^ ,)]*]] = %c256{{.*}}) workgroup(%[[SMEM:[^ ,)]*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %[[ROW:[^ ,)]*]] =
// CHECK: %[[PMAX:[^ ,)]*]] = scf.for %[[K:[^ ,)]*]] = %[[TX]] to %[[LEN:[^ ,)]*]] step %[[NT]]
// CHECK: memref.load %[[X3]][%[[ROW]], %{{.*}}, %[[K]]]
// CHECK: arith.maximumf
// CHECK: gpu.subgroup_reduce maximumf %[[PMAX]]
// CHECK: gpu.barrier
// CHECK: %[[BMAX:[^ ,)]*]] = gpu.subgroup_reduce maximumf
// CHECK: gpu.barrier
// CHECK: %[[RMAX:[^ ,)]*]] = arith.maximumf %[[NINF]], %[[BMAX]] : f32
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[RMAX]], %[[MAX1]][%[[ROW]], %{{.*}}]
// CHECK: %[[PSUM:[^ ,)]*]] = scf.for %[[K:[^ ,)]*]] = %[[TX]] to %[[LEN]] step %[[NT]]
// CHECK: %[[XK:[^ ,)]*]] = memref.load %[[X]][%[[ROW]], %[[K]]]
// CHECK: arith.subf %[[XK]], %[[RMAX]] : f32
// CHECK: math.exp
// CHECK: gpu.subgroup_reduce add %[[PSUM]]
// CHECK: gpu.barrier
// CHECK: %[[BSUM:[^ ,)]*]] = gpu.subgroup_reduce add
// CHECK: gpu.barrier
// CHECK: %[[RSUM:[^ ,)]*]] = arith.addf %[[ZERO]], %[[BSUM]] : f32
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[RSUM]], %[[SUM]][%[[ROW]]]
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %[[K:[^ ,)]*]] = %[[TX]] to %[[LEN]] step %[[NT]] {
// CHECK: %[[XK:[^ ,)]*]] = memref.load %[[X]][%[[ROW]], %[[K]]]
// CHECK: %[[D:[^ ,)]*]] = arith.subf %[[XK]], %[[RMAX]] : f32
// CHECK: %[[E:[^ ,)]*]] = math.exp %[[D]]
// CHECK: %[[V:[^ ,)]*]] = arith.divf %[[E]], %[[RSUM]] : f32
// CHECK: memref.store %[[V]], %[[Y]][%[[ROW]], %[[K]]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK-NOT: linalg.
// CHECK: memref.dealloc %[[MAX]]
// NOFUSE-LABEL: func.func @softmax(
// NOFUSE: linalg.fill
// NOFUSE: gpu.launch
// NOFUSE: linalg.fill
// NOFUSE: gpu.launch
// NOFUSE: linalg.generic
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d0, 0)>
#row2 = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                   %y: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %n = memref.dim %x, %c1 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %max = memref.alloc(%m) : memref<?xf32>
  %max1 = memref.expand_shape %max [[0, 1]] output_shape [%m, 1] : memref<?xf32> into memref<?x1xf32>
  linalg.fill ins(%ninf : f32) outs(%max1 : memref<?x1xf32>)
  %x3 = memref.expand_shape %x [[0, 1], [2]] output_shape [%m, 1, %n] : memref<?x?xf32, strided<[?, ?], offset: ?>> into memref<?x1x?xf32, strided<[?, ?, ?], offset: ?>>
  linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x3 : memref<?x1x?xf32, strided<[?, ?, ?], offset: ?>>) outs(%max1 : memref<?x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.maximumf %out, %in : f32
    linalg.yield %v : f32
  }
  %ok = arith.cmpi sge, %m, %c0 : index
  dlpack.assert %ok, shape_mismatch, "negative"
  %sum = memref.alloc(%m) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
  linalg.generic {indexing_maps = [#id2, #bcast, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max1 : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x1xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %v = arith.addf %out, %e : f32
    linalg.yield %v : f32
  }
  %sum1 = memref.expand_shape %sum [[0, 1]] output_shape [%m, 1] : memref<?xf32> into memref<?x1xf32>
  linalg.generic {indexing_maps = [#id2, #bcast, #bcast, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max1, %sum1 : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x1xf32>, memref<?x1xf32>)
      outs(%y : memref<?x?xf32, strided<[?, ?], offset: ?>>) {
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

// Layer norm written out: sum, mean (on per-row `?x1` values), x - mean to
// a buffer, the sum of its squares, rsqrt (on a vector of rows) and the
// scaled output. One launch; the variance loop reads back the elements of
// x - mean that the same thread stored (the same map, the same columns).
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME: %[[X:[^ ,)]*]]: memref<?x?xf32>, %[[G:[^ ,)]*]]: memref<?xf32>, %[[B:[^ ,)]*]]: memref<?xf32>, %[[Y:[^ ,)]*]]: memref<?x?xf32>
// CHECK: %[[D:[^ ,)]*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf32>
// CHECK-NOT: linalg.
// CHECK: gpu.launch
// CHECK: scf.for %[[ROW:[^ ,)]*]] =
// CHECK: memref.load %[[X]]
// CHECK: gpu.subgroup_reduce add
// CHECK: %[[TOTAL:[^ ,)]*]] = gpu.subgroup_reduce add
// CHECK: %[[S:[^ ,)]*]] = arith.addf %{{.*}}, %[[TOTAL]] : f32
// CHECK: %[[MEAN:[^ ,)]*]] = arith.divf %[[S]], %{{.*}} : f32
// CHECK: scf.for %[[K:[^ ,)]*]] =
// CHECK: %[[XK:[^ ,)]*]] = memref.load %[[X]][%[[ROW]], %[[K]]]
// CHECK: %[[DK:[^ ,)]*]] = arith.subf %[[XK]], %[[MEAN]] : f32
// CHECK: memref.store %[[DK]], %[[D]][%[[ROW]], %[[K]]]
// CHECK: scf.for %[[K:[^ ,)]*]] = {{.*}} iter_args
// CHECK: memref.load %[[D]][%[[ROW]], %[[K]]]
// CHECK: arith.mulf
// CHECK: gpu.subgroup_reduce add
// CHECK: gpu.subgroup_reduce add
// CHECK: %[[RSTD:[^ ,)]*]] = math.rsqrt
// CHECK: scf.for %[[K:[^ ,)]*]] =
// CHECK: memref.load %[[D]][%[[ROW]], %[[K]]]
// CHECK: memref.load %[[G]][%[[K]]]
// CHECK: arith.mulf %{{.*}}, %[[RSTD]] : f32
// CHECK: memref.store %{{.*}}, %[[Y]][%[[ROW]], %[[K]]]
// CHECK-NOT: gpu.launch
// CHECK-NOT: linalg.
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d0, 0)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#vec = affine_map<(d0) -> (d0)>
func.func @layer_norm(%x: memref<?x?xf32>, %g: memref<?xf32>, %b: memref<?xf32>,
                      %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %sum = memref.alloc(%m) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%sum : memref<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %out, %in : f32
      linalg.yield %s : f32
    }
  %mean = memref.alloc(%m) : memref<?x1xf32>
  %sum1 = memref.expand_shape %sum [[0, 1]] output_shape [%m, 1] : memref<?xf32> into memref<?x1xf32>
  linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum1 : memref<?x1xf32>) outs(%mean : memref<?x1xf32>) {
  ^bb0(%s: f32, %out: f32):
    %v = arith.divf %s, %nf : f32
    linalg.yield %v : f32
  }
  %d = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.generic {indexing_maps = [#id, #bcast, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : memref<?x?xf32>, memref<?x1xf32>) outs(%d : memref<?x?xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %v = arith.subf %in, %mu : f32
    linalg.yield %v : f32
  }
  %var = memref.alloc(%m) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%var : memref<?xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%d : memref<?x?xf32>) outs(%var : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %v = arith.addf %out, %sq : f32
    linalg.yield %v : f32
  }
  %rstd = memref.alloc(%m) : memref<?xf32>
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%var : memref<?xf32>) outs(%rstd : memref<?xf32>) {
  ^bb0(%v: f32, %out: f32):
    %mv = arith.divf %v, %nf : f32
    %ve = arith.addf %mv, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d, %rstd, %g, %b : memref<?x?xf32>, memref<?xf32>, memref<?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %r: f32, %gi: f32, %bi: f32, %out: f32):
    %n1 = arith.mulf %in, %r : f32
    %s1 = arith.mulf %n1, %gi : f32
    %v = arith.addf %s1, %bi : f32
    linalg.yield %v : f32
  }
  return
}

// -----

// A consumer that reads the row maxima by column (another row's value)
// cannot join: the fill and the max are one kernel, the consumer stays.
// CHECK-LABEL: func.func @other_row(
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @other_row(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %max = memref.alloc(%m) : memref<?xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%max : memref<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %v = arith.maximumf %out, %in : f32
      linalg.yield %v : f32
    }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %v = arith.subf %in, %mx : f32
    linalg.yield %v : f32
  }
  memref.dealloc %max : memref<?xf32>
  return
}

// -----

// A column reduction (the innermost loop parallel) has no rows to share:
// its own kernels (which take the fill's value as the initial one) and the
// consumer stay apart.
// CHECK-LABEL: func.func @column_reduction(
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK: arith.maximumf
// CHECK: linalg.generic
func.func @column_reduction(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %ninf = arith.constant 0xFF800000 : f32
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %max = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%max : memref<?xf32>) dimensions = [0]
    (%in: f32, %out: f32) {
      %v = arith.maximumf %out, %in : f32
      linalg.yield %v : f32
    }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %v = arith.subf %in, %mx : f32
    linalg.yield %v : f32
  }
  memref.dealloc %max : memref<?xf32>
  return
}

// -----

// A store between the reduction and its consumer: the consumer may not
// run before it, so it stays apart.
// CHECK-LABEL: func.func @store_between(
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: memref.store
// CHECK-NEXT: linalg.generic
func.func @store_between(%x: memref<?x?xf32>, %y: memref<?x?xf32>, %flag: memref<f32>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %max = memref.alloc(%m) : memref<?xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%max : memref<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %v = arith.maximumf %out, %in : f32
      linalg.yield %v : f32
    }
  memref.store %ninf, %flag[] : memref<f32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %v = arith.subf %in, %mx : f32
    linalg.yield %v : f32
  }
  memref.dealloc %max : memref<?xf32>
  return
}

// -----

// A per-row buffer read before the op that writes it (here the sums, read
// by the op after the max): thread 0 would store a row's value while other
// threads may still read it, so the group ends there and the sum (with its
// fill) is a kernel of its own.
// CHECK-LABEL: func.func @read_before_write(
// CHECK-SAME: %[[X:[^ ,)]*]]: memref<?x?xf32>, %[[Y:[^ ,)]*]]: memref<?x?xf32>, %[[SUM:[^ ,)]*]]: memref<?xf32>
// CHECK-NOT: linalg.
// CHECK: gpu.launch
// CHECK: arith.maximumf
// CHECK: scf.for
// CHECK: memref.load %[[SUM]]
// CHECK: gpu.terminator
// CHECK-NOT: linalg.
// CHECK: gpu.launch
// CHECK: arith.addf
// CHECK: gpu.terminator
// CHECK-NOT: linalg.
// CHECK: return
func.func @read_before_write(%x: memref<?x?xf32>, %y: memref<?x?xf32>, %sum: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %max = memref.alloc(%m) : memref<?xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%max : memref<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %v = arith.maximumf %out, %in : f32
      linalg.yield %v : f32
    }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : memref<?x?xf32>, memref<?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %mx: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %v = arith.divf %d, %s : f32
    linalg.yield %v : f32
  }
  linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%sum : memref<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %v = arith.addf %out, %in : f32
      linalg.yield %v : f32
    }
  memref.dealloc %max : memref<?xf32>
  return
}

// -----

// Other columns: the consumer runs over y's columns, which need not be
// x's, and stays apart.
// CHECK-LABEL: func.func @other_columns(
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK: linalg.generic
func.func @other_columns(%x: memref<?x?xf32>, %z: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %max = memref.alloc(%m) : memref<?xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%max : memref<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %v = arith.maximumf %out, %in : f32
      linalg.yield %v : f32
    }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%z, %max : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %v = arith.subf %in, %mx : f32
    linalg.yield %v : f32
  }
  memref.dealloc %max : memref<?xf32>
  return
}

// -----

// Few rows (4, at most split-rows): the split lowering fills the GPU
// better; nothing is grouped.
// CHECK-LABEL: func.func @few_rows(
// CHECK: linalg.fill
// CHECK: memref.alloc() : memref<4x1024xf32>
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: linalg.generic
func.func @few_rows(%x: memref<4x1000xf32>, %y: memref<4x1000xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %max = memref.alloc() : memref<4xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<4xf32>)
  linalg.reduce ins(%x : memref<4x1000xf32>) outs(%max : memref<4xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %v = arith.maximumf %out, %in : f32
      linalg.yield %v : f32
    }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : memref<4x1000xf32>, memref<4xf32>) outs(%y : memref<4x1000xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %v = arith.subf %in, %mx : f32
    linalg.yield %v : f32
  }
  memref.dealloc %max : memref<4xf32>
  return
}

// -----

// No fill: every thread loads the row's initial value before the
// reduction; with one warp, which has no barrier in its reduction, thread 0
// stores only after a barrier, when every thread has loaded it.
// CHECK-LABEL: func.func @loaded_init(
// WARP-LABEL: func.func @loaded_init(
// WARP-SAME: %[[X:[^ ,)]*]]: memref<?x?xf32>, %[[Y:[^ ,)]*]]: memref<?x?xf32>, %[[SUM:[^ ,)]*]]: memref<?xf32>
// WARP: gpu.launch
// WARP-NOT: workgroup
// WARP: scf.for %[[ROW:[^ ,)]*]] =
// WARP: %[[INIT:[^ ,)]*]] = memref.load %[[SUM]][%[[ROW]]]
// WARP: %[[PART:[^ ,)]*]] = scf.if
// WARP: %[[TOTAL:[^ ,)]*]] = gpu.subgroup_reduce add %[[PART]]
// WARP-NEXT: gpu.barrier
// WARP-NEXT: %[[R:[^ ,)]*]] = arith.addf %[[INIT]], %[[TOTAL]] : f32
// WARP: memref.store %[[R]], %[[SUM]][%[[ROW]]]
// WARP: scf.for
// WARP: arith.mulf %{{.*}}, %[[R]] : f32
func.func @loaded_init(%x: memref<?x?xf32>, %y: memref<?x?xf32>, %sum: memref<?xf32>) {
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%sum : memref<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %v = arith.addf %out, %in : f32
      linalg.yield %v : f32
    }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : memref<?x?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %v = arith.mulf %in, %s : f32
    linalg.yield %v : f32
  }
  return
}

// -----

// Reductions of two types in one group: a workgroup buffer for each type
// that threads exchange (bytes as i32).
// CHECK-LABEL: func.func @two_types(
// CHECK: gpu.launch {{.*}} workgroup(%[[F:[^ ,)]*]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[I:[^ ,)]*]] : memref<8xi32, #gpu.address_space<workgroup>>)
// CHECK: gpu.subgroup_reduce add
// CHECK: memref.store %{{.*}}, %[[F]]
// CHECK: gpu.subgroup_reduce maxsi
// CHECK: memref.store %{{.*}}, %[[I]]
// CHECK: arith.sitofp
// CHECK-NOT: gpu.launch
// CHECK-NOT: linalg.
func.func @two_types(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n0 = memref.dim %x, %c1 : memref<?x?xf32>
  %m0 = memref.dim %x, %c0 : memref<?x?xf32>
  %k = memref.alloc(%m0, %n0) : memref<?x?xi8>
  %zero = arith.constant 0.0 : f32
  %izero = arith.constant 0 : i8
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %s = memref.alloc(%m) : memref<?xf32>
  %c = memref.alloc(%m) : memref<?xi8>
  linalg.fill ins(%zero : f32) outs(%s : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%s : memref<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %v = arith.addf %out, %in : f32
      linalg.yield %v : f32
    }
  linalg.fill ins(%izero : i8) outs(%c : memref<?xi8>)
  linalg.reduce ins(%k : memref<?x?xi8>) outs(%c : memref<?xi8>) dimensions = [1]
    (%in: i8, %out: i8) {
      %v = arith.maxsi %out, %in : i8
      linalg.yield %v : i8
    }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %s, %c : memref<?x?xf32>, memref<?xf32>, memref<?xi8>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %sv: f32, %cv: i8, %out: f32):
    %f = arith.sitofp %cv : i8 to f32
    %v = arith.mulf %in, %sv : f32
    %w = arith.addf %v, %f : f32
    linalg.yield %w : f32
  }
  return
}

// -----

// Contiguous rows: every member moves 16 bytes per access where the row is
// aligned. A row buffer one member writes and the next reads is shared
// through a barrier, since the vector and element-wise loops give a thread
// different elements.
// CHECK-LABEL: func.func @shared_row_buffer(
// CHECK-SAME: %[[X:[^ ,)]*]]: memref<?x?xf32>, %[[T:[^ ,)]*]]: memref<?x?xf32>, %[[SUM:[^ ,)]*]]: memref<?xf32>
// CHECK: gpu.launch
// CHECK: scf.for %[[ROW:[^ ,)]*]] =
// CHECK: vector.load %[[X]][%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK-COUNT-4: math.exp
// CHECK: vector.store %{{.*}}, %[[T]][%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK: memref.store %{{.*}}, %[[T]]
// CHECK: } else {
// CHECK: memref.store %{{.*}}, %[[T]]
// CHECK: gpu.barrier
// CHECK-NEXT: memref.load %[[SUM]][%[[ROW]]]
// CHECK: vector.load %[[T]][%[[ROW]], %{{.*}}] {alignment = 16 : i64}
// CHECK: gpu.subgroup_reduce add
// NOFUSE-LABEL: func.func @shared_row_buffer(
// NOFUSE-NOT: gpu.barrier
// NOFUSE: linalg.generic
func.func @shared_row_buffer(%x: memref<?x?xf32>, %t: memref<?x?xf32>, %sum: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xf32>) outs(%t : memref<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.reduce ins(%t : memref<?x?xf32>) outs(%sum : memref<?xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %v = arith.addf %out, %in : f32
      linalg.yield %v : f32
    }
  return
}
