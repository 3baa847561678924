// RUN: dl-opt %s --dlbridge-expose-entry-points -split-input-file -verify-diagnostics
// RUN: not dl-opt %s --dlbridge-expose-entry-points=device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE

// DEVICE: error: dlbridge-expose-entry-points: unknown device 'tpu'

// What --dlbridge-expose-entry-points refuses, one case each.

// expected-error @+1 {{'func.func' op arg 0 of entry @takes_tensor: has type 'tensor<4xf32>'; a DLPack entry takes and returns memrefs and integer, float or index scalars}}
func.func @takes_tensor(%t: tensor<4xf32>) attributes {dlpack.entry} {
  return
}

// -----

func.func @returns_argument(%m: memref<?xf32>) -> memref<?xf32> attributes {dlpack.entry} {
  // expected-error @+1 {{'func.return' op returns result 0 of entry @returns_argument, which is argument 0; entry results must be buffers the function allocates}}
  return %m : memref<?xf32>
}

// -----

func.func @returns_view_of_argument(%m: memref<8xf32>) -> memref<4xf32, strided<[1], offset: 2>> attributes {dlpack.entry} {
  %v = memref.subview %m[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  // expected-error @+1 {{'func.return' op returns result 0 of entry @returns_view_of_argument, which is argument 0}}
  return %v : memref<4xf32, strided<[1], offset: 2>>
}

// -----

func.func @returns_stack_buffer() -> memref<4xf32> attributes {dlpack.entry} {
  %a = memref.alloca() : memref<4xf32>
  // expected-error @+1 {{'func.return' op returns result 0 of entry @returns_stack_buffer, which is allocated on the stack}}
  return %a : memref<4xf32>
}

// -----

memref.global "private" constant @table : memref<4xf32> = dense<1.0>
func.func @returns_global() -> memref<4xf32> attributes {dlpack.entry} {
  %g = memref.get_global @table : memref<4xf32>
  // expected-error @+1 {{'func.return' op returns result 0 of entry @returns_global, which comes from 'memref.get_global'; entry results must be buffers the function allocates}}
  return %g : memref<4xf32>
}

// -----

func.func @returns_one_buffer_twice() -> (memref<4xf32>, memref<4xf32>) attributes {dlpack.entry} {
  %a = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{'func.return' op returns result 1 of entry @returns_one_buffer_twice, which shares its buffer with result 0}}
  return %a, %a : memref<4xf32>, memref<4xf32>
}

// -----

// A choice between an argument and an allocation is neither owned nor
// safely copied (the copy would leak the allocation).
func.func @returns_argument_or_buffer(%x: memref<4xf32>, %c: i1) -> memref<4xf32> attributes {dlpack.entry} {
  %a = memref.alloc() : memref<4xf32>
  %r = arith.select %c, %x, %a : memref<4xf32>
  // expected-error @+1 {{'func.return' op returns result 0 of entry @returns_argument_or_buffer, which comes from 'arith.select'; entry results must be buffers the function allocates}}
  return %r : memref<4xf32>
}

// -----

// The same allocation through a call and directly.
func.func private @pass(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}
func.func @returns_buffer_and_call_of_it() -> (memref<4xf32>, memref<4xf32>) attributes {dlpack.entry} {
  %a = memref.alloc() : memref<4xf32>
  %b = func.call @pass(%a) : (memref<4xf32>) -> memref<4xf32>
  // expected-error @+1 {{'func.return' op returns result 1 of entry @returns_buffer_and_call_of_it, which shares its buffer with result 0}}
  return %a, %b : memref<4xf32>, memref<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op cannot be exposed: symbol @taken__dlpack already exists}}
func.func @taken(%m: memref<?xf32>) attributes {dlpack.entry} {
  return
}
func.func @taken__dlpack() {
  return
}
