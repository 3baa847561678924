// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-verify-lowered="target=cpu"
// RUN: not dl-opt %s --dlbridge-verify-lowered="target=tpu" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TARGET

// TARGET: error: dlbridge-verify-lowered: unknown target 'tpu'; expected cpu or cuda

// LLVM-dialect code passes.
llvm.func @lowered(%p: !llvm.ptr) -> i32 {
  %v = llvm.load %p : !llvm.ptr -> i32
  llvm.return %v : i32
}

// -----

// An operation the pipeline left: the casts that connect it to its lowered
// neighbours are not mentioned.
llvm.func @launch(%n: i64) {
  %c1 = llvm.mlir.constant(1 : index) : i64
  %one = builtin.unrealized_conversion_cast %c1 : i64 to index
  %size = builtin.unrealized_conversion_cast %n : i64 to index
  // expected-error @+1 {{'gpu.launch' was not lowered to the LLVM dialect by the CPU pipeline}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %size, %sy = %one, %sz = %one) {
    %t = builtin.unrealized_conversion_cast %tx : index to i64
    gpu.terminator
  }
  llvm.return
}

// -----

// A function the pipeline did not convert is one error; what it holds is
// part of it.
// expected-error @+1 {{'func.func' was not lowered to the LLVM dialect by the CPU pipeline: rewrite it with operations that pipeline lowers, or lower it to the LLVM dialect before compiling}}
func.func @not_converted(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32>
  return
}

// -----

llvm.func @unbufferized() {
  // expected-error @+1 {{'tensor.empty' was left unbufferized: compile tensor programs with bufferization on (bufferize=true), or lower them to memrefs first}}
  %e = tensor.empty() : tensor<4xf32>
  llvm.return
}

// -----

// A cast left over with nothing unlowered around it is reported at the
// operation that produced its operand.
llvm.func @cast_only() {
  // expected-error @+1 {{'llvm.mlir.constant' produces a value of type 'i64' that the rest of the program needs as 'index'; the CPU pipeline has no lowering between the two}}
  %c = llvm.mlir.constant(1 : i64) : i64
  %i = builtin.unrealized_conversion_cast %c : i64 to index
  llvm.return
}
