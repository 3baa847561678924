// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-vectorize-elementwise))' \
// RUN:   | FileCheck %s
// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-vectorize-elementwise{block-size=128}))' \
// RUN:   | FileCheck %s --check-prefix=SMALL

// A sum of two contiguous matrices: each operand viewed as 1-d, a grid of
// 256-thread blocks over tiles of 4096 floats. In a whole tile, when every
// buffer is 16-byte aligned, each thread loads four chunks of 16 bytes of each
// input, 1024 floats apart (each load coalesced across the warp), before it
// adds and stores them; elsewhere each chunk is a vector when it is whole and
// aligned, and single elements otherwise.
// CHECK-LABEL: func.func @add(
// CHECK-SAME: %[[A:[^ ,)]*]]: memref<?x?xf32>, %[[B:[^ ,)]*]]: memref<?x?xf32>, %[[C:[^ ,)]*]]: memref<?x?xf32>
// CHECK-NOT: linalg.generic
// CHECK-DAG: %[[FA:[^ ,)]*]] = memref.collapse_shape %[[A]] {{\[}}[0, 1]] : memref<?x?xf32> into memref<?xf32>
// CHECK-DAG: %[[FB:[^ ,)]*]] = memref.collapse_shape %[[B]] {{\[}}[0, 1]]
// CHECK-DAG: %[[FC:[^ ,)]*]] = memref.collapse_shape %[[C]] {{\[}}[0, 1]]
// CHECK: %[[TILES:[^ ,)]*]] = arith.ceildivui %[[SIZE:[^ ,)]*]], %c4096
// CHECK: %[[GRID:[^ ,)]*]] = arith.minui %[[TILES]], %c1048576
// CHECK: gpu.launch blocks(%[[BX:[^ ,)]*]], %{{.*}}, %{{.*}}) in (%[[GX:[^ ,)]*]] = %[[GRID]], {{.*}} threads(%[[TX:[^ ,)]*]], %{{.*}}, %{{.*}}) in (%[[NT:[^ ,)]*]] = %c256
// CHECK: memref.extract_aligned_pointer_as_index %[[FA]]
// CHECK: arith.remui %{{.*}}, %c16
// CHECK: memref.extract_aligned_pointer_as_index %[[FB]]
// CHECK: scf.for %[[TILE:[^ ,)]*]] = %[[BX]] to %[[TILES]] step %[[GX]]
// CHECK: %[[TS:[^ ,)]*]] = arith.muli %[[TILE]], %{{.*}}
// CHECK: %[[S0:[^ ,)]*]] = arith.addi %[[TS]],
// CHECK: arith.addi %[[TX]], %c256
// CHECK: %[[S1:[^ ,)]*]] = arith.addi %[[TS]],
// CHECK: arith.addi %[[TX]], %c512
// CHECK: %[[S2:[^ ,)]*]] = arith.addi %[[TS]],
// CHECK: arith.addi %[[TX]], %c768
// CHECK: %[[S3:[^ ,)]*]] = arith.addi %[[TS]],
// CHECK: %[[END:[^ ,)]*]] = arith.addi %[[TS]], %{{.*}}
// CHECK: %[[FITS:[^ ,)]*]] = arith.cmpi ule, %[[END]], %[[SIZE]]
// CHECK: %[[WHOLE:[^ ,)]*]] = arith.andi %{{.*}}, %[[FITS]]
// CHECK: scf.if %[[WHOLE]]
// CHECK: vector.load %[[FA]][%[[S0]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: vector.load %[[FB]][%[[S0]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: vector.load %[[FA]][%[[S1]]]
// CHECK: vector.load %[[FB]][%[[S1]]]
// CHECK: vector.load %[[FA]][%[[S2]]]
// CHECK: vector.load %[[FB]][%[[S2]]]
// CHECK: vector.load %[[FA]][%[[S3]]]
// CHECK: vector.load %[[FB]][%[[S3]]]
// CHECK-NOT: vector.store
// CHECK-COUNT-16: arith.addf
// CHECK: vector.store %{{.*}}, %[[FC]][%[[S0]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[FC]][%[[S1]]]
// CHECK: vector.store %{{.*}}, %[[FC]][%[[S2]]]
// CHECK: vector.store %{{.*}}, %[[FC]][%[[S3]]]
// CHECK: } else {
// CHECK: scf.if
// CHECK: vector.load %[[FA]][%[[S0]]]
// CHECK: } else {
// CHECK: scf.for %[[I:[^ ,)]*]] = %[[S0]] to
// CHECK: memref.load %[[FA]][%[[I]]]
// CHECK: memref.load %[[FB]][%[[I]]]
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}, %[[FC]][%[[I]]]
// CHECK: scf.for %{{.*}} = %[[S3]] to
// SMALL-LABEL: func.func @add(
// SMALL: arith.ceildivui %{{.*}}, %c2048
// SMALL: threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128
func.func @add(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Half precision: eight elements are 16 bytes. A 1-d buffer needs no view;
// a scalar read by the body stays a scalar, and the output, which the body
// does not read, is only stored.
// CHECK-LABEL: func.func @scale_f16(
// CHECK-SAME: %[[X:[^ ,)]*]]: memref<1000xf16>, %[[S:[^ ,)]*]]: f16, %[[Y:[^ ,)]*]]: memref<1000xf16>
// CHECK-NOT: memref.collapse_shape
// CHECK: arith.ceildivui %{{.*}}, %c8192
// CHECK: gpu.launch
// CHECK-COUNT-4: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<1000xf16>, vector<8xf16>
// CHECK-NOT: vector.load
// CHECK-COUNT-32: arith.mulf %{{.*}}, %[[S]] : f16
// CHECK: vector.store %{{.*}}, %[[Y]][%{{.*}}] {alignment = 16 : i64} : memref<1000xf16>, vector<8xf16>
func.func @scale_f16(%x: memref<1000xf16>, %s: f16, %y: memref<1000xf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x, %s : memref<1000xf16>, f16) outs(%y : memref<1000xf16>) {
  ^bb0(%in: f16, %scale: f16, %out: f16):
    %p = arith.mulf %in, %scale : f16
    linalg.yield %p : f16
  }
  return
}

// -----

// Mixed widths: the widest element (f64) sets two elements per thread, so
// the f32 input moves in 8-byte vectors aligned to 8.
// CHECK-LABEL: func.func @widen(
// CHECK: arith.ceildivui %{{.*}}, %c2048
// CHECK: arith.remui %{{.*}}, %c8
// CHECK: arith.remui %{{.*}}, %c16
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<?xf32>, vector<2xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?xf64>, vector<2xf64>
func.func @widen(%x: memref<4x?xf32>, %y: memref<4x?xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x?xf32>) outs(%y : memref<4x?xf64>) {
  ^bb0(%in: f32, %out: f64):
    %e = arith.extf %in : f32 to f64
    linalg.yield %e : f64
  }
  return
}

// -----

// Named ops are linalg ops like any other: a fill stores vectors of its
// value, and an update that reads its output loads the output too.
// CHECK-LABEL: func.func @fill_and_accumulate(
// CHECK-SAME: %[[X:[^ ,)]*]]: memref<8x?xi32>, %[[Y:[^ ,)]*]]: memref<8x?xi32>
// CHECK: gpu.launch
// CHECK-NOT: vector.load
// CHECK: vector.from_elements %{{.*}} : vector<4xi32>
// CHECK: vector.store
// CHECK: gpu.launch
// CHECK: vector.load %{{.*}} : memref<?xi32>, vector<4xi32>
// CHECK: vector.load %{{.*}} : memref<?xi32>, vector<4xi32>
// CHECK-COUNT-4: arith.addi {{.*}} : i32
// CHECK: vector.store
func.func @fill_and_accumulate(%x: memref<8x?xi32>, %y: memref<8x?xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%y : memref<8x?xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x?xi32>) outs(%y : memref<8x?xi32>) {
  ^bb0(%in: i32, %out: i32):
    %s = arith.addi %in, %out : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// What the loop path keeps: strided operands (the general specialisation's
// arguments), broadcasts, reductions, bools (bytes in memory, bits in
// vectors), 8-bit floats, bodies that read their indices, and ops already
// in a kernel.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: gpu.launch
// CHECK-NOT: vector.load
// CHECK-COUNT-6: linalg.generic
// CHECK: gpu.launch
// CHECK: linalg.generic
// CHECK-NOT: vector.load
func.func @kept(%s: memref<?x?xf32, strided<[?, ?], offset: ?>>, %a: memref<?x?xf32>, %row: memref<?xf32>,
                %bools: memref<?xi1>, %f8: memref<?xf8E4M3FN>, %idx: memref<?xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<?x?xf32, strided<[?, ?], offset: ?>>) outs(%a : memref<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%row : memref<?xf32>) outs(%a : memref<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x?xf32>) outs(%row : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%row : memref<?xf32>) outs(%bools : memref<?xi1>) {
  ^bb0(%in: f32, %out: i1):
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %in, %zero : f32
    linalg.yield %p : i1
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%row : memref<?xf32>) outs(%f8 : memref<?xf8E4M3FN>) {
  ^bb0(%in: f32, %out: f8E4M3FN):
    %t = arith.truncf %in : f32 to f8E4M3FN
    linalg.yield %t : f8E4M3FN
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%idx : memref<?xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  }
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c1, %ny = %c1, %nz = %c1) {
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%row : memref<?xf32>) outs(%row : memref<?xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    gpu.terminator
  }
  return
}
