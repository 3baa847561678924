// RUN: rm -rf %t && mkdir -p %t/empty-toolkit
// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-gpu-check-libdevice="toolkit=%t/empty-toolkit" \
// RUN:   | FileCheck %s

// Kernels without libdevice calls need no toolkit.

// CHECK-LABEL: gpu.module @plain
module attributes {gpu.container_module} {
  gpu.module @plain {
    llvm.func @k(%v: f32) -> f32 {
      %r = llvm.fadd %v, %v : f32
      llvm.return %r : f32
    }
  }
}

// -----

// Math lowered to libdevice without a libdevice to link is an error at the
// gpu.module, naming the functions and where libdevice was looked for.

module attributes {gpu.container_module} {
  // expected-error-re @+1 {{kernels call libdevice (__nv_expf, __nv_tanhf) but libdevice is not at {{.*}}empty-toolkit/nvvm/libdevice/libdevice.10.bc (toolkit option); point the toolkit option (CompileOptions::toolkit) or CUDA_HOME at a CUDA toolkit with nvvm/libdevice/libdevice.10.bc}}
  gpu.module @math {
    llvm.func @__nv_expf(f32) -> f32
    llvm.func @__nv_tanhf(f32) -> f32
    llvm.func @k(%v: f32) -> f32 {
      %a = llvm.call @__nv_expf(%v) : (f32) -> f32
      %b = llvm.call @__nv_tanhf(%a) : (f32) -> f32
      llvm.return %b : f32
    }
  }
}
