// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels))' \
// RUN:   | FileCheck %s
// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-reductions-to-kernels{block-size=128 split-rows=0}))' \
// RUN:   | FileCheck %s --check-prefix=SMALL

// A row sum over any strides: a block of 256 threads per row, in a
// grid-stride loop over rows; each thread folds every 256th element into
// the identity (-0.0), the warps reduce with shuffles, and through eight
// slots of workgroup memory across warps; thread 0 adds the result to the
// output's initial value.
// CHECK-LABEL: func.func @row_sum(
// CHECK-SAME: %[[X:[^ ,)]*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[Y:[^ ,)]*]]: memref<?xf32, strided<[?], offset: ?>>
// CHECK-NOT: linalg.reduce
// CHECK-DAG: %[[ROWS:[^ ,)]*]] = memref.dim %[[X]], %c0
// CHECK-DAG: %[[LEN:[^ ,)]*]] = memref.dim %[[X]], %c1
// CHECK: %[[GRID:[^ ,)]*]] = arith.minui %[[ROWS]], %c1048576
// CHECK: gpu.launch blocks(%[[BX:[^ ,)]*]], %{{.*}}, %{{.*}}) in (%[[GX:[^ ,)]*]] = %[[GRID]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[TX:[^ ,)]*]], %{{.*}}, %{{.*}}) in (%[[NT:[^ ,)]*]] = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[SMEM:[^ ,)]*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %[[ROW:[^ ,)]*]] = %[[BX]] to %[[ROWS]] step %[[GX]]
// CHECK: %[[NEG0:[^ ,)]*]] = arith.constant -0.000000e+00 : f32
// CHECK: %[[PART:[^ ,)]*]] = scf.for %[[K:[^ ,)]*]] = %[[TX]] to %[[LEN]] step %[[NT]] iter_args(%[[ACC:[^ ,)]*]] = %[[NEG0]]) -> (f32)
// CHECK: %[[V:[^ ,)]*]] = memref.load %[[X]][%[[ROW]], %[[K]]]
// CHECK: %[[S:[^ ,)]*]] = arith.addf %[[V]], %[[ACC]] : f32
// CHECK: scf.yield %[[S]]
// CHECK: %[[W:[^ ,)]*]] = gpu.subgroup_reduce add %[[PART]] uniform : (f32) -> f32
// CHECK: scf.if
// CHECK: memref.store %[[W]], %[[SMEM]]
// CHECK: gpu.barrier
// CHECK: %[[SLOT:[^ ,)]*]] = scf.if %{{.*}} -> (f32)
// CHECK: memref.load %[[SMEM]]
// CHECK: %[[T:[^ ,)]*]] = gpu.subgroup_reduce add %[[SLOT]] uniform : (f32) -> f32
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: %[[INIT:[^ ,)]*]] = memref.load %[[Y]][%[[ROW]]]
// CHECK: %[[R:[^ ,)]*]] = arith.addf %[[T]], %[[INIT]] : f32
// CHECK: memref.store %[[R]], %[[Y]][%[[ROW]]]
// SMALL-LABEL: func.func @row_sum(
// SMALL: threads({{.*}}) in (%{{.*}} = %c128{{.*}}, {{.*}}) workgroup(%{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>)
func.func @row_sum(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                   %y: memref<?xf32, strided<[?], offset: ?>>) {
  linalg.reduce ins(%x : memref<?x?xf32, strided<[?, ?], offset: ?>>)
      outs(%y : memref<?xf32, strided<[?], offset: ?>>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// A full reduction (one row, known at compile time): two kernels. The
// first has up to 1024 blocks, enough for 256 elements each, write their
// partial values to a temporary buffer; the second, one block, reduces
// them in order and combines with the initial value. maximumf propagates
// NaN: its identity is -inf.
// CHECK-LABEL: func.func @full_max(
// CHECK-SAME: %[[X:[^ ,)]*]]: memref<?x?xf16, strided<[?, ?], offset: ?>>, %[[Y:[^ ,)]*]]: memref<f16, strided<[], offset: ?>>
// CHECK: %[[PARTS:[^ ,)]*]] = memref.alloc() : memref<1x1024xf16>
// CHECK: %[[WANT:[^ ,)]*]] = arith.ceildivui %{{.*}}, %c256
// CHECK: %[[SPLIT:[^ ,)]*]] = arith.maxui %{{.*}}, %{{.*}} : index
// CHECK: gpu.launch blocks(%[[BX:[^ ,)]*]], %[[BY:[^ ,)]*]], %{{.*}}) in (%{{.*}} = %[[SPLIT]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[TX:[^ ,)]*]], %{{.*}}, %{{.*}}) in ({{.*}}) workgroup(%{{.*}} : memref<8xf16, #gpu.address_space<workgroup>>)
// CHECK: %[[NINF:[^ ,)]*]] = arith.constant 0xFC00 : f16
// CHECK: scf.for %[[K:[^ ,)]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[NINF]]) -> (f16)
// CHECK: arith.remui %[[K]]
// CHECK: arith.divui %[[K]]
// CHECK: memref.load %[[X]]
// CHECK: arith.maximumf
// CHECK: gpu.subgroup_reduce maximumf
// CHECK: gpu.subgroup_reduce maximumf
// CHECK: memref.store %{{.*}}, %[[PARTS]][%[[BY]], %[[BX]]]
// CHECK: gpu.terminator
// CHECK: gpu.launch blocks(%[[B2:[^ ,)]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c1{{.*}}, {{.*}}) threads(%[[T2:[^ ,)]*]], %{{.*}}, %{{.*}}) in (%[[N2:[^ ,)]*]] = %c256{{.*}}, {{.*}})
// CHECK: scf.for %[[J:[^ ,)]*]] = %[[T2]] to %[[SPLIT]] step %c256{{.*}} iter_args
// CHECK: memref.load %[[PARTS]][%[[B2]], %[[J]]]
// CHECK: arith.maximumf
// CHECK: gpu.subgroup_reduce maximumf
// CHECK: gpu.subgroup_reduce maximumf
// CHECK: memref.load %[[Y]][]
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %[[Y]][]
// CHECK: gpu.terminator
// CHECK: memref.dealloc %[[PARTS]]
// Without splitting: one block.
// SMALL-LABEL: func.func @full_max(
// SMALL-NOT: memref.alloc
// SMALL: gpu.launch
// SMALL-NOT: gpu.launch
// SMALL: return
func.func @full_max(%x: memref<?x?xf16, strided<[?, ?], offset: ?>>,
                    %y: memref<f16, strided<[], offset: ?>>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<?x?xf16, strided<[?, ?], offset: ?>>)
      outs(%y : memref<f16, strided<[], offset: ?>>) {
  ^bb0(%in: f16, %out: f16):
    %m = arith.maximumf %out, %in : f16
    linalg.yield %m : f16
  }
  return
}

// -----

// A mean's sum of halves accumulates in f32 as the body says: the body,
// extension included, is applied to each element.
// CHECK-LABEL: func.func @half_sum_in_f32(
// CHECK: gpu.launch
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: %[[H:[^ ,)]*]] = memref.load {{.*}} : memref<?x?xf16
// CHECK: %[[F:[^ ,)]*]] = arith.extf %[[H]] : f16 to f32
// CHECK: arith.addf %{{.*}}, %[[F]] fastmath<reassoc> : f32
// CHECK: gpu.subgroup_reduce add %{{.*}} uniform : (f32) -> f32
func.func @half_sum_in_f32(%x: memref<?x?xf16, strided<[?, ?], offset: ?>>,
                           %y: memref<?xf32, strided<[?], offset: ?>>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf16, strided<[?, ?], offset: ?>>)
      outs(%y : memref<?xf32, strided<[?], offset: ?>>) {
  ^bb0(%in: f16, %out: f32):
    %e = arith.extf %in : f16 to f32
    %s = arith.addf %out, %e fastmath<reassoc> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Bools (any): threads exchange i32, sign-extended, and truncate back.
// CHECK-LABEL: func.func @any(
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<8xi32, #gpu.address_space<workgroup>>)
// CHECK: %[[FALSE:[^ ,)]*]] = arith.constant false
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[FALSE]]) -> (i1)
// CHECK: arith.ori
// CHECK: %[[WIDE:[^ ,)]*]] = arith.extsi %{{.*}} : i1 to i32
// CHECK: gpu.subgroup_reduce or %[[WIDE]] uniform : (i32) -> i32
// CHECK: gpu.subgroup_reduce or %{{.*}} uniform : (i32) -> i32
// CHECK: arith.trunci %{{.*}} : i32 to i1
func.func @any(%x: memref<?x?xi1, strided<[?, ?], offset: ?>>,
               %y: memref<?xi1, strided<[?], offset: ?>>) {
  linalg.reduce ins(%x : memref<?x?xi1, strided<[?, ?], offset: ?>>)
      outs(%y : memref<?xi1, strided<[?], offset: ?>>) dimensions = [1]
    (%in: i1, %out: i1) {
      %s = arith.ori %out, %in : i1
      linalg.yield %s : i1
    }
  return
}

// -----

// A matrix-vector product is a reduction over rows too; its body's
// multiplication is applied per element.
// CHECK-LABEL: func.func @matvec(
// CHECK: gpu.launch
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: gpu.subgroup_reduce add
// CHECK-NOT: linalg.matvec
func.func @matvec(%a: memref<?x?xf64>, %x: memref<?xf64>, %y: memref<?xf64>) {
  linalg.matvec ins(%a, %x : memref<?x?xf64>, memref<?xf64>)
      outs(%y : memref<?xf64>)
  return
}

// -----

// A body that uses the loop indices: linalg.index becomes the kernel's.
// CHECK-LABEL: func.func @index_sum(
// CHECK: scf.for %[[ROW:[^ ]*]] = {{.*}} {
// CHECK: scf.for %[[K:[^ ]*]] = {{.*}} -> (i64)
// CHECK: arith.index_cast %[[K]] : index to i64
// CHECK: arith.addi
func.func @index_sum(%x: memref<?x?xi64>, %y: memref<?xi64>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xi64>) outs(%y : memref<?xi64>) {
  ^bb0(%in: i64, %out: i64):
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %p = arith.muli %in, %j64 : i64
    %s = arith.addi %out, %p : i64
    linalg.yield %s : i64
  }
  return
}

// -----

// Left to the sequential path: a matmul, a combiner that does not
// reassociate, a body that reads the output twice, two outputs.
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT: gpu.launch
// CHECK: linalg.matmul
// CHECK: arith.subf
// CHECK: arith.mulf %[[O:[^ ,)]*]], %[[O]]
// CHECK: linalg.generic
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @unchanged(%x: memref<?x?xf32>,
                     %a: memref<?x?xf32>, %b: memref<?x?xf32>,
                     %c: memref<?x?xf32>, %row: memref<?xf32>,
                     %idx: memref<?xi64>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>)
      outs(%c : memref<?x?xf32>)
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%row : memref<?xf32>)
      dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.subf %out, %in : f32
      linalg.yield %s : f32
    }
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%row : memref<?xf32>)
      dimensions = [1]
    (%in: f32, %out: f32) {
      %sq = arith.mulf %out, %out : f32
      %s = arith.addf %sq, %in : f32
      linalg.yield %s : f32
    }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%row, %idx : memref<?xf32>, memref<?xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %m = arith.maximumf %best, %in : f32
    linalg.yield %m, %at : f32, i64
  }
  return
}

// -----

// Four rows known at compile time: split too, a row per y index of the
// first kernel's grid and per block of the second's.
// CHECK-LABEL: func.func @few_rows(
// CHECK: %[[PARTS:[^ ]*]] = memref.alloc() : memref<4x1024xi32>
// CHECK: %[[C4:[^ ]*]] = arith.constant 4 : index
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %[[BY:[^,]*]], %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %[[C4]], %{{.*}} = %c1{{.*}})
// CHECK: memref.load %{{.*}}[%[[BY]], %{{.*}}] : memref<4x?xi32
// CHECK: arith.maxsi
// CHECK: gpu.subgroup_reduce maxsi
// CHECK: memref.store %{{.*}}, %[[PARTS]][%[[BY]], %[[BX]]]
// CHECK: gpu.launch blocks(%[[B2:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C4]],
// CHECK: memref.load %[[PARTS]][%[[B2]], %{{.*}}]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[B2]]]
// CHECK: memref.dealloc %[[PARTS]]
func.func @few_rows(%x: memref<4x?xi32, strided<[?, ?], offset: ?>>,
                    %y: memref<4xi32, strided<[?], offset: ?>>) {
  linalg.reduce ins(%x : memref<4x?xi32, strided<[?, ?], offset: ?>>)
      outs(%y : memref<4xi32, strided<[?], offset: ?>>) dimensions = [1]
    (%in: i32, %out: i32) {
      %m = arith.maxsi %out, %in : i32
      linalg.yield %m : i32
    }
  return
}

// -----

// A column sum (the innermost loop is parallel) of an identity layout:
// 16-byte loads where the rows are aligned and hold whole vectors (four
// columns per thread, up to 32 threads along columns), one column per
// thread otherwise. The reduced axis is split over blocks while they are
// fewer than 2048, 8 rows per thread at the least; then the blocks write
// partial values (one row each along y) and a second kernel, a thread per
// column, combines them in order with the output's initial value.
// Otherwise one kernel writes the output.
// CHECK-LABEL: func.func @column_sum(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x?xf32>, %[[Y:[^:]*]]: memref<?xf32>)
// CHECK-DAG: %[[ROWS:[^ ]*]] = memref.dim %[[X]], %c0
// CHECK-DAG: %[[COLS:[^ ]*]] = memref.dim %[[X]], %c1
// CHECK: %[[WHOLE:[^ ]*]] = arith.cmpi eq
// CHECK: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[ALIGNED:[^ ]*]] = arith.andi %{{.*}}, %[[WHOLE]] : i1
// CHECK: %[[LANES:[^ ]*]] = arith.select %[[ALIGNED]], %c4{{.*}}, %c1
// CHECK: %[[TX:[^ ]*]] = arith.select %{{.*}}, %c32, %{{.*}} : index
// CHECK: %[[TY:[^ ]*]] = arith.divui %c256, %[[TX]]
// CHECK: arith.ceildivui %c2048, %{{.*}}
// CHECK: %[[SPLITS:[^ ]*]] = arith.maxui
// CHECK: %[[SLICE:[^ ]*]] = arith.ceildivui %[[ROWS]], %[[SPLITS]]
// CHECK: %[[SPLIT:[^ ]*]] = arith.cmpi ugt, %[[SPLITS]], %c1
// CHECK: scf.if %[[SPLIT]] {
// CHECK: %[[PARTS:[^ ]*]] = memref.alloc(%[[SPLITS]], %[[COLS]]) : memref<?x?xf32>
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %[[BY:[^,]*]], %{{.*}}) in (%[[GX:[^ ]*]] = %{{.*}}, %{{.*}} = %[[SPLITS]], {{.*}}) threads(%[[TID:[^,]*]], {{.*}}) in ({{.*}}) workgroup(%[[SLOTS:[^ ]*]] : memref<1024xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %{{.*}} = %[[BX]] to %{{.*}} step %[[GX]] {
// CHECK: scf.if %[[ALIGNED]] {
// CHECK: %[[NEG0:[^ ]*]] = arith.constant -0.000000e+00 : f32
// CHECK: scf.for {{.*}} iter_args(%[[A0:[^ ]*]] = %[[NEG0]], %{{.*}} = %[[NEG0]], %{{.*}} = %[[NEG0]], %{{.*}} = %[[NEG0]]) -> (f32, f32, f32, f32) {
// CHECK-COUNT-4: vector.load %[[X]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
// CHECK: vector.extract
// CHECK: arith.addf %{{.*}}, %[[A0]] : f32
// CHECK: scf.for {{.*}} step %[[TY]] iter_args
// CHECK: vector.load %[[X]]
// CHECK: } else {
// CHECK-COUNT-4: memref.store %{{.*}}, %[[SLOTS]]
// CHECK: } else {
// CHECK-COUNT-4: memref.load %[[X]]
// CHECK: memref.store %{{.*}}, %[[SLOTS]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[TID]] to %{{.*}} step %c256
// CHECK: scf.for %{{.*}} to %[[TY]] step
// CHECK: memref.load %[[SLOTS]]
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}, %[[PARTS]][%[[BY]], %{{.*}}]
// CHECK: gpu.barrier
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: scf.for %[[COL:[^ ]*]] = %{{.*}} to %[[COLS]] step
// CHECK: scf.for %[[S:[^ ]*]] = %{{.*}} to %[[SPLITS]] step
// CHECK: memref.load %[[PARTS]][%[[S]], %[[COL]]]
// CHECK: %[[INIT:[^ ]*]] = memref.load %[[Y]][
// CHECK: %[[R:[^ ]*]] = arith.addf %{{.*}}, %[[INIT]] : f32
// CHECK: memref.store %[[R]], %[[Y]][
// CHECK: memref.dealloc %[[PARTS]]
// CHECK: } else {
// CHECK: gpu.launch {{.*}} workgroup(%[[SLOTS2:[^ ]*]] : memref<1024xf32, #gpu.address_space<workgroup>>)
// CHECK: vector.load %[[X]]
// CHECK: memref.load %[[SLOTS2]]
// CHECK: memref.load %[[Y]][
// CHECK: memref.store %{{.*}}, %[[Y]][
// CHECK-NOT: gpu.subgroup_reduce
// CHECK: return
func.func @column_sum(%x: memref<?x?xf32>, %y: memref<?xf32>) {
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%y : memref<?xf32>)
      dimensions = [0]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// A max over a middle axis, in halves, after a fill of its output: eight
// columns per 16-byte load, and the fill's value is the initial value (no
// fill left, the output never read).
// CHECK-LABEL: func.func @middle_max_after_fill(
// CHECK-SAME: %[[X:[^:]*]]: memref<8x64x1000xf16>, %[[Y:[^:]*]]: memref<8x1000xf16>)
// CHECK: %[[NINF:[^ ]*]] = arith.constant 0xFC00 : f16
// CHECK-NOT: linalg.fill
// CHECK: arith.select %{{.*}}, %c8{{.*}}, %c1
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<2048xf16, #gpu.address_space<workgroup>>)
// CHECK: vector.load %[[X]][%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<8x64x1000xf16>, vector<8xf16>
// CHECK: arith.maximumf
// CHECK-NOT: memref.load %[[Y]][
// CHECK: %[[R:[^ ]*]] = arith.maximumf %[[NINF]], %{{.*}} : f16
// CHECK: memref.store %[[R]], %[[Y]][
// CHECK-NOT: memref.load %[[Y]][
// CHECK: return
func.func @middle_max_after_fill(%x: memref<8x64x1000xf16>,
                                 %y: memref<8x1000xf16>) {
  %ninf = arith.constant 0xFC00 : f16
  linalg.fill ins(%ninf : f16) outs(%y : memref<8x1000xf16>)
  linalg.reduce ins(%x : memref<8x64x1000xf16>)
      outs(%y : memref<8x1000xf16>) dimensions = [1]
    (%in: f16, %out: f16) {
      %m = arith.maximumf %out, %in : f16
      linalg.yield %m : f16
    }
  return
}

// -----

// Any strides: the same tiles, one column per thread and element loads.
// Bytes travel between threads as i32, as in shuffles; a fill of another
// buffer is no initial value.
// CHECK-LABEL: func.func @strided_byte_columns(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x?xi8, strided<[?, ?], offset: ?>>, %[[Y:[^:]*]]: memref<?xi8>, %[[Z:[^:]*]]: memref<?xi8>)
// CHECK: linalg.fill {{.*}} outs(%[[Z]]
// CHECK-NOT: vector.load
// CHECK: workgroup(%{{.*}} : memref<256xi32, #gpu.address_space<workgroup>>)
// CHECK: memref.load %[[X]]
// CHECK: arith.maxui
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: memref.load %[[Y]][
// CHECK: return
func.func @strided_byte_columns(%x: memref<?x?xi8, strided<[?, ?], offset: ?>>,
                                %y: memref<?xi8>, %z: memref<?xi8>) {
  %zero = arith.constant 0 : i8
  linalg.fill ins(%zero : i8) outs(%z : memref<?xi8>)
  linalg.reduce ins(%x : memref<?x?xi8, strided<[?, ?], offset: ?>>)
      outs(%y : memref<?xi8>) dimensions = [0]
    (%in: i8, %out: i8) {
      %m = arith.maxui %out, %in : i8
      linalg.yield %m : i8
    }
  return
}

// -----

// Rows of an identity layout: where the row's start is 16-byte aligned,
// each thread loads eight halves at a time and folds them in order, then
// the rest of the row element by element; rows that are not aligned go
// element by element throughout.
// CHECK-LABEL: func.func @row_sum_contiguous(
// CHECK-SAME: %[[X:[^ ,)]*]]: memref<?x?xf16>
// CHECK: scf.for %[[ROW:[^ ,)]*]] =
// CHECK: %{{.*}}, %[[OFFSET:[^ ,)]*]], %{{.*}}:2, %[[STRIDES:[^ ,)]*]]:2 = memref.extract_strided_metadata %[[X]]
// CHECK: %[[PTR:[^ ,)]*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: arith.remui %{{.*}}, %c16
// CHECK: %[[PART:[^ ,)]*]] = scf.if %{{.*}} -> (f32) {
// CHECK: %[[END:[^ ,)]*]] = arith.subi
// CHECK: %[[CHUNKS:[^ ,)]*]] = scf.for %[[K:[^ ,)]*]] = %{{.*}} to %[[END]] step %{{.*}} iter_args
// CHECK: %[[V:[^ ,)]*]] = vector.load %[[X]][%[[ROW]], %[[K]]] {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHECK-COUNT-8: vector.extract %[[V]]
// CHECK: %[[TAIL:[^ ,)]*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[CHUNKS]])
// CHECK: memref.load %[[X]]
// CHECK: scf.yield %[[TAIL]]
// CHECK: } else {
// CHECK: scf.for
// CHECK: memref.load %[[X]]
// CHECK: gpu.subgroup_reduce add %[[PART]]
func.func @row_sum_contiguous(%x: memref<?x?xf16>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf16>) outs(%y : memref<?xf32>) {
  ^bb0(%in: f16, %out: f32):
    %e = arith.extf %in : f16 to f32
    %s = arith.addf %out, %e : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An input read across the reduced dimension (a transpose) keeps every row
// element by element.
// CHECK-LABEL: func.func @row_sum_of_transpose(
// CHECK-NOT: vector.load
// CHECK: gpu.subgroup_reduce
func.func @row_sum_of_transpose(%x: memref<?x?xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}
