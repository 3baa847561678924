// y = alpha * x + y, in place, over memrefs: the kind of function a
// compiler backend writes. x may have any strides; y must be compact.
func.func @axpy(%x: memref<?xf32, strided<[?], offset: ?>> {dlpack.name = "x"},
                %y: memref<?xf32> {dlpack.name = "y"},
                %alpha: f32 {dlpack.name = "alpha"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32, strided<[?], offset: ?>>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32, strided<[?], offset: ?>>
    %b = memref.load %y[%i] : memref<?xf32>
    %p = arith.mulf %a, %alpha : f32
    %s = arith.addf %p, %b : f32
    memref.store %s, %y[%i] : memref<?xf32>
  }
  return
}
