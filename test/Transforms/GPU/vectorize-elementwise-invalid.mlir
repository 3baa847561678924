// RUN: dl-opt %s --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-vectorize-elementwise{block-size=100}))'
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-vectorize-elementwise{block-size=2048}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not dl-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(dlbridge-gpu-vectorize-elementwise{chunks-per-thread=0}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=NO-CHUNKS

// Block sizes CUDA cannot launch, or that leave warps partly empty, and
// chunk counts out of range are errors at the operation the pass runs on, naming the option.

// expected-error @+1 {{block-size=100: expected a multiple of 32 from 32 to 1024}}
func.func @f() {
  return
}

// TOO-MANY: error: block-size=2048: expected a multiple of 32 from 32 to 1024
// NO-CHUNKS: error: chunks-per-thread=0: expected 1 to 16
