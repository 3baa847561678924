// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-gpu-check-device-calls | FileCheck %s

// Calls that stay on the device pass unchanged: to functions the module
// defines, to libdevice, and through the address of a function it defines.

// CHECK-LABEL: gpu.module @device_calls
// CHECK: func.call @twice
// CHECK: func.call @__nv_expf
// CHECK: llvm.call @llvm.nvvm.read.ptx.sreg.laneid
// CHECK: llvm.call @vprintf
// CHECK: func.call_indirect
// CHECK: llvm.call %{{.*}}(
gpu.module @device_calls {
  func.func @twice(%v: f32) -> f32 {
    %r = arith.addf %v, %v : f32
    return %r : f32
  }
  llvm.func @thrice(%v: f32) -> f32 {
    %r = llvm.fmul %v, %v : f32
    llvm.return %r : f32
  }
  func.func private @__nv_expf(f32) -> f32
  llvm.func @llvm.nvvm.read.ptx.sreg.laneid() -> i32
  llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
  gpu.func @k(%x: memref<1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0] : memref<1xf32>
    %a = func.call @twice(%v) : (f32) -> f32
    %b = func.call @__nv_expf(%a) : (f32) -> f32
    %lane = llvm.call @llvm.nvvm.read.ptx.sreg.laneid() : () -> i32
    %null = llvm.mlir.zero : !llvm.ptr
    %printed = llvm.call @vprintf(%null, %null) : (!llvm.ptr, !llvm.ptr) -> i32
    %f = func.constant @twice : (f32) -> f32
    %c = func.call_indirect %f(%b) : (f32) -> f32
    %p = llvm.mlir.addressof @thrice : !llvm.ptr
    %d = llvm.call %p(%c) : !llvm.ptr, (f32) -> f32
    memref.store %d, %x[%c0] : memref<1xf32>
    gpu.return
  }
}

// -----

gpu.module @declared_only {
  func.func private @host_log(f32) -> f32
  gpu.func @k(%v: f32) kernel {
    // expected-error @+1 {{'func.call' op calls @host_log in device code, but it is only declared (a host function): a GPU cannot run host code; define @host_log in the module with a body, which is compiled for the device, or make the call on the host before the launch}}
    %r = func.call @host_log(%v) : (f32) -> f32
    gpu.return
  }
}

// -----

gpu.module @llvm_declared_only {
  llvm.func @host_log(f32) -> f32
  gpu.func @k(%v: f32) kernel {
    // expected-error @+1 {{'llvm.call' op calls @host_log in device code, but it is only declared}}
    %r = llvm.call @host_log(%v) : (f32) -> f32
    gpu.return
  }
}

// -----

gpu.module @host_function_pointer {
  gpu.func @k(%f: (f32) -> f32, %v: f32) kernel {
    // expected-error @+1 {{'func.call_indirect' op calls a function pointer in device code that is not a function of the GPU module (a host function's address): a GPU cannot run host code; call a function defined in the module directly, or make the call on the host before the launch}}
    %r = func.call_indirect %f(%v) : (f32) -> f32
    gpu.return
  }
}

// -----

gpu.module @host_address {
  gpu.func @k(%p: !llvm.ptr, %v: f32) kernel {
    // expected-error @+1 {{'llvm.call' op calls a function pointer in device code that is not a function of the GPU module}}
    %r = llvm.call %p(%v) : !llvm.ptr, (f32) -> f32
    gpu.return
  }
}

// -----

gpu.module @declared_function_address {
  func.func private @host_log(f32) -> f32
  gpu.func @k(%v: f32) kernel {
    %f = func.constant @host_log : (f32) -> f32
    // expected-error @+1 {{'func.call_indirect' op calls a function pointer in device code that is not a function of the GPU module}}
    %r = func.call_indirect %f(%v) : (f32) -> f32
    gpu.return
  }
}
