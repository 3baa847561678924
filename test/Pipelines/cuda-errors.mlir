// RUN: rm -rf %t && split-file %s %t
// RUN: dl-opt %t/programs.mlir --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-cuda-pipeline="format=ptx"
// RUN: dl-opt %t/options.mlir --verify-diagnostics \
// RUN:   --dlbridge-cuda-pipeline="chip=sm_90 ptx-version=ptx60"
// RUN: not dl-opt %t/options.mlir --dlbridge-cuda-pipeline="chip=sm_70" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OLDCHIP
// RUN: not dl-opt %t/options.mlir --dlbridge-cuda-pipeline="ptx-version=9.9" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PTX
// RUN: not dl-opt %t/options.mlir --dlbridge-cuda-pipeline="format=elf" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FORMAT
// RUN: not dl-opt %t/options.mlir --dlbridge-cuda-pipeline="opt-level=7" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPT

// What the CUDA pipeline refuses, at the user's operation, saying what to
// change.

// OLDCHIP: error: unknown or unsupported chip 'sm_70'; supported: sm_75, sm_80
// PTX: error: unknown PTX version '9.9'; write it as ptx78, 78 or 7.8
// FORMAT: error: unknown format 'elf'; expected ptx, cubin or fatbin
// OPT: error: opt-level must be 0 to 3, not 7

//--- options.mlir
// Invalid options fail before anything runs, whatever the program: nothing
// else is reported (the kernel's math would need libdevice, the device call
// is refused), and LLVM, which aborts the process on a PTX version too old
// for the chip, never sees them.
// expected-error @below {{PTX 6.0 cannot target sm_90, which needs PTX 7.8 or newer; leave ptx-version empty to use the chip's minimum}}
module {
  func.func private @host_log(f32) -> f32
  func.func @f(%x: memref<?xf32>) attributes {dlpack.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%c0] : memref<?xf32>
      %w = func.call @host_log(%v) : (f32) -> f32
      memref.store %w, %x[%c0] : memref<?xf32>
      gpu.terminator
    }
    return
  }
}

//--- programs.mlir
// Device code cannot call a function the program only declares: it exists
// on the host at best.
func.func private @host_log(f32) -> f32
func.func @log_on_device(%x: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%c0] : memref<?xf32>
    // expected-error @+1 {{'func.call' op calls @host_log in device code, but it is only declared (a host function): a GPU cannot run host code; define @host_log in the module with a body, which is compiled for the device, or make the call on the host before the launch}}
    %w = func.call @host_log(%v) : (f32) -> f32
    memref.store %w, %x[%c0] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// Nor through a pointer to such a function (the pipeline turns the
// indirect call of a known function into a direct one).
func.func private @host_log(f32) -> f32
func.func @log_through_pointer(%x: memref<?xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = func.constant @host_log : (f32) -> f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%c0] : memref<?xf32>
    // expected-error @+1 {{'func.call' op calls @host_log in device code, but it is only declared}}
    %w = func.call_indirect %f(%v) : (f32) -> f32
    memref.store %w, %x[%c0] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// A hand-written kernel that takes a function pointer from the host.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @apply(%f: (f32) -> f32, %x: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<?xf32>
      // expected-error @+1 {{'func.call_indirect' op calls a function pointer in device code that is not a function of the GPU module}}
      %w = func.call_indirect %f(%v) : (f32) -> f32
      memref.store %w, %x[%c0] : memref<?xf32>
      gpu.return
    }
  }
  func.func private @host_log(f32) -> f32
  func.func @apply(%x: memref<?xf32>) attributes {dlpack.entry} {
    %c1 = arith.constant 1 : index
    %f = func.constant @host_log : (f32) -> f32
    gpu.launch_func @kernels::@apply blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%f : (f32) -> f32, %x : memref<?xf32>)
    return
  }
}

// -----

// A vector host code uses, read from a tensor: the data is in device memory
// and only scalars are copied back to the host.
func.func @first_four(%a: memref<?xf32>, %out: memref<4xf32>) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'vector.load' op accesses tensor data in host code and host code uses its result, of type 'vector<4xf32>', but a CUDA entry's tensors live in device memory and only scalars (integers and floats of at most 64 bits, indices, complex numbers) are copied back to the host; compute this inside a gpu.launch (or with linalg ops, which become kernels), or compile the function for the CPU}}
  %v = vector.load %a[%c0] : memref<?xf32>, vector<4xf32>
  // expected-note @+1 {{the result is used here, by 'func.call'}}
  call @host_sink(%v) : (vector<4xf32>) -> ()
  return
}
func.func private @host_sink(vector<4xf32>)
