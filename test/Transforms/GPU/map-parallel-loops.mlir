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

// A lone loop with dynamic bounds, or too many iterations for a block:
// blocks.
// CHECK-LABEL: func.func @lone_loops
// CHECK: mapping = [#gpu.loop_dim_map<processor = block_x{{.*}}>]
// CHECK: mapping = [#gpu.loop_dim_map<processor = block_x{{.*}}>]
func.func @lone_loops(%x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2000 = arith.constant 2000 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %x[%i] : memref<?xf32>
  }
  scf.parallel (%i) = (%c0) to (%c2000) step (%c1) {
    memref.store %f, %x[%i] : memref<?xf32>
  }
  return
}
