// RUN: dl-opt %s --pass-pipeline='builtin.module(func.func(dlbridge-gpu-scans-to-kernels{block-size=48}))' \
// RUN:   -verify-diagnostics -split-input-file

// expected-error @+1 {{block-size=48: expected a multiple of 32 from 32 to 1024}}
func.func @bad_block_size() {
  return
}
