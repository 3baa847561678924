// RUN: dl-opt %s --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-tile-parallel-loops{block-sizes-2d=256}))'
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-tile-parallel-loops{block-sizes-1d=2048}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-tile-parallel-loops{block-sizes-3d=128,2,1}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=DEEP-Z
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-tile-parallel-loops{block-sizes-1d=0}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=ZERO

// Block sizes that make no CUDA block are errors at the operation the pass
// runs on, naming the option.

// expected-error @+1 {{block-sizes-2d=256: expected 2 sizes, one per dimension}}
func.func @f() {
  return
}

// TOO-MANY: error: block-sizes-1d=2048: a block has at most 1024 threads
// DEEP-Z: error: block-sizes-3d=128,2,1: a block has at most 64 threads along z (the first size)
// ZERO: error: block-sizes-1d=0: sizes must be positive
