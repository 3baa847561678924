// RUN: dl-opt %s --split-input-file --dlbridge-check-data-indices | FileCheck %s
// RUN: dl-opt %s --split-input-file \
// RUN:   --dlbridge-check-data-indices=guard-accesses | FileCheck %s --check-prefix=GUARD

// A gather as frontends lower it: the index is an element of another
// tensor, so the extract is checked where it happens, as an unsigned
// compare with the dimension (negative indices fail too).
// CHECK-LABEL: func.func @gather(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?xf32>
// CHECK: ^bb0(%[[K:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[I:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK: %[[DIM:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?xf32>
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[I]], %[[DIM]] : index
// CHECK: dlpack.assert %[[OK]], index_out_of_range, "'tensor.extract' at {{.*}}check-data-indices.mlir:[[@LINE+23]]:10: index {0} is out of bounds for dimension #0 of operand #0 with size {1}" (%[[I]], %[[DIM]] : index, index)
// CHECK-NEXT: tensor.extract %[[X]][%[[I]]]
// With guard-accesses the extract runs only in range, the assertion where
// it does not, and a zero stands for the element.
// GUARD-LABEL: func.func @gather(
// GUARD: %[[OK:.*]] = arith.cmpi ult
// GUARD-NEXT: %[[V:.*]] = scf.if %[[OK]] -> (f32) {
// GUARD-NEXT: %[[E:.*]] = tensor.extract
// GUARD-NEXT: scf.yield %[[E]] : f32
// GUARD-NEXT: } else {
// GUARD-NEXT: dlpack.assert %[[OK]], index_out_of_range
// GUARD-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// GUARD-NEXT: scf.yield %[[ZERO]] : f32
// GUARD: linalg.yield %[[V]] : f32
#id = affine_map<(d0) -> (d0)>
func.func @gather(%x: tensor<?xf32>, %idx: tensor<?xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%idx : tensor<?xi64>) outs(%e : tensor<?xf32>) {
  ^bb0(%k: i64, %o: f32):
    %i = arith.index_cast %k : i64 to index
    %v = tensor.extract %x[%i] : tensor<?xf32>
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Only the dimension whose index comes from data is checked: the other is
// linalg.index, bounded by the op's loop ranges.
// CHECK-LABEL: func.func @gather_rows(
// CHECK-COUNT-1: dlpack.assert
// CHECK-SAME: for dimension #0 of operand #0
// CHECK-NOT: dlpack.assert
#rows = affine_map<(d0, d1) -> (d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @gather_rows(%x: tensor<?x4xf32>, %idx: tensor<?xi32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %idx, %c0 : tensor<?xi32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#rows, #out],
                       iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<?xi32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%k: i32, %o: f32):
    %i = arith.index_cast %k : i32 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %x[%i, %j] : tensor<?x4xf32>
    linalg.yield %v : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// Memref-level code: a scatter (store at a loaded index) and a load at an
// index carried through scf.while (any value carried between iterations
// may be anything) are checked; the store's message names its operand #1.
// CHECK-LABEL: func.func @scatter_and_chase(
// CHECK: %[[K:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xindex>
// CHECK: dlpack.assert %{{.*}}, index_out_of_range, "'memref.store' at {{.*}}: index {0} is out of bounds for dimension #0 of operand #1 with size {1}" (%[[K]], %{{.*}} : index, index)
// CHECK-NEXT: memref.store
// CHECK: scf.while
// CHECK: dlpack.assert {{.*}}'memref.load'
// CHECK-NEXT: memref.load %{{.*}} : memref<?xindex>
// GUARD-LABEL: func.func @scatter_and_chase(
// GUARD: scf.if %{{.*}} {
// GUARD-NEXT: memref.store
// GUARD-NEXT: } else {
// GUARD-NEXT: dlpack.assert
// GUARD-NEXT: {{^ *}}}{{$}}
func.func @scatter_and_chase(%out: memref<?xf32>, %idx: memref<?xindex>,
                             %next: memref<?xindex>, %start: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %n = memref.dim %idx, %c0 : memref<?xindex>
  scf.for %i = %c0 to %n step %c1 {
    %k = memref.load %idx[%i] : memref<?xindex>
    memref.store %one, %out[%k] : memref<?xf32>
  }
  %last = scf.while (%p = %start) : (index) -> index {
    %q = memref.load %next[%p] : memref<?xindex>
    %more = arith.cmpi ne, %q, %p : index
    scf.condition(%more) %q : index
  } do {
  ^bb0(%q: index):
    scf.yield %q : index
  }
  return %last : index
}

// -----

// tensor.insert at an index read from data. Once per call (not in a loop,
// a linalg op or a kernel), it is checked before as in host code even with
// guard-accesses; in a loop, guarded, the destination is yielded unchanged
// where it does not run.
// CHECK-LABEL: func.func @insert_at(
// CHECK: dlpack.assert {{.*}}'tensor.insert' {{.*}}of operand #1
// CHECK: dlpack.assert {{.*}}'tensor.insert' {{.*}}of operand #1
// GUARD-LABEL: func.func @insert_at(
// GUARD-SAME: %[[T:[^:]*]]: tensor<8xf32>
// GUARD-NOT: scf.if
// GUARD: dlpack.assert
// GUARD-NEXT: %[[ONCE:.*]] = tensor.insert
// GUARD: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ONCE]])
// GUARD: %[[R:.*]] = scf.if %{{.*}} -> (tensor<8xf32>) {
// GUARD: tensor.insert
// GUARD: } else {
// GUARD: scf.yield %[[ACC]] : tensor<8xf32>
// GUARD: scf.yield %[[R]]
func.func @insert_at(%t: tensor<8xf32>, %at: tensor<4xi64>, %v: f32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %k = tensor.extract %at[%c0] : tensor<4xi64>
  %i = arith.index_cast %k : i64 to index
  %once = tensor.insert %v into %t[%i] : tensor<8xf32>
  %r = scf.for %n = %c1 to %c4 step %c1 iter_args(%acc = %once) -> tensor<8xf32> {
    %kn = tensor.extract %at[%n] : tensor<4xi64>
    %in = arith.index_cast %kn : i64 to index
    %u = tensor.insert %v into %acc[%in] : tensor<8xf32>
    scf.yield %u : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// A parallel scatter-add: the atomic update's index comes from data.
// CHECK-LABEL: func.func @scatter_add(
// CHECK: %[[K:.*]] = arith.index_cast
// CHECK: dlpack.assert {{.*}}"'memref.atomic_rmw' at {{.*}}: index {0} is out of bounds for dimension #0 of operand #1 with size {1}" (%[[K]],
// CHECK-NEXT: memref.atomic_rmw addf
// GUARD-LABEL: func.func @scatter_add(
// GUARD: scf.if %{{.*}} -> (f32) {
// GUARD-NEXT: memref.atomic_rmw addf
func.func @scatter_add(%out: memref<?xf32>, %idx: memref<?xi32>, %v: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %idx, %c0 : memref<?xi32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %j = memref.load %idx[%i] : memref<?xi32>
    %k = arith.index_cast %j : i32 to index
    %x = memref.load %v[%i] : memref<?xf32>
    %old = memref.atomic_rmw addf %x, %out[%k] : (f32, memref<?xf32>) -> f32
    scf.reduce
  }
  return
}

// -----

// affine.load with a symbol read from data: the map's result is computed
// and checked.
// CHECK-LABEL: func.func @affine_symbol(
// CHECK: %[[S:.*]] = memref.load
// CHECK: %[[I:.*]] = affine.apply #{{.*}}(%{{.*}})[%[[S]]]
// CHECK: arith.cmpi ult, %[[I]]
// CHECK: dlpack.assert {{.*}}'affine.load'
func.func @affine_symbol(%a: memref<?xf32>, %offsets: memref<1xindex>) -> f32 {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %s = memref.load %offsets[%c0] : memref<1xindex>
  %r = affine.for %i = 0 to 4 iter_args(%acc = %zero) -> f32 {
    %v = affine.load %a[%i + symbol(%s)] : memref<?xf32>
    %sum = arith.addf %acc, %v : f32
    affine.yield %sum : f32
  }
  return %r : f32
}

// -----

// Indices from the program's structure get no check here: constants, loop
// induction variables and arithmetic on them, linalg.index, dims, function
// arguments (the shape checks bound those), GPU thread ids.
// CHECK-LABEL: func.func @structural(
// CHECK-NOT: dlpack.assert
// CHECK: return
// GUARD-LABEL: func.func @structural(
// GUARD-NOT: scf.if
// GUARD: return
func.func @structural(%a: memref<?x?xf32>, %t: tensor<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d = memref.dim %a, %c0 : memref<?x?xf32>
  %last = arith.subi %d, %c1 : index
  %x = memref.load %a[%last, %n] : memref<?x?xf32>
  scf.for %i = %c0 to %d step %c1 {
    %j = arith.muli %i, %c2 : index
    %y = memref.load %a[%i, %j] : memref<?x?xf32>
    memref.store %y, %a[%j, %c0] : memref<?x?xf32>
  }
  %e = tensor.empty(%d) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} outs(%e : tensor<?xf32>) {
  ^bb0(%o: f32):
    %p = linalg.index 0 : index
    %q = arith.addi %p, %c1 : index
    %v = tensor.extract %t[%q] : tensor<?xf32>
    linalg.yield %v : f32
  } -> tensor<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %d, %sy = %c1, %sz = %c1) {
    %z = memref.load %a[%tx, %bx] : memref<?x?xf32>
    gpu.terminator
  }
  return %x : f32
}

// -----

// Kernels already outlined cannot report a failure; they are left alone.
// CHECK-LABEL: gpu.func @outlined(
// CHECK-NOT: dlpack.assert
gpu.module @kernels {
  gpu.func @outlined(%a: memref<?xf32>, %idx: memref<1xindex>) kernel {
    %c0 = arith.constant 0 : index
    %k = memref.load %idx[%c0] : memref<1xindex>
    %v = memref.load %a[%k] : memref<?xf32>
    gpu.return
  }
}

// -----

// An access whose producer checked its indices (dlpack.in_bounds: @jit checks
// a whole index array once) gets no check of its own and stays parallel.
// CHECK-LABEL: func.func @checked_by_producer(
// CHECK-NOT: dlpack.assert
// CHECK: tensor.extract %{{.*}}[%{{.*}}] {dlpack.in_bounds} : tensor<?xf32>
// CHECK-NOT: dlpack.assert
// CHECK: return
func.func @checked_by_producer(%x: tensor<?xf32>, %idx: tensor<?xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %idx, %c0 : tensor<?xi64>
  %e = tensor.empty(%d) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%idx : tensor<?xi64>) outs(%e : tensor<?xf32>) {
  ^bb0(%k: i64, %o: f32):
    %i = arith.index_cast %k : i64 to index
    %v = tensor.extract %x[%i] {dlpack.in_bounds} : tensor<?xf32>
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
