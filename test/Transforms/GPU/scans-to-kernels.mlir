// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-scans-to-kernels))' \
// RUN:   | FileCheck %s
// RUN: dl-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-scans-to-kernels{block-size=64}))' \
// RUN:   | FileCheck %s --check-prefix=SMALL

// A cumsum along contiguous rows: a block per row, in a grid-stride loop,
// walking the row in chunks of a block: each thread's element, shuffled up
// within warps, warp totals through workgroup memory, the carry in front.
// CHECK-LABEL: func.func @rows(
//  CHECK-SAME:     %[[X:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>
//       CHECK:   %[[INIT:.*]] = arith.constant -0.000000e+00 : f32
//       CHECK:   %[[OUT:.*]] = memref.alloc(
//       CHECK:   %[[ROWS:.*]] = arith.muli
//       CHECK:   %[[GRID:.*]] = arith.minui %[[ROWS]],
//       CHECK:   %[[THREADS:.*]] = arith.constant 512 : index
//       CHECK:   gpu.launch blocks({{.*}}) in ({{.*}} = %[[GRID]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[THREADS]], {{.*}}) workgroup(%[[WG:.*]] : memref<16xf32, #gpu.address_space<workgroup>>)
//       CHECK:     scf.for %[[ROW:.*]] = %{{.*}} to %[[ROWS]] step %{{.*}} {
//       CHECK:       %[[I:.*]] = arith.addi %{{.*}}, %[[ROW]] : index
//       CHECK:       %[[SUB:.*]] = memref.subview %[[OUT]][%[[I]], 0]
//       CHECK:       scf.for %[[BASE:.*]] = %{{.*}} to %{{.*}} step %c512{{.*}} iter_args(%[[CARRY:.*]] = %[[INIT]]) -> (f32) {
//       CHECK:         %[[FIRST:.*]] = arith.muli %[[TX]],
//       CHECK:         %[[BASEK:.*]] = arith.addi %[[BASE]], %[[FIRST]] : index
//       CHECK:         %[[K:.*]] = arith.addi %[[BASEK]],
//       CHECK:         %[[IN:.*]] = arith.cmpi slt, %[[K]],
//       CHECK:         %[[V:.*]] = scf.if %[[IN]] -> (f32) {
//       CHECK:           %[[L:.*]] = memref.load %[[X]][%[[I]], %[[K]]]
//       CHECK:           scf.yield %[[L]] : f32
//       CHECK:         } else {
//       CHECK:           scf.yield %[[INIT]] : f32
//       CHECK:         %[[S1:.*]], %[[OK1:.*]] = gpu.shuffle up %[[V]], %{{.*}}, %{{.*}} : f32
//       CHECK:         %[[A1:.*]] = arith.addf %[[S1]], %[[V]] : f32
//       CHECK:         arith.select %[[OK1]], %[[A1]], %[[V]] : f32
// CHECK-COUNT-3:       gpu.shuffle up
//       CHECK:         %[[S5:.*]], %[[OK5:.*]] = gpu.shuffle up
//       CHECK:         %[[A5:.*]] = arith.addf %[[S5]],
//       CHECK:         %[[INWARP:.*]] = arith.select %[[OK5]], %[[A5]],
//       CHECK:         memref.store %[[INWARP]], %[[WG]][
//       CHECK:         gpu.barrier
// CHECK-COUNT-5:         gpu.shuffle up
//       CHECK:         gpu.barrier
//       CHECK:         %[[EARLIER:.*]] = memref.load %[[WG]][
//       CHECK:         %[[WITH:.*]] = arith.addf %[[CARRY]], %[[EARLIER]] : f32
//       CHECK:         %[[PREFIX:.*]] = arith.select %{{.*}}, %[[CARRY]], %[[WITH]] : f32
//       CHECK:         %[[LS:.*]], %[[LOK:.*]] = gpu.shuffle up %[[INWARP]], %{{.*}}, %{{.*}} : f32
//       CHECK:         %[[LA:.*]] = arith.addf %[[PREFIX]], %[[LS]] : f32
//       CHECK:         %[[BEFORE:.*]] = arith.select %[[LOK]], %[[LA]], %[[PREFIX]] : f32
//       CHECK:         %[[R:.*]] = arith.addf %[[BEFORE]], %[[V]] : f32
//       CHECK:         scf.if %[[IN]] {
//       CHECK:           memref.store %[[R]], %[[SUB]][%[[K]]]
//       CHECK:         %[[TOTAL:.*]] = memref.load %[[WG]][
//       CHECK:         %[[NEXT:.*]] = arith.addf %[[CARRY]], %[[TOTAL]] : f32
//       CHECK:         gpu.barrier
//       CHECK:         scf.yield %[[NEXT]] : f32
//   CHECK-NOT:   scf.parallel
// SMALL-LABEL: func.func @rows(
//       SMALL:   workgroup(%{{.*}} : memref<2xf32, #gpu.address_space<workgroup>>)
func.func @rows(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant -0.0 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %n = memref.dim %x, %c1 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %out = memref.alloc(%m, %n) : memref<?x?xf32>
  scf.parallel (%i) = (%c0) to (%m) step (%c1) {
    %row = memref.subview %out[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %last = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<?x?xf32, strided<[?, ?], offset: ?>>
      %s = arith.addf %acc, %v : f32
      memref.store %s, %row[%k] : memref<?xf32, strided<[1], offset: ?>>
      scf.yield %s : f32
    }
    scf.reduce
  }
  return %out : memref<?x?xf32>
}

// -----

// Contiguous rows: 4 f32 per thread, one aligned 16-byte load and store
// where all 4 are in the row and aligned, element by element otherwise;
// the thread's 4 values scanned in order before the block's scan.
// CHECK-LABEL: func.func @contiguous_rows(
//       CHECK:   gpu.launch
//       CHECK:     %[[CHUNK:.*]] = arith.constant 2048 : index
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[CHUNK]] iter_args(
//       CHECK:       memref.extract_aligned_pointer_as_index
//       CHECK:       memref.extract_aligned_pointer_as_index
//       CHECK:       %[[VALUES:.*]]:4 = scf.if %{{.*}} -> (f32, f32, f32, f32) {
//       CHECK:         %[[VEC:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
//       CHECK:         vector.extract %[[VEC]][0]
//       CHECK:         vector.extract %[[VEC]][3]
//       CHECK:       } else {
// CHECK-COUNT-4:         memref.load
//       CHECK:       %[[R1:.*]] = arith.addf %[[VALUES]]#0, %[[VALUES]]#1 : f32
//       CHECK:       %[[R2:.*]] = arith.addf %[[R1]], %[[VALUES]]#2 : f32
//       CHECK:       %[[R3:.*]] = arith.addf %[[R2]], %[[VALUES]]#3 : f32
//       CHECK:       gpu.shuffle up %[[R3]]
//       CHECK:       vector.from_elements
//       CHECK:       vector.store %{{.*}} {alignment = 16 : i64} : memref<?xf32, strided<[1], offset: ?>>, vector<4xf32>
func.func @contiguous_rows(%x: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant -0.0 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %out = memref.alloc(%m, %n) : memref<?x?xf32>
  scf.parallel (%i) = (%c0) to (%m) step (%c1) {
    %row = memref.subview %out[%i, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %last = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%i, %k] : memref<?x?xf32>
      %s = arith.addf %acc, %v : f32
      memref.store %s, %row[%k] : memref<?xf32, strided<[1], offset: ?>>
      scf.yield %s : f32
    }
    scf.reduce
  }
  return %out : memref<?x?xf32>
}

// -----

// Rows over two parallel dimensions (the last varying fastest), elements
// converted in the walk (int8 to the i64 accumulator, as NumPy's cumprod),
// i64 shuffled whole; the product's operand order kept.
// CHECK-LABEL: func.func @converted_product(
//       CHECK:   gpu.launch
//       CHECK:     arith.remui
//       CHECK:     arith.divui
//       CHECK:     scf.if %{{.*}} -> (i64) {
//       CHECK:       memref.load %{{.*}} : memref<4x5x?xi8>
//       CHECK:       arith.extsi %{{.*}} : i8 to i64
//       CHECK:     gpu.shuffle up %{{.*}} : i64
//       CHECK:     arith.muli %{{.*}}, %{{.*}} : i64
func.func @converted_product(%x: memref<4x5x?xi8>, %out: memref<4x5x?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %one = arith.constant 1 : i64
  %n = memref.dim %x, %c2 : memref<4x5x?xi8>
  %buf = memref.alloc(%n) : memref<4x5x?xi64>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c5) step (%c1, %c1) {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %one) -> (i64) {
      %v = memref.load %x[%i, %j, %k] : memref<4x5x?xi8>
      %w = arith.extsi %v : i8 to i64
      %p = arith.muli %w, %acc : i64
      memref.store %p, %buf[%i, %j, %k] : memref<4x5x?xi64>
      scf.yield %p : i64
    }
    scf.reduce
  }
  memref.copy %buf, %out : memref<4x5x?xi64> to memref<4x5x?xi64>
  return
}

// -----

// 16-bit floats travel through shuffles as the low bits of an i32.
// CHECK-LABEL: func.func @half(
//       CHECK:   workgroup(%{{.*}} : memref<16xi32, #gpu.address_space<workgroup>>)
//       CHECK:     arith.bitcast %{{.*}} : f16 to i16
//       CHECK:     arith.extui %{{.*}} : i16 to i32
//       CHECK:     gpu.shuffle up %{{.*}} : i32
//       CHECK:     arith.trunci %{{.*}} : i32 to i16
//       CHECK:     arith.bitcast %{{.*}} : i16 to f16
//       CHECK:     arith.addf %{{.*}}, %{{.*}} : f16
func.func @half(%x: memref<8x?xf16>) -> memref<8x?xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %init = arith.constant -0.0 : f16
  %n = memref.dim %x, %c1 : memref<8x?xf16>
  %out = memref.alloc(%n) : memref<8x?xf16>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (f16) {
      %v = memref.load %x[%i, %k] : memref<8x?xf16>
      %s = arith.addf %acc, %v : f16
      memref.store %s, %out[%i, %k] : memref<8x?xf16>
      scf.yield %s : f16
    }
    scf.reduce
  }
  return %out : memref<8x?xf16>
}

// -----

// A 1-d scan is a walk in host code: one block.
// CHECK-LABEL: func.func @one_row(
//       CHECK:   memref.alloc
//       CHECK:   %[[ONE:.*]] = arith.constant 1 : index
//       CHECK:   %[[GRID:.*]] = arith.minui %[[ONE]],
//       CHECK:   gpu.launch blocks({{.*}}) in ({{.*}} = %[[GRID]], {{.*}}) threads
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %[[ONE]] step
//       CHECK:       gpu.shuffle up
//       CHECK:       arith.ori
//   CHECK-NOT:   scf.for
//       CHECK:   return
func.func @one_row(%x: memref<?xi1>) -> memref<?xi1> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  %n = memref.dim %x, %c0 : memref<?xi1>
  %out = memref.alloc(%n) : memref<?xi1>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %false) -> (i1) {
    %v = memref.load %x[%k] : memref<?xi1>
    %s = arith.ori %acc, %v : i1
    memref.store %s, %out[%k] : memref<?xi1>
    scf.yield %s : i1
  }
  return %out : memref<?xi1>
}

// -----

// Down the columns the threads already read consecutive elements: left to
// the thread per column.
// CHECK-LABEL: func.func @columns(
//   CHECK-NOT:   gpu.launch
//       CHECK:   scf.parallel
func.func @columns(%x: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant -0.0 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %x, %c1 : memref<?x?xf32>
  %out = memref.alloc(%m, %n) : memref<?x?xf32>
  scf.parallel (%j) = (%c0) to (%n) step (%c1) {
    %col = memref.subview %out[0, %j] [%m, 1] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[?], offset: ?>>
    %r = scf.for %k = %c0 to %m step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %x[%k, %j] : memref<?x?xf32>
      %s = arith.addf %acc, %v : f32
      memref.store %s, %col[%k] : memref<?xf32, strided<[?], offset: ?>>
      scf.yield %s : f32
    }
    scf.reduce
  }
  return %out : memref<?x?xf32>
}

// -----

// Not scans a block may reorder: a walk that reads what it stored before
// (a recurrence through memory), one that stores into its argument (which
// its loads may alias), one whose carried value is used twice, one that
// yields something else than what it stores, and complex values.
// CHECK-LABEL: func.func @not_scans(
//   CHECK-NOT:   gpu.launch
// CHECK-COUNT-5:   scf.parallel
func.func @not_scans(%x: memref<8x?xf32>, %y: memref<8x?xf32>, %z: memref<8x?xcomplex<f32>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %init = arith.constant -0.0 : f32
  %cinit = complex.constant [0.0 : f32, 0.0 : f32] : complex<f32>
  %n = memref.dim %x, %c1 : memref<8x?xf32>
  %out = memref.alloc(%n) : memref<8x?xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %r = scf.for %k = %c1 to %n step %c1 iter_args(%acc = %init) -> (f32) {
      %km1 = arith.subi %k, %c1 : index
      %v = memref.load %out[%i, %km1] : memref<8x?xf32>
      %s = arith.addf %acc, %v : f32
      memref.store %s, %out[%i, %k] : memref<8x?xf32>
      scf.yield %s : f32
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %y[%i, %k] : memref<8x?xf32>
      %s = arith.addf %acc, %v : f32
      memref.store %s, %x[%i, %k] : memref<8x?xf32>
      scf.yield %s : f32
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %y[%i, %k] : memref<8x?xf32>
      %w = arith.mulf %acc, %v : f32
      %s = arith.addf %acc, %w : f32
      memref.store %s, %out[%i, %k] : memref<8x?xf32>
      scf.yield %s : f32
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
      %v = memref.load %y[%i, %k] : memref<8x?xf32>
      %s = arith.addf %acc, %v : f32
      memref.store %s, %out[%i, %k] : memref<8x?xf32>
      scf.yield %v : f32
    }
    scf.reduce
  }
  %cout = memref.alloc(%n) : memref<8x?xcomplex<f32>>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %cinit) -> (complex<f32>) {
      %v = memref.load %z[%i, %k] : memref<8x?xcomplex<f32>>
      %s = complex.add %acc, %v : complex<f32>
      memref.store %s, %cout[%i, %k] : memref<8x?xcomplex<f32>>
      scf.yield %s : complex<f32>
    }
    scf.reduce
  }
  return
}
