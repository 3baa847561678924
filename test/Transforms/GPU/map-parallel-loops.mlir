// RUN: dl-opt %s --pass-pipeline='builtin.module(func.func(dlbridge-gpu-map-parallel-loops))' \
// RUN:   | FileCheck %s

// A tiled nest: the tile loop's dimensions go to blocks in order, the
// intra-tile loop's to threads from the innermost out, so that consecutive
// threads (x) walk the contiguous dimension.
// CHECK-LABEL: func.func @tiled
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = block_y, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
func.func @tiled(%x: memref<?x?xf32>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c64, %c4) {
    scf.parallel (%ii, %jj) = (%c0, %c0) to (%c64, %c4) step (%c1, %c1) {
      %a = arith.addi %i, %ii : index
      %b = arith.addi %j, %jj : index
      memref.store %f, %x[%a, %b] : memref<?x?xf32>
    }
  }
  return
}

// Four dimensions of threads: the outermost runs sequentially in each
// thread, the inner three go to z, y and x.
// CHECK-LABEL: func.func @deep
// CHECK: mapping = [#gpu.loop_dim_map<processor = sequential{{.*}}>, #gpu.loop_dim_map<processor = thread_z{{.*}}>, #gpu.loop_dim_map<processor = thread_y{{.*}}>, #gpu.loop_dim_map<processor = thread_x{{.*}}>]
// CHECK: mapping = [#gpu.loop_dim_map<processor = block_x{{.*}}>, #gpu.loop_dim_map<processor = block_y{{.*}}>, #gpu.loop_dim_map<processor = block_z{{.*}}>, #gpu.loop_dim_map<processor = sequential{{.*}}>]
func.func @deep(%x: memref<?x?x?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%n, %n, %n, %n) step (%c2, %c2, %c2, %c8) {
    scf.parallel (%a, %b, %c, %d) = (%c0, %c0, %c0, %c0) to (%c2, %c2, %c2, %c8) step (%c1, %c1, %c1, %c1) {
      memref.store %f, %x[%a, %b, %c, %d] : memref<?x?x?x?xf32>
    }
  }
  return
}

// A lone loop with static bounds that fit one block (a tiled loop whose
// single tile canonicalisation folded away) is the threads of one block,
// not blocks of one thread.
// CHECK-LABEL: func.func @one_block
// CHECK: mapping = [#gpu.loop_dim_map<processor = thread_y{{.*}}>, #gpu.loop_dim_map<processor = thread_x{{.*}}>]
func.func @one_block(%x: memref<3x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c4) step (%c1, %c1) {
    memref.store %f, %x[%i, %j] : memref<3x4xf32>
  }
  return
}

// A lone loop with dynamic bounds: blocks of 256 threads, each thread one
// iteration, guarded where the count may not be a multiple of the block.
// CHECK-LABEL: func.func @lone_dynamic
// CHECK-SAME: (%[[X:.*]]: memref<?xf32>, %[[N:.*]]: index)
// CHECK: %[[COUNT:.*]] = arith.maxsi %[[N]], %{{.*}} : index
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%[[COUNT]]) step (%[[C256]]) {
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[C256]]) step (%{{.*}}) {
// CHECK: %[[I:.*]] = arith.addi %[[B]], %[[T]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[COUNT]] : index
// CHECK: scf.if %[[IN]] {
// CHECK: memref.store %{{.*}}, %[[X]][%[[I]]]
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x{{.*}}>]}
func.func @lone_dynamic(%x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %x[%i] : memref<?xf32>
  }
  return
}

// Too many iterations for a block (2000, not a multiple of 256): guarded.
// CHECK-LABEL: func.func @lone_static
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%[[C2000:c2000.*]]) step (%[[C256:c256.*]])
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%[[C256]])
// CHECK: arith.cmpi ult, %{{.*}}, %[[C2000]] : index
// CHECK: scf.if
// CHECK: thread_x
// CHECK: block_x
func.func @lone_static(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2000 = arith.constant 2000 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c2000) step (%c1) {
    memref.store %f, %x[%i] : memref<?xf32>
  }
  return
}

// What canonicalisation leaves of a 1024x100 loop tiled by 2x128: the tile
// loop and its threads merged into one loop of three dimensions, the row
// split over two. Every block is full (102400 iterations, a multiple of
// 256: no guard), the last dimension varies fastest across threads.
// CHECK-LABEL: func.func @merged_tiles
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c102400) step (%[[C256:c256.*]])
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%[[C256]])
// CHECK: %[[I:.*]] = arith.addi
// CHECK-NOT: scf.if
// CHECK: %[[COL:.*]] = arith.remui %[[I]], %c100{{.*}} : index
// CHECK: %[[REST:.*]] = arith.divui %[[I]], %c100{{.*}} : index
// CHECK: %[[ROW1:.*]] = arith.remui %[[REST]], %c2{{.*}} : index
// CHECK: %[[TILE:.*]] = arith.divui %[[REST]], %c2{{.*}} : index
// CHECK: %[[ROW0:.*]] = arith.muli %[[TILE]], %c2{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.addi %[[ROW1]], %[[ROW0]] : index
// CHECK: memref.store %{{.*}}[%[[ROW]], %[[COL]]]
// CHECK: thread_x
// CHECK: block_x
func.func @merged_tiles(%x: memref<1024x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c100 = arith.constant 100 : index
  %c1024 = arith.constant 1024 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %ii, %j) = (%c0, %c0, %c0) to (%c1024, %c2, %c100) step (%c2, %c1, %c1) {
    %row = arith.addi %ii, %i : index
    memref.store %f, %x[%row, %j] : memref<1024x100xf32>
  }
  return
}

// Lower bounds and steps other than 0 and 1 (a loop written by hand): each
// index is lower + number * step; 100 x 20 iterations, guarded.
// CHECK-LABEL: func.func @strided_bounds
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c2000) step (%c256)
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c256)
// CHECK: %[[I:.*]] = arith.addi
// CHECK: arith.cmpi ult, %[[I]], %c2000 : index
// CHECK: %[[K:.*]] = arith.remui %[[I]], %c20{{.*}} : index
// CHECK: %[[L:.*]] = arith.divui %[[I]], %c20{{.*}} : index
// CHECK: %[[KS:.*]] = arith.muli %[[K]], %c3 : index
// CHECK: %[[COL:.*]] = arith.addi %[[KS]], %c7 : index
// CHECK: %[[LS:.*]] = arith.muli %[[L]], %c3 : index
// CHECK: %[[ROW:.*]] = arith.addi %[[LS]], %c5 : index
// CHECK: memref.store %{{.*}}[%[[ROW]], %[[COL]]]
func.func @strided_bounds(%x: memref<?x?xf32>) {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c305 = arith.constant 305 : index
  %c67 = arith.constant 67 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c5, %c7) to (%c305, %c67) step (%c3, %c3) {
    memref.store %f, %x[%i, %j] : memref<?x?xf32>
  }
  return
}

// Four dimensions whose inner three fit a block but whose outermost does
// not (it would run sequentially in 8 threads): blocks of threads, 128
// threads for 120 iterations.
// CHECK-LABEL: func.func @outer_dimension_beyond_three
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c120) step (%c128)
// CHECK: thread_x
// CHECK: block_x
func.func @outer_dimension_beyond_three(%x: memref<15x2x2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c15 = arith.constant 15 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%c15, %c2, %c2, %c2) step (%c1, %c1, %c1, %c1) {
    memref.store %f, %x[%i, %j, %k, %l] : memref<15x2x2x2xf32>
  }
  return
}

// No iterations: not a block of no threads (an invalid launch) but a grid
// of no blocks, which the runtime skips.
// CHECK-LABEL: func.func @empty
// CHECK: scf.parallel ({{.*}}) = ({{.*}}) to (%c0{{(_[0-9]+)?}}) step (%c32)
// CHECK: thread_x
// CHECK: block_x
func.func @empty(%x: memref<0x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c0, %c4) step (%c1, %c1) {
    memref.store %f, %x[%i, %j] : memref<0x4xf32>
  }
  return
}

// A parallel loop nested in another operation (the scf.for of a reduction)
// runs sequentially in each thread of the loop around it.
// CHECK-LABEL: func.func @nested_in_for
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: scf.for
// CHECK: scf.parallel
// CHECK-NOT: mapping
// CHECK: scf.reduce
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = thread_x{{.*}}>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x{{.*}}>]}
func.func @nested_in_for(%x: memref<?x?xf32>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%m) step (%c1) {
    scf.for %k = %c0 to %n step %c1 {
      scf.parallel (%j) = (%c0) to (%c1) step (%c1) {
        memref.store %f, %x[%i, %k] : memref<?x?xf32>
      }
    }
  }
  return
}

// A loop with a reduction, which convert-parallel-loops-to-gpu does not
// map, keeps its dimensions on blocks.
// CHECK-LABEL: func.func @reduction
// CHECK: mapping = [#gpu.loop_dim_map<processor = block_x{{.*}}>]
func.func @reduction(%x: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
    %v = memref.load %x[%i] : memref<?xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}
