// RUN: dl-opt %s --split-input-file --dlbridge-parallelize-outer-loops | FileCheck %s
// RUN: dl-opt %s --split-input-file '--dlbridge-parallelize-outer-loops=parallelize=false' | FileCheck %s --check-prefix=SEQ

// SEQ-NOT: omp.
// SEQ-NOT: scf.parallel
// SEQ-NOT: dlrt_parallel

// An elementwise nest: threads share its rows (the first dimension alone, so
// that the columns stay a loop LLVM vectorises), as many as the runtime
// grants for rows x columns iterations; granted one, the nest runs as plain
// loops, without libomp.

// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[M:.*]] = memref.dim %{{.*}}, %c0
// CHECK-DAG: %[[N:.*]] = memref.dim %{{.*}}, %c1
// CHECK-DAG: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK-DAG: %[[COLS:.*]] = arith.maxsi %[[N64]], %[[ZERO:.*]] : i64
// CHECK-DAG: %[[M64:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK-DAG: %[[ROWS:.*]] = arith.maxsi %[[M64]], %[[ZERO]] : i64
// CHECK: %[[WORK:.*]] = arith.muli %[[COLS]], %[[ROWS]] : i64
// CHECK: %[[THREADS:.*]] = llvm.call @dlrt_parallel_claim(%[[WORK]]) : (i64) -> i32
// CHECK: %[[SEVERAL:.*]] = arith.cmpi sgt, %[[THREADS]], %{{.*}} : i32
// CHECK: scf.if %[[SEVERAL]] {
// CHECK: omp.parallel num_threads(%[[THREADS]] : i32) {
// CHECK-NEXT: omp.wsloop {
// CHECK-NEXT: omp.loop_nest (%[[I:.*]]) : index = (%c0) to (%[[M]]) step (%c1) {
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %[[N]] step %c1 {
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK: omp.terminator
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %[[I:.*]] = %c0 to %[[M]] step %c1 {
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %[[N]] step %c1 {
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: llvm.call @dlrt_parallel_release(%[[THREADS]]) : (i32) -> ()
// CHECK-NEXT: return

func.func @elementwise(%a: memref<?x?xf32>, %b: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : memref<?x?xf32>
  %n = memref.dim %a, %c1 : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<?x?xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %b[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// -----

// A row reduction: the inner scf.for stays a loop of each thread, and counts
// in the work. A stack buffer of an iteration is freed at its end.

// CHECK-LABEL: func.func @row_sums
// CHECK: %[[WORK:.*]] = arith.muli
// CHECK: %[[THREADS:.*]] = llvm.call @dlrt_parallel_claim(%[[WORK]])
// CHECK: omp.parallel num_threads(%[[THREADS]] : i32) {
// CHECK: omp.loop_nest
// CHECK-NEXT: %[[STACK:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: memref.alloca() : memref<4xf32>
// CHECK-NEXT: scf.for {{.*}} iter_args
// CHECK: llvm.intr.stackrestore %[[STACK]] : !llvm.ptr
// CHECK-NEXT: omp.yield
// CHECK: } else {
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.alloca() : memref<4xf32>
// CHECK: llvm.call @dlrt_parallel_release(%[[THREADS]])

func.func @row_sums(%a: memref<?x?xf32>, %sums: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : memref<?x?xf32>
  %n = memref.dim %a, %c1 : memref<?x?xf32>
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%m) step (%c1) {
    %buf = memref.alloca() : memref<4xf32>
    %s = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
      %x = memref.load %a[%i, %j] : memref<?x?xf32>
      %t = arith.addf %acc, %x : f32
      scf.yield %t : f32
    }
    memref.store %s, %buf[%c0] : memref<4xf32>
    %r = memref.load %buf[%c0] : memref<4xf32>
    memref.store %r, %sums[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A parallel loop inside the parallelised one runs on its thread as scf.for:
// no parallel region nests in another. Its constant trip count counts.

// CHECK-LABEL: func.func @nested
// CHECK-SAME: %{{.*}}: memref<?x?xf32>, %[[N:.*]]: index
// CHECK-DAG: %[[EIGHT:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[OUTER:.*]] = arith.maxsi %[[N64]]
// CHECK: %[[WORK:.*]] = arith.muli %[[OUTER]], %[[EIGHT]] : i64
// CHECK: llvm.call @dlrt_parallel_claim(%[[WORK]])
// CHECK: omp.parallel
// CHECK-NOT: omp.parallel
// CHECK: omp.loop_nest
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: omp.yield
// CHECK: } else {
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %[[N]] step %c1 {
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK-NOT: scf.parallel

func.func @nested(%a: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      memref.store %v, %a[%i, %j] : memref<?x?xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}

// -----

// A check in the body (its failure ends the call early, from the calling
// thread's context): the loop is left to the calling thread, as scf.for
// with its reduction carried through.

// CHECK-LABEL: func.func @checked
// CHECK-NOT: omp.
// CHECK-NOT: dlrt_parallel
// CHECK: %[[TOTAL:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (i64) {
// CHECK: dlpack.assert
// CHECK: %[[SUM:.*]] = arith.addi %[[ACC]], %{{.*}} : i64
// CHECK-NEXT: scf.yield %[[SUM]] : i64
// CHECK: memref.store %[[TOTAL]]

func.func @checked(%a: memref<?xi64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : memref<?xi64>
  %zero = arith.constant 0 : i64
  %total = scf.parallel (%i) = (%c0) to (%m) step (%c1) init (%zero) -> i64 {
    %x = memref.load %a[%i] : memref<?xi64>
    %n64 = arith.index_cast %n : index to i64
    %ok = arith.cmpi ult, %x, %n64 : i64
    dlpack.assert %ok, index_out_of_range, "index {0} is out of bounds" (%x : i64)
    scf.reduce(%x : i64) {
    ^bb0(%l: i64, %r: i64):
      %s = arith.addi %l, %r : i64
      scf.reduce.return %s : i64
    }
  }
  memref.store %total, %a[%c0] : memref<?xi64>
  return
}

// -----

// A heap allocation (through libdlrt, which records its failure in the
// calling thread's call) and a call: both loops stay on the calling thread.

// CHECK-LABEL: func.func @allocates
// CHECK-NOT: omp.
// CHECK: scf.for
// CHECK: memref.alloc
// CHECK: scf.for
// CHECK: func.call @helper
// CHECK-NOT: omp.
func.func private @helper(index)

func.func @allocates(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %buf = memref.alloc(%n) : memref<?xf32>
    memref.dealloc %buf : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    func.call @helper(%i) : (index) -> ()
    scf.reduce
  }
  return
}
