// RUN: dl-opt %s --split-input-file --dlbridge-read-only-arguments | FileCheck %s
// RUN: dl-opt %s --split-input-file --dlbridge-read-only-arguments \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --dlbridge-own-results --dlbridge-expose-entry-points \
// RUN:   | FileCheck %s --check-prefix=ENTRY

// Tensor arguments of entries become read-only; an argument that says
// `bufferization.writable` keeps what it says; memref and scalar arguments
// and functions that are not entries are left alone.
// CHECK-LABEL: func.func @entry(
// CHECK-SAME: %{{[^:]*}}: tensor<4xf32> {bufferization.writable = false, dlpack.name = "x"},
// CHECK-SAME: %{{[^:]*}}: tensor<4xf32> {bufferization.writable = true},
// CHECK-SAME: %{{[^:]*}}: memref<4xf32>,
// CHECK-SAME: %{{[^:]*}}: f32)
// CHECK-LABEL: func.func @not_an_entry(
// CHECK-SAME: %{{[^:]*}}: tensor<4xf32>)
func.func @entry(%x: tensor<4xf32> {dlpack.name = "x"},
                 %out: tensor<4xf32> {bufferization.writable = true},
                 %m: memref<4xf32>, %s: f32) -> (tensor<4xf32>, tensor<4xf32>)
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %a = tensor.insert %s into %x[%c0] : tensor<4xf32>
  %b = tensor.insert %s into %out[%c0] : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

func.func @not_an_entry(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// Bufferized, the read-only argument is copied before the insert and only
// read; the writable one is written in place (and returned as a copy).
// ENTRY-LABEL: func.func @entry(
// ENTRY-SAME: %[[X:[^:]*]]: memref<4xf32, strided<[?], offset: ?>>, %[[OUT:[^:]*]]: memref<4xf32, strided<[?], offset: ?>>
// ENTRY: %[[COPY:.*]] = memref.alloc()
// ENTRY: memref.copy %[[X]], %[[COPY]]
// ENTRY: memref.store %{{.*}}, %[[COPY]]
// ENTRY: memref.store %{{.*}}, %[[OUT]]
// ENTRY: dlpack.signature @entry__dlpack_signature
// ENTRY-SAME: arguments [#dlpack.param<"x" : memref<4xf32, strided<[?], offset: ?>>, read>, #dlpack.param<"arg1" : memref<4xf32, strided<[?], offset: ?>>, read_write>
