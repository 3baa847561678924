// RUN: dl-opt %s --split-input-file --verify-diagnostics --dlbridge-refuse-gpu-code | FileCheck %s

// Host code passes.
// CHECK-LABEL: func @host
func.func @host(%x: memref<?xf32>) {
  return
}

// -----

// A launch without a body is refused too: folded away, its kernel would
// silently never run.
func.func @empty_launch() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch' is GPU code: compile it with the CUDA target (target="cuda", or --dlbridge-cuda-pipeline)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// A kernel module is one error, whatever it holds; each launch of it is
// another.
module attributes {gpu.container_module} {
  // expected-error @+1 {{'gpu.module' is GPU code: compile it with the CUDA target}}
  gpu.module @kernels {
    gpu.func @k(%a: memref<?xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %a[%t] : memref<?xf32>
      memref.store %v, %a[%t] : memref<?xf32>
      gpu.return
    }
  }
  func.func @launch(%a: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'gpu.launch_func' is GPU code: compile it with the CUDA target}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    return
  }
}

// -----

func.func @thread_id(%x: memref<?xf32>) {
  // expected-error @+1 {{'gpu.thread_id' is GPU code: compile it with the CUDA target}}
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%t] : memref<?xf32>
  memref.store %v, %x[%c0] : memref<?xf32>
  return
}

// -----

llvm.func @nvvm_on_host() -> i32 {
  // expected-error @+1 {{'nvvm.read.ptx.sreg.tid.x' is GPU code: compile it with the CUDA target}}
  %t = nvvm.read.ptx.sreg.tid.x : i32
  llvm.return %t : i32
}
