// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-gpu-sink-constant-globals | FileCheck %s

// A constant global read in a kernel is read through a get_global inside
// the launch (outlining then copies the global into the kernel's module);
// host uses keep theirs.

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @captured
// CHECK: %[[HOST:.*]] = memref.get_global @table
// CHECK: gpu.launch
// CHECK-NEXT: %[[DEVICE:.*]] = memref.get_global @table
// CHECK: memref.load %[[DEVICE]]
// CHECK: gpu.terminator
// CHECK: memref.load %[[HOST]]
func.func @captured(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = memref.get_global @table : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %v = memref.load %t[%tx] : memref<4xf32>
    memref.store %v, %x[%tx] : memref<4xf32>
    gpu.terminator
  }
  %h = memref.load %t[%c0] : memref<4xf32>
  return %h : f32
}

// -----

memref.global "private" @counter : memref<1xi32> = dense<0>

func.func @mutable(%x: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'memref.get_global' op reads the mutable global @counter in a kernel: host and device would each have their own copy; make the global constant, or pass a device buffer as an argument}}
  %t = memref.get_global @counter : memref<1xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %t[%c0] : memref<1xi32>
    memref.store %v, %x[%c0] : memref<1xi32>
    gpu.terminator
  }
  return
}

// -----

module attributes {gpu.container_module} {
  memref.global "private" constant @table : memref<4xf32> = dense<1.0>
  gpu.module @kernels {
    gpu.func @k(%t: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @passed() {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'memref.get_global' op passes the host address of @table to a kernel, which cannot read host memory; read the global with memref.get_global inside the kernel's gpu.module, or pass a device buffer}}
    %t = memref.get_global @table : memref<4xf32>
    // expected-note @+1 {{passed to this launch}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%t : memref<4xf32>)
    return
  }
}
