// RUN: dl-opt %s -split-input-file --dlbridge-check-allocations | FileCheck %s

// Dynamic sizes: not negative and a byte size that fits int64, before the
// allocation; a buffer that is not NULL, after it, unless it has no
// elements (allocators may answer a request for no bytes with NULL).

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[M:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG: %[[M_OK:.*]] = arith.cmpi sge, %[[M]], %[[ZERO:.*]] : index
// CHECK-DAG: %[[N_OK:.*]] = arith.cmpi sge, %[[N]], %[[ZERO]] : index
// CHECK: %[[NON_NEG:.*]] = arith.andi %[[M_OK]], %[[N_OK]]
// CHECK: dlpack.assert %[[NON_NEG]], shape_mismatch, "cannot allocate memref<?x3x?xf64> of shape ({0}, 3, {1}) for 'memref.alloc' at {{.*}}: negative dimensions are not allowed" (%[[M]], %[[N]] : index, index)
// CHECK-DAG: %[[BYTES:.*]] = arith.constant 24 : i64
// CHECK-DAG: %[[M64:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK: %[[LOW:.*]], %[[HIGH:.*]] = arith.mului_extended %[[BYTES]], %[[M64]] : i64
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: arith.mului_extended %[[LOW]], %[[N64]] : i64
// CHECK: dlpack.assert %{{.*}}, out_of_memory, "cannot allocate memref<?x3x?xf64> of shape ({0}, 3, {1}) for 'memref.alloc' at {{.*}}: its size in bytes overflows int64" (%[[M]], %[[N]] : index, index)
// CHECK: %[[BUF:.*]] = memref.alloc(%[[M]], %[[N]])
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK: %[[NOT_NULL:.*]] = arith.cmpi ne, %[[PTR]], %[[NULL:.*]] : index
// CHECK: %[[M_EMPTY:.*]] = arith.cmpi eq, %[[M]], %[[NULL]] : index
// CHECK: %[[OK_M:.*]] = arith.ori %[[NOT_NULL]], %[[M_EMPTY]] : i1
// CHECK: %[[N_EMPTY:.*]] = arith.cmpi eq, %[[N]], %[[NULL]] : index
// CHECK: %[[OK:.*]] = arith.ori %[[OK_M]], %[[N_EMPTY]] : i1
// CHECK: dlpack.assert %[[OK]], out_of_memory, "cannot allocate memref<?x3x?xf64> of shape ({0}, 3, {1}) for 'memref.alloc' at {{.*}}: out of memory" (%[[M]], %[[N]] : index, index)
func.func @dynamic(%m: index, %n: index) -> memref<?x3x?xf64> {
  %buf = memref.alloc(%m, %n) : memref<?x3x?xf64>
  return %buf : memref<?x3x?xf64>
}

// -----

// Static sizes: only the NULL check.

// CHECK-LABEL: func.func @static
// CHECK-NOT: mului_extended
// CHECK: memref.alloc() : memref<4x4xf32>
// CHECK: dlpack.assert %{{.*}}, out_of_memory, "cannot allocate memref<4x4xf32> of shape (4, 4) for 'memref.alloc' at {{.*}}: out of memory"
func.func @static() -> memref<4x4xf32> {
  %buf = memref.alloc() : memref<4x4xf32>
  return %buf : memref<4x4xf32>
}

// -----

// A static shape of no elements: nothing to check, NULL or not.

// CHECK-LABEL: func.func @static_empty
// CHECK-NOT: dlpack.assert
func.func @static_empty() -> memref<0x4xf32> {
  %buf = memref.alloc() : memref<0x4xf32>
  return %buf : memref<0x4xf32>
}

// -----

// Stack buffers and allocations in kernels are left alone.

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: dlpack.assert
func.func @left_alone(%n: index) {
  %c1 = arith.constant 1 : index
  %s = memref.alloca() : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %k = memref.alloc(%n) : memref<?xf32>
    memref.dealloc %k : memref<?xf32>
    gpu.terminator
  }
  return
}
