// RUN: dl-opt %s --dlbridge-gpu-check-cuda-options | FileCheck %s
// RUN: dl-opt %s \
// RUN:   --dlbridge-gpu-check-cuda-options="chip=sm_90a ptx-version=8.5 format=cubin opt-level=3" \
// RUN:   | FileCheck %s
// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-gpu-check-cuda-options="chip=sm_90 ptx-version=ptx60"
// RUN: not dl-opt %s --dlbridge-gpu-check-cuda-options="chip=sm_70" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OLDCHIP
// RUN: not dl-opt %s --dlbridge-gpu-check-cuda-options="ptx-version=ptx99" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PTX
// RUN: not dl-opt %s --dlbridge-gpu-check-cuda-options="format=elf" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FORMAT
// RUN: not dl-opt %s --dlbridge-gpu-check-cuda-options="opt-level=4" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPT

// Valid options leave the module as it is; invalid ones are one error at the
// module that names the option and what it takes.

// CHECK-LABEL: func.func @f
// CHECK-NEXT: return
// expected-error @below {{PTX 6.0 cannot target sm_90, which needs PTX 7.8 or newer; leave ptx-version empty to use the chip's minimum}}
module {
  func.func @f() {
    return
  }
}

// OLDCHIP: error: unknown or unsupported chip 'sm_70'; supported: sm_75,
// PTX: error: unknown PTX version 'ptx99'; write it as ptx78, 78 or 7.8
// FORMAT: error: unknown format 'elf'; expected ptx, cubin or fatbin
// OPT: error: opt-level must be 0 to 3, not 4
