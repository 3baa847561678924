// RUN: dl-opt %s -split-input-file --dlbridge-generate-shape-checks --cse | FileCheck %s

// Contraction dims of a matmul: the operands' dims against the loop ranges,
// each check a dlpack.assert naming the op, the operand and the shapes.
// Dims indexed by a loop alone are checked first, whatever the sizes: a
// (3, 0) by (4, 2) matmul, whose iteration space is empty, is refused as
// NumPy refuses it (upstream's checks, in the scf.if, skip empty spaces).

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>, %[[C:.*]]: tensor<?x?xf32>)
// CHECK-DAG: %[[A0:.*]] = tensor.dim %[[A]], %[[ZERO:[a-z0-9_]+]] :
// CHECK-DAG: %[[A1:.*]] = tensor.dim %[[A]], %[[ONE:[a-z0-9_]+]] :
// CHECK-DAG: %[[B1:.*]] = tensor.dim %[[B]], %[[ONE]] :
// CHECK-DAG: %[[B0:.*]] = tensor.dim %[[B]], %[[ZERO]] :
// CHECK: %[[EQ_B:.*]] = arith.cmpi eq, %[[B0]], %[[A1]]
// CHECK: dlpack.assert %[[EQ_B]], shape_mismatch, "'linalg.matmul' at {{.*}}generate-shape-checks.mlir:[[@LINE+10]]:8: dimension #0 of input/output operand #1 is incompatible with inferred dimension size; operand shapes: ({0}, {1}) ({2}, {3}) ({4}, {5})" (%[[A0]], %[[A1]], %[[B0]], %[[B1]], %{{.*}}, %{{.*}} : index, index, index, index, index, index)
// CHECK: %[[EQ_C0:.*]] = arith.cmpi eq, %{{.*}}, %[[A0]]
// CHECK: dlpack.assert %[[EQ_C0]], {{.*}}dimension #0 of input/output operand #2 is incompatible
// CHECK: %[[EQ_C1:.*]] = arith.cmpi eq, %{{.*}}, %[[B1]]
// CHECK: dlpack.assert %[[EQ_C1]], {{.*}}dimension #1 of input/output operand #2 is incompatible
// CHECK: scf.if
// CHECK: index.cmp
// CHECK-NOT: cf.assert
// CHECK: = linalg.matmul
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Static shapes that fit need no check.

// CHECK-LABEL: func.func @static_matmul
// CHECK-NOT: dlpack.assert
// CHECK: linalg.matmul
func.func @static_matmul(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<3x4xf32>, tensor<4x5xf32>)
                     outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// A tensor.empty sized from %a, written from %b: the relation is checked
// through the empty's size.

// CHECK-LABEL: func.func @empty_from_another_argument
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>, %[[B:.*]]: tensor<?xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[A]], %{{.*}}
// CHECK: %[[E:.*]] = tensor.empty(%[[N]])
// CHECK: %[[M:.*]] = tensor.dim %[[B]]
// CHECK: scf.if
// CHECK: %[[EQ:.*]] = index.cmp eq(%{{.*}}, %[[N]])
// CHECK-NEXT: dlpack.assert %[[EQ]], shape_mismatch, "'linalg.negf' at {{.*}}: dimension #0 of input/output operand #1 is incompatible with inferred dimension size; operand shapes: ({0},) ({1},)" (%[[M]], %[[N]] : index, index)
// CHECK: linalg.negf
func.func @empty_from_another_argument(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.negf ins(%b : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Slices and casts outside loops are checked; slices inside loops are not
// (their checks would cost O(elements)), element accesses inside them only
// before the loops (see @loop_accesses); linalg ops inside loops are.

// CHECK-LABEL: func.func @slices_and_loops
// CHECK: dlpack.assert {{.*}}'tensor.extract_slice' at {{.*}}: extract_slice runs out-of-bounds along dimension 0; operand shapes: ({0},)
// CHECK: tensor.extract_slice
// CHECK: dlpack.assert {{.*}}'tensor.cast' at {{.*}}: size mismatch of dim 0; operand shapes: ({0},)
// CHECK: tensor.cast
// CHECK: scf.for
// CHECK-NOT: dlpack.assert {{.*}}'tensor.
// CHECK: tensor.extract_slice
// CHECK-NOT: dlpack.assert {{.*}}'tensor.
// CHECK: tensor.extract
// CHECK: dlpack.assert {{.*}}'linalg.add'
// CHECK: = linalg.add
// CHECK-NOT: dlpack.assert
// CHECK: tensor.insert
// CHECK-NOT: dlpack.assert
// CHECK: tensor.insert_slice
// CHECK-NEXT: scf.yield
func.func @slices_and_loops(%a: tensor<?xf32>, %b: tensor<?xf32>, %off: index, %n: index) -> (tensor<?xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tensor.extract_slice %a[%off] [4] [1] : tensor<?xf32> to tensor<4xf32>
  %static = tensor.cast %a : tensor<?xf32> to tensor<8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %b) -> tensor<?xf32> {
    %w = tensor.extract_slice %a[%i] [4] [1] : tensor<?xf32> to tensor<4xf32>
    %x = tensor.extract %static[%i] : tensor<8xf32>
    %sum = linalg.add ins(%acc, %a : tensor<?xf32>, tensor<?xf32>) outs(%acc : tensor<?xf32>) -> tensor<?xf32>
    %set = tensor.insert %x into %sum[%i] : tensor<?xf32>
    %put = tensor.insert_slice %w into %set[%i] [4] [1] : tensor<4xf32> into tensor<?xf32>
    scf.yield %put : tensor<?xf32>
  }
  return %r, %s : tensor<?xf32>, tensor<4xf32>
}

// -----

// Nothing inside GPU kernels: checks are host code.

// CHECK-LABEL: func.func @kernel
// CHECK-NOT: dlpack.assert
func.func @kernel(%m: memref<?xf32>, %i: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %v0 = memref.load %m[%i] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// Tensor ops MLIR gives no run-time verification (dlbridge attaches it):
// a slice inserted out of the destination's bounds, concatenated inputs
// whose other dims differ, an output_shape that does not multiply out to
// the source, negative padding. Bufferized unchecked, each writes or reads
// out of bounds.

// CHECK-LABEL: func.func @tensor_relations
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>, %[[V:.*]]: tensor<?xf32>, %[[N:.*]]: index)
// CHECK: dlpack.assert {{.*}}"'tensor.insert_slice' at {{.*}}: insert_slice runs out-of-bounds along dimension #0 of the destination; operand shapes: ({0}, {1}) ({2}, {3})"
// CHECK: dlpack.assert {{.*}}"'tensor.insert_slice' at {{.*}}: insert_slice runs out-of-bounds along dimension #1 of the destination;
// CHECK: dlpack.assert {{.*}}"'tensor.insert_slice' at {{.*}}: dimension #1 of the source differs from size #1 of the slice;
// CHECK: tensor.insert_slice
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[B1:.*]], %[[A1:.*]] : index
// CHECK: dlpack.assert %[[EQ]], shape_mismatch, "'tensor.concat' at {{.*}}: dimension #1 of input #1 differs from input #0's; operand shapes: ({0}, {1}) ({2}, {3})"
// CHECK: tensor.concat
// CHECK: dlpack.assert {{.*}}"'tensor.expand_shape' at {{.*}}: output_shape of dimension #0 of the source has a negative size; operand shapes: ({0},)"
// CHECK: dlpack.assert {{.*}}"'tensor.expand_shape' at {{.*}}: output_shape of dimension #0 of the source does not multiply out to its size; operand shapes: ({0},)"
// CHECK: tensor.expand_shape
// CHECK-NOT: low padding
// CHECK: dlpack.assert {{.*}}"'tensor.pad' at {{.*}}: high padding of dimension #0 is negative; operand shapes: ({0},)"
// CHECK: tensor.pad
func.func @tensor_relations(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %v: tensor<?xf32>, %n: index)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x4xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %b0 = tensor.dim %b, %c0 : tensor<?x?xf32>
  %s = tensor.insert_slice %b into %a[2, 0] [%b0, %n] [1, 1] : tensor<?x?xf32> into tensor<?x?xf32>
  %c = tensor.concat dim(0) %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %e = tensor.expand_shape %v [[0, 1]] output_shape [%n, 4] : tensor<?xf32> into tensor<?x4xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %v low[1] high[%n] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<?xf32> to tensor<?xf32>
  return %s, %c, %e, %p : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x4xf32>, tensor<?xf32>
}

// -----

// A concat into a static result: the inputs' sizes along the concatenated
// dimension add up to it, and the others match it.

// CHECK-LABEL: func.func @static_concat
// CHECK: dlpack.assert {{.*}}"'tensor.concat' at {{.*}}: the inputs' sizes along dimension #0 do not add up to the result's 5; operand shapes: ({0}, {1}) (2, 3)"
// CHECK: dlpack.assert {{.*}}"'tensor.concat' at {{.*}}: dimension #1 of input #0 differs from the result's;
// CHECK: tensor.concat
func.func @static_concat(%a: tensor<?x?xf32>, %b: tensor<2x3xf32>) -> tensor<5x3xf32> {
  %c = tensor.concat dim(0) %a, %b : (tensor<?x?xf32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return %c : tensor<5x3xf32>
}

// -----

// Element accesses in loops, indexed by induction variables or invariants:
// checked once before the outermost loop, over each index's whole range (a
// loop over dim(a) reading b[i]), unless some loop runs no iteration. Not
// checked when an scf.if guards the access or the accessed value changes
// in the loops.

// CHECK-LABEL: func.func @loop_accesses
// CHECK: dlpack.assert {{.*}}"'tensor.extract' at {{.*}}: index #0 takes values from {0} to {1} in the loops around it, out of bounds of dimension #0; operand shapes: ({2},)"
// CHECK: dlpack.assert {{.*}}"'memref.load' at {{.*}}: index #0 takes values from {0} to {1} in the loops around it, out of bounds of dimension #0; operand shapes: ({2}, {3})"
// CHECK: dlpack.assert {{.*}}"'memref.load' at {{.*}}: index #1 takes values from {0} to {1} in the loops around it, out of bounds of dimension #1; operand shapes: ({2}, {3})"
// CHECK-NOT: dlpack.assert
// CHECK: scf.for
// CHECK-NOT: dlpack.assert
// CHECK: return
func.func @loop_accesses(%a: tensor<?xf32>, %b: tensor<?xf32>, %m: memref<?x?xf32>, %c: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %x = tensor.extract %b[%i] : tensor<?xf32>
    %inner = scf.for %j = %c0 to %n step %c2 iter_args(%acc2 = %acc) -> f32 {
      %v = memref.load %m[%c1, %j] : memref<?x?xf32>
      %guarded = scf.if %c -> f32 {
        %w = tensor.extract %a[%j] : tensor<?xf32>
        scf.yield %w : f32
      } else {
        scf.yield %v : f32
      }
      %s = arith.addf %acc2, %guarded : f32
      scf.yield %s : f32
    }
    %t = arith.addf %inner, %x : f32
    scf.yield %t : f32
  }
  return %r : f32
}
