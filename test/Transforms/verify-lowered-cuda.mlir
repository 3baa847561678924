// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-verify-lowered="target=cuda"

// For CUDA, kernels in a gpu.binary and their launches are lowered: they
// translate to LLVM IR with the binary.
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "">]
  llvm.func @launch(%stream: !llvm.ptr, %p: !llvm.ptr) {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    gpu.launch_func <%stream : !llvm.ptr> @kernels::@k
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64
        args(%p : !llvm.ptr)
    llvm.return
  }
}

// -----

// A launch the pipeline did not outline is not lowered.
llvm.func @launch(%n: i64) {
  %one = builtin.unrealized_conversion_cast %n : i64 to index
  // expected-error @+1 {{'gpu.launch' was not lowered to the LLVM dialect by the CUDA pipeline: rewrite it with operations that pipeline lowers, or lower it to the LLVM dialect before compiling}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %one, %sy = %one, %sz = %one) {
    gpu.terminator
  }
  llvm.return
}
